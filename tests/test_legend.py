"""Keys an app handles itself and lists in a help screen of its own (issue 25, item 4).

The legend reader (``orav.perceive.legend``) is checked on legends drawn in words and layouts
its code never saw (hypothesis: two-column tables, centred key columns, bullet lists, plain
lines, keys written as people write them); the explorer on the unseen apps Hafen (a DataTable
help), Teestube (a Markdown help found by a blind probe), Stellwerk (a plain-text legend) and
Funkstille (no help: a probe finds its key, never one whose binding ends the app); an LLM
agent over the loopback model server is offered the keys a help listed, with where it read
them, and reaches the screen one of them opens."""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from model_server import answer, make_agent, user_text

from orav.agents import AgentContext
from orav.agents.explorer import ExplorerAgent
from orav.model import Decision, PressKey, Scenario
from orav.perceive.legend import key_name, read_legend
from orav.session import record

# Keys as a legend writes them, and Textual's names for them.
_SPELLED = {
    "Ctrl+T": "ctrl+t",
    "ctrl+t": "ctrl+t",
    "^R": "ctrl+r",
    "F2": "f2",
    "f11": "f11",
    "Esc": "escape",
    "PgDn": "pagedown",
    "[n]": "n",
    "<x>": "x",
    "`b`": "b",
    "?": "?",
    "+": "+",
    "Shift+Tab": "shift+tab",
    "Space": "space",
    "D": "D",
}
_LETTERS = "abcdefghijklmnopqrstuvwxyzäöüßéèñøåæçłśźżğışœ"
words = st.text(alphabet=_LETTERS, min_size=3, max_size=10)
descriptions = st.lists(words, min_size=1, max_size=4).map(" ".join)
keys = st.sampled_from(sorted(_SPELLED) + list(string.ascii_lowercase + string.digits))


def _name(key: str) -> str:
    return _SPELLED.get(key, key)


def _drawn(rows: list[tuple[str, str]], layout: str, indent: int) -> str:
    """A legend as a screen draws it, in one of the layouts help screens use."""
    width = max(len(k) for k, _ in rows)
    pad = " " * indent
    if layout == "table":  # two columns, keys left-aligned
        lines = [f"{pad}{k.ljust(width)}  {d}" for k, d in rows]
    elif layout == "centred":  # a centred key column, descriptions aligned
        lines = [f"{pad}{k.center(width + 2)}  {d}" for k, d in rows]
    elif layout == "bullets":  # a Markdown list: "• b description"
        lines = [f"{pad}• {k} {d}" for k, d in rows]
    elif layout == "dashes":  # "k - description"
        lines = [f"{pad}{k} - {d}" for k, d in rows]
    else:  # boxed: a frame drawn around the cells
        lines = [f"{pad}│ {k.ljust(width)} │ {d}" for k, d in rows]
    return "\n".join(lines)


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(st.tuples(keys, descriptions), min_size=3, max_size=12, unique_by=lambda r: r[0]),
    layout=st.sampled_from(["table", "centred", "bullets", "dashes", "boxed"]),
    indent=st.integers(0, 6),
    title=descriptions,
    remark=descriptions,
)
def test_a_legend_in_any_layout_and_words_is_read_key_by_key(rows, layout, indent, title, remark):
    text = f"{title.title()}\n\n{_drawn(rows, layout, indent)}\n\n{remark}."
    found = read_legend(text)
    expected = {}
    for key, description in rows:
        expected.setdefault(_name(key), description)
    assert {p.key: p.description for p in found} == expected, text


@settings(max_examples=100, deadline=None)
@given(
    pairs=st.lists(st.tuples(keys, descriptions), min_size=1, max_size=4),
    prose=st.lists(st.lists(words, min_size=2, max_size=8).map(" ".join), max_size=6),
)
def test_a_hint_line_and_prose_are_no_legend(pairs, prose):
    """Keys side by side on one row (a hint line) and sentences: no column of keys."""
    hint = "   ".join(f"{k} {d}" for k, d in pairs)
    assert read_legend("\n".join([hint, *prose])) == ()


