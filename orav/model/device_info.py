"""What a device says about itself: its platform, name and screen."""

from __future__ import annotations

from attrs import frozen


@frozen
class DeviceInfo:
    """The target: its platform (``ios`` or ``textual``) and screen size in points."""

    platform: str
    name: str
    udid: str = ""
    os_version: str = ""
    width: float = 0.0
    height: float = 0.0
    scale: float = 1.0
    address: str = ""
