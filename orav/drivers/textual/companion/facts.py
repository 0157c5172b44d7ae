"""A Textual screen's element facts: one per visible widget, and per visible item.

A fact is a plain dict with ``orav.model.Element``'s fields (``role``, ``frame`` as
``[x, y, width, height]`` in cells, and ``label``, ``unique_id``, ``value``, ``enabled``,
``traits``, ``focused``, ``placeholder``, ``secure`` when not their default), so it crosses a
pipe as JSON and orav builds the Element from it (``orav.drivers.textual.tree``): both drivers
observe through this one walk.

Pre-order, after two heads: ``AXApplication`` (label: the app's title; traits: the app's and
the screen's bindings, the app's own palette commands) and the screen itself: ``AXWindow``
(label: the screen's class name, value: its title) or, for a ``ModalScreen``, ``AXDialog`` (label: its title, else the
title on its border; trait ``modal``); both carry the trait ``screen:ClassName``. Items inside
a widget that a user reads and clicks one by one (DataTable cells, OptionList options, Tree
nodes) are ``AXCell`` facts after their widget (a DataTable cell in a row the app keyed has the
id ``TABLE/ROW_KEY/COLUMN``, so it is named by where it is, not by what it shows); a ContentSwitcher's group says which page it
shows (trait ``page:ID``, as a selected tab does). Each fact is paired with the widget a click
on it reaches, so a tap can tell whether something else covers it. One walk with every widget
kind's facts: the module is long because the widget kinds are many.
"""

from __future__ import annotations

import io
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Any

from . import compat

Fact = dict[str, Any]
Pair = tuple[Fact, Any]
Widget = Any
Region = Any
Strip = Any

BULLET = "\u2022"
RENDER_WIDTH = 200  # the width a Rich renderable in a cell is drawn at to read its text

# Textual widget classes (by name, along the MRO, textual's own only) → (role, look inside).
ROLES: dict[str, tuple[str, bool]] = {
    "Button": ("AXButton", False),
    "Input": ("AXTextField", False),
    "TextArea": ("AXTextView", False),
    "Switch": ("AXSwitch", False),
    "Checkbox": ("AXSwitch", False),
    "RadioButton": ("AXRadioButton", False),
    "Toast": ("AXStaticText", False),
    "Tab": ("AXTab", False),
    "Link": ("AXLink", False),
    "Label": ("AXStaticText", False),
    "Digits": ("AXStaticText", False),
    "Static": ("AXStaticText", False),
    "ListView": ("AXTable", True),
    "ListItem": ("AXCell", True),
    "OptionList": ("AXTable", False),
    "DataTable": ("AXTable", False),
    "Tree": ("AXOutline", False),
    "Select": ("AXPopUpButton", False),
    "ProgressBar": ("AXProgressIndicator", False),
    "LoadingIndicator": ("AXActivityIndicator", False),
    "Header": ("AXHeading", False),
    "FooterKey": ("AXButton", False),
    "Footer": ("", True),  # its keys only
    "ContentSwitcher": ("AXGroup", True),
}


def composed(app: Any) -> bool:
    """True once every Footer of the screen shows its bindings (Textual 8 fills a Footer a few
    refreshes after the screen mounts; the first look must not miss them)."""
    from textual.widgets import Footer

    return all(compat.footer_ready(footer, app) for footer in app.screen.query(Footer))


def scan(app: Any, strips: list[Strip], provided: Iterable[str] = ()) -> list[Pair]:
    """Every fact of the current screen with the widget it stands for, in pre-order;
    ``provided``: the commands the app's own palette providers list."""
    return list(_scan(app, strips, provided))


def _scan(app: Any, strips: list[Strip], provided: Iterable[str]) -> Iterator[Pair]:
    from textual.screen import ModalScreen

    screen = app.screen
    width, height = screen.size
    bindings = _bindings(app)
    whole = [0, 0, width, height]
    yield (
        fact(
            "AXApplication",
            whole,
            label=app.title,
            traits=[
                *bindings.pop(id(app), ()),
                *bindings.pop(id(screen), ()),
                *_commands(app, provided),
            ],
        ),
        screen,
    )
    kind = f"screen:{type(screen).__name__}"
    if isinstance(screen, ModalScreen):
        head = fact(
            "AXDialog",
            _frame(screen.region),
            label=screen.title or _border_title(screen),
            unique_id=screen.id,
            traits=["modal", kind],
        )
    else:
        head = fact(
            "AXWindow",
            whole,
            label=type(screen).__name__,
            unique_id=screen.id,
            value=screen.title or app.title or None,
            traits=[kind],
        )
    yield head, screen
    for child in screen.children:
        yield from _walk(child, screen, strips, bindings)