@settings(max_examples=100, deadline=None)
@given(
    rows=st.lists(st.tuples(keys, descriptions), min_size=3, max_size=10, unique_by=lambda r: r[0]),
    wraps=st.lists(
        st.tuples(st.sampled_from(["left", "tab", "end", "home", "space"]), descriptions),
        min_size=3,
        max_size=10,
    ),
)
def test_a_wrapped_list_items_next_row_is_no_key(rows, wraps):
    """A bulleted list whose items wrap (dataframe-textual's help panel: "•   b - Next tab",
    then "    left (wrap to last)"): the rows without a bullet continue an item, though
    they start with a key's name."""
    lines = []
    for (key, description), (word, more) in zip(rows, wraps * len(rows), strict=False):
        lines += [f"  •   {key} - {description}", f"      {word} {more}"]
    found = {p.key for p in read_legend("\n".join(lines))}
    assert found == {_name(k) for k, _ in rows}, lines


@settings(max_examples=100, deadline=None)
@given(
    names=st.lists(words, min_size=3, max_size=10),
    figures=st.lists(st.integers(0, 99999), min_size=1, max_size=4),
    gap=st.integers(2, 6),
)
def test_a_data_tables_numbered_rows_are_no_legend(names, figures, gap):
    """A data table's rows, numbered (a row label, a name, then figures: dataframe-textual's
    grid), share a column of "keys" 1, 2, 3 and one of words, yet list no keys."""
    width = max(map(len, names))
    sep = " " * gap
    cells = sep.join(str(f).rjust(6) for f in figures)
    rows = [f" {i + 1:>2}{sep}{n.ljust(width)}{sep}{cells}" for i, n in enumerate(names)]
    assert read_legend("\n".join(rows)) == ()


@pytest.mark.parametrize("token", ["Lag", "QPS", "gq", "ctrl+", "Sample", "", "##"])
def test_words_that_are_no_key_name_none(token):
    assert key_name(token) is None


def _explore(app: str, steps: int) -> Scenario:
    return Scenario(
        name=f"explore-{app.split(':')[1].split('@')[0].lower()}",
        app=app,
        goal="explore",
        max_steps=steps,
        timeout_seconds=240,
    )


class Keeping(ExplorerAgent):
    """The explorer, keeping its decisions; the world is what the device says it is."""

    def __init__(self) -> None:
        super().__init__()
        self.decisions: list[Decision] = []

    async def decide(self, context: AgentContext) -> Decision:
        decision = await super().decide(context)
        self.decisions.append(decision)
        return decision


async def _explored(tmp_path: Path, app: str, steps: int, device: str = "textual:"):
    explorer = Keeping()
    run = await record(
        _explore(app, steps), tmp_path / "x.cassette", device=device + app, agent=explorer
    )
    screens = {s.name: s for s in explorer.coverage().screens}
    return run, explorer, screens


def _pressed(screen) -> list[str]:
    return [name.removeprefix("(key ").removesuffix(")") for name in screen.tried]


async def test_the_explorer_reaches_what_keys_listed_in_a_help_table_open(tmp_path):
    """Hafen's board is controls; its commands are in on_key, listed in its f1 help's
    DataTable: g, w, ctrl+t open the tides, the weather, the timetable; z (bound to an action
    of its own that calls exit) is never pressed, whatever the help says of it."""
    run, _, screens = await _explored(tmp_path, "unseen_apps.hafen:Hafen@80x24", 30)
    assert {"Gezeiten", "Wetter", "Fahrplan"} <= set(screens), set(screens)
    assert {"g", "w", "ctrl+t"} <= set(_pressed(screens["Tafel"])), screens["Tafel"].tried
    assert not any("(key z)" in s.tried for s in screens.values())
    assert not any("(key g)" in s.tried for n, s in screens.items() if n == "Hilfe")
    assert not [e for e in run.report.errors if e.error.startswith("crash")], run.report.errors


async def test_a_probe_opens_a_markdown_help_whose_keys_lie_past_the_probes(tmp_path):
    """Teestube shows a picture: a probe finds ``?`` (on_key), its Markdown help lists b, s
    and v, and the explorer presses s and v, which no probe would reach, on the picture."""
    _, _, screens = await _explored(tmp_path, "unseen_apps.teestube:Teestube@80x24", 24)
    assert {"Sorten", "Verlauf"} <= set(screens), set(screens)
    home = _pressed(screens["Teestube"])
    assert home.index("?") < home.index("s") and "v" in home, home


async def test_a_plain_text_legend_opened_by_a_button_is_read(tmp_path):
    """Stellwerk's legend is a Static of lines ("a      Abfahrten", "F2     Störungsliste"):
    its keys are tried on the tracks it was opened from and open their boards."""
    _, _, screens = await _explored(tmp_path, "unseen_apps.stellwerk:Stellwerk@80x24", 24)
    assert {"Abfahrten", "Ankuenfte", "Stoerungen"} <= set(screens), set(screens)
    assert "a" not in _pressed(screens["Legende"])  # its keys are the tracks' commands


