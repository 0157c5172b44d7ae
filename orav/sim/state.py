"""The running app: navigation stacks, app-wide state, field values, focus, and injected faults.

Inputs arrive already decoded (a tap at a point, a swipe, a character, a named key); the
state answers with a ``View`` of what the screen shows. No I/O and no clocks of its own: the
time comes from injected callables (the status bar's and the animations' ``Motion``),
randomness from a seeded generator.

One big thing, kept together: how the app reacts to an input (taps, swipes, keys, the
transitions they take, navigation and the faults that fire), over one mutable state. The
pieces it stands on are elsewhere: one screen's elements (``orav.sim.screen``), drawing them
(``orav.sim.draw``, ``orav.sim.chrome``), expressions (``orav.sim.scope``), when faults are due
(``orav.sim.faults``), logs and crash reports (``orav.sim.diagnostics``).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Hashable, Mapping, Sequence
from datetime import datetime
from typing import Any

from orav.model import Fault, Frame, Point
from orav.sim import chrome, draw
from orav.sim.appmodel import BACK, AppModel, Direction, Transition
from orav.sim.chrome import TAB_BAR_HEIGHT
from orav.sim.diagnostics import MAX_CRASHES, AppLog, CrashReport, crash_report
from orav.sim.draw import NAV_BAR_BOTTOM
from orav.sim.expr import as_text, truthy
from orav.sim.faults import RPC_FAULTS, FaultSchedule, login_wall, permission_message, service
from orav.sim.motion import Motion
from orav.sim.scope import LIST_CHANGES, AppModelError, Env, evaluate, initial, render, set_value
from orav.sim.screen import Instance, Overlay, ScreenState
from orav.sim.view import APP_PID, Node, View

EDGE = 20.0  # a swipe starting this close to the left edge means "back"

__all__ = ["AppState"]


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
        self.faults = FaultSchedule([*model.faults, *faults], seed)
        self.running = False
        self.installed = True
        self.background = False  # the home button sent it away; a launch resumes it
        self.launches = 0
        self.inputs = 0
        self.looks = 0  # accessibility reads since launch: what a running stopwatch shows
        self.stack: list[ScreenState] = []  # the selected tab's stack when there is a tab bar
        self.tab: str | None = None  # the selected tab, None while no tab bar shows
        self.tab_stacks: dict[str, list[ScreenState]] = {}  # the stacks of the other tabs
        self.memory: dict[str, Any] = {}  # app-wide state, as a launch starts it
        self.keychain: dict[str, Any] = initial(model.keychain)  # outlives a relaunch
        self.args: tuple[str, ...] = ()  # the launch's arguments and environment
        self.env: dict[str, str] = {}
        self.focus: str | None = None
        self.shift = False
        self.overlay: Overlay | None = None
        self.pending: deque[Fault] = deque()
        self.permissions: dict[str, bool] = {}
        self.empty_dumps = 0  # accessibility reads left that answer [] (-1: until relaunch)
        self.frozen_inputs = 0  # inputs left that are ignored (-1: until relaunch)
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
        current = self.stack[-1]
        base = self._scope(current)
        children = draw.screen_nodes(
            current,
            self._instances(current, scope=base),
            base,
            overlay=self.overlay,
            focus=self.focus,
            pid=self.pid,
            width=width,
            height=height,
        )
        if self.tab_bar_shown:
            tabs = [(t.id, render(t.label, base)) for t in self.model.tabs]
            children.append(chrome.tab_bar(width, height, self.pid, tabs, self.tab or ""))
        if self.keyboard_shown:
            children.append(chrome.keyboard(width, height, self.pid, self.shift))
        if self.overlay is not None and self.overlay.modal:
            children.append(draw.alert_node(self.overlay, width, height, self.pid))
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
        self.looks += 1
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
        self.looks = 0
        self.args, self.env = tuple(args), dict(env or {})
        self.memory = initial(self.model.state)
        self.stack = []
        self.focus = None
        self.overlay = None
        self.pending.clear()
        self.empty_dumps = self.frozen_inputs = 0
        self.faults.relaunched()
        self.log.append(f"{self.model.bundle_id}: launched (pid {self.pid})")
        start = render(self.model.start, self._scope(None))
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
        self.keychain = initial(self.model.keychain)

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

    def schedule(self, fault: Fault) -> None:
        """Add a fault at run time; it triggers like one from the app model."""
        self.faults.add(fault)

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
        elif kind == "app_alert" and self.overlay is not None and self.overlay.alert is not None:
            overlay = self.overlay
            button = self.overlay.alert.buttons[int(arg)]
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
        direction: Direction
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
            return truthy(evaluate(when, scope))
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
        writes = [(k, set_value(v, scope)) for k, v in transition.set.items()]
        for attr, change in LIST_CHANGES:
            for key, item in getattr(transition, attr).items():
                writes.append((key, change(self._get(key), set_value(item, scope))))
        for key, value in writes:
            self._put(current, key, value)
        if transition.log is not None:
            self.log.append(f"{self.model.bundle_id}: {render(transition.log, scope)}")
        for target in transition.toggle:
            current.values[target] = "0" if current.values.get(target) == "1" else "1"
        message = render(transition.message, scope) if transition.message is not None else None
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
            title = render(alert.title, after)
            text = render(alert.message, after) if alert.message else ""
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
            self.stack = self.tab_stacks.pop(tab_id, []) or [self._fresh(tab.screen)]
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
        for fault in self.faults.due(entered, self.inputs):
            if fault.type in RPC_FAULTS:
                self.faults.arm(fault)  # no overlay to wait for, and a crash must not drop it
            else:
                self.pending.append(fault)

    def _show_pending(self) -> None:
        while self.pending and self.foreground and self.overlay is None:
            self._fire(self.pending.popleft())

    def _fire(self, fault: Fault) -> None:
        until_relaunch = -1
        if fault.type == "crash":
            report = crash_report(
                app=self.model.name,
                bundle_id=self.model.bundle_id,
                pid=self.pid,
                screen=self.screen,
                fault=fault,
                inputs=self.inputs,
                now=self.clock(),
                number=len(self.crashes) + 1,
            )
            self.crashes = [*self.crashes[-(MAX_CRASHES - 1) :], report]
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
            if title in self.permissions or service(title) in self.grants:
                return  # iOS asks once and remembers the answer (or it was set up front)
            self.overlay = Overlay("permission", title, permission_message(title))
        elif fault.type == "network":
            self.focus = None
            self.overlay = Overlay("network", "No connection", "Check your connection.")
        elif fault.type == "loading":
            self.focus = None
            self.overlay = Overlay("loading", "In progress", remaining=fault.duration)

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
            "env": Env(self.env),
            "permissions": Env({k: "allow" if v else "deny" for k, v in self.grants.items()}),
            "location": self.location or (),
            "looks": self.looks,
        }
        if current is not None:
            scope.update(current.values)
        scope.update(bindings)
        for name, expression in self.model.computed.items():
            scope[name] = evaluate(expression, scope)
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
        found = list(current.expand(current.screen.elements, scope))
        return current.scrolled(found, self._viewport(), clip=clip)

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
