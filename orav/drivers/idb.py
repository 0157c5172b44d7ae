"""The iOS driver: ``orav.device.Device`` over one fb-idb client connection to a companion.

On a Mac the companion is the real ``idb_companion``; on Linux and in CI it is orav's simulator,
which speaks the same gRPC protocol. Every call is bounded by ``timeout``; a companion that
cannot be reached, hangs or goes away raises ``DeviceError`` naming its address, while one that
answers with an error is reported in the Observation or ActionResult, where recovery sees it.

One big thing: the whole Device protocol over fb-idb (long because the protocol is broad).
"""

from __future__ import annotations

import asyncio
import logging
import os
import struct
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Iterable, Iterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any, Self, TypeVar

from grpclib.const import Status
from grpclib.exceptions import GRPCError, ProtocolError, StreamTerminatedError
from idb.common.hid import KEY_MAP
from idb.common.types import (
    AccessibilityInfoOptions,
    AppProcessState,
    CrashLogQuery,
    HIDButtonType,
    IdbConnectionException,
    IdbException,
    Permission,
    QuiescenceState,
    QuiescenceStateChanged,
    QuiescenceTargetExited,
    TCPAddress,
)
from idb.grpc.client import Client

from orav.device import CrashReport
from orav.drivers.accessibility import AccessibilityError, parse_elements
from orav.errors import DeviceError, DeviceTimeout, InputError
from orav.model import (
    Action,
    ActionResult,
    DeviceInfo,
    Element,
    Launch,
    Observation,
    Point,
    PressKey,
    Screenshot,
    Settled,
    Swipe,
    Tap,
    Terminate,
    TypeText,
    Wait,
    locate,
)

T = TypeVar("T")

# A launch or terminate may take this long: the timeout ladder's restart rung (30 s); every
# other call gets ``timeout``, the ladder's describe-all rung (5 s by default).
LAUNCH_TIMEOUT = 30.0

# USB HID usages (keyboard page) of the named keys; "delete" is forward delete.
# HID usage 40 is "Return (ENTER)": ``enter`` is its Textual name, ``return`` orav's older one.
KEYCODES = {
    "enter": 40,
    "return": 40,
    "escape": 41,
    "backspace": 42,
    "tab": 43,
    "space": 44,
    "delete": 76,
}

# What a client call raises: idb's wrappers, grpclib's own, socket errors, and bad replies
# (protobuf or JSON that does not decode).
_CLIENT_ERRORS = (
    IdbException,
    IdbConnectionException,
    GRPCError,
    ProtocolError,
    StreamTerminatedError,
    OSError,
    ValueError,
)

# gRPC statuses that mean the companion itself is gone, not that it refused the request.
_GONE = {Status.UNAVAILABLE, Status.CANCELLED}

_TREES_KEPT = 4  # dumps whose elements a look reuses: the screens a run goes back and forth between
_FLAT = AccessibilityInfoOptions(nested=False)
_log = logging.getLogger(__name__)


class _Refused(Exception):
    """The companion answered a request with an error (internal: becomes a result's error)."""


class _Invalid(Exception):
    """An action the driver refuses to send (internal: becomes ``ok=False``)."""


def parse_address(address: str) -> TCPAddress:
    """``HOST:PORT`` (or ``[v6]:PORT``) as fb-idb's address; InputError on anything else."""
    host, sep, port = address.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise InputError(f"companion address must be HOST:PORT, got {address!r}")
    return TCPAddress(host=host, port=int(port))


