"""The running app: navigation stacks, app-wide state, field values, focus, and injected faults.

Inputs arrive already decoded (a tap at a point, a swipe, a character, a named key); the
state answers with a ``View`` of what the screen shows. No I/O and no clocks of its own: the
time comes from injected callables (the status bar's and the animations' ``Motion``),
randomness from a seeded generator.
"""

from __future__ import annotations

import random
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from attrs import define, field, frozen

from orav.model import Fault, Frame, Point
from orav.sim import chrome
from orav.sim.appmodel import (
    BACK,
    MAX_REPEAT,
    AlertButton,
    AlertSpec,
    AppModel,
    ElementSpec,
    Screen,
    Transition,
)
from orav.sim.chrome import KEYBOARD_HEIGHT, TAB_BAR_HEIGHT
from orav.sim.expr import ExprError, as_text, parse_expr, parse_template, truthy
from orav.sim.motion import Motion
from orav.sim.view import APP_PID, DEFAULT_TRAITS, SPRINGBOARD_PID, Node, View

STATUS_BAR = 47.0
NAV_BAR_BOTTOM = 91.0
EDGE = 20.0  # a swipe starting this close to the left edge means "back"
BULLET = "\u2022"
RPC_FAULTS = ("list_apps_error", "slow_describe", "slow_launch")
SWIPE_ACTION_WIDTH = 80.0
MAX_LOG_LINES = 10_000
MAX_CRASHES = 100

__all__ = ["KEYBOARD_HEIGHT", "TAB_BAR_HEIGHT", "AppState", "ScreenState", "login_wall"]


@frozen
class CrashReport:
    """A crash report as the simulator keeps it (a real one is an .ips file)."""

    name: str
    bundle_id: str
    process_name: str
    pid: int
    timestamp: int
    contents: str


class AppLog:
    """An app's log: the newest MAX_LOG_LINES lines; ``total`` counts every line written, so
    a reader that follows it knows where it left off even after old lines were dropped."""

    def __init__(self) -> None:
        self.lines: deque[str] = deque(maxlen=MAX_LOG_LINES)
        self.total = 0

    def append(self, line: str) -> None:
        self.lines.append(line)
        self.total += 1

    def since(self, position: int) -> list[str]:
        """The lines written after the first ``position`` (those still kept)."""
        kept_from = self.total - len(self.lines)
        return list(self.lines)[max(position - kept_from, 0) :]


class AppModelError(RuntimeError):
    """An app model's expression failed while the app ran (a type error, an unknown screen)."""


@frozen
class Instance:
    """One element as drawn now: its spec, its id and frame once templated, repeated and
    scrolled, and the items of the repeats around it."""

    spec: ElementSpec
    id: str | None
    frame: Frame
    bindings: tuple[tuple[str, Any], ...] = ()


@define
class ScreenState:
    """One entry of a navigation stack: a screen and what the user did on it."""

    name: str
    screen: Screen
    values: dict[str, str]
    shown: set[str] = field(factory=set)
    hidden: set[str] = field(factory=set)
    labels: dict[str, str] = field(factory=dict)
    modal: bool = False
    offset: float = 0.0  # how far a scrolling screen is scrolled, in points
    revealed: str | None = None  # the element whose swipe actions show

    @classmethod
    def fresh(
        cls,
        name: str,
        screen: Screen,
        *,
        modal: bool = False,
        scope: Mapping[str, Any] | None = None,
    ) -> ScreenState:
        values = {
            e.id: _render(e.value, scope or {}) if e.value else ""
            for e in screen.elements
            if e.id is not None and "{" not in e.id and e.repeat is None
        }
        return cls(name, screen, values, modal=modal)

    def visible(self, element: ElementSpec, element_id: str | None) -> bool:
        if element_id in self.hidden:
            return False
        return not element.hidden or element_id in self.shown


@define
class Overlay:
    """What covers the screen: a fault (``kind`` alert, permission, network or loading) or an
    alert of the app's own (``kind`` app_alert, with its ``alert``)."""

    kind: str
    title: str = ""
    message: str = ""
    remaining: int = 0  # loading: observations left (0: until remedied)
    alert: AlertSpec | None = None
    bindings: tuple[tuple[str, Any], ...] = ()

    @property
    def modal(self) -> bool:
        """An alert: every tap outside it is swallowed, swipes do nothing."""
        return self.kind in ("alert", "permission", "app_alert")


