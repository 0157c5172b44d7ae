"""The running app: navigation stack, field values, focus, keyboard, and injected faults.

Inputs arrive already decoded (a tap at a point, a swipe, a character, a named key); the
state answers with a ``View`` of what the screen shows. No I/O and no clocks of its own: the
time comes from an injected callable, randomness from a seeded generator.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from datetime import datetime

from attrs import define, field

from orav.model import Fault, Frame, Point
from orav.sim.appmodel import BACK, AlertSpec, AppModel, ElementSpec, Screen, Transition
from orav.sim.view import APP_PID, DEFAULT_TRAITS, SPRINGBOARD_PID, Node, View

STATUS_BAR = 47.0
NAV_BAR_BOTTOM = 91.0
KEYBOARD_HEIGHT = 291.0
TAB_BAR_HEIGHT = 83.0  # 49 pt of buttons over the 34 pt home indicator
EDGE = 20.0  # a swipe starting this close to the left edge means "back"
BULLET = "\u2022"
KEY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
HOME_ICONS = ("Settings", "Safari", "Photos")
RPC_FAULTS = ("list_apps_error", "slow_describe", "slow_launch")


@define
class ScreenState:
    """One entry of the navigation stack: a screen and what the user did on it."""

    name: str
    screen: Screen
    values: dict[str, str]
    shown: set[str] = field(factory=set)
    hidden: set[str] = field(factory=set)
    labels: dict[str, str] = field(factory=dict)
    modal: bool = False

    @classmethod
    def fresh(cls, name: str, screen: Screen, *, modal: bool = False) -> ScreenState:
        values = {e.id: e.value or "" for e in screen.elements if e.id is not None}
        return cls(name, screen, values, modal=modal)

    def visible(self, element: ElementSpec) -> bool:
        if element.id in self.hidden:
            return False
        return not element.hidden or element.id in self.shown


@define
class Overlay:
    """What covers the screen: a fault (``kind`` alert, permission, network or loading) or an
    alert of the app's own (``kind`` app_alert, with its ``alert``)."""

    kind: str
    title: str = ""
    message: str = ""
    remaining: int = 0  # loading: observations left (0: until remedied)
    alert: AlertSpec | None = None

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
    ) -> None:
        self.model = model
        self.clock = clock
        self.faults: list[Fault] = [*model.faults, *faults]
        self.fired: list[int] = [0] * len(self.faults)
        self.rng = random.Random(seed)
        self.running = False
        self.launches = 0
        self.inputs = 0
        self.stack: list[ScreenState] = []  # the selected tab's stack when there is a tab bar
        self.tab: str | None = None  # the selected tab, None while no tab bar shows
        self.tab_stacks: dict[str, list[ScreenState]] = {}  # the stacks of the other tabs
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
        self.launch()

    # --- what an observer sees ---------------------------------------------------------

    @property
    def screen(self) -> str | None:
        """The name of the screen on top (``login_wall`` during a login fault), None if down."""
        return self.stack[-1].name if self.running and self.stack else None

    @property
    def values(self) -> dict[str, str]:
        """Text-field and switch values of the current screen, by element id."""
        if not self.stack:
            return {}
        top = self.stack[-1]
        kept = {e.id for e in top.screen.elements if e.is_text_field or e.role == "AXSwitch"}
        return {key: value for key, value in top.values.items() if key in kept}

    @property
    def pid(self) -> int:
        return APP_PID + self.launches

    @property
    def keyboard_shown(self) -> bool:
        """A focused field shows the keyboard; an alert hides it and keeps the focus, so the
        keyboard comes back once the alert is dismissed (as UIKit restores the responder)."""
        return self.running and self.overlay is None and self.focus is not None

    @property
    def tab_bar_shown(self) -> bool:
        top = self.stack[-1] if self.stack else None
        return (
            self.tab is not None
            and top is not None
            and not top.modal
            and not (top.screen.hides_tab_bar)
        )

    def clock_text(self) -> str:
        now = self.clock()
        return f"{now.hour}:{now.minute:02d}"

    def view(self) -> View:
        if not self.running:
            return View(self._springboard(), self.clock_text(), running=False)
        children = [*self._screen_nodes()]
        if self.tab_bar_shown:
            children.append(self._tab_bar())
        if self.keyboard_shown:
            children.append(self._keyboard())
        if self.overlay is not None and self.overlay.modal:
            children.append(self._alert(self.overlay))
        root = Node(
            "AXApplication",
            self.model.name,
            Frame(0, 0, self.model.width, self.model.height),
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

    def launch(self) -> None:
        """Start the app at its start screen; a running app is only brought to the front."""
        if self.running:
            return
        self.running = True
        self.launches += 1
        self.stack = []
        self.focus = None
        self.overlay = None
        self.pending.clear()
        self.empty_dumps = self.frozen_inputs = self.list_apps_errors = 0
        self._push(self.model.start, reset=True)

    def terminate(self) -> None:
        self.running = False
        self.focus = None
        self.overlay = None

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
        if self.frozen_inputs:
            self.frozen_inputs -= 1 if self.frozen_inputs > 0 else 0
            return False
        return True

    def end_input(self) -> None:
        self._check_faults(None)
        self._show_pending()

    def tap(self, point: Point) -> None:
        node = self.view().hit(point)
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
            button = self.overlay.alert.buttons[int(arg)]
            self.overlay = None  # dismissed first: the button's effects may present another
            self._run(button.on_tap)
            self._show_pending()
        elif kind == "tab":
            self._select_tab(arg)
        elif kind == "retry":
            self._clear_overlay()
        elif kind == "el":
            self._element_tap(arg)

    def _blank(self, node: Node | None) -> bool:
        """A tap here does nothing but end editing: nothing, or a static element, was hit."""
        if self.overlay is not None or not self.running:
            return False  # an alert swallows taps around it; SpringBoard has no editing
        return node is None or (not node.action and node.style != "keyboard")

    def swipe(self, start: Point, end: Point) -> None:
        if not self.running:
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
        self._run(self.stack[-1].screen.on_swipe.get(direction, ()))

    def type_char(self, char: str) -> None:
        """A character from the hardware keyboard (idb's ``ui text``) into the focused field."""
        if char == "\n":
            self.press("return")
            return
        if self.focus is None or not self.keyboard_shown:
            return
        self.stack[-1].values[self.focus] = self.stack[-1].values.get(self.focus, "") + char

    def press(self, key: str) -> None:
        """A named key: return, backspace, tab, escape (ends editing: the keyboard hides)."""
        if self.focus is None or not self.keyboard_shown:
            return
        current = self.stack[-1]
        if key == "escape":
            self.focus = None
        elif key == "backspace":
            current.values[self.focus] = current.values.get(self.focus, "")[:-1]
        elif key == "tab":
            fields = [
                e.id for e in current.screen.elements if e.is_text_field and current.visible(e)
            ]
            if self.focus in fields:
                self.focus = fields[(fields.index(self.focus) + 1) % len(fields)]
        elif key == "return":
            spec = current.screen.element(self.focus)
            self.focus = None
            if spec is not None:
                self._run(spec.on_return)

    # --- transitions ---------------------------------------------------------------------

    def _element_tap(self, element_id: str) -> None:
        blocked = self.overlay is not None and self.overlay.kind in ("loading", "network")
        if blocked and element_id != "back":
            return
        spec = self.stack[-1].screen.element(element_id)
        if spec is None:
            return
        if spec.is_text_field:
            self.focus = element_id
            return
        self.focus = None
        self._run(spec.on_tap)

    def _key_tap(self, key: str) -> None:
        if key == "shift":
            self.shift = not self.shift
        elif key in ("backspace", "return"):
            self.press(key)
        else:
            self.type_char(key.upper() if self.shift else key)
            self.shift = False

    def _run(self, transitions: Sequence[Transition]) -> None:
        current = self.stack[-1]
        for transition in transitions:
            if not transition.holds(current.values):
                continue
            if transition.toggle is not None:
                on = current.values.get(transition.toggle) == "1"
                current.values[transition.toggle] = "0" if on else "1"
            if transition.show is not None:
                current.shown.add(transition.show)
                current.hidden.discard(transition.show)
                if transition.message is not None:
                    current.labels[transition.show] = transition.message
            if transition.hide is not None:
                current.hidden.add(transition.hide)
            if transition.tab is not None:
                self._select_tab(transition.tab)
            if transition.to == BACK:
                self._back()
            elif transition.to is not None:
                self._push(transition.to, reset=transition.reset)
            if transition.alert is not None and self.overlay is None:
                alert = transition.alert
                self.focus = None  # UIKit resigns the responder under an app's alert
                self.overlay = Overlay("app_alert", alert.title, alert.message or "", alert=alert)
            return

    def _can_go_back(self) -> bool:
        return len(self.stack) > 1 and not self.stack[-1].modal

    def _back(self) -> None:
        top = self.stack[-1]
        if top.modal:
            self.stack.pop()  # the login wall, passed
        elif self._can_go_back():
            self.stack.pop()
            self._clear_overlay()
        else:
            return
        self.focus = None
        self._entered(self.stack[-1].name)

    def _select_tab(self, tab_id: str) -> None:
        """A tap on a tab: another tab shows its own stack as it was left; the selected tab
        pops to its root (at the root nothing changes), as UITabBarController does."""
        if self.tab is None or self.model.tab(tab_id) is None:
            return
        if tab_id == self.tab:
            if len(self.stack) == 1:
                return
            del self.stack[1:]
        else:
            self.tab_stacks[self.tab] = self.stack
            self.tab = tab_id
            tab = self.model.tab(tab_id)
            self.stack = self.tab_stacks.pop(tab_id, None) or [
                ScreenState.fresh(tab.screen, self.model.screens[tab.screen])
            ]
        self.focus = None
        self._clear_overlay()
        self._entered(self.stack[-1].name)

    def _push(self, name: str, *, reset: bool = False) -> None:
        if reset:
            # A new root: inside the tab bar when it is a tab's screen (every tab fresh).
            tab = self.model.tab_of(name)
            self.tab = tab.id if tab else None
            self.tab_stacks = {}
            self.stack = []
        self.stack.append(ScreenState.fresh(name, self.model.screens[name]))
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
        while self.pending and self.running and self.overlay is None:
            self._fire(self.pending.popleft())

    def _fire(self, fault: Fault) -> None:
        until_relaunch = -1
        if fault.type == "crash":
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
            if title in self.permissions:
                return  # iOS asks once and remembers the answer
            message = "Your location is used to show nearby places."
            self.overlay = Overlay("permission", title, message)
        elif fault.type == "network":
            self.focus = None
            self.overlay = Overlay("network", "No connection", "Check your connection.")
        elif fault.type == "loading":
            self.focus = None
            self.overlay = Overlay("loading", "In progress", remaining=fault.duration)

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

    # --- building the view ---------------------------------------------------------------

    def _screen_nodes(self) -> list[Node]:
        current = self.stack[-1]
        nodes: list[Node] = []
        if current.screen.title:
            nodes.append(
                Node(
                    "AXHeading",
                    current.screen.title,
                    Frame(0, STATUS_BAR, self.model.width, NAV_BAR_BOTTOM - STATUS_BAR),
                    traits=("header",),
                    pid=self.pid,
                    style="title",
                )
            )
        content_blocked = self.overlay is not None and self.overlay.kind in ("loading", "network")
        for spec in current.screen.elements:
            if not current.visible(spec):
                continue
            if content_blocked and spec.frame[1] >= NAV_BAR_BOTTOM:
                continue
            nodes.append(self._node(current, spec))
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

    def _node(self, current: ScreenState, spec: ElementSpec) -> Node:
        label = current.labels.get(spec.id or "", spec.label)
        value: str | None = None
        placeholder = None
        focused = None
        subrole = None
        if spec.is_text_field:
            text = current.values.get(spec.id or "", "")
            value = (BULLET * len(text) if spec.secure else text) or None
            placeholder = spec.placeholder
            focused = self.focus == spec.id and self.overlay is None
            subrole = "AXSecureTextField" if spec.secure else None
        elif spec.role == "AXSwitch":
            value = current.values.get(spec.id or "", "0") or "0"
        elif spec.value is not None:
            value = spec.value
        traits = (*DEFAULT_TRAITS.get(spec.role, ()), *spec.traits)
        if not spec.enabled:
            traits = (*traits, "notEnabled")
        if spec.role == "AXSwitch" and value == "1":
            traits = (*traits, "selected")
        style = "" if spec.tone == "normal" else spec.tone
        return Node(
            spec.role,
            label,
            spec.rect,
            unique_id=spec.id,
            value=value,
            subrole=subrole,
            enabled=spec.enabled,
            traits=tuple(dict.fromkeys(traits)),
            placeholder=placeholder,
            focused=focused,
            pid=self.pid,
            style=style,
            action=f"el:{spec.id}" if spec.id is not None else "",
        )

    def _keyboard(self) -> Node:
        width, height = self.model.width, self.model.height
        top = height - KEYBOARD_HEIGHT
        key_w, key_h, gap = width / 10, 42.0, 12.0
        keys: list[Node] = []

        def key(label: str, action: str, x: float, y: float, w: float) -> None:
            frame = Frame(round(x + 3, 1), y, round(w - 6, 1), key_h)
            keys.append(
                Node(
                    "AXButton",
                    label,
                    frame,
                    traits=("keyboardKey",),
                    pid=self.pid,
                    style="key",
                    action=f"key:{action}",
                )
            )

        for row, letters in enumerate(KEY_ROWS):
            y = top + 8 + row * (key_h + gap)
            x = (width - len(letters) * key_w) / 2
            if row == 2:
                key("shift", "shift", 0, y, key_w * 1.4)
            for letter in letters:
                shown = letter.upper() if self.shift else letter
                key(shown, letter, x, y, key_w)
                x += key_w
            if row == 2:
                key("delete", "backspace", width - key_w * 1.4, y, key_w * 1.4)
        y = top + 8 + 3 * (key_h + gap)
        key("space", " ", key_w * 2.5, y, key_w * 5)
        key("return", "return", key_w * 7.5, y, key_w * 2.5)
        return Node(
            "AXKeyboard",
            None,
            Frame(0, top, width, KEYBOARD_HEIGHT),
            pid=self.pid,
            style="keyboard",
            children=tuple(keys),
        )

    def _tab_bar(self) -> Node:
        width, height = self.model.width, self.model.height
        top = height - TAB_BAR_HEIGHT
        share = width / len(self.model.tabs)
        buttons = tuple(
            Node(
                "AXButton",
                tab.label,
                Frame(i * share, top, share, 49),
                unique_id=tab.id,
                traits=("button", "selected") if tab.id == self.tab else ("button",),
                pid=self.pid,
                style="tab",
                action=f"tab:{tab.id}",
            )
            for i, tab in enumerate(self.model.tabs)
        )
        frame = Frame(0, top, width, TAB_BAR_HEIGHT)
        return Node("AXGroup", "Tab Bar", frame, pid=self.pid, style="tab_bar", children=buttons)

    def _alert(self, overlay: Overlay) -> Node:
        """An alert: the app's own (its pid, its id, its buttons), an injected one (the app's
        pid, OK / Cancel) or a permission dialog (SpringBoard's pid: a system alert)."""
        system = overlay.kind == "permission"
        pid = SPRINGBOARD_PID if system else self.pid
        spec = overlay.alert
        if spec is not None:
            buttons = [
                (b.label, b.id, b.style, f"app_alert:{i}") for i, b in enumerate(spec.buttons)
            ]
        else:
            labels = ("Don't Allow", "Allow") if system else ("Cancel", "OK")
            buttons = [(label, None, "default", f"{overlay.kind}:{label}") for label in labels]
        sheet = spec is not None and spec.style == "action_sheet"
        side_by_side = len(buttons) == 2 and not sheet
        rows = 1 if side_by_side else len(buttons)
        text_height = 50.0 + (40.0 if overlay.message else 0.0)  # title, message, a gap
        width = self.model.width - 16 if sheet else 270.0
        height = 16 + text_height + rows * 44  # 270 x 150 for a message and two buttons
        x = (self.model.width - width) / 2
        y = self.model.height - height - 34 if sheet else (self.model.height - height) / 2
        children = [
            Node(
                "AXStaticText",
                overlay.title,
                Frame(x, y + 16, width, 44),
                pid=pid,
                traits=("staticText", "header"),
                style="alert_title",
            )
        ]
        if overlay.message:
            children.append(
                Node(
                    "AXStaticText",
                    overlay.message,
                    Frame(x, y + 60, width, 40),
                    pid=pid,
                    traits=("staticText",),
                    style="alert_text",
                )
            )
        top = y + height - rows * 44
        for i, (label, button_id, style, action) in enumerate(buttons):
            if side_by_side:
                frame = Frame(x + i * width / 2, top, width / 2, 44)
            else:
                frame = Frame(x, top + i * 44, width, 44)
            children.append(
                Node(
                    "AXButton",
                    label,
                    frame,
                    unique_id=button_id,
                    pid=pid,
                    traits=("button",),
                    style="alert_destructive" if style == "destructive" else "alert_button",
                    action=action,
                )
            )
        return Node(
            "AXSheet" if sheet else "AXAlert",
            overlay.title,
            Frame(x, y, width, height),
            unique_id=spec.id if spec is not None else None,
            pid=pid,
            style="modal",
            children=tuple(children),
        )

    def _springboard(self) -> Node:
        icons = []
        names = (self.model.name, *HOME_ICONS)
        for i, name in enumerate(names):
            frame = Frame(27 + (i % 4) * 90, 80 + (i // 4) * 100, 64, 64)
            action = "launch:" if i == 0 else ""
            icons.append(
                Node(
                    "AXButton",
                    name,
                    frame,
                    pid=SPRINGBOARD_PID,
                    traits=("button",),
                    style="icon",
                    action=action,
                )
            )
        return Node(
            "AXApplication",
            "SpringBoard",
            Frame(0, 0, self.model.width, self.model.height),
            pid=SPRINGBOARD_PID,
            children=tuple(icons),
        )


def login_wall(model: AppModel) -> Screen:
    """The screen a ``login`` fault puts in front of the current one: sign in again."""
    creds = model.credentials
    Spec = ElementSpec
    ok: dict[str, str] = {"email": creds.username, "password": creds.password} if creds else {}
    submit = (
        Transition(when={"email": ""}, show="wall_error", message="Enter your email and password"),
        Transition(
            when={"password": ""}, show="wall_error", message="Enter your email and password"
        ),
        Transition(when=ok, to=BACK),
        Transition(show="wall_error", message="Wrong email or password"),
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