class IdbDevice:
    """One app under test (``bundle_id``) on the target behind one idb companion.

    Open it with ``async with IdbDevice.connect(address, bundle_id=...) as device`` or
    ``await IdbDevice.open(...)`` and ``await device.close()``.
    """

    def __init__(
        self,
        client: Client,
        stack: AsyncExitStack,
        info: DeviceInfo,
        *,
        bundle_id: str,
        timeout: float,
        max_wait: float,
        disposable: bool = False,
    ) -> None:
        self._client = client
        self.disposable = disposable  # the target is orav's own (the simulator), or declared so
        self._stack = stack
        self._info = info
        self.bundle_id = bundle_id
        self.address = info.address
        self.timeout = timeout
        self.max_wait = max_wait
        self._quiescence = True  # until the companion answers that it has no such stream
        # The last dumps and their elements, newest first: an unchanged screen, or one the run
        # comes back to, answers the same text, which is not read again (its elements are
        # frozen, so the tuple is shared, and what perception read off it holds).
        self._trees: tuple[tuple[str | bytes, tuple[Element, ...]], ...] = ()

    @classmethod
    async def open(
        cls,
        address: str,
        *,
        bundle_id: str,
        timeout: float = 5.0,
        max_wait: float = 30.0,
        disposable: bool = False,
    ) -> Self:
        """Connect and describe the target; DeviceError when the companion cannot be reached.

        ``timeout`` bounds each call to the companion, ``max_wait`` the longest Wait action;
        ``disposable`` says the target is orav's own to throw away (the simulator, or a device
        the user declared so), not the user's own simulator or phone.
        """
        tcp = parse_address(address)
        stack = AsyncExitStack()
        try:
            async with asyncio.timeout(timeout):
                client = await stack.enter_async_context(Client.build(address=tcp, logger=_log))
        except TimeoutError:
            await stack.aclose()
            raise DeviceError(
                f"cannot reach idb companion at {address}: no answer within {timeout:g} s"
            ) from None
        except _CLIENT_ERRORS as exc:
            await stack.aclose()
            raise DeviceError(f"cannot reach idb companion at {address}: {_reason(exc)}") from None
        device = cls(
            client,
            stack,
            DeviceInfo(platform="ios", name="", address=address),
            bundle_id=bundle_id,
            timeout=timeout,
            max_wait=max_wait,
            disposable=disposable,
        )
        try:
            await device.describe()
        except BaseException:
            await device.close()
            raise
        return device

    @classmethod
    @asynccontextmanager
    async def connect(
        cls,
        address: str,
        *,
        bundle_id: str,
        timeout: float = 5.0,
        max_wait: float = 30.0,
        disposable: bool = False,
    ) -> AsyncIterator[Self]:
        """``open`` as a context manager that closes the connection on the way out."""
        device = await cls.open(
            address, bundle_id=bundle_id, timeout=timeout, max_wait=max_wait, disposable=disposable
        )
        try:
            yield device
        finally:
            await device.close()

    async def close(self) -> None:
        await self._stack.aclose()

    @property
    def client(self) -> Client:
        """The fb-idb client on the one connection, for calls the Device protocol lacks."""
        return self._client

    @property
    def info(self) -> DeviceInfo:
        """The target as last described (at connect time, or by the last ``describe()``)."""
        return self._info

    # --- the calls to the companion ----------------------------------------------------------

    async def _rpc(
        self, name: str, call: Awaitable[T], takes: float = 0.0, limit: float | None = None
    ) -> T:
        """Await one client call within the timeout (plus ``takes``, how long the gesture
        itself lasts; or ``limit``); translate its failures.

        Raises DeviceTimeout when the companion is silent for the call's rung of the ladder,
        DeviceError when it is unreachable or gone, and _Refused when it answered an error.
        """
        limit = limit if limit is not None else self.timeout + takes
        try:
            async with asyncio.timeout(limit):
                return await call
        except TimeoutError:
            raise DeviceTimeout(
                f"idb companion at {self.address} did not answer {name} within {limit:g} s"
            ) from None
        except _CLIENT_ERRORS as exc:
            grpc = _find(exc, GRPCError)
            if grpc is not None and grpc.status not in _GONE:
                raise _Refused(f"{name}: {grpc.message or grpc.status.name}") from None
            if grpc is not None or _is_connection_failure(exc):
                raise DeviceError(
                    f"lost idb companion at {self.address} during {name}: {_reason(exc)}"
                ) from None
            *_, innermost = _chain(exc)  # idb wraps grpclib's message in a tuple
            raise _Refused(f"{name}: {innermost}") from None

    async def _strict(self, name: str, call: Awaitable[T], limit: float | None = None) -> T:
        """``_rpc`` for the Device methods that have no result to carry an error in."""
        try:
            return await self._rpc(name, call, limit=limit)
        except _Refused as exc:
            raise DeviceError(f"idb companion at {self.address} refused {exc}") from None

    async def describe(self) -> DeviceInfo:
        target = await self._strict("describe", self._client.describe())
        dims = target.screen_dimensions
        scale = (dims.density if dims else None) or 1.0
        width = (dims.width_points or dims.width / scale) if dims else 0.0
        height = (dims.height_points or dims.height / scale) if dims else 0.0
        self._info = DeviceInfo(
            platform="ios",
            name=target.name,
            udid=target.udid,
            os_version=target.os_version or "",
            width=float(width),
            height=float(height),
            scale=float(scale),
            address=self.address,
            disposable=self.disposable,
        )
        return self._info

    async def settle(self, limit: float) -> Settled | None:
        """Wait until the app reports quiet on idb's accessibility quiescence stream (its run
        loop idle, its animations done), at most ``limit`` seconds; None when the companion
        has no such stream (asked once per connection) or it fails."""
        if not self._quiescence:
            return None
        start = time.monotonic()
        events = self._client.accessibility_quiescence(bundle_id=self.bundle_id)
        try:
            async with asyncio.timeout(limit):
                async for event in events:
                    quiet = isinstance(event, QuiescenceTargetExited) or (
                        isinstance(event, QuiescenceStateChanged)
                        and event.state is QuiescenceState.QUIET
                    )
                    if quiet:
                        return Settled(True, round(time.monotonic() - start, 3), "quiescence")
        except TimeoutError:
            return Settled(False, round(time.monotonic() - start, 3), "quiescence")
        except _CLIENT_ERRORS as exc:
            grpc = _find(exc, GRPCError)
            if grpc is not None and grpc.status is Status.UNIMPLEMENTED:
                self._quiescence = False
            return None
        finally:
            await events.aclose()
        return None

    async def is_running(self, bundle_id: str) -> bool:
        apps = await self._strict("list_apps", self._client.list_apps())
        return _running(apps, bundle_id)

    async def launch(
        self,
        bundle_id: str,
        *,
        arguments: Sequence[str] = (),
        environment: Mapping[str, str] | None = None,
    ) -> None:
        """Launch (or bring to the front) with launch arguments and environment variables."""
        await self._strict(
            f"launch of {bundle_id}",
            self._client.launch(
                bundle_id,
                args=list(arguments),
                env=dict(environment or {}),
                foreground_if_running=True,
            ),
            limit=max(self.timeout, LAUNCH_TIMEOUT),
        )

    async def terminate(self, bundle_id: str) -> None:
        await self._strict(
            f"terminate of {bundle_id}",
            self._client.terminate(bundle_id),
            limit=max(self.timeout, LAUNCH_TIMEOUT),
        )

    # --- the app lifecycle (orav.device.Lifecycle) -------------------------------------------

    async def install(self, bundle: Path) -> str:
        """Install an app bundle (a ``.app`` directory or an ``.ipa``; for ``orav sim`` also an
        app-model YAML, packaged as a ``.app`` first); the installed bundle id."""
        if not bundle.exists():
            raise InputError(f"no app bundle at {bundle}")
        with tempfile.TemporaryDirectory(prefix="orav-install-") as folder:
            if bundle.is_file() and bundle.suffix in (".yaml", ".yml"):
                app = Path(folder) / f"{bundle.stem}.app"  # as orav sim reads a bundle
                app.mkdir()
                (app / "app.yaml").write_bytes(bundle.read_bytes())
                bundle = app

            async def install() -> list[str]:
                return [artifact.name async for artifact in self._client.install(str(bundle))]

            names = await self._strict(
                f"install of {bundle.name}", install(), limit=max(self.timeout, LAUNCH_TIMEOUT)
            )
        if not names:
            raise DeviceError(f"idb companion at {self.address} installed nothing from {bundle}")
        return names[-1]

    async def uninstall(self, bundle_id: str) -> None:
        await self._strict(f"uninstall of {bundle_id}", self._client.uninstall(bundle_id))

    async def approve(self, bundle_id: str, permissions: Iterable[str]) -> None:
        """Grant permissions up front (``location``, ``photos``, ``camera``, ``contacts``,
        ``microphone``, ``notification``): the app never asks."""
        wanted = _permissions(permissions)
        await self._strict(f"approve for {bundle_id}", self._client.approve(bundle_id, wanted))

    async def revoke(self, bundle_id: str, permissions: Iterable[str]) -> None:
        """Deny permissions up front: the app never asks and is refused."""
        wanted = _permissions(permissions)
        await self._strict(f"revoke for {bundle_id}", self._client.revoke(bundle_id, wanted))

    async def clear_keychain(self) -> None:
        await self._strict("clear_keychain", self._client.clear_keychain())

    async def set_location(self, latitude: float, longitude: float) -> None:
        """The simulated location (GPS), as ``idb set-location``."""
        await self._strict("set_location", self._client.set_location(latitude, longitude))

    async def open_url(self, url: str) -> None:
        await self._strict(f"open_url {url}", self._client.open_url(url))

    async def crash_reports(self, bundle_id: str, since: float = 0.0) -> list[CrashReport]:
        """The app's crash reports written at or after ``since`` (Unix time), oldest first."""
        query = CrashLogQuery(bundle_id=bundle_id, since=int(since) or None)
        infos = await self._strict("crash_list", self._client.crash_list(query))
        reports = []
        for info in sorted(infos, key=lambda i: i.timestamp or 0):
            shown = await self._strict("crash_show", self._client.crash_show(info.name or ""))
            reports.append(CrashReport(info.name or "", shown.contents or "", info.timestamp or 0))
        return reports

    async def log_lines(self, seconds: float = 0.3) -> list[str]:
        """What the target logged so far: the log stream read for ``seconds``."""
        stop = asyncio.Event()
        lines: list[str] = []

        async def read() -> None:
            async for chunk in self._client.tail_logs(stop):
                lines.extend(chunk.splitlines())

        reader = asyncio.ensure_future(read())
        try:
            await asyncio.wait_for(asyncio.shield(reader), seconds)
        except TimeoutError:
            pass
        stop.set()
        try:
            await asyncio.wait_for(reader, self.timeout)
        except (TimeoutError, *_CLIENT_ERRORS):
            reader.cancel()
        return lines

    async def _elements(self) -> tuple[Element, ...]:
        info = await self._rpc("accessibility_info", self._client.accessibility_info(None, _FLAT))
        trees = self._trees
        for text, elements in trees:
            if info.json == text:
                return elements
        elements = parse_elements(info.json)
        self._trees = ((info.json, elements), *trees[: _TREES_KEPT - 1])
        return elements

    # --- observe -----------------------------------------------------------------------------

    async def observe(self) -> Observation:
        """Screenshot, tree and app state, fetched concurrently over the one connection.

        A companion error or a malformed dump is the observation's ``error`` (with whatever
        else could be had); only an unreachable or silent companion raises DeviceError.
        """
        taken_at = time.time()
        shot: Any  # fb-idb's screenshot and app list (untyped), or what each raised
        elements: tuple[Element, ...] | BaseException
        apps: Any
        shot, elements, apps = await asyncio.gather(
            self._rpc("screenshot", self._client.screenshot()),
            self._elements(),
            self._rpc("list_apps", self._client.list_apps()),
            return_exceptions=True,
        )
        outcomes = (shot, elements, apps)
        for outcome in outcomes:
            if isinstance(outcome, DeviceError):
                raise outcome
        for outcome in outcomes:
            if isinstance(outcome, BaseException) and not isinstance(
                outcome, (_Refused, AccessibilityError)
            ):
                raise outcome
        # A failed list_apps leaves the app's state unknown, not "not running": a crash needs
        # a failed dump too, and recovery asks again.
        errors = [str(o) for o in (shot, elements) if isinstance(o, BaseException)]
        return Observation(
            elements=() if isinstance(elements, BaseException) else elements,
            screenshot=None if isinstance(shot, BaseException) else self._screenshot(shot),
            app=self.bundle_id,
            app_running=None if isinstance(apps, BaseException) else _running(apps, self.bundle_id),
            taken_at=taken_at,
            error="; ".join(errors) or None,
        )

    def _screenshot(self, shot) -> Screenshot:
        width, height = shot.width, shot.height
        if width is None or height is None:
            width, height = _png_size(bytes(shot))
        scale = shot.screen_scale or self._info.scale
        return Screenshot.of(bytes(shot), width, height, shot.format.value, scale)

    # --- perform -----------------------------------------------------------------------------

    async def perform(self, action: Action) -> ActionResult:
        """Do one action. Refusals (unknown target, off-screen point, untypable text, a
        companion error) are ``ok=False`` with the reason; nothing is sent for them."""
        start = time.monotonic()
        try:
            point = await self._do(action)
        except (_Refused, _Invalid) as exc:
            return ActionResult(ok=False, error=str(exc), seconds=time.monotonic() - start)
        return ActionResult(ok=True, point=point, seconds=time.monotonic() - start)

    async def _do(self, action: Action) -> Point | None:
        client = self._client
        match action:
            case Tap():
                point = await self._tap_point(action)
                await self._rpc(
                    "tap", client.tap(point.x, point.y, action.duration or None), action.duration
                )
                return point
            case TypeText(text=text, secure=secure):
                _check_typable(text, secure)
                await self._rpc("text", client.text(text))  # never empty: the model says so
            case Swipe(start=start, end=end, duration=duration):
                self._check_on_screen(start, "swipe start")
                self._check_on_screen(end, "swipe end")
                await self._rpc(
                    "swipe",
                    client.swipe((start.x, start.y), (end.x, end.y), duration or None),
                    duration,
                )
            case PressKey(key=key):
                await self._press(key)
            case Wait(seconds=seconds):
                if not 0 <= seconds <= self.max_wait:
                    raise _Invalid(f"wait of {seconds:g} s is outside 0..{self.max_wait:g} s")
                await asyncio.sleep(seconds)
            case Launch(bundle_id=bundle_id, fresh=fresh):
                await self._launch(bundle_id or self.bundle_id, fresh=fresh)
            case Terminate(bundle_id=bundle_id):
                await self._stop(client, bundle_id or self.bundle_id)
            case _:
                raise _Invalid(f"{action.kind} is not a device action")
        return None

    async def _press(self, key: str | int) -> None:
        """The home button, a named key (KEYCODES) or a HID keycode (1-255: the model checks)."""
        if key == "home":
            await self._rpc("home button", self._client.button(HIDButtonType.HOME))
            return
        if isinstance(key, str) and key not in KEYCODES:
            raise _Invalid(
                f"key {key!r} has no iOS keycode here; press one of "
                f"{', '.join([*KEYCODES, 'home'])} or a HID keycode"
            )
        code = KEYCODES[key] if isinstance(key, str) else key
        await self._rpc(f"key {key}", self._client.key(code))

    async def _launch(self, bundle_id: str, *, fresh: bool) -> None:
        """Launch the app (foreground if it runs), stopped first when ``fresh``."""
        if fresh:
            await self._stop(self._client, bundle_id)
        await self._rpc(
            f"launch of {bundle_id}",
            self._client.launch(bundle_id, foreground_if_running=True),
            limit=max(self.timeout, LAUNCH_TIMEOUT),
        )

    async def _stop(self, client: Any, bundle_id: str) -> None:
        await self._rpc(
            f"terminate of {bundle_id}",
            client.terminate(bundle_id),
            limit=max(self.timeout, LAUNCH_TIMEOUT),
        )

    async def _tap_point(self, tap: Tap) -> Point:
        """Coordinates when the tap has them (a target then only names what is meant);
        otherwise the centre of the target's element on a fresh tree."""
        if tap.x is not None and tap.y is not None:
            point = Point(tap.x, tap.y)
            self._check_on_screen(point, "tap")
            return point
        target = tap.target
        if target is None:  # a Tap has a target or both coordinates
            raise _Invalid("a tap needs a target or both x and y")
        if target.selector is not None:
            raise _Invalid(f"a {target} is a Textual CSS selector; iOS taps a label or an id")
        try:
            elements = await self._elements()
        except AccessibilityError as exc:
            raise _Invalid(f"cannot resolve target {target}: {exc}") from None
        element = locate(elements, target.label, target.id)
        if element is None:
            raise _Invalid(f"no element {target} on screen")
        centre = element.frame.center
        if not self._on_screen(centre):
            raise _Invalid(f"element {target} is off screen (centre {centre.x:g}, {centre.y:g})")
        return centre

    def _on_screen(self, point: Point) -> bool:
        info = self._info
        if info.width <= 0 or info.height <= 0:
            return True
        return 0 <= point.x < info.width and 0 <= point.y < info.height

    def _check_on_screen(self, point: Point, what: str) -> None:
        if not self._on_screen(point):
            raise _Invalid(
                f"{what} at ({point.x:g}, {point.y:g}) is outside the "
                f"{self._info.width:g}x{self._info.height:g} pt screen"
            )


