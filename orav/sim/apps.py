"""The app models shipped with orav: the demo app and the shop."""

from __future__ import annotations

from pathlib import Path

DEMO_APP = Path(__file__).with_name("demo.yaml")
SHOP_APP = Path(__file__).with_name("shop.yaml")
BUNDLED = {"com.orav.demo": DEMO_APP, "com.orav.shop": SHOP_APP}


def bundled_app(bundle_id: str) -> Path:
    """The app model shipped for ``bundle_id`` (the shop or the demo app; the demo for any
    other bundle id, as ``orav sim`` serves it by default)."""
    return BUNDLED.get(bundle_id, DEMO_APP)
