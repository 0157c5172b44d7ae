"""The simulated idb companion: an app model served over idb's real gRPC protocol."""

from orav.sim.appmodel import AppModel
from orav.sim.apps import DEMO_APP, SHOP_APP, bundled_app
from orav.sim.companion import SimCompanion
from orav.sim.loading import load_app_model
from orav.sim.state import AppState

__all__ = [
    "DEMO_APP",
    "SHOP_APP",
    "AppModel",
    "AppState",
    "SimCompanion",
    "bundled_app",
    "load_app_model",
]
