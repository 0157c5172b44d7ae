"""The simulated idb companion's service: fb-idb's own gRPC ``CompanionService``.

The real fb-idb client and the real ``idb`` CLI drive it as they would a Mac's
``idb_companion``; RPCs a simulator has no use for answer UNIMPLEMENTED. One big thing: one
method per RPC idb defines, each turning a request into calls on the apps' states
(``orav.sim.state``) and their answers back into idb's messages; ``orav.sim.companion``
serves it on a socket.
"""

from __future__ import annotations

import abc
import asyncio
import functools
import hashlib
import json
import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from attrs import define
from grpclib import GRPCError, Status
from grpclib.exceptions import StreamTerminatedError
from grpclib.server import Stream
from h2.exceptions import StreamClosedError
from idb.grpc import idb_pb2 as pb
from idb.grpc.idb_grpc import CompanionServiceBase
from PIL import Image

from orav.errors import InputError
from orav.model import Point
from orav.sim.accessibility import describe_all, describe_marker, describe_point
from orav.sim.bundle import MAX_BUNDLE_BYTES, read_bundle
from orav.sim.diagnostics import CrashReport
from orav.sim.keys import CHARS, NAMED_KEYCODES, SHIFT
from orav.sim.motion import BUSY_THRESHOLD_MS, QUIET_WINDOW_MS
from orav.sim.render import encode, encode_image, render
from orav.sim.scope import AppModelError
from orav.sim.state import AppState
from orav.sim.view import View

UDID = "0RAV51M-0000-4000-8000-000000000001"
IMPLEMENTED = {
    "connect",
    "describe",
    "accessibility_info",
    "screenshot",
    "hid",
    "launch",
    "terminate",
    "list_apps",
    "install",
    "uninstall",
    "approve",
    "revoke",
    "clear_keychain",
    "open_url",
    "set_location",
    "crash_list",
    "crash_show",
    "crash_delete",
    "log",
    "accessibility_quiescence",
}
LOG_FOLLOW = 3600.0  # seconds a log stream follows the apps at most
LOG_POLL = 0.1
QUIESCENCE_FOLLOW = 3600.0  # seconds a quiescence stream follows an app at most


# grpclib logs a failed request with its traceback; with no logging configured Python prints
# that on stderr. A handler keeps it off the terminal (configured logging still receives it).
logging.getLogger("grpclib.server").addHandler(logging.NullHandler())


def _unimplemented(name: str) -> Callable:
    async def handler(self, stream: Stream) -> None:
        raise GRPCError(Status.UNIMPLEMENTED, f"orav sim does not implement {name}")

    handler.__name__ = name
    return handler


def _guarded(method: Callable) -> Callable:
    """An unexpected exception becomes one INTERNAL status line for the client."""

    @functools.wraps(method)
    async def handler(self, stream: Stream) -> None:
        try:
            await method(self, stream)
        except (GRPCError, StreamTerminatedError):
            raise
        except Exception as exc:  # noqa: BLE001 - a simulator bug: the client gets one line
            what = f"orav sim: {method.__name__} failed: {type(exc).__name__}: {exc}"
            raise GRPCError(Status.INTERNAL, what) from None

    return handler


def _fill_unimplemented(cls: type) -> type:
    """Give every RPC the class does not define an UNIMPLEMENTED answer; guard the others."""
    for name in CompanionServiceBase.__abstractmethods__:
        if name in IMPLEMENTED:
            setattr(cls, name, _guarded(getattr(cls, name)))
        else:
            setattr(cls, name, _unimplemented(name))
    abc.update_abstractmethods(cls)
    return cls


@define
class _Held:
    """What one hid stream holds from one event to the next: where a touch went down, whether
    shift is down, whether a touch or swipe completed."""

    touch: Point | None = None
    shifted: bool = False
    touched: bool = False