async def test_a_blind_probe_finds_a_key_and_never_one_bound_to_an_exit(tmp_path):
    """Funkstille has no help and names no key: a probe finds d (its frequencies); ctrl+r is
    bound to an action of its own that calls exit: never pressed. c ends it from on_key, which
    no structure shows: pressed once at most, in the sandbox, and the app is relaunched."""
    _, explorer, screens = await _explored(tmp_path, "unseen_apps.funkstille:Funkstille", 20)
    assert "Frequenzen" in screens, set(screens)
    pressed = [d.action.key for d in explorer.decisions if isinstance(d.action, PressKey)]
    assert "ctrl+r" not in pressed, pressed
    assert pressed.count("c") <= 1 + len(screens) - 1, pressed


async def test_keys_handled_in_key_methods_are_tried_and_one_that_exits_never(tmp_path):
    """Werkbank's commands are key handler methods (the app's ctrl+g, the focused field's F7,
    the screen's F9) that nothing names; a text field is on screen, so no blind probe runs.
    Each is read from the app's code and opens its page; ctrl+x's handler calls exit: never
    pressed."""
    _, explorer, screens = await _explored(tmp_path, "unseen_apps.werkbank:Werkbank", 24)
    assert {"Werkzeuge", "Lager", "Kalender"} <= set(screens), set(screens)
    pressed = [d.action.key for d in explorer.decisions if isinstance(d.action, PressKey)]
    assert "ctrl+x" not in pressed, pressed


async def test_no_blind_probe_where_the_world_is_the_users(tmp_path, monkeypatch):
    """In-process, the app runs in the user's own world: no key no structure names is
    pressed, so Funkstille's screen with no control gets its arrows and escape only."""
    monkeypatch.chdir(tmp_path)
    _, explorer, _ = await _explored(
        tmp_path, "unseen_apps.funkstille:Funkstille", 8, device="textual-in-process:"
    )
    pressed = [d.action.key for d in explorer.decisions if isinstance(d.action, PressKey)]
    assert not [k for k in pressed if isinstance(k, str) and len(k) == 1], pressed


async def test_a_model_is_offered_the_keys_a_help_listed_and_where_it_read_them(server, tmp_path):
    """An LLM agent opens Hafen's help (f1), goes back, and is told, on the board, the keys
    the help listed with the screen and step it read them on; it presses g: the tides."""

    def press(key: str) -> str:
        return answer({"kind": "press_key", "key": key})

    done = answer({"kind": "done", "success": True, "summary": "the tides are shown"})
    server.answer(press("f1"), press("escape"), press("g"), done)
    scenario = Scenario(
        name="hafen_tides", app="hafen", goal="Show the tides.", max_steps=6, timeout_seconds=120
    )
    async with make_agent(server) as agent:
        run = await record(
            scenario,
            tmp_path / "tides.cassette",
            device="textual:unseen_apps.hafen:Hafen@80x24",
            agent=agent,
        )
    assert run.report.status == "passed", run.report
    texts = [user_text(body) for body in server.bodies()]
    assert "Keys the app's help lists" not in texts[0]
    # its palette provider's commands (App.COMMANDS, the app's own): listed from the start
    assert "App commands in its palette (ctrl+p): Lotse bestellen, Schlepper rufen" in texts[0]
    line = next(t for t in texts[2].splitlines() if t.startswith("Keys the app's help lists"))
    assert "read on 'Hilfe' at step 2" in line, line
    assert "g (Gezeiten anzeigen)" in line and "ctrl+t (Fahrplan der Fähren)" in line, line
    assert "Gezeiten" in run.report.screens_visited, run.report.screens_visited


def test_a_code_listings_line_numbers_are_no_legend():
    """textual.demo's "Code for this page": right-aligned line numbers, then code. Lines 1 to 9
    look like keys with words after them; the same column goes on with 10, 11… and the numbers
    of blank lines: a gutter, not a legend (the explorer pressed 1, 3, 4, 6, 7, 9 there)."""
    code = ["from __future__ import annotations", "", "import asyncio", "from x import y", ""]
    code += ["try:", "    import httpx", "", "    AVAILABLE = True", "except ImportError:"]
    code += [f"    value_{n} = compute({n})" for n in range(10)]
    text = "\n".join(f"┃ {n:>4} {line:<60}┃" for n, line in enumerate(code, start=1))
    assert read_legend(text) == ()
