"""The app model's schema: screens, elements and transitions of a simulated app, the frozen
types ``orav.codec`` structures from YAML, and the limits of what the simulator draws.

``orav.sim.loading`` loads one and checks what the types alone cannot say.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, NewType

from attrs import field, frozen

from orav.codec import converter, show
from orav.model import Credentials, Fault, Frame

Direction = Literal["up", "down", "left", "right"]
BACK = "back"  # the transition target that pops the navigation stack
# What every expression may read of the device: the launch, permission presets, the location,
# and how many times the app's tree was read since launch (a running clock's label).
LAUNCH_NAMES = ("args", "env", "permissions", "location", "looks")

ROLES = (
    "AXButton",
    "AXStaticText",
    "AXTextField",
    "AXSwitch",
    "AXCell",
    "AXImage",
    "AXHeading",
    "AXLink",
)
TEXT_ROLES = ("AXTextField",)
KEYS = ("return", "escape", "tab", "backspace")  # named keys a handler can take (or one char)
LIMIT = 10_000.0  # points: the largest screen side and frame coordinate the simulator draws
MAX_REPEAT = 1_000  # rows one repeat draws at most
MAX_PIXELS = 40_000_000  # of one screenshot: ~120 MB of RGB, drawn in about a second
MAX_ANIMATION_MS = 10_000  # one animation, at most (iOS animations take a fraction of a second)

# Field types with a converter hook of their own. At run time each is a distinct marker the
# converter dispatches on; to the type checker, what the hook returns.
if TYPE_CHECKING:
    Ids = tuple[str, ...]
    Condition = str | dict[str, str]
    Flag = bool | str
else:
    # An id or a list of ids (``show: banner`` or ``show: [banner, total]``).
    Ids = NewType("Ids", tuple)
    # A condition: a mapping of field or state → required value (all must hold), or an
    # expression.
    Condition = NewType("Condition", object)
    # ``enabled``: true / false, or an expression.
    Flag = NewType("Flag", object)


def _ids(value: Any, _: type) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise TypeError(f"expected an id or a list of ids, got {show(value)}")


def _condition(value: Any, _: type) -> str | dict[str, str]:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return {str(k): converter.structure(v, str) for k, v in value.items()}
    raise TypeError(f"expected a mapping of id → value or an expression, got {show(value)}")


def _flag(value: Any, _: type) -> bool | str:
    if isinstance(value, (bool, str)):
        return value
    raise TypeError(f"expected true, false or an expression, got {show(value)}")


converter.register_structure_hook(Ids, _ids)
converter.register_structure_hook(Condition, _condition)
converter.register_structure_hook(Flag, _flag)


@frozen
class Transition:
    """What happens on an input: its effects, in order, when its condition holds.

    ``when`` is a mapping of field id or state name → required value (all must hold), or an
    expression (``len(cart) > 0``); the first transition of a list whose ``when`` holds is
    taken. Effects: ``set`` state or field values (templates), ``append`` / ``remove`` (one) /
    ``remove_all`` items of list state, ``toggle`` switches, ``show`` / ``hide`` elements
    (``message`` relabels the shown ones), ``tab`` selects a tab, ``to`` goes to a screen
    (``back`` pops; ``reset`` makes it the root; ``modal`` presents it), ``alert`` presents an
    alert of the app's own.
    """

    to: str | None = None
    when: Condition = field(factory=dict)
    show: Ids = field(factory=tuple)
    message: str | None = None
    hide: Ids = field(factory=tuple)
    toggle: Ids = field(factory=tuple)
    reset: bool = False
    modal: bool = False
    alert: AlertSpec | None = None
    tab: str | None = None
    set: dict[str, Any] = field(factory=dict)
    append: dict[str, Any] = field(factory=dict)
    remove: dict[str, Any] = field(factory=dict)
    remove_all: dict[str, Any] = field(factory=dict)
    log: str | None = None
    animation_ms: int | None = None  # how long what it moves animates (default: the screen's)


@frozen
class AlertButton:
    """One action of an app's alert (or a row's swipe action) and what tapping it does.

    ``style`` is UIAlertAction's: ``destructive`` is drawn red, ``cancel`` is the dismissal.
    """

    label: str
    id: str | None = None
    style: Literal["default", "cancel", "destructive"] = "default"
    on_tap: tuple[Transition, ...] = ()


@frozen
class AlertSpec:
    """An alert or action sheet the app presents itself (a UIAlertController).

    Unlike a system alert it is in the app's own tree, with the app's pid; ``id`` is its
    accessibility identifier. Every tap outside it is swallowed until a button is tapped.
    """

    title: str
    message: str | None = None
    id: str | None = None
    style: Literal["alert", "action_sheet"] = "alert"
    buttons: tuple[AlertButton, ...] = ()


@frozen
class Tab:
    """One tab of the tab bar: its button (``id``, ``label``) and the root screen of its stack."""

    id: str
    label: str
    screen: str


@frozen
class ElementSpec:
    """One element of a screen; ``frame`` is ``[x, y, width, height]`` in points.

    ``label``, ``id``, ``value`` and ``placeholder`` are templates (``"Cart ({len(cart)})"``).
    ``when`` (an expression) keeps the element out of the tree while false; ``enabled`` may be
    one. ``repeat`` (an expression giving a list) makes the element a group drawing its
    ``elements`` once per item, ``step`` points apart, with the item named ``item``.
    ``fixed`` elements stay put while a scrolling screen scrolls. ``swipe_actions`` are
    revealed by a swipe left on the element; ``on_swipe`` and ``on_key`` handle swipes
    starting on it and keys while it has the focus. ``tone`` only changes pixels: ``error``
    text is red, ``success`` text sits on a green banner, a ``destructive`` button is red.
    """

    role: str = "AXStaticText"
    label: str | None = None
    id: str | None = None
    frame: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    value: str | None = None
    placeholder: str | None = None
    secure: bool = False
    enabled: Flag = True
    hidden: bool = False
    when: str | None = None
    traits: tuple[str, ...] = ()
    tone: Literal["normal", "error", "success", "destructive"] = "normal"
    fixed: bool = False
    on_tap: tuple[Transition, ...] = ()
    on_return: tuple[Transition, ...] = ()
    on_swipe: dict[Direction, tuple[Transition, ...]] = field(factory=dict)
    on_key: dict[str, tuple[Transition, ...]] = field(factory=dict)
    swipe_actions: tuple[AlertButton, ...] = ()
    repeat: str | None = None
    item: str = "item"
    step: float = 0.0
    elements: tuple[ElementSpec, ...] = ()

    @property
    def rect(self) -> Frame:
        return Frame(*self.frame)

    @property
    def is_text_field(self) -> bool:
        return self.role in TEXT_ROLES


@frozen
class Screen:
    """A screen: a navigation title, its elements, and what swipes and keys do on it.

    ``title`` is a template. ``scroll`` makes the content scroll: vertical swipes move it, and
    elements outside the area between the navigation bar and the bottom (the tab bar, or
    ``scroll_bottom`` above a footer of ``fixed`` elements) are not in the tree.
    ``hides_tab_bar`` is UIKit's hidesBottomBarWhenPushed: no tab bar while it is on top.
    """

    title: str | None = None
    elements: tuple[ElementSpec, ...] = ()
    on_swipe: dict[Direction, tuple[Transition, ...]] = field(factory=dict)
    on_key: dict[str, tuple[Transition, ...]] = field(factory=dict)
    hides_tab_bar: bool = False
    scroll: bool = False
    scroll_bottom: float | None = None
    animation_ms: int | None = None  # animations while it is in front (default: the app's)

    def element(self, element_id: str) -> ElementSpec | None:
        return next((e for e in self.elements if e.id == element_id), None)


@frozen
class AppModel:
    """A whole app: where it starts, its screens by name, its state, credentials and faults.

    ``state`` holds app-wide values (flags, numbers, text, lists) that a launch starts from;
    ``keychain`` values outlive a relaunch (cleared by clear_keychain or a reinstall); ``data``
    is constant (a catalogue); ``computed`` values are expressions over them, evaluated in
    order whenever read (``total: "subtotal - discount"``). ``start`` may be a template (``"{'home' if token else
    'login'}"``). ``routes`` map URL prefixes of ``open_url`` to transitions. With ``tabs`` the
    app has a tab bar whenever the navigation stack starts at a tab's screen.
    """

    name: str
    bundle_id: str
    start: str
    screens: dict[str, Screen]
    width: float = 390.0
    height: float = 844.0
    credentials: Credentials | None = None
    faults: tuple[Fault, ...] = ()
    tabs: tuple[Tab, ...] = ()
    state: dict[str, Any] = field(factory=dict)
    keychain: dict[str, Any] = field(factory=dict)
    data: dict[str, Any] = field(factory=dict)
    computed: dict[str, str] = field(factory=dict)
    routes: dict[str, tuple[Transition, ...]] = field(factory=dict)
    animation_ms: int = 0  # transitions, alerts, keyboard, spinners (0: instant)
    kind: Literal["app"] = "app"

    def tab_of(self, screen: str) -> Tab | None:
        """The tab whose root ``screen`` is, if any."""
        return next((t for t in self.tabs if t.screen == screen), None)

    def tab(self, tab_id: str) -> Tab | None:
        return next((t for t in self.tabs if t.id == tab_id), None)

    @property
    def names(self) -> frozenset[str]:
        """The names every expression may read: state, keychain, data and the launch's."""
        return frozenset({*self.state, *self.keychain, *self.data, *self.computed, *LAUNCH_NAMES})