def _border_title(screen: Any) -> str | None:
    """The title drawn on the dialog's border (``border_title`` of the screen or of one of its
    own children, as posting's "New request"): what a person reads as the dialog's name."""
    for node in (screen, *screen.children):
        title = getattr(node, "border_title", None)
        if title and node.display:
            return _plain_text(title)
    return None


def fact(role: str, frame: list[int], **fields: Any) -> Fact:
    """An element fact: the fields that differ from Element's defaults (None, False, empty;
    ``enabled`` is True unless given)."""
    found: Fact = {"role": role, "frame": frame}
    if isinstance(fields.get("label"), str):
        fields["label"] = _without_icons(fields["label"])
    for name, value in fields.items():
        if name == "enabled":
            if not value:
                found[name] = False
        elif value:
            found[name] = value
    return found


def _without_icons(label: str) -> str | None:
    """The label without icon-font glyphs (Unicode private use, as Nerd Fonts' ``\uf013``
    before smassh's "settings"): they read as nothing to a person or a model, and a target's
    label is written without them."""
    if not any(unicodedata.category(c) == "Co" for c in label):
        return label
    kept = "".join(c for c in label if unicodedata.category(c) != "Co")
    return " ".join(kept.split()) or None


def _bindings(app: Any) -> dict[int, list[str]]:
    """Traits of the active bindings, by the id of the node defining them: ``binding:KEY`` for
    an enabled one shown in the footer or written by the app itself (shown or not: a key the
    app handles), with ``says:KEY:DESCRIPTION`` when it says what it does (the words of a key,
    ``orav.perceive.deeds``); ``quits:KEY`` for one whose action ends the app. A key the
    app's code handles in a ``key_`` method is a binding too (``_key_methods``)."""
    found: dict[int, list[str]] = {}
    for key, node, binding, enabled in compat.bindings(app):
        traits = found.setdefault(id(node), [])
        if _quits(app, node, binding.action):
            traits.append(f"quits:{key}")
        if enabled and (binding.show or _own_binding(node, key)):
            traits.append(f"binding:{key}")
            if binding.description:
                traits.append(f"says:{key}:{binding.description}")
    for node, key, method in _key_methods(app):
        traits = found.setdefault(id(node), [])
        if f"binding:{key}" not in traits:
            traits.append(f"binding:{key}")
        if _calls_exit(method):
            traits.append(f"quits:{key}")
    return found


# Textual's modifier names, first in a key's name (``ctrl+shift+d``).
_MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})


def _key_methods(app: Any) -> Iterator[tuple[Any, str, Any]]:
    """(node, key, method) of each key handler method of the app's own classes (Textual calls
    ``key_ctrl_d`` on the focused widget, its ancestors, the screen and the app when ctrl+d is
    pressed): keys the app handles in code, with no binding to read (meine's ctrl+d)."""
    screen = app.screen
    chain = [app, screen]
    node = getattr(screen, "focused", None)
    while node is not None and node is not screen and node not in chain:
        chain.append(node)
        node = node.parent
    for node in chain:
        for cls in type(node).__mro__:
            if cls.__module__.split(".")[0] == "textual" or cls is object:
                continue
            for name, method in cls.__dict__.items():
                if name.startswith("key_") and callable(method):
                    yield node, _key_of(name.removeprefix("key_")), method


def _key_of(identifier: str) -> str:
    """The key a handler's name stands for (Textual's ``_key_to_identifier`` undone):
    ``ctrl_d`` is ctrl+d, ``upper_x`` is X, ``left_square_bracket`` stays one name."""
    parts = identifier.split("_")
    modifiers = []
    while len(parts) > 1 and parts[0] in _MODIFIERS:
        modifiers.append(parts.pop(0))
    if len(parts) == 2 and parts[0] == "upper" and len(parts[1]) == 1:
        parts = [parts[1].upper()]
    return "+".join([*modifiers, "_".join(parts)])


def _commands(app: Any, provided: Iterable[str]) -> list[str]:
    """``command:TITLE`` traits of the app's own commands in the command palette: its system
    commands whose callbacks are the app's code (Textual's own are the same in every app),
    then what its own providers list (``provided``)."""
    titles = [
        command.title
        for command in compat.system_commands(app)
        if getattr(command.callback, "__module__", "textual").split(".")[0] != "textual"
    ]
    return [f"command:{title}" for title in dict.fromkeys([*titles, *provided])]


