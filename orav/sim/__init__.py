"""The simulated idb companion: an app model served over idb's real gRPC protocol."""

from orav.sim.appmodel import AppModel, load_app_model
from orav.sim.server import DEMO_APP, SimCompanion
from orav.sim.state import AppState

__all__ = ["DEMO_APP", "AppModel", "AppState", "SimCompanion", "load_app_model"]
