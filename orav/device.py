"""The Device protocol: what the engine needs of any platform driver (all async)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from orav.model import Action, Observation
from orav.model.device_info import ActionResult, DeviceInfo


@runtime_checkable
class Device(Protocol):
    """One app under test on one target. Every call is bounded by a timeout of its own.

    Drivers raise ``orav.errors.DeviceError`` (naming the address) when the target is gone.
    """

    async def describe(self) -> DeviceInfo: ...

    async def observe(self) -> Observation: ...

    async def perform(self, action: Action) -> ActionResult: ...

    async def launch(self, bundle_id: str) -> None: ...

    async def terminate(self, bundle_id: str) -> None: ...

    async def is_running(self, bundle_id: str) -> bool: ...

    async def close(self) -> None: ...
