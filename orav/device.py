"""The Device protocol: what the engine needs of any platform driver (all async)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from attrs import frozen

from orav.model import Action, Observation, WorldChanges
from orav.model.action_result import ActionResult, Settled
from orav.model.device_info import DeviceInfo


@runtime_checkable
class Device(Protocol):
    """One app under test on one target. Every call is bounded by a timeout of its own.

    Drivers raise ``orav.errors.DeviceError`` (naming the address) when the target is gone.
    """

    async def describe(self) -> DeviceInfo:
        """What the target is (platform, name, screen size), for the cassette's header."""
        ...

    async def observe(self) -> Observation:
        """One look at the app: its elements, a screenshot, whether it runs."""
        ...

    async def perform(self, action: Action) -> ActionResult:
        """Do one action. One the app refused is a result (``ok=False`` and why), not an
        error: errors are for a target that is gone."""
        ...

    async def launch(self, bundle_id: str) -> None:
        """Start the app ``bundle_id``."""
        ...

    async def terminate(self, bundle_id: str) -> None:
        """Stop the app ``bundle_id``."""
        ...

    async def is_running(self, bundle_id: str) -> bool:
        """Whether the app ``bundle_id`` runs now."""
        ...

    async def close(self) -> None:
        """Let go of the target (a connection, an app run in-process)."""
        ...


@runtime_checkable
class Settling(Protocol):
    """A device that can tell when the app is quiet (idb's accessibility quiescence stream,
    Textual's idle message queue): the engine waits for that, not for a clock.

    ``settle(limit)`` returns once the app is quiet, or after ``limit`` seconds, or None when
    the target cannot tell (an older companion): the engine then compares two looks.
    """

    async def settle(self, limit: float) -> Settled | None:
        """Return once the app is quiet or ``limit`` seconds passed; None: cannot tell."""
        ...


@runtime_checkable
class World(Protocol):
    """A device whose app runs in a world it can inspect: a Textual app's sandbox folder, the
    simulator's app data. The engine asks after every action what it changed (a deed known by
    its effect) and the ledger lists it; ``disposable`` says the world is orav's own, thrown
    away after the run, so a destructive deed harms nothing of the user's."""

    disposable: bool

    async def changes(self) -> WorldChanges:
        """What changed in the world since the last call (the first: since the launch)."""
        ...


@frozen
class CrashReport:
    """A crash report the target wrote: its file name, its text, and when (Unix time)."""

    name: str
    contents: str
    timestamp: float = 0.0


@runtime_checkable
class Lifecycle(Protocol):
    """What a target that installs and configures apps offers besides ``Device`` (iOS via idb):
    the lifecycle steps a run takes before it starts (install, permissions, keychain, launch
    arguments) and the crash reports it reads after. Every call raises DeviceError on failure.
    """

    async def install(self, bundle: Path) -> str:
        """Install the app bundle at ``bundle`` (``.app``, ``.ipa``); its bundle id."""
        ...

    async def uninstall(self, bundle_id: str) -> None:
        """Remove the app ``bundle_id``."""
        ...

    async def launch(
        self,
        bundle_id: str,
        *,
        arguments: Sequence[str] = (),
        environment: Mapping[str, str] | None = None,
    ) -> None:
        """Launch ``bundle_id`` afresh with launch ``arguments`` and ``environment``."""
        ...

    async def approve(self, bundle_id: str, permissions: Iterable[str]) -> None:
        """Grant the app ``permissions`` (``photos``, ``location``…) before it asks."""
        ...

    async def revoke(self, bundle_id: str, permissions: Iterable[str]) -> None:
        """Deny the app ``permissions`` before it asks."""
        ...

    async def clear_keychain(self) -> None:
        """Empty the target's keychain (saved passwords and tokens)."""
        ...

    async def open_url(self, url: str) -> None:
        """Open ``url`` on the target (a deep link into the app)."""
        ...

    async def crash_reports(self, bundle_id: str, since: float = 0.0) -> list[CrashReport]:
        """The crash reports of ``bundle_id`` written at or after ``since`` (Unix time)."""
        ...
