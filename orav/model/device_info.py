"""What a device says about itself: its platform, name and screen."""

from __future__ import annotations

from attrs import frozen


@frozen
class DeviceInfo:
    """The target: its platform (``ios`` or ``textual``) and screen size in points;
    ``disposable`` when the app's world is orav's own and thrown away after the run (a
    sandbox, the simulator), so a destructive deed harms nothing of the user's; ``network``
    whether the app could reach the network: "off", "on", or why it could not be turned off
    ("" when the device does not say)."""

    platform: str
    name: str
    udid: str = ""
    os_version: str = ""
    width: float = 0.0
    height: float = 0.0
    scale: float = 1.0
    address: str = ""
    disposable: bool = False
    network: str = ""

    @property
    def unit(self) -> str:
        """What the screen is measured in: a terminal's character cells, else points."""
        return "cells" if self.platform == "textual" else "pt"