@_fill_unimplemented
class CompanionService(CompanionServiceBase):
    """idb's CompanionService over a simulated device and the apps installed on it.

    ``state`` is the app in front (the one last launched); the others keep their state.
    """

    def __init__(
        self,
        state: AppState,
        scale: float,
        *,
        seed: int = 0,
        clock: Callable[[], datetime] = datetime.now,
        ticker: Callable[[], float] = time.monotonic,
        animation_ms: int | None = None,
    ) -> None:
        self.apps: dict[str, AppState] = {state.model.bundle_id: state}
        self.front = state.model.bundle_id
        self.scale = scale
        self.seed = seed
        self.clock = clock
        self.ticker = ticker
        self.animation_ms = animation_ms

    @property
    def state(self) -> AppState:
        return self.apps[self.front]

    def _companion(self) -> pb.CompanionInfo:
        return pb.CompanionInfo(udid=UDID, is_local=False, metadata=b"")

    async def connect(self, stream: Stream) -> None:
        await stream.recv_message()  # its fields are not used
        await stream.send_message(pb.ConnectResponse(companion=self._companion()))

    async def describe(self, stream: Stream) -> None:
        await stream.recv_message()  # its fields are not used
        model = self.state.model
        dimensions = pb.ScreenDimensions(
            width=round(model.width * self.scale),
            height=round(model.height * self.scale),
            density=self.scale,
            width_points=round(model.width),
            height_points=round(model.height),
        )
        target = pb.TargetDescription(
            udid=UDID,
            name="iPhone (orav sim)",
            screen_dimensions=dimensions,
            state="Booted",
            target_type="simulator",
            os_version="iOS 17.5",
            architecture="arm64",
            extended=json.dumps({"orav_sim": True}).encode(),
        )
        response = pb.TargetDescriptionResponse(
            target_description=target, companion=self._companion()
        )
        await stream.send_message(response)

    async def accessibility_info(self, stream: Stream) -> None:
        request = await _receive(stream)
        await _stall(self.state.faults.describe_stall())
        keys = tuple(request.keys)
        if request.marker and request.match:
            raise GRPCError(Status.INVALID_ARGUMENT, "marker and match are exclusive")
        state = self.state
        if request.HasField("point"):
            point = Point(request.point.x, request.point.y)
            text = describe_point(state.motion.seen(state.view()), point, keys)  # no fault counts
        elif request.marker:
            marked = describe_marker(
                state.motion.seen(state.view()),
                request.marker,
                request.match_key,
                request.ignore_case,
                keys,
            )
            if marked is None:
                raise GRPCError(Status.NOT_FOUND, f"no element matches {request.marker!r}")
            text = marked
        else:
            observed = state.observe_tree()  # an observation: counts the loading fault down
            state.motion.spinner(state.spinning)
            text = describe_all(
                None if observed is None else state.motion.seen(observed),
                nested_form=request.format == pb.AccessibilityInfoRequest.NESTED,
                keys=keys,
                match=request.match,
                match_key=request.match_key,
                ignore_case=request.ignore_case,
            )
        await stream.send_message(pb.AccessibilityInfoResponse(json=text))

    async def screenshot(self, stream: Stream) -> None:
        request = await _receive(stream)
        fmt = pb.ScreenshotRequest.Format.Name(request.format).lower()
        if request.compression_quality and fmt != "jpeg":
            raise GRPCError(Status.INVALID_ARGUMENT, "compression_quality is for JPEG only")
        if not 0 <= request.compression_quality <= 1:
            raise GRPCError(Status.INVALID_ARGUMENT, "compression_quality must be in (0, 1]")
        view = self.state.motion.seen(self.state.view())
        source = render(view, self.scale)
        plain = not request.HasField("crop") and request.WhichOneof("scale") is None
        if plain:
            data, size = encode(view, self.scale, fmt, request.compression_quality), source.size
        else:
            image = self._transform(view, source, request)
            data, size = encode_image(image, fmt, request.compression_quality), image.size
        await stream.send_message(
            pb.ScreenshotResponse(
                image_data=data,
                image_format=fmt,
                destination=pb.ScreenshotResponse.Size(width=size[0], height=size[1]),
                source=pb.ScreenshotResponse.Size(width=source.width, height=source.height),
                screen_scale=self.scale,
            )
        )

    def _transform(self, view: View, image: Image.Image, request) -> Image.Image:
        """Crop, then scale (a factor, or fit into a box), as the companion applies them."""
        unit = self.scale if request.unit == pb.ScreenshotRequest.POINTS else 1.0
        if request.HasField("crop"):
            c = request.crop
            box = (c.x * unit, c.y * unit, (c.x + c.width) * unit, (c.y + c.height) * unit)
            box = (
                max(0, round(box[0])),
                max(0, round(box[1])),
                min(image.width, round(box[2])),
                min(image.height, round(box[3])),
            )
            if box[2] <= box[0] or box[3] <= box[1]:
                raise GRPCError(Status.INVALID_ARGUMENT, "crop lies outside the screen")
            image = image.crop(box)
        which = request.WhichOneof("scale")
        factor = 1.0
        if which == "scale_factor":
            factor = request.scale_factor
            if not 0 < factor <= 1:
                raise GRPCError(Status.INVALID_ARGUMENT, "scale_factor must be in (0, 1]")
        elif which == "fit":
            bounds = [
                bound / size
                for bound, size in (
                    (request.fit.max_width, image.width),
                    (request.fit.max_height, image.height),
                )
                if bound
            ]
            factor = min([1.0, *bounds])
        if factor < 1:
            size = (max(1, round(image.width * factor)), max(1, round(image.height * factor)))
            image = image.resize(size, Image.Resampling.BILINEAR)
        return image

    async def hid(self, stream: Stream) -> None:
        state = self.state
        live = state.begin_input()
        layout = state.layout()
        shown = state.motion.before(state.view) if state.foreground else None
        held = _Held()
        async for event in stream:
            if live:
                self._event(state, event, held)
        if live:
            state.end_input()
        self._moved(state, layout, shown)
        if held.touched:
            state.motion.touched()
        await stream.send_message(pb.HIDResponse())

    def _event(self, state: AppState, event: Any, held: _Held) -> None:
        """One HID event: a swipe, or a press (a touch, a key, a button) going down or up."""
        kind = event.WhichOneof("event")
        if kind == "swipe":
            s, e = event.swipe.start, event.swipe.end
            state.swipe(Point(s.x, s.y), Point(e.x, e.y))
            held.touched = True
        elif kind == "press":
            self._press(state, event.press, held)

    def _press(self, state: AppState, press: Any, held: _Held) -> None:
        """A touch taps where it went down once it lifts; a key types as it goes down (with
        shift as held); the home button goes home."""
        action = press.action
        down = press.direction == pb.HIDEvent.DOWN
        which = action.WhichOneof("action")
        if which == "touch":
            if down:
                held.touch = Point(action.touch.point.x, action.touch.point.y)
            elif held.touch is not None:
                state.tap(held.touch)
                held.touch, held.touched = None, True
        elif which == "key":
            code = action.key.keycode
            if code == SHIFT:
                held.shifted = down
            elif down:
                self._key(code, held.shifted)
        elif which == "button" and down and action.button.button == pb.HIDEvent.HOME:
            state.home()

    @staticmethod
    def _moved(state: AppState, layout: object, shown: View | None) -> None:
        """After an input: what it moved animates for the modelled time; a spinner runs."""
        if not state.foreground:
            state.motion.stop()
            return
        state.motion.after(layout, state.layout(), shown, state.animation_time())
        state.motion.spinner(state.spinning)

    async def accessibility_quiescence(self, stream: Stream) -> None:
        """idb's quiescence stream, answered from the time model: the state once known, then
        every change, touches as they complete, until the client closes it or the app exits."""
        request = await _receive(stream)
        target = request.WhichOneof("target")
        if target == "bundle_id":
            state = self._app(request.bundle_id)
        elif target == "pid":
            found = next(
                (a for a in self.apps.values() if a.running and a.pid == request.pid), None
            )
            if found is None:
                raise GRPCError(Status.NOT_FOUND, f"no running app has pid {request.pid}")
            state = found
        else:
            state = self.state
        if not state.running:
            what = f"{state.model.bundle_id} is not running"
            raise GRPCError(Status.FAILED_PRECONDITION, what)
        # unset tunables take this companion's defaults, as the real one takes its own
        busy = "busy_threshold_ms"
        busy_ms = request.busy_threshold_ms if request.HasField(busy) else BUSY_THRESHOLD_MS
        quiet = "quiet_window_ms"
        quiet_ms = request.quiet_window_ms if request.HasField(quiet) else QUIET_WINDOW_MS
        try:
            await self._follow(stream, state, busy_ms, quiet_ms)
        except (StreamClosedError, StreamTerminatedError):
            pass  # the client has its answer and closed the stream

    @staticmethod
    async def _follow(stream: Stream, state: AppState, busy_ms: int, quiet_ms: int) -> None:
        motion, pid, launches = state.motion, state.pid, state.launches
        response = pb.AccessibilityQuiescenceResponse
        last, touches = None, motion.touches
        deadline = time.monotonic() + QUIESCENCE_FOLLOW
        while time.monotonic() < deadline:
            if not state.running or state.launches != launches:
                await stream.send_message(response(pid=pid, target_exited=response.TargetExited()))
                return
            if motion.touches != touches:
                touches = motion.touches
                done = response.TouchesCompleted()
                await stream.send_message(response(pid=pid, touches_completed=done))
            moment = motion.moment(busy_ms, quiet_ms)
            if moment.state != last:
                last = moment.state
                await stream.send_message(response(pid=pid, state=_quiescence(moment.state)))
            await motion.change(moment.until)

    def _key(self, code: int, shifted: bool) -> None:
        if code in NAMED_KEYCODES:
            self.state.press(NAMED_KEYCODES[code])
        elif (code, shifted) in CHARS:
            self.state.type_char(CHARS[(code, shifted)])

    async def launch(self, stream: Stream) -> None:
        request: Any = await stream.recv_message()
        if request is None or request.WhichOneof("control") != "start":
            raise GRPCError(Status.INVALID_ARGUMENT, "launch needs a start request first")
        start = request.start
        app = self._app(start.bundle_id)
        await _stall(app.faults.launch_stall())
        self.front = start.bundle_id
        try:
            app.launch(tuple(start.app_args), dict(start.env))
        except AppModelError as exc:
            raise GRPCError(Status.FAILED_PRECONDITION, str(exc)) from None
        app.motion.stop()  # the app shows as launched at once (no launch animation)
        async for _ in stream:  # wait_for: the app "runs" until the client says stop
            pass

    async def terminate(self, stream: Stream) -> None:
        request = await _receive(stream)
        app = self._app(request.bundle_id)
        app.terminate()
        app.motion.stop()
        await stream.send_message(pb.TerminateResponse())

    async def list_apps(self, stream: Stream) -> None:
        request = await _receive(stream)
        front = self.state
        if front.running and front.faults.list_apps_fails():
            raise GRPCError(Status.INTERNAL, "list_apps failed: CoreSimulator did not answer")
        apps = []
        for state in self.apps.values():
            if not state.installed:
                continue
            app = pb.InstalledAppInfo(
                bundle_id=state.model.bundle_id,
                name=state.model.name,
                architectures=["arm64"],
                install_type="user",
                debuggable=True,
            )
            if not request.suppress_process_state:
                running = state.running
                app.process_state = (
                    pb.InstalledAppInfo.RUNNING if running else pb.InstalledAppInfo.NOT_RUNNING
                )
                app.process_identifier = state.pid if running else 0
            apps.append(app)
        await stream.send_message(pb.ListAppsResponse(apps=apps))

    # --- the app lifecycle ---------------------------------------------------------------

    async def install(self, stream: Stream) -> None:
        """An app bundle (orav/sim/bundle.py): a new app, or a new version of one (whose
        keychain, as on iOS, survives); it is installed, not launched."""
        chunks: list[bytes] = []
        size = 0
        name = ""
        async for request in stream:
            if request.WhichOneof("value") == "destination":
                if request.destination != pb.InstallRequest.APP:
                    what = pb.InstallRequest.Destination.Name(request.destination)
                    raise GRPCError(Status.UNIMPLEMENTED, f"orav sim installs apps, not {what}")
            elif request.WhichOneof("value") == "name_hint":
                name = request.name_hint or name
            elif request.WhichOneof("value") == "payload":
                which = request.payload.WhichOneof("source")
                if which == "data":
                    chunks.append(request.payload.data)
                    size += len(request.payload.data)
                else:  # a path or URL: the companion reads no files of the client's choosing
                    what = "orav sim is a remote companion: send the bundle's bytes, not a path"
                    raise GRPCError(Status.INVALID_ARGUMENT, what)
                if size > MAX_BUNDLE_BYTES:
                    raise GRPCError(
                        Status.RESOURCE_EXHAUSTED, f"a bundle of more than {MAX_BUNDLE_BYTES} bytes"
                    )
        try:
            model = read_bundle(b"".join(chunks), name)
        except InputError as exc:
            raise GRPCError(Status.INVALID_ARGUMENT, f"not an orav sim app: {exc}") from None
        old = self.apps.get(model.bundle_id)
        state = AppState(
            model,
            seed=self.seed,
            clock=self.clock,
            running=False,
            ticker=self.ticker,
            animation_ms=self.animation_ms,
        )
        if old is not None:
            old.terminate()
            state.keychain, state.launches = old.keychain, old.launches
            state.crashes, state.log, state.grants = old.crashes, old.log, old.grants
        state.log.append(f"{model.bundle_id}: installed")
        self.apps[model.bundle_id] = state
        uuid = hashlib.sha1(b"".join(chunks)).hexdigest()[:32]
        await stream.send_message(pb.InstallResponse(name=model.bundle_id, uuid=uuid))

    async def uninstall(self, stream: Stream) -> None:
        request = await _receive(stream)
        app = self._app(request.bundle_id)
        app.terminate()
        app.installed = False
        app.keychain = dict(app.keychain)  # the keychain outlives the app, as on iOS
        app.log.append(f"{request.bundle_id}: uninstalled")
        await stream.send_message(pb.UninstallResponse())

    async def approve(self, stream: Stream) -> None:
        await self._grant(await _receive(stream), True)
        await stream.send_message(pb.ApproveResponse())

    async def revoke(self, stream: Stream) -> None:
        await self._grant(await _receive(stream), False)
        await stream.send_message(pb.RevokeResponse())

    async def _grant(self, request, allowed: bool) -> None:
        app = self._app(request.bundle_id)
        for permission in request.permissions:
            name = pb.ApproveRequest.Permission.Name(permission).lower()
            app.grants[name] = allowed

    async def clear_keychain(self, stream: Stream) -> None:
        await stream.recv_message()  # its fields are not used
        for app in self.apps.values():
            app.clear_keychain()
        await stream.send_message(pb.ClearKeychainResponse())

    async def open_url(self, stream: Stream) -> None:
        request = await _receive(stream)
        for bundle_id, app in self.apps.items():
            if app.installed and app.routes_for(request.url):
                self.front = bundle_id
                shown = app.motion.before(app.view) if app.foreground else None
                layout, app.hint_ms = app.layout(), None
                try:
                    app.open_url(request.url)
                except AppModelError as exc:
                    raise GRPCError(Status.FAILED_PRECONDITION, str(exc)) from None
                if shown is None:
                    app.motion.stop()  # a link that launches the app shows it at once
                else:
                    self._moved(app, layout, shown)  # a route in the running app animates
                # idb's proto answers open_url with the request type, not OpenUrlResponse
                await stream.send_message(pb.OpenUrlRequest(url=request.url))
                return
        raise GRPCError(Status.NOT_FOUND, f"no installed app opens {request.url!r}")

    async def set_location(self, stream: Stream) -> None:
        request = await _receive(stream)
        location = (request.location.latitude, request.location.longitude)
        for app in self.apps.values():
            app.location = location
        await stream.send_message(pb.SetLocationResponse())

    async def crash_list(self, stream: Stream) -> None:
        query = await _receive(stream)
        found = [_crash_info(r) for r in self._crashes(query)]
        await stream.send_message(pb.CrashLogResponse(list=found))

    async def crash_delete(self, stream: Stream) -> None:
        query = await _receive(stream)
        doomed = self._crashes(query)
        for app in self.apps.values():
            app.crashes[:] = [r for r in app.crashes if r not in doomed]
        await stream.send_message(pb.CrashLogResponse(list=[_crash_info(r) for r in doomed]))

    async def crash_show(self, stream: Stream) -> None:
        request = await _receive(stream)
        for app in self.apps.values():
            for report in app.crashes:
                if report.name == request.name:
                    await stream.send_message(
                        pb.CrashShowResponse(info=_crash_info(report), contents=report.contents)
                    )
                    return
        raise GRPCError(Status.NOT_FOUND, f"no crash report {request.name!r}")

    def _crashes(self, query) -> list[CrashReport]:
        return [
            report
            for app in self.apps.values()
            for report in app.crashes
            if (not query.bundle_id or report.bundle_id == query.bundle_id)
            and (not query.name or report.name == query.name)
            and (not query.since or report.timestamp >= query.since)
            and (not query.before or report.timestamp < query.before)
        ]

    async def log(self, stream: Stream) -> None:
        """The apps' log lines (the companion's own with source COMPANION), then the new ones
        as they come, until the client stops (at most LOG_FOLLOW seconds)."""
        request = await _receive(stream)
        if request.source == pb.LogRequest.COMPANION:
            await stream.send_message(pb.LogResponse(output=b"orav sim companion\n"))
            return
        sent = dict.fromkeys(self.apps, 0)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + LOG_FOLLOW
        while loop.time() < deadline:
            for bundle_id, app in list(self.apps.items()):
                lines = app.log.since(sent.get(bundle_id, 0))
                sent[bundle_id] = app.log.total
                if lines:
                    text = "".join(f"{line}\n" for line in lines)
                    await stream.send_message(pb.LogResponse(output=text.encode()))
            await asyncio.sleep(LOG_POLL)

    def _app(self, bundle_id: str) -> AppState:
        app = self.apps.get(bundle_id)
        if app is None or not app.installed:
            raise GRPCError(Status.NOT_FOUND, f"no app {bundle_id!r} is installed")
        return app