def _permissions(names: Iterable[str]) -> set[Permission]:
    wanted = set()
    for name in names:
        try:
            wanted.add(Permission[name.upper()])
        except KeyError:
            known = ", ".join(p.name.lower() for p in Permission)
            raise InputError(f"unknown permission {name!r}; known are {known}") from None
    return wanted


def _check_typable(text: str, secure: bool) -> None:
    for index, char in enumerate(text):
        if char not in KEY_MAP:
            shown = f"character {index + 1}" if secure else repr(char)
            raise _Invalid(f"cannot type {shown}: idb has no HID keycode for it")


def _running(apps, bundle_id: str) -> bool:
    return any(
        app.bundle_id == bundle_id and app.process_state == AppProcessState.RUNNING for app in apps
    )


def _png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk (0, 0 for anything else)."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        return struct.unpack(">II", data[16:24])
    return 0, 0


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _find(exc: BaseException, kind: type[T]) -> T | None:
    return next((e for e in _chain(exc) if isinstance(e, kind)), None)


def _is_connection_failure(exc: BaseException) -> bool:
    return any(
        isinstance(e, (OSError, IdbConnectionException, StreamTerminatedError)) for e in _chain(exc)
    )


def _reason(exc: BaseException) -> str:
    """A short human reason: 'connection refused' rather than a grpclib traceback."""
    os_error = _find(exc, OSError)
    if os_error is not None and isinstance(os_error.errno, int) and os_error.errno > 0:
        return os.strerror(os_error.errno).lower()
    if os_error is not None and os_error.strerror:  # e.g. a host name that does not resolve
        return os_error.strerror.lower()
    if _find(exc, StreamTerminatedError) is not None:
        return "connection lost"
    grpc = _find(exc, GRPCError)
    if grpc is not None:
        return grpc.message or grpc.status.name.lower()
    return str(exc) or type(exc).__name__


__all__ = ["KEYCODES", "IdbDevice", "parse_address"]