def _quits(app: Any, node: Any, action: str) -> bool:
    """Whether an action ends the app: Textual's quit, by any name (``quit``, ``app.quit``, an
    action of the app's that is Textual's own ``action_quit``), or an action of the app's own
    whose code calls ``exit`` (``self.exit()``, ``self.app.exit()``, ``sys.exit()``), whatever
    it is named."""
    from textual.app import App

    namespace, _, call = action.rpartition(".")
    target = app if namespace == "app" else node
    method = getattr(type(target), f"action_{call.partition('(')[0]}", None)
    if method is App.action_quit or (call == "quit" and isinstance(target, App)):
        return True
    own = method is not None and method.__module__.split(".")[0] != "textual"
    return own and _calls_exit(method)


def _calls_exit(method: Any) -> bool:
    """Whether a method's own code calls ``exit`` (``self.exit()``, ``sys.exit()``)."""
    return "exit" in getattr(getattr(method, "__code__", None), "co_names", ())


def _own_binding(node: Any, key: str) -> bool:
    """Whether the binding of ``key`` comes from the app's own classes (their ``BINDINGS``),
    not Textual's: Textual's hidden ones move cursors and focus, the app's are its commands."""
    for cls in type(node).__mro__:
        if cls.__module__.split(".")[0] == "textual" or cls is object:
            continue
        for binding in cls.__dict__.get("BINDINGS") or ():
            keys = binding[0] if isinstance(binding, tuple) else getattr(binding, "key", "")
            if key in (k.strip() for k in keys.split(",")):
                return True
    return False


def _walk(widget: Widget, screen: Any, strips: list[Strip], bindings: dict) -> Iterator[Pair]:
    from textual.errors import NoWidget

    if not widget.display:
        return
    try:
        geometry = screen.find_widget(widget)
    except NoWidget:  # not laid out itself, yet its children may be (Textual's toast rack)
        for child in widget.children:
            yield from _walk(child, screen, strips, bindings)
        return
    visible = geometry.region.intersection(geometry.clip)
    if not visible.area:
        return
    name = _textual_class(widget)
    role, inside = _role(widget, name)
    own = _own_fact(widget, name, role, visible, strips, bindings.get(id(widget), ()))
    if own is not None:
        yield own, widget
    for item in _items(widget, name, visible, strips):
        yield item, widget
    for child in _looked_into(widget, name, inside):
        yield from _walk(child, screen, strips, bindings)


def _role(widget: Widget, name: str | None) -> tuple[str, bool]:
    """The widget's role and whether the walk looks inside it: its Textual class's, else a
    group when made of others, else a plain element."""
    if name is not None:
        return ROLES[name]
    if widget.children:  # a container, or a widget made of others
        return "AXGroup", True
    return "AXOther", False


def _own_fact(
    widget: Widget,
    name: str | None,
    role: str,
    visible: Region,
    strips: list[Strip],
    bound: Iterable[str],
) -> Fact | None:
    """The widget's own fact, unless it tells a reader nothing: an anonymous container (its
    children stand for it), a Footer (its keys only), a generic element with no words, id,
    page or click handler."""
    traits = list(bound)
    clickable = role in _GENERIC and _clickable(widget)
    if clickable:
        traits.append("button")
    page = _page(widget) if name == "ContentSwitcher" else None
    if page is not None:
        traits.append(f"page:{page}")
    if clickable or page is not None:
        return _fact(widget, name, role, visible, strips, traits)
    if not role or (role == "AXGroup" and widget.id is None):
        return None
    found = _fact(widget, name, role, visible, strips, traits)
    if found["role"] not in ("AXOther", "AXGroup") or found.keys() & _NAMED:
        return found
    return None


def _items(widget: Widget, name: str | None, visible: Region, strips: list[Strip]) -> list[Fact]:
    """The facts of the items inside the widget a user reads and clicks one by one."""
    read = _ITEMS.get(name or "")
    if read is None:
        return []
    try:
        return list(read(widget, visible, strips))
    except AttributeError:  # private state this Textual lacks: the widget stands alone
        return []


def _looked_into(widget: Widget, name: str | None, inside: bool) -> Iterable[Widget]:
    """The children the walk goes on with: an expanded Select's overlay (its options), else
    every child of a widget the walk looks inside."""
    if name == "Select" and widget.expanded:
        return [c for c in widget.children if type(c).__name__ == "SelectOverlay"]
    return widget.children if inside else ()