class AppState:
    """The live state of the simulated device and its one app."""

    def __init__(
        self,
        model: AppModel,
        *,
        seed: int = 0,
        faults: Sequence[Fault] = (),
        clock: Callable[[], datetime] = datetime.now,
        running: bool = True,
        ticker: Callable[[], float] = time.monotonic,
        animation_ms: int | None = None,
    ) -> None:
        self.model = model
        self.clock = clock
        self.motion = Motion(ticker)  # what animates after an input, and until when
        self.animation_ms = animation_ms  # replaces the model's default (orav sim --animation-ms)
        self.hint_ms: int | None = None  # the animation time of the transition an input took
        self.faults: list[Fault] = [*model.faults, *faults]
        self.fired: list[int] = [0] * len(self.faults)
        self.rng = random.Random(seed)
        self.running = False
        self.installed = True
        self.background = False  # the home button sent it away; a launch resumes it
        self.launches = 0
        self.inputs = 0
        self.stack: list[ScreenState] = []  # the selected tab's stack when there is a tab bar
        self.tab: str | None = None  # the selected tab, None while no tab bar shows
        self.tab_stacks: dict[str, list[ScreenState]] = {}  # the stacks of the other tabs
        self.memory: dict[str, Any] = {}  # app-wide state, as a launch starts it
        self.keychain: dict[str, Any] = _initial(model.keychain)  # outlives a relaunch
        self.args: tuple[str, ...] = ()  # the launch's arguments and environment
        self.env: dict[str, str] = {}
        self.focus: str | None = None
        self.shift = False
        self.overlay: Overlay | None = None
        self.pending: deque[Fault] = deque()
        self.permissions: dict[str, bool] = {}
        self.empty_dumps = 0  # accessibility reads left that answer [] (-1: until relaunch)
        self.frozen_inputs = 0  # inputs left that are ignored (-1: until relaunch)
        self.list_apps_errors = 0  # list_apps calls left that fail (-1: until relaunch)
        self.describe_stalls: deque[float] = deque()  # seconds, one per accessibility read
        self.launch_stalls: deque[float] = deque()  # seconds, one per launch
        self.grants: dict[str, bool] = {}  # permissions approved (True) or revoked up front
        self.location: tuple[float, float] | None = None
        self.crashes: list[CrashReport] = []  # oldest first, the newest MAX_CRASHES kept
        self.log = AppLog()  # what the app logged
        if running:
            self.launch()

    # --- what an observer sees ---------------------------------------------------------

    @property
    def screen(self) -> str | None:
        """The name of the screen on top (``login_wall`` during a login fault), None if down."""
        return self.stack[-1].name if self.foreground and self.stack else None

    @property
    def foreground(self) -> bool:
        return self.running and not self.background

    @property
    def values(self) -> dict[str, str]:
        """Text-field and switch values of the current screen, by element id."""
        if not self.stack:
            return {}
        top = self.stack[-1]
        kept = {
            i.id for i in self._instances(top) if i.spec.is_text_field or i.spec.role == "AXSwitch"
        }
        return {key: value for key, value in top.values.items() if key in kept}

    @property
    def pid(self) -> int:
        return APP_PID + self.launches

    @property
    def keyboard_shown(self) -> bool:
        """A focused field shows the keyboard; an alert hides it and keeps the focus, so the
        keyboard comes back once the alert is dismissed (as UIKit restores the responder)."""
        return self.foreground and self.overlay is None and self.focus is not None

    @property
    def tab_bar_shown(self) -> bool:
        top = self.stack[-1] if self.stack else None
        return (
            self.tab is not None
            and top is not None
            and not top.modal
            and not (top.screen.hides_tab_bar)
        )

    def layout(self) -> Hashable:
        """What an animation moves: the screen on top, the tab, an overlay, the keyboard (a
        value typed or a switch toggled changes none of them: it does not animate)."""
        top = id(self.stack[-1]) if self.foreground and self.stack else None
        overlay = None if self.overlay is None else (self.overlay.kind, id(self.overlay))
        return self.foreground, top, self.tab, overlay, self.keyboard_shown

    def animation_time(self) -> int:
        """Milliseconds the last input's movement takes: its transition's ``animation_ms``, else
        the screen's in front, else the app's (or the companion's ``animation_ms``)."""
        if self.hint_ms is not None:
            return self.hint_ms
        top = self.stack[-1].screen if self.foreground and self.stack else None
        if top is not None and top.animation_ms is not None:
            return top.animation_ms
        return self.animation_ms if self.animation_ms is not None else self.model.animation_ms

    @property
    def spinning(self) -> bool:
        """A spinner runs (the loading fault's activity indicator) in an animated app."""
        loading = self.foreground and self.overlay is not None and self.overlay.kind == "loading"
        return loading and self.animation_time() > 0

    def clock_text(self) -> str:
        now = self.clock()
        return f"{now.hour}:{now.minute:02d}"

    def view(self) -> View:
        width, height = self.model.width, self.model.height
        if not self.foreground:
            root = chrome.springboard(width, height, self.model.name if self.installed else None)
            return View(root, self.clock_text(), running=False)
        children = [*self._screen_nodes()]
        if self.tab_bar_shown:
            scope = self._scope(self.stack[-1])
            tabs = [(t.id, _render(t.label, scope)) for t in self.model.tabs]
            children.append(chrome.tab_bar(width, height, self.pid, tabs, self.tab or ""))
        if self.keyboard_shown:
            children.append(chrome.keyboard(width, height, self.pid, self.shift))
        if self.overlay is not None and self.overlay.modal:
            children.append(self._alert(self.overlay))
        root = Node(
            "AXApplication",
            self.model.name,
            Frame(0, 0, width, height),
            pid=self.pid,
            children=tuple(children),
        )
        return View(root, self.clock_text())

    def observe_tree(self) -> View | None:
        """One accessibility read: counts down loading and empty-dump faults; None means ``[]``."""
        if self.empty_dumps:
            self.empty_dumps -= 1 if self.empty_dumps > 0 else 0
            return None
        if self.overlay is not None and self.overlay.kind == "loading" and self.overlay.remaining:
            self.overlay.remaining -= 1
            if self.overlay.remaining == 0:
                view = self.view()
                self._clear_overlay()
                return view
        return self.view()

    # --- lifecycle -----------------------------------------------------------------------

    def launch(self, args: Sequence[str] = (), env: Mapping[str, str] | None = None) -> None:
        """Start the app at its start screen with ``args`` and ``env``; a running app is only
        brought to the front (a backgrounded one resumes where it was)."""
        if self.running:
            self.background = False
            return
        if not self.installed:
            raise AppModelError(f"{self.model.bundle_id} is not installed")
        self.running = True
        self.background = False
        self.launches += 1
        self.args, self.env = tuple(args), dict(env or {})
        self.memory = _initial(self.model.state)
        self.stack = []
        self.focus = None
        self.overlay = None
        self.pending.clear()
        self.empty_dumps = self.frozen_inputs = self.list_apps_errors = 0
        self.log.append(f"{self.model.bundle_id}: launched (pid {self.pid})")
        start = _render(self.model.start, self._scope(None))
        if start not in self.model.screens:
            raise AppModelError(
                f"app model start {self.model.start!r} gave {start!r}, not a screen"
            )
        self._push(start, reset=True)

    def terminate(self) -> None:
        if self.running:
            self.log.append(f"{self.model.bundle_id}: terminated")
        self.running = False
        self.background = False
        self.focus = None
        self.overlay = None

    def home(self) -> None:
        """The home button: the app goes to the background with its state; SpringBoard shows."""
        if self.foreground:
            self.background = True
            self.log.append(f"{self.model.bundle_id}: entered the background")

    def clear_keychain(self) -> None:
        self.keychain = _initial(self.model.keychain)

    def routes_for(self, url: str) -> list[str]:
        """The app's routes that ``url`` starts with, longest last."""
        return sorted((r for r in self.model.routes if url.startswith(r)), key=len)

    def open_url(self, url: str) -> bool:
        """A deep link: the longest route that prefixes ``url`` runs (launching the app first,
        with the arguments of its last launch); False when no route takes it. The transitions
        read the URL as ``url``."""
        routes = self.routes_for(url)
        if not routes:
            return False
        self.launch(self.args, self.env)
        self.focus = None
        self.overlay = None if self.overlay and self.overlay.kind == "app_alert" else self.overlay
        self._run(self.model.routes[routes[-1]], (("url", url),))
        return True

    def list_apps_fails(self) -> bool:
        """One list_apps call: True when a list_apps_error fault makes it fail."""
        if not self.list_apps_errors:
            return False
        self.list_apps_errors -= 1 if self.list_apps_errors > 0 else 0
        return True

    def describe_stall(self) -> float:
        """Seconds the next accessibility read stalls (a slow_describe fault; 0 if none)."""
        return self.describe_stalls.popleft() if self.describe_stalls else 0.0

    def launch_stall(self) -> float:
        """Seconds the next launch stalls (a slow_launch fault; 0 if none)."""
        return self.launch_stalls.popleft() if self.launch_stalls else 0.0

    def schedule(self, fault: Fault) -> None:
        """Add a fault at run time; it triggers like one from the app model."""
        self.faults.append(fault)
        self.fired.append(0)

    # --- input ---------------------------------------------------------------------------

    def begin_input(self) -> bool:
        """Count one input (one hid stream); False when a frozen fault swallows it."""
        self.inputs += 1
        self.hint_ms = None
        if self.frozen_inputs:
            self.frozen_inputs -= 1 if self.frozen_inputs > 0 else 0
            return False
        return True

    def end_input(self) -> None:
        self._check_faults(None)
        self._show_pending()

    def tap(self, point: Point) -> None:
        node = self.view().hit(point)
        top = self.stack[-1] if self.foreground and self.stack else None
        if top is not None and top.revealed is not None and self.overlay is None:
            revealed = top.revealed
            top.revealed = None  # a tap anywhere closes the swipe actions
            if node is not None and node.action.startswith("swipe:"):
                self._swipe_action(top, revealed, int(node.action.partition(":")[2]))
            return
        if self._blank(node):
            self.focus = None  # a tap outside the text area ends editing: the keyboard hides
            return
        if node is None or not node.enabled or not node.action:
            return
        kind, _, arg = node.action.partition(":")
        if kind == "launch":
            self.launch()
        elif kind == "key":
            self._key_tap(arg)
        elif kind in ("alert", "permission"):
            if kind == "permission" and self.overlay is not None:
                self.permissions[self.overlay.title] = arg == "Allow"
            self._clear_overlay()
        elif kind == "app_alert" and self.overlay is not None and self.overlay.alert:
            overlay = self.overlay
            button = overlay.alert.buttons[int(arg)]
            self.overlay = None  # dismissed first: the button's effects may present another
            self._run(button.on_tap, overlay.bindings)
            self._show_pending()
        elif kind == "tab":
            self._select_tab(arg)
        elif kind == "retry":
            self._clear_overlay()
        elif kind == "el":
            self._element_tap(arg)

    def _blank(self, node: Node | None) -> bool:
        """A tap here does nothing but end editing: nothing, or a static element, was hit."""
        if self.overlay is not None or not self.foreground:
            return False  # an alert swallows taps around it; SpringBoard has no editing
        return node is None or (not node.action and node.style != "keyboard")

    def swipe(self, start: Point, end: Point) -> None:
        if not self.foreground:
            return
        dx, dy = end.x - start.x, end.y - start.y
        if abs(dx) >= abs(dy):
            direction = "right" if dx > 0 else "left"
        else:
            direction = "down" if dy > 0 else "up"
        if self.overlay is not None and self.overlay.modal:
            return
        if direction == "right" and start.x < EDGE and self._can_go_back():
            self._back()
            return
        if self.overlay is not None:
            if self.overlay.kind == "loading" and direction == "down":
                self._clear_overlay()  # pull to refresh
            return
        current = self.stack[-1]
        if current.revealed is not None:
            current.revealed = None  # any swipe closes the swipe actions
            return
        hit = self._instance_at(current, start)
        if hit is not None:
            if direction == "left" and hit.spec.swipe_actions:
                current.revealed = hit.id
                return
            if direction in hit.spec.on_swipe:
                self._run(hit.spec.on_swipe[direction], hit.bindings)
                return
        if current.screen.scroll and direction in ("up", "down"):
            before = current.offset
            current.offset = min(max(before - dy, 0.0), self._max_offset(current))
            if current.offset != before or direction == "up":
                return  # scrolled (or at the end); a pull at the top falls through to on_swipe
        self._run(current.screen.on_swipe.get(direction, ()))

    def type_char(self, char: str) -> None:
        """A character from the hardware keyboard (idb's ``ui text``) into the focused field."""
        if char == "\n":
            self.press("return")
            return
        if not self.foreground or self.overlay is not None:
            return
        if self.focus is None:
            self._run(self.stack[-1].screen.on_key.get(char, ()))
            return
        values = self.stack[-1].values
        values[self.focus] = values.get(self.focus, "") + char

    def press(self, key: str) -> None:
        """A named key: return, backspace, tab, escape (ends editing: the keyboard hides).

        Without focus, the screen's ``on_key`` handles it; a focused field's ``on_key`` (and
        ``on_return``) handle its keys.
        """
        if not self.foreground or self.overlay is not None:
            return
        current = self.stack[-1]
        if self.focus is None:
            self._run(current.screen.on_key.get(key, ()))
            return
        found = self._instance(current, self.focus)
        spec = found.spec if found else None
        bindings = found.bindings if found else ()
        if spec is not None and key == "return" and spec.on_return:
            self.focus = None
            self._run(spec.on_return, bindings)
            return
        if spec is not None and key in spec.on_key:
            if key in ("return", "escape"):
                self.focus = None
            self._run(spec.on_key[key], bindings)
            return
        if key in ("escape", "return"):
            self.focus = None
        elif key == "backspace":
            current.values[self.focus] = current.values.get(self.focus, "")[:-1]
        elif key == "tab":
            fields = [i.id for i in self._instances(current) if i.spec.is_text_field and i.id]
            if self.focus in fields:
                self.focus = fields[(fields.index(self.focus) + 1) % len(fields)]

    # --- transitions ---------------------------------------------------------------------

    def _element_tap(self, element_id: str) -> None:
        blocked = self.overlay is not None and self.overlay.kind in ("loading", "network")
        if blocked and element_id != "back":
            return
        found = self._instance(self.stack[-1], element_id)
        if found is None:
            return
        if found.spec.is_text_field:
            self.focus = element_id
            return
        self.focus = None
        self._run(found.spec.on_tap, found.bindings)

    def _swipe_action(self, current: ScreenState, element_id: str, index: int) -> None:
        found = self._instance(current, element_id)
        if found is not None and index < len(found.spec.swipe_actions):
            self._run(found.spec.swipe_actions[index].on_tap, found.bindings)

    def _key_tap(self, key: str) -> None:
        if key == "shift":
            self.shift = not self.shift
        elif key in ("backspace", "return"):
            self.press(key)
        else:
            self.type_char(key.upper() if self.shift else key)
            self.shift = False

    def _run(
        self, transitions: Sequence[Transition], bindings: tuple[tuple[str, Any], ...] = ()
    ) -> None:
        """Take the first transition whose condition holds: its effects, in order."""
        current = self.stack[-1]
        scope = self._scope(current, bindings)
        for transition in transitions:
            if self._holds(transition, scope):
                self._apply(transition, current, scope, bindings)
                return

    def _holds(self, transition: Transition, scope: Mapping[str, Any]) -> bool:
        when = transition.when
        if isinstance(when, str):
            return truthy(_evaluate(when, scope))
        return all(as_text(scope.get(key, "")) == want for key, want in when.items())

    def _apply(
        self,
        transition: Transition,
        current: ScreenState,
        scope: Mapping[str, Any],
        bindings: tuple[tuple[str, Any], ...],
    ) -> None:
        if transition.animation_ms is not None:
            self.hint_ms = transition.animation_ms
        # Every value is computed from the state before the transition, then written.
        writes = [(k, _value(v, scope)) for k, v in transition.set.items()]
        for attr, change in (("append", _append), ("remove", _remove), ("remove_all", _purge)):
            for key, item in getattr(transition, attr).items():
                writes.append((key, change(self._get(key), _value(item, scope))))
        for key, value in writes:
            self._put(current, key, value)
        if transition.log is not None:
            self.log.append(f"{self.model.bundle_id}: {_render(transition.log, scope)}")
        for target in transition.toggle:
            current.values[target] = "0" if current.values.get(target) == "1" else "1"
        message = _render(transition.message, scope) if transition.message is not None else None
        for target in transition.show:
            current.shown.add(target)
            current.hidden.discard(target)
            if message is not None:
                current.labels[target] = message
        for target in transition.hide:
            current.hidden.add(target)
            current.shown.discard(target)
        if transition.tab is not None:
            self._select_tab(transition.tab)
        if transition.to == BACK:
            self._back()
        elif transition.to is not None:
            self._push(transition.to, reset=transition.reset, modal=transition.modal)
        if transition.alert is not None and self.overlay is None:
            alert = transition.alert
            self.focus = None  # UIKit resigns the responder under an app's alert
            after = self._scope(self.stack[-1], bindings)
            title = _render(alert.title, after)
            text = _render(alert.message, after) if alert.message else ""
            self.overlay = Overlay("app_alert", title, text, alert=alert, bindings=bindings)

    def _get(self, key: str) -> Any:
        return self.memory[key] if key in self.memory else self.keychain.get(key, ())

    def _put(self, current: ScreenState, key: str, value: Any) -> None:
        if key in self.memory:
            self.memory[key] = value
        elif key in self.keychain:
            self.keychain[key] = value
        else:
            current.values[key] = as_text(value)  # a field on the screen

    def _select_tab(self, tab_id: str) -> None:
        """A tap on a tab: another tab shows its own stack as it was left; the selected tab
        pops to its root (at the root nothing changes), as UITabBarController does."""
        tab = self.model.tab(tab_id)
        if self.tab is None or tab is None:
            return
        if tab_id == self.tab:
            if len(self.stack) == 1:
                return
            del self.stack[1:]
        else:
            self.tab_stacks[self.tab] = self.stack
            self.tab = tab_id
            self.stack = self.tab_stacks.pop(tab_id, None) or [self._fresh(tab.screen)]
        self.focus = None
        self._clear_overlay()
        self._entered(self.stack[-1].name)

    def _can_go_back(self) -> bool:
        return len(self.stack) > 1 and not self.stack[-1].modal

    def _back(self) -> None:
        top = self.stack[-1]
        if top.modal:
            self.stack.pop()  # a modal screen (or the login wall) is dismissed
        elif self._can_go_back():
            self.stack.pop()
            self._clear_overlay()
        else:
            return
        self.focus = None
        self._entered(self.stack[-1].name)

    def _fresh(self, name: str, *, modal: bool = False) -> ScreenState:
        screen = self.model.screens[name]
        return ScreenState.fresh(name, screen, modal=modal, scope=self._scope(None))

    def _push(self, name: str, *, reset: bool = False, modal: bool = False) -> None:
        if reset:
            # A new root: inside the tab bar when it is a tab's screen (every tab fresh).
            tab = self.model.tab_of(name)
            self.tab = tab.id if tab else None
            self.tab_stacks = {}
            self.stack = []
        self.stack.append(self._fresh(name, modal=modal and bool(self.stack)))
        self.focus = None
        self._clear_overlay()
        self._entered(name)

    def _entered(self, name: str) -> None:
        self._check_faults(name)
        self._show_pending()

    # --- faults --------------------------------------------------------------------------

    def _check_faults(self, entered: str | None) -> None:
        """Fire the faults due now: after an input (``entered`` None) or on entering a screen."""
        for index, fault in enumerate(self.faults):
            if self.fired[index] >= fault.times:
                continue
            if entered is None:
                if fault.on_screen is not None:
                    continue
                if fault.at_step is not None and fault.at_step != self.inputs:
                    continue
            else:
                if fault.on_screen != entered:
                    continue
                if fault.at_step is not None and self.inputs < fault.at_step:
                    continue
            if fault.probability < 1.0 and self.rng.random() >= fault.probability:
                continue
            self.fired[index] += 1
            if fault.type in RPC_FAULTS:
                self._arm(fault)  # no overlay to wait for, and a crash must not drop it
            else:
                self.pending.append(fault)

    def _show_pending(self) -> None:
        while self.pending and self.foreground and self.overlay is None:
            self._fire(self.pending.popleft())

    def _fire(self, fault: Fault) -> None:
        until_relaunch = -1
        if fault.type == "crash":
            self.crashes = [*self.crashes[-(MAX_CRASHES - 1) :], self._crash_report(fault)]
            self.log.append(f"{self.model.bundle_id}: crashed (EXC_BAD_ACCESS)")
            self.terminate()
        elif fault.type == "empty_dump":
            self.empty_dumps = fault.duration or until_relaunch
        elif fault.type == "frozen":
            self.frozen_inputs = fault.duration or until_relaunch
        elif fault.type == "login":
            self.focus = None
            wall = login_wall(self.model)
            self.stack.append(ScreenState.fresh("login_wall", wall, modal=True))
        elif fault.type == "alert":
            title = fault.message or "Something went wrong"
            self.overlay = Overlay("alert", title, "Please try again later.")
        elif fault.type == "permission":
            title = fault.message or f"Allow \u201c{self.model.name}\u201d to use your location?"
            if title in self.permissions or _service(title) in self.grants:
                return  # iOS asks once and remembers the answer (or it was set up front)
            message = "Your location is used to show nearby places."
            self.overlay = Overlay("permission", title, message)
        elif fault.type == "network":
            self.focus = None
            self.overlay = Overlay("network", "No connection", "Check your connection.")
        elif fault.type == "loading":
            self.focus = None
            self.overlay = Overlay("loading", "In progress", remaining=fault.duration)

    def _crash_report(self, fault: Fault) -> CrashReport:
        """An .ips-like crash report: what a real simulator writes under DiagnosticReports."""
        now = self.clock()
        when = now.strftime("%Y-%m-%d %H:%M:%S")
        contents = "\n".join(
            (
                f"Process:             {self.model.name} [{self.pid}]",
                f"Identifier:          {self.model.bundle_id}",
                f"Date/Time:           {when}",
                "Exception Type:      EXC_BAD_ACCESS (SIGSEGV)",
                f"Crashed on screen:   {self.screen}",
                f"Reason:              {fault.message or 'injected crash (orav sim)'}",
                f"After input:         {self.inputs}",
            )
        )
        name = f"{self.model.name}-{now.strftime('%Y-%m-%d-%H%M%S')}-{len(self.crashes) + 1}.ips"
        return CrashReport(
            name, self.model.bundle_id, self.model.name, self.pid, int(now.timestamp()), contents
        )

    def _arm(self, fault: Fault) -> None:
        """Faults of the RPCs themselves, not of the screen: they fire at once."""
        if fault.type == "list_apps_error":
            self.list_apps_errors = fault.duration or -1
        elif fault.type == "slow_describe":
            self.describe_stalls.append(fault.seconds)
        elif fault.type == "slow_launch":
            self.launch_stalls.append(fault.seconds)

    def _clear_overlay(self) -> None:
        self.overlay = None
        self._show_pending()

    # --- the screen's elements -----------------------------------------------------------

    def _scope(
        self, current: ScreenState | None, bindings: tuple[tuple[str, Any], ...] = ()
    ) -> dict[str, Any]:
        """What expressions read: data, keychain, state, the launch, the screen's field values
        and the items of the repeats around them."""
        scope: dict[str, Any] = {
            **self.model.data,
            **self.keychain,
            **self.memory,
            "args": self.args,
            "env": _Env(self.env),
            "permissions": _Env({k: "allow" if v else "deny" for k, v in self.grants.items()}),
            "location": self.location or (),
        }
        if current is not None:
            scope.update(current.values)
        scope.update(bindings)
        for name, expression in self.model.computed.items():
            scope[name] = _evaluate(expression, scope)
        return scope

    def _viewport(self) -> tuple[float, float]:
        """The top and bottom of a scrolling screen's visible content."""
        bottom = self.model.height - (TAB_BAR_HEIGHT if self.tab_bar_shown else 0.0)
        custom = self.stack[-1].screen.scroll_bottom if self.stack else None
        return NAV_BAR_BOTTOM, min(bottom, custom) if custom is not None else bottom

    def _instances(
        self,
        current: ScreenState,
        *,
        clip: bool = True,
        scope: Mapping[str, Any] | None = None,
    ) -> list[Instance]:
        """The elements drawn now: templated, repeated, filtered by ``when`` and show / hide,
        and (on a scrolling screen) moved by the scroll and kept to the visible area."""
        scope = scope if scope is not None else self._scope(current)
        found = list(self._expand(current, current.screen.elements, scope, (), 0.0))
        if not current.screen.scroll:
            return found
        top, bottom = self._viewport()
        out = []
        for inst in found:
            if inst.spec.fixed:
                out.append(inst)
                continue
            f = inst.frame
            moved = Frame(f.x, f.y - current.offset, f.width, f.height)
            if not clip or (moved.y >= top and moved.y + moved.height <= bottom):
                out.append(Instance(inst.spec, inst.id, moved, inst.bindings))
        return out

    def _expand(
        self,
        current: ScreenState,
        elements: tuple[ElementSpec, ...],
        scope: Mapping[str, Any],
        bindings: tuple[tuple[str, Any], ...],
        dy: float,
    ) -> Iterator[Instance]:
        for spec in elements:
            if spec.repeat is not None:
                items = _evaluate(spec.repeat, scope)
                if not isinstance(items, (tuple, list, dict)):
                    raise AppModelError(f"repeat {spec.repeat!r} gave {items!r}, not a list")
                for index, item in enumerate(list(items)[:MAX_REPEAT]):
                    inner = (*bindings, (spec.item, item))
                    inner_scope = {**scope, spec.item: item}
                    offset = dy + index * spec.step
                    yield from self._expand(current, spec.elements, inner_scope, inner, offset)
                continue
            if spec.when is not None and not truthy(_evaluate(spec.when, scope)):
                continue
            element_id = _render(spec.id, scope) if spec.id is not None else None
            if not current.visible(spec, element_id):
                continue
            x, y, w, h = spec.frame
            yield Instance(spec, element_id, Frame(x, y + dy, w, h), bindings)

    def _instance(self, current: ScreenState, element_id: str) -> Instance | None:
        return next((i for i in self._instances(current) if i.id == element_id), None)

    def _instance_at(self, current: ScreenState, point: Point) -> Instance | None:
        hits = [i for i in self._instances(current) if i.frame.contains(point)]
        return hits[-1] if hits else None

    def _max_offset(self, current: ScreenState) -> float:
        """How far the content can scroll: its bottom (plus a margin) to the visible bottom."""
        instances = self._instances(current, clip=False)
        content = max(
            (i.frame.y + current.offset + i.frame.height for i in instances if not i.spec.fixed),
            default=0.0,
        )
        _, bottom = self._viewport()
        return max(0.0, content + 20 - bottom)

    # --- building the view ---------------------------------------------------------------

    def _screen_nodes(self) -> list[Node]:
        current = self.stack[-1]
        nodes: list[Node] = []
        base = self._scope(current)
        if current.screen.title:
            nodes.append(
                Node(
                    "AXHeading",
                    _render(current.screen.title, base),
                    Frame(0, STATUS_BAR, self.model.width, NAV_BAR_BOTTOM - STATUS_BAR),
                    traits=("header",),
                    pid=self.pid,
                    style="title",
                )
            )
        content_blocked = self.overlay is not None and self.overlay.kind in ("loading", "network")
        for inst in self._instances(current, scope=base):
            if content_blocked and inst.frame.y >= NAV_BAR_BOTTOM:
                continue
            nodes.append(self._node(current, inst, base))
            if inst.id is not None and inst.id == current.revealed:
                nodes.extend(self._swipe_actions(inst, base))
        if self.overlay is not None and self.overlay.kind == "loading":
            nodes.append(
                Node(
                    "AXActivityIndicator",
                    "In progress",
                    Frame(self.model.width / 2 - 20, self.model.height / 2 - 20, 40, 40),
                    traits=DEFAULT_TRAITS["AXActivityIndicator"],
                    pid=self.pid,
                    style="spinner",
                )
            )
        elif self.overlay is not None and self.overlay.kind == "network":
            width = self.model.width
            nodes.append(
                Node(
                    "AXStaticText",
                    "No connection",
                    Frame(0, NAV_BAR_BOTTOM, width, 60),
                    traits=("staticText",),
                    pid=self.pid,
                    style="banner",
                )
            )
            nodes.append(
                Node(
                    "AXButton",
                    "Retry",
                    Frame(width / 2 - 60, NAV_BAR_BOTTOM + 80, 120, 44),
                    unique_id="retry",
                    traits=("button",),
                    pid=self.pid,
                    action="retry:",
                )
            )
        return nodes

    def _swipe_actions(self, inst: Instance, base: Mapping[str, Any]) -> list[Node]:
        """The buttons a swipe left reveals at the row's trailing edge (UIContextualAction)."""
        f = inst.frame
        actions: Sequence[AlertButton] = inst.spec.swipe_actions
        scope = {**base, **dict(inst.bindings)}
        nodes = []
        for i, action in enumerate(actions):
            x = f.x + f.width - SWIPE_ACTION_WIDTH * (len(actions) - i)
            nodes.append(
                Node(
                    "AXButton",
                    _render(action.label, scope),
                    Frame(x, f.y, SWIPE_ACTION_WIDTH, f.height),
                    unique_id=_render(action.id, scope) if action.id else None,
                    traits=("button",),
                    pid=self.pid,
                    style="swipe_destructive" if action.style == "destructive" else "swipe",
                    action=f"swipe:{i}",
                )
            )
        return nodes

    def _node(self, current: ScreenState, inst: Instance, base: Mapping[str, Any]) -> Node:
        spec = inst.spec
        scope = {**base, **dict(inst.bindings)} if inst.bindings else base
        key = inst.id or ""
        label = current.labels.get(key)
        if label is None and spec.label is not None:
            label = _render(spec.label, scope)
        value: str | None = None
        placeholder = None
        focused = None
        subrole = None
        if spec.is_text_field:
            text = current.values.get(key, "")
            value = (BULLET * len(text) if spec.secure else text) or None
            placeholder = _render(spec.placeholder, scope) if spec.placeholder else None
            focused = self.focus == inst.id and self.overlay is None
            subrole = "AXSecureTextField" if spec.secure else None
        elif spec.role == "AXSwitch":
            value = current.values.get(key) or (_render(spec.value, scope) if spec.value else "0")
        elif spec.value is not None:
            value = _render(spec.value, scope)
        enabled = spec.enabled
        if isinstance(enabled, str):
            enabled = truthy(_evaluate(enabled, scope))
        traits = (*DEFAULT_TRAITS.get(spec.role, ()), *spec.traits)
        if not enabled:
            traits = (*traits, "notEnabled")
        if spec.role == "AXSwitch" and value == "1":
            traits = (*traits, "selected")
        style = "" if spec.tone == "normal" else spec.tone
        return Node(
            spec.role,
            label,
            inst.frame,
            unique_id=inst.id,
            value=value,
            subrole=subrole,
            enabled=enabled,
            traits=tuple(dict.fromkeys(traits)),
            placeholder=placeholder,
            focused=focused,
            pid=self.pid,
            style=style,
            action=f"el:{inst.id}" if inst.id is not None else "",
        )

    def _alert(self, overlay: Overlay) -> Node:
        """An alert: the app's own (its pid, its id, its buttons), an injected one (the app's
        pid, OK / Cancel) or a permission dialog (SpringBoard's pid: a system alert)."""
        system = overlay.kind == "permission"
        pid = SPRINGBOARD_PID if system else self.pid
        spec = overlay.alert
        if spec is not None:
            buttons = [
                chrome.Button(b.label, f"app_alert:{i}", b.id, b.style)
                for i, b in enumerate(spec.buttons)
            ]
        else:
            labels = ("Don't Allow", "Allow") if system else ("Cancel", "OK")
            buttons = [chrome.Button(label, f"{overlay.kind}:{label}") for label in labels]
        return chrome.alert(
            self.model.width,
            self.model.height,
            pid,
            overlay.title,
            overlay.message,
            buttons,
            sheet=spec is not None and spec.style == "action_sheet",
            alert_id=spec.id if spec is not None else None,
        )