def _quiescence(state: str) -> pb.AccessibilityQuiescenceResponse.StateChanged:
    response = pb.AccessibilityQuiescenceResponse
    if state == "busy":  # a transition or spinner runs; the run loop is idle between frames
        signals = [response.ANIMATIONS_INACTIVE]
        return response.StateChanged(state=response.BUSY, busy_signals=signals)
    return response.StateChanged(state=response.SETTLING if state == "settling" else response.QUIET)


def _crash_info(report: CrashReport) -> pb.CrashLogInfo:
    return pb.CrashLogInfo(
        name=report.name,
        bundle_id=report.bundle_id,
        process_name=report.process_name,
        parent_process_name="launchd_sim",
        process_identifier=report.pid,
        parent_process_identifier=1,
        timestamp=report.timestamp,
    )


async def _receive(stream: Stream) -> Any:
    """The request of a unary or a server-streaming RPC (a client that sent none is refused).

    fb-idb ships no type information: a request is one of its protobuf messages, as Any.
    """
    request = await stream.recv_message()
    if request is None:
        raise GRPCError(Status.INVALID_ARGUMENT, "the request is missing")
    return request


async def _stall(seconds: float) -> None:
    """Hold an RPC as a slow_* fault asks; the Fault model bounds ``seconds``."""
    if seconds > 0:
        await asyncio.sleep(seconds)