_GENERIC = ("AXOther", "AXGroup", "AXStaticText")
_NAMED = {"label", "unique_id"}
_CLICK_HANDLERS = ("on_click", "_on_click", "on_mouse_down", "on_mouse_up")
_CLICK_EVENTS = ("Click", "MouseDown", "MouseUp")


def _clickable(widget: Widget) -> bool:
    """Whether the app's own class of the widget handles clicks (a handler, or ``@on(Click)``)
    or defines key bindings: such a widget is a control (trait ``button``) whatever its
    generic role, so a model and the explorer try it."""
    return _clickable_class(widget.__class__)


@cache
def _clickable_class(widget_class: Any) -> bool:
    for cls in widget_class.__mro__:
        if cls.__module__.split(".")[0] == "textual" or cls is object:
            continue
        own = cls.__dict__
        if own.get("BINDINGS") or any(name in own for name in _CLICK_HANDLERS):
            return True
        handlers = own.get("_decorated_handlers") or {}
        if any(getattr(message, "__name__", "") in _CLICK_EVENTS for message in handlers):
            return True
    return False


def _page(switcher: Widget) -> str | None:
    """The id of the page a ContentSwitcher shows (trait ``page:ID``: which page of the screen
    this is, as a selected tab says), unless its TabbedContent's selected tab says it."""
    parent = switcher.parent
    if parent is not None and any(
        cls.__name__ == "TabbedContent" and cls.__module__.startswith("textual.")
        for cls in type(parent).__mro__
    ):
        return None
    return getattr(switcher, "current", None) or None


def _textual_class(widget: Widget) -> str | None:
    """The name of the first of Textual's own classes in ``ROLES`` the widget is one of."""
    for cls in type(widget).__mro__:
        if cls.__module__.startswith("textual.") and cls.__name__ in ROLES:
            return cls.__name__
    return None


def _fact(
    widget: Widget,
    name: str | None,
    role: str,
    visible: Region,
    strips: list[Strip],
    traits: list[str],
) -> Fact:
    read = _SHOWN_BY_CLASS.get(name or "") or _SHOWN_BY_ROLE.get(role)
    shown = read(widget, visible, strips, traits) if read is not None else {}
    traits = shown.get("traits", traits)
    if name == "ListItem" and getattr(widget, "highlighted", False):
        traits = [*traits, "selected"]
    return fact(
        role,
        _frame(visible),
        label=shown.get("label"),
        unique_id=_own_id(widget),
        value=shown.get("value"),
        enabled=not compat.disabled(widget),
        traits=traits,
        focused=widget.has_focus,
        placeholder=shown.get("placeholder"),
        secure=shown.get("secure", False),
    )


# What a widget kind shows: (widget, visible region, strips, traits) → the fields it sets
# (``label``, ``value``, ``placeholder``, ``secure``, and ``traits`` when it adds some).
Shown = Callable[[Widget, Region, list[Strip], list[str]], dict[str, Any]]


def _on_off(widget: Widget) -> str:
    return "1" if widget.value else "0"


def _words(widget: Widget, visible: Region, strips: list[Strip]) -> str | None:
    """The widget's own text, else what the screen shows inside it."""
    return _plain(widget) or _text_in(strips, widget.content_region.intersection(visible))


def _input(widget: Widget, visible: Region, strips: list[Strip], traits: list[str]) -> Fact:
    placeholder = widget.placeholder or None
    secure = bool(widget.password)
    value = (BULLET * len(widget.value) if secure else widget.value) or None
    return {"label": placeholder, "placeholder": placeholder, "secure": secure, "value": value}


def _select(widget: Widget, visible: Region, strips: list[Strip], traits: list[str]) -> Fact:
    placeholder = str(widget.prompt)
    shown = _selected_prompt(widget)
    expanded = "expanded" if widget.expanded else "collapsed"
    return {
        "label": shown or placeholder,
        "value": shown,
        "placeholder": placeholder,
        "traits": [*traits, expanded],
    }


def _tab(widget: Widget, visible: Region, strips: list[Strip], traits: list[str]) -> Fact:
    selected = ["selected"] if widget.has_class("-active") else []
    return {"label": _plain_text(widget.label), "traits": [*traits, *selected]}


def _toast(widget: Widget, visible: Region, strips: list[Strip], traits: list[str]) -> Fact:
    severity = getattr(getattr(widget, "_notification", None), "severity", "information")
    return {
        "label": _words(widget, visible, strips),
        "traits": ["toast", f"severity:{severity}", *traits],
    }


