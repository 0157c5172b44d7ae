"""What orav sees is what a user sees (issue 25): a value that ticks is not what an element
is, a table cell is its column and row, a Rich renderable is labelled by the text the terminal
shows, and the keys an app handles itself are found.

The live half runs the explorer on Leitstand (tests/unseen_apps/leitstand.py), a dashboard
whose clocks, loads, counter, progress and countdown tick several times a second, and on
Sternwarte (tests/unseen_apps/sternwarte.py), whose first screen is text and keys."""

from __future__ import annotations

import asyncio
from pathlib import Path

from attrs import evolve
from explorer_runs import Noting
from hypothesis import given
from hypothesis import strategies as st

from orav.agents import AgentContext
from orav.agents.explore.moves import PROBES
from orav.agents.explorer import ExplorerAgent
from orav.agents.function import FunctionAgent
from orav.agents.prompt import encode_tree
from orav.drivers.textual import TextualDevice
from orav.model import (
    Action,
    Assert,
    Done,
    Element,
    Frame,
    Observation,
    PressKey,
    Scenario,
    Tap,
    Target,
    Wait,
)
from orav.perceive import look_key, resolve, screen_id, target_element
from orav.perceive.identity import TICKS, element_key, steady, steady_label, ticked, with_ticks
from orav.scenario_loader import load_scenario
from orav.session import record, replay

LEITSTAND = "unseen_apps.leitstand:Leitstand@100x30"

# Words without digits: what a label says around its value.
words = st.text(alphabet="abcXYZ éü-_", min_size=1, max_size=12).filter(str.strip)
clocks = st.builds(
    lambda h, m, s: f"{h:02d}:{m:02d}:{s:02d}",
    st.integers(0, 99),
    st.integers(0, 59),
    st.integers(0, 59),
)
durations = st.builds(
    lambda n, unit: f"{n}{unit}", st.integers(0, 10_000), st.sampled_from(["s", "ms", "m", "h"])
)
percents = st.builds(lambda n: f"{n}%", st.integers(0, 100))
ticking = st.one_of(clocks, durations, percents)


@given(words, ticking, ticking, words)
def test_a_ticking_value_is_not_part_of_a_label(before, one, two, after):
    assert steady(f"{before} {one} {after}") == steady(f"{before} {two} {after}")


@given(words)
def test_a_label_without_a_value_is_itself(label):
    assert steady(label) == label


def test_numbers_that_name_are_kept():
    for label in ("Room 101", "Python 3.12", "Level 2", "iPhone 15 Pro", "2FA"):
        assert steady(label) == label


def _cell(label: str, row: int, column: str = "Time", uid: str | None = None) -> Element:
    frame = Frame(0, row, 10, 1)
    traits = (f"row:{row}", f"column:{column}")
    return Element("AXCell", frame=frame, label=label, unique_id=uid, traits=traits)


def test_a_cell_is_its_column_and_row_not_its_text():
    assert element_key(_cell("00:03:50", 2)) == element_key(_cell("00:03:51", 2))
    assert element_key(_cell("00:03:50", 2)) != element_key(_cell("00:03:50", 3))
    keyed = _cell("00:03:50", 2, uid="procs/1234/Time")
    assert element_key(keyed) == "#procs/1234/Time"


def _look(*elements: Element) -> Observation:
    return Observation(elements=elements, app="app")


def test_a_target_whose_clock_moved_on_still_means_its_element_and_taps_what_shows_now():
    sync = Element("AXButton", frame=Frame(0, 0, 20, 2), label="Sync in 41s")
    other = Element("AXButton", frame=Frame(0, 3, 20, 2), label="Sync now")
    tap = Tap(target=Target(label="Sync in 42s"))
    assert target_element(_look(sync, other), tap.target) is sync
    resolved = resolve(tap, _look(sync, other))
    assert resolved.target == Target(label="Sync in 41s") and resolved.x is not None
    twins = _look(sync, Element("AXButton", frame=Frame(0, 6, 20, 2), label="Sync in 7s"))
    assert target_element(twins, tap.target) is None  # which of two? neither


def test_a_screen_with_a_ticking_heading_and_control_is_one_screen():
    def screen(seconds: int) -> Observation:
        return _look(
            Element(
                "AXStaticText", frame=Frame(0, 0, 20, 1), label=f"Up {seconds}s", traits=("header",)
            ),
            Element("AXButton", frame=Frame(0, 2, 20, 1), label=f"Retry in {seconds}s"),
        )

    assert screen_id(screen(3)) == screen_id(screen(4))