SERVICES = ("photos", "camera", "contacts", "microphone", "notification", "location")


def _service(title: str) -> str:
    """Which permission a dialog asks for, read off its title (location unless it says)."""
    lowered = title.lower()
    return next((s for s in SERVICES if s.rstrip("s") in lowered), "location")


class _Env(dict):
    """The launch environment as expressions read it: a variable not set reads as ""."""

    def __missing__(self, key: str) -> str:
        return ""


def _initial(values: Mapping[str, Any]) -> dict[str, Any]:
    """State as a launch starts it: lists become tuples (values are never shared)."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}


def _evaluate(text: str, scope: Mapping[str, Any]) -> Any:
    try:
        return parse_expr(text).evaluate(scope)
    except ExprError as exc:
        raise AppModelError(f"app model expression {text!r}: {exc.what}") from None


def _render(text: str, scope: Mapping[str, Any]) -> str:
    try:
        return parse_template(text).render(scope)
    except ExprError as exc:
        raise AppModelError(f"app model template {text!r}: {exc.what}") from None


def _value(value: Any, scope: Mapping[str, Any]) -> Any:
    """A ``set`` value: a template (one ``{expression}`` alone keeps its type) or a literal."""
    if isinstance(value, str):
        try:
            return parse_template(value).value(scope)
        except ExprError as exc:
            raise AppModelError(f"app model template {value!r}: {exc.what}") from None
    return tuple(value) if isinstance(value, list) else value


def _append(items: Any, item: Any) -> tuple:
    return (*items, item)


def _remove(items: Any, item: Any) -> tuple:
    items = list(items)
    if item in items:
        items.remove(item)
    return tuple(items)


def _purge(items: Any, item: Any) -> tuple:
    return tuple(i for i in items if i != item)


def login_wall(model: AppModel) -> Screen:
    """The screen a ``login`` fault puts in front of the current one: sign in again."""
    creds = model.credentials
    Spec = ElementSpec
    ok: dict[str, str] = {"email": creds.username, "password": creds.password} if creds else {}
    empty = "Enter your email and password"
    submit = (
        Transition(when={"email": ""}, show=("wall_error",), message=empty),
        Transition(when={"password": ""}, show=("wall_error",), message=empty),
        Transition(when=ok, to=BACK),
        Transition(show=("wall_error",), message="Wrong email or password"),
    )
    return Screen(
        title="Session expired",
        elements=(
            Spec(label="Your session has expired. Sign in again.", frame=(20, 110, 350, 50)),
            Spec(
                "AXTextField", "Email", "email", (20, 200, 350, 44), placeholder="you@example.com"
            ),
            Spec(
                "AXTextField",
                "Password",
                "password",
                (20, 260, 350, 44),
                secure=True,
                placeholder="Password",
                on_return=submit,
            ),
            Spec(label="", id="wall_error", frame=(20, 312, 350, 28), hidden=True, tone="error"),
            Spec("AXButton", "Sign in", "sign_in", (20, 352, 350, 50), on_tap=submit),
        ),
    )