def _progress(widget: Widget, visible: Region, strips: list[Strip], traits: list[str]) -> Fact:
    return {"value": None if widget.percentage is None else f"{widget.percentage:.0%}"}


_SHOWN_BY_CLASS: dict[str, Shown] = {
    "Button": lambda w, v, s, t: {"label": _plain_text(w.label)},
    "Input": _input,
    "TextArea": lambda w, v, s, t: {"value": w.text or None},
    "Switch": lambda w, v, s, t: {"value": _on_off(w)},
    "Checkbox": lambda w, v, s, t: {"label": _plain_text(w.label), "value": _on_off(w)},
    "RadioButton": lambda w, v, s, t: {"label": _plain_text(w.label), "value": _on_off(w)},
    "Header": lambda w, v, s, t: {"label": w.screen_title, "traits": ["Header", *t]},
    "FooterKey": lambda w, v, s, t: {
        "label": w.description or w.key_display,
        "traits": [f"binding:{w.key}", *t],
    },
    "ProgressBar": _progress,
    "Select": _select,
    "Tab": _tab,
    # large digits drawn with box characters: the text they show
    "Digits": lambda w, v, s, t: {"label": str(w.value)},
    "Toast": _toast,
}
# Widgets of no kind above: what their role shows.
_SHOWN_BY_ROLE: dict[str, Shown] = {
    "AXStaticText": lambda w, v, s, t: {"label": _words(w, v, s)},
    "AXLink": lambda w, v, s, t: {"label": _words(w, v, s)},
    "AXCell": lambda w, v, s, t: {"label": _text_in(s, w.content_region.intersection(v))},
    "AXOther": lambda w, v, s, t: {"label": _text_in(s, w.content_region.intersection(v))},
}


def _own_id(widget: Widget) -> str | None:
    """The widget's id, unless it was made of the widget's address (``id(self)``: Textual's
    Markdown headings), which differs in every run and names nothing a test can target."""
    name = widget.id
    return None if name is not None and str(id(widget)) in name else name


def _selected_prompt(select: Widget) -> str | None:
    """The prompt of the selected option, as the closed Select shows it; None when blank."""
    is_blank = getattr(select, "is_blank", None)
    if is_blank() if is_blank is not None else select.value is getattr(select, "BLANK", None):
        return None
    for prompt, value in getattr(select, "_options", ()):  # private in Textual 8
        if value == select.value:
            return _plain_text(prompt)
    return str(select.value)


# --- items: what a user reads and clicks inside one widget -------------------------------------


def _table_cells(table: Widget, visible: Region, strips: list[Strip]) -> Iterator[Fact]:
    """Each visible cell of a DataTable: label its text, traits ``row:N``, ``column:NAME`` and
    ``selected`` on the cursor's row (row cursor) or cell."""
    content = table.content_region
    scroll_x, scroll_y = table.scroll_offset
    header = table.header_height if table.show_header else 0
    rows_top = max(visible.y, content.y + header)
    rows_bottom = visible.bottom
    columns = []
    x = table._row_label_column_width  # private in Textual 8
    for column in table.ordered_columns:
        width = column.get_render_width(table)
        columns.append((column, x, width))
        x += width
    cursor_row, cursor_column = table.cursor_coordinate
    by_row = table.cursor_type == "row"
    shown = table.show_cursor and table.cursor_type != "none"
    y = header
    for index, row in enumerate(table.ordered_rows):
        top = content.y + y - scroll_y
        y += row.height
        if top + row.height <= rows_top:
            continue
        if top >= rows_bottom:
            break
        for column_index, (column, left, width) in enumerate(columns):
            region = visible.intersection(
                _region(content.x + left - scroll_x, max(top, rows_top), width, row.height)
            )
            if not region.area or region.y >= rows_bottom:
                continue
            cell = table.get_cell(row.key, column.key)
            selected = shown and index == cursor_row and (by_row or column_index == cursor_column)
            yield fact(
                "AXCell",
                _frame(region),
                label=_plain_text(cell),
                unique_id=_cell_id(table, row, column),
                traits=[
                    f"row:{index}",
                    f"column:{_plain_text(column.label)}",
                    *(["selected"] if selected else []),
                ],
            )


def _cell_id(table: Widget, row: Any, column: Any) -> str | None:
    """A cell of a row the app keyed: its table, row key and column (key, else label), which
    name it whatever it shows (a clock, a counter); None in a row without a key."""
    if row.key.value is None:
        return None
    name = column.key.value or _plain_text(column.label)
    return f"{table.id or 'table'}/{row.key.value}/{name}"


