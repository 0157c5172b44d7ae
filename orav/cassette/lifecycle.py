"""The lifecycle calls of an iOS target as a cassette holds them: one ``LifecycleEvent`` each.

``RecordingDevice`` and ``ReplayDevice`` both offer ``orav.device.Lifecycle`` through this
mixin; each supplies ``_lifecycle(call, arguments)``, which records the call or serves the
recorded one and answers its result as JSON.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from orav.codec import structure
from orav.device import CrashReport


class LifecycleCalls:
    """install, uninstall, approve, revoke, clear_keychain, open_url, crash_reports, each as a
    call name and its JSON arguments (``launch`` with arguments is the classes' own)."""

    async def _lifecycle(self, call: str, arguments: dict[str, Any]) -> Any:
        raise NotImplementedError

    async def install(self, bundle: Path) -> str:
        return await self._lifecycle("install", {"bundle": str(bundle)})

    async def uninstall(self, bundle_id: str) -> None:
        await self._lifecycle("uninstall", {"bundle_id": bundle_id})

    async def approve(self, bundle_id: str, permissions: Iterable[str]) -> None:
        await self._lifecycle("approve", {"bundle_id": bundle_id, "permissions": list(permissions)})

    async def revoke(self, bundle_id: str, permissions: Iterable[str]) -> None:
        await self._lifecycle("revoke", {"bundle_id": bundle_id, "permissions": list(permissions)})

    async def clear_keychain(self) -> None:
        await self._lifecycle("clear_keychain", {})

    async def open_url(self, url: str) -> None:
        await self._lifecycle("open_url", {"url": url})

    async def crash_reports(self, bundle_id: str, since: float = 0.0) -> list[CrashReport]:
        found = await self._lifecycle("crash_reports", {"bundle_id": bundle_id, "since": since})
        return structure(found or [], list[CrashReport])