async def test_leitstand_cells_read_as_the_terminal_shows_them():
    async with TextualDevice.from_spec(LEITSTAND, timeout=15) as device:
        await device.launch()
        look = await device.observe()
    cells = [e for e in look.elements if e.role == "AXCell"]
    assert "SELECT id FROM kunden" in [c.label for c in cells]  # a Syntax, not its repr
    assert look.text is not None
    for cell in cells:
        assert cell.label and cell.label in look.text, cell.label
        assert "object at 0x" not in cell.label
    keyed = [c.unique_id for c in cells if c.unique_id]
    assert "rechner/beta/uptime" in keyed and len(keyed) == 12


async def test_the_explorer_tries_each_ticking_control_once(tmp_path):
    scenario = Scenario(
        name="explore-leitstand", app=LEITSTAND, goal="explore", max_steps=24, timeout_seconds=120
    )
    explorer = ExplorerAgent()
    run = await record(
        scenario, tmp_path / "leitstand.cassette", device="textual:" + LEITSTAND, agent=explorer
    )
    assert not run.report.errors, run.report.errors
    coverage = explorer.coverage()
    home = coverage.screens[0]
    assert len(home.tried) == len(set(home.tried)), home.tried
    controls = [name for name in home.elements if not name.startswith("(")]  # not the keys
    # 12 keyed cells, the loose table's 2, the countdown, the palette: each one, however often
    # their values ticked during the run
    assert len(controls) == len(set(controls)) == 16, controls
    assert "'Abgleich in #'" in home.elements, home.elements  # the countdown: one button
    assert "cell Alter@0" in home.elements  # a row without a key: its column and place
    assert not any(":" in name or "%" in name for name in home.elements), home.elements
    names = {screen.name for screen in coverage.screens}
    assert len(coverage.screens) == len(names) >= 2, names  # a host's page, and back


async def test_keys_the_app_handles_itself_are_found_and_quit_keys_never_pressed(tmp_path):
    """Sternwarte's first screen is text: its ``on_key`` keys (n, k) are probed from its hint
    line, its hidden binding (l) read from its BINDINGS; ``x`` (bound to quit) and ``e`` (its
    hint says "beenden"... a quit in words) are never pressed."""
    app = "unseen_apps.sternwarte:Sternwarte@80x20"
    scenario = Scenario(
        name="explore-sternwarte", app=app, goal="explore", max_steps=20, timeout_seconds=120
    )
    explorer = Noting()
    run = await record(
        scenario, tmp_path / "sternwarte.cassette", device="textual:" + app, agent=explorer
    )
    assert not run.report.errors, run.report.errors
    names = {screen.name for screen in explorer.coverage().screens}
    assert {"Chart", "Catalogue", "Log"} <= names, names
    pressed = [d.action.key for d in explorer.decisions if isinstance(d.action, PressKey)]
    assert "x" not in pressed and "e" not in pressed, pressed
    printable = [k for k in pressed if isinstance(k, str) and len(k) == 1]
    assert len(printable) <= PROBES * len(names), printable


async def test_the_app_element_carries_hidden_own_bindings_quits_and_own_commands():
    async with TextualDevice.from_spec("unseen_apps.sternwarte:Sternwarte@80x20") as device:
        await device.launch()
        look = await device.observe()
    traits = look.elements[0].traits
    assert {"binding:l", "says:l:Protokoll", "quits:x", "quits:ctrl+q"} <= set(traits), traits
    assert "binding:tab" not in traits  # Textual's own hidden bindings: not the app's
    commands = [t for t in traits if t.startswith("command:")]
    assert commands == ["command:Sternbild suchen"], traits  # not Textual's Quit, Keys...
    assert "App commands in its palette (ctrl+p): Sternbild suchen" in encode_tree(look)[0]


async def test_a_wait_ends_on_a_fresh_settled_look_the_next_step_decides_on(tmp_path):
    """Fernweh's results replace its placeholders a second after Search, while the app is
    quiet: the tap after ``wait`` finds them, with no workaround step, and replays."""
    scenario = load_scenario(Path(__file__).parent / "unseen_apps" / "fernweh_wait.yaml")
    run = await record(
        scenario, tmp_path / "fernweh.cassette", device="textual:unseen_apps.fernweh:Fernweh"
    )
    assert run.report.status == "passed", run.report
    assert (await replay(run.cassette)).faithful


