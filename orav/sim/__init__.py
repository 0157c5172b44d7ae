"""The simulated idb companion: an app model served over idb's real gRPC protocol."""

from orav.sim.appmodel import AppModel, load_app_model
from orav.sim.server import DEMO_APP, SHOP_APP, SimCompanion, bundled_app
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