def _options(option_list: Widget, visible: Region, strips: list[Strip]) -> Iterator[Fact]:
    """Each visible option of an OptionList (``selected`` on the highlighted one)."""
    content = option_list.content_region
    scroll_y = option_list.scroll_offset.y
    lines, heights = option_list._index_to_line, option_list._heights  # private in Textual 8
    for index in range(option_list.option_count):
        option = option_list.get_option_at_index(index)
        top = content.y + lines.get(index, 0) - scroll_y
        region = visible.intersection(_region(content.x, top, content.width, heights.get(index, 1)))
        if not region.area:
            continue
        yield fact(
            "AXCell",
            _frame(region),
            label=_plain_text(option.prompt),
            unique_id=option.id,
            enabled=not option.disabled,
            traits=["selected"] if index == option_list.highlighted else [],
        )


def _tree_nodes(tree: Widget, visible: Region, strips: list[Strip]) -> Iterator[Fact]:
    """Each visible node of a Tree: value ``expanded``/``collapsed`` when it can expand, traits
    ``depth:N`` and ``selected`` on the cursor's node."""
    content = tree.content_region
    scroll_y = tree.scroll_offset.y
    cursor = tree.cursor_node
    for row in range(max(visible.y, content.y), min(visible.bottom, content.bottom)):
        node = tree.get_node_at_line(row - content.y + scroll_y)
        if node is None:
            continue
        label = _plain_text(node.label)
        left = _find_in_row(strips, row, label, content.x, content.right) or content.x
        region = visible.intersection(_region(left, row, content.right - left, 1))
        if not region.area:
            continue
        state = ("expanded" if node.is_expanded else "collapsed") if node.allow_expand else None
        yield fact(
            "AXCell",
            _frame(region),
            label=label,
            value=state,
            traits=[f"depth:{_depth(node)}", *(["selected"] if node is cursor else [])],
        )


def _depth(node: Any) -> int:
    depth = 0
    while (node := node.parent) is not None:
        depth += 1
    return depth


_ITEMS = {"DataTable": _table_cells, "OptionList": _options, "Tree": _tree_nodes}


# --- text -------------------------------------------------------------------------------------


def _plain_text(renderable: object) -> str:
    """The plain text of a cell, a prompt or a label: Content's or rich Text's own, a Rich
    renderable's as the terminal shows it (Syntax, Table, Panel...: never its repr), else the
    value as text."""
    plain = getattr(renderable, "plain", None)
    if isinstance(plain, str):
        text = plain
    elif hasattr(renderable, "__rich_console__") or hasattr(renderable, "__rich__"):
        text = _rendered(renderable)
    else:
        text = str(renderable)
    return " ".join(text.split())


# Box drawing (U+2500..U+257F): a Panel's or a Table's frame, drawn around the text, not read.
_FRAME = {code: None for code in range(0x2500, 0x2580)}


def _rendered(renderable: object) -> str:
    """The text a Rich renderable draws, at a width that wraps nothing a cell shows, without
    its frame."""
    from rich.console import Console

    console = Console(width=RENDER_WIDTH, color_system=None, file=io.StringIO())
    lines = console.render_lines(renderable, console.options, pad=False)  # type: ignore[arg-type]
    return " ".join("".join(s.text for s in line) for line in lines).translate(_FRAME)


def _plain(widget: Widget) -> str | None:
    """A Static's own text (whole even when wrapped or clipped), when it is plain content."""
    return compat.plain_content(widget)


def _text_in(strips: list[Strip], region: Region) -> str | None:
    rows = (
        strips[y].crop(region.x, region.right).text.strip()
        for y in range(region.y, min(region.bottom, len(strips)))
    )
    return " ".join(row for row in rows if row) or None


def _find_in_row(strips: list[Strip], row: int, text: str, left: int, right: int) -> int | None:
    """The cell where ``text`` starts in one row between ``left`` and ``right``, if shown."""
    if not text or row >= len(strips):
        return None
    at = strips[row].crop(left, right).text.find(text[:12])  # a prefix: the end may be cut
    return None if at < 0 else left + at


def _region(x: int, y: int, width: int, height: int) -> Region:
    from textual.geometry import Region

    return Region(x, y, max(width, 0), max(height, 0))


def _frame(region: Region) -> list[int]:
    return [region.x, region.y, region.width, region.height]