async def test_a_banner_that_came_up_during_a_wait_is_new_for_the_step_after(tmp_path):
    """Offline, Fernweh's "No connection" banner comes up during the wait: the step after it
    finds the banner new, recovery answers it (Retry), and the goal is met; before, the tap
    after the wait looked at the screen from before it and failed."""
    scenario = load_scenario(Path(__file__).parent / "unseen_apps" / "fernweh_offline.yaml")
    device = "textual:unseen_apps.fernweh:Fernweh@80x24?offline=1"
    run = await record(scenario, tmp_path / "offline.cassette", device=device)
    assert run.report.status == "completed_with_errors", run.report  # the goal met
    (error,) = run.report.errors
    assert error.error.startswith("network:") and error.resolved, error
    assert (await replay(run.cassette)).faithful


async def test_a_check_reads_the_screen_as_it_is_when_it_is_made(tmp_path):
    """An agent that thinks for a while (as a model does) checks Fernweh's results: the check
    looks first, so it reads the results that came while it thought, not the placeholders."""

    async def slow(context: AgentContext) -> Action:
        if context.step == 1:
            return Tap(target=Target(id="suchen"))
        if context.step == 2:
            await asyncio.sleep(1.5)  # thinking, while the results come
            return Assert(target=Target(id="result_alfama"), condition="visible")
        return Done(success=True, summary="checked")

    scenario = Scenario(name="fernweh_check", app="fernweh", goal="check", max_steps=4)
    scenario = evolve(scenario, settle_seconds=0.05)
    run = await record(
        scenario,
        tmp_path / "check.cassette",
        device="textual:unseen_apps.fernweh:Fernweh",
        agent=FunctionAgent(slow),
    )
    assert not run.report.errors, run.report.errors
    assert (await replay(run.cassette)).faithful


# --- a value seen ticking between two looks with no input (item 3, its second half) ---------

counts = st.integers(0, 10**9)


@given(words, counts, counts, words)
def test_a_number_that_changed_alone_between_two_quiet_looks_ticks(before, one, two, after):
    """Whatever the words around it, a number that changed by itself in one place makes its
    element tick: its identity and the screen's stay, the numbers written ``#``."""
    frame = Frame(2, 3, 20, 1)
    first = Observation((Element("AXStaticText", f"{before} {one} {after}", frame=frame),))
    second = Observation((Element("AXStaticText", f"{before} {two} {after}", frame=frame),))
    places = ticked(first, second)
    assert len(places) == (one != two)
    marked_first, marked_second = with_ticks(first, places), with_ticks(second, places)
    if one != two:
        assert element_key(marked_first.elements[0]) == element_key(marked_second.elements[0])
        assert look_key(marked_first) == look_key(marked_second)


@given(words, words, counts)
def test_words_that_changed_by_themselves_are_no_value(one, two, count):
    frame = Frame(2, 3, 20, 1)
    first = Observation((Element("AXStaticText", f"{one} {count}", frame=frame),))
    second = Observation((Element("AXStaticText", f"{two} {count + 1}", frame=frame),))
    assert bool(ticked(first, second)) == (one == two)


async def test_pegels_counters_tick_and_its_pump_is_named(tmp_path):
    """Pegel's counters count in no shape orav knows. The second wait ends with a look after a
    settled one with no input between: they changed by themselves, so they tick from then on (the screen is the
    same screen, the counter the same element), while "Pumpe 3", unchanged, keeps its 3."""
    seen: list[Observation] = []

    async def watch(context: AgentContext) -> Action:
        seen.append(context.observation)
        if context.step < 4:
            return Wait(0.4)
        return Done(success=True, summary="watched")

    scenario = Scenario(name="pegel", app="pegel", goal="watch", max_steps=5)
    run = await record(
        scenario,
        tmp_path / "pegel.cassette",
        device="textual:unseen_apps.pegel:Pegel",
        agent=FunctionAgent(watch),
    )
    assert run.report.goal_met, run.report
    _, _, second, third = seen
    counter = [next(e for e in look.elements if e.unique_id == "anfragen") for look in seen]
    assert counter[2].label != counter[3].label  # it went on counting
    assert TICKS not in counter[1].traits and TICKS in counter[2].traits
    assert element_key(counter[2]) == element_key(counter[3])
    liter = [next(e for e in look.elements if (e.label or "").startswith("Liter")) for look in seen]
    assert TICKS in liter[3].traits and steady_label(liter[3]) == "Liter #"
    pump = next(e for e in third.elements if e.unique_id == "pumpe")
    assert TICKS not in pump.traits and steady_label(pump) == "Pumpe 3"
    assert look_key(second) == look_key(third)
    assert (await replay(run.cassette)).faithful
