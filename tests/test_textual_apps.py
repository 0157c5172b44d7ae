"""The Textual drivers on apps not written for them: Textual's own demo (always), Textual 8 apps
from PyPI when they are installed beside orav (browsr, harlequin: `pip install browsr` or `pip
install harlequin` in a throwaway venv beside orav; CI installs neither, so those tests skip),
and toolong 1.5.0 (Textual 0.58) and frogmouth 0.9.2 (Textual 0.43), each in a venv of its own
through the companion (made once under pytest's cache; skipped, saying why, when pip cannot
install it)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import ClassVar

import pytest
from textual_venvs import Unavailable, venv_python
from unseen_apps.harness import explore_textual, fingerprint, ledger, no_outward_and_no_remedy

from orav.agents.explorer import ExplorerAgent
from orav.drivers.textual import TextualDevice
from orav.model import PressKey, Scenario, Tap, Target, TypeText
from orav.perceive import target_element
from orav.scenario_loader import load_scenario
from orav.session import record, replay


async def test_textuals_own_demo_app():
    async with TextualDevice.from_spec(
        "textual.demo.demo_app:DemoApp@100x30", timeout=15
    ) as device:
        await device.launch()
        home = await device.observe()
        assert home.elements[1].traits == ("screen:HomeScreen",)
        keys = {e.label: e.traits for e in home.elements if e.role == "AXButton"}
        assert "binding:w" in keys["Widgets"] and "binding:ctrl+p" in keys["palette"]
        assert any(e.label == "What is Textual?" for e in home.elements)
        assert (await device.perform(PressKey("w"))).ok
        await device.settle(2.0)  # as the engine does: the page mounts its widgets lazily
        widgets = await device.observe()
        assert widgets.elements[1].traits == ("screen:WidgetsScreen",)
        assert (await device.perform(Tap(target=Target(label="Primary")))).ok
        assert (await device.perform(PressKey("shift+tab"))).ok


async def test_browsr_browses_a_folder(tmp_path: Path, monkeypatch):
    pytest.importorskip("browsr", reason="browsr is not installed (pip install browsr)")
    (tmp_path / "readme.txt").write_text("hello from orav\n")
    (tmp_path / "docs").mkdir()
    monkeypatch.chdir(tmp_path)
    async with TextualDevice.from_spec("browsr.browsr:Browsr", timeout=15) as device:
        await device.launch()
        seen = await device.observe()
        assert seen.elements[1].traits == ("screen:CodeBrowserScreen",)
        docs = next(e for e in seen.elements if e.label == "docs")
        assert (docs.role, docs.value) == ("AXCell", "collapsed")
        for key in ("down", "down", "enter"):
            assert (await device.perform(PressKey(key))).ok
        opened = await device.observe()
        assert any(e.value == "hello from orav\n" for e in opened.elements)
        assert any("binding:question_mark" in e.traits for e in opened.elements)


def _harlequin():
    harlequin_app = pytest.importorskip("harlequin.app", reason="harlequin is not installed")
    from harlequin_duckdb.adapter import DuckDbAdapter

    here = Path(harlequin_app.__file__).parent
    css = harlequin_app.Harlequin.CSS_PATH
    paths = css if isinstance(css, list) else [css]

    class DuckHarlequin(harlequin_app.Harlequin):
        """Harlequin on an in-memory DuckDB (its CSS found beside harlequin.app)."""

        CSS_PATH: ClassVar = [here / p for p in paths]  # Textual takes a list only

        def __init__(self) -> None:
            super().__init__(
                DuckDbAdapter((":memory:",)), record_history=False, no_download_tzdata=True
            )

    return DuckHarlequin


async def test_harlequin_runs_a_query():
    app = _harlequin()
    async with TextualDevice(app, size=(100, 30), timeout=15) as device:
        await device.launch()
        seen = await device.observe()
        assert seen.elements[1].traits == ("screen:ScreenBase",)
        assert target_element(seen, Target(id="run_query")).label == "Run Query"
        assert (await device.perform(TypeText("select 42 as answer, 'orav' as name"))).ok
        assert (await device.perform(PressKey("ctrl+j"))).ok
        for _ in range(50):
            result = await device.observe()
            if "orav" in result.text.split("Query Results")[-1]:
                break
            await asyncio.sleep(0.1)
        assert "42" in result.text and any("toast" in e.traits for e in result.elements)


# toolong's UI takes a list of paths, a spec's arguments are strings: a subclass takes one.
TOOLONG_APP = """from toolong.ui import UI


class Logs(UI):
    def __init__(self, path: str = "app.log") -> None:
        super().__init__([path])
"""
TOOLONG_SCENARIO = """name: toolong_find
app: toolong_logs:Logs
goal: Number the lines, then look for request 52 with Find.
max_steps: 6
timeout_seconds: 60
success_criteria:
  - {target: {id: find-text}, condition: value_equals, value: request 52}
script:
  - reasoning: Number the lines (ctrl+l in the footer).
    action: {kind: press_key, key: ctrl+l}
  - reasoning: Open Find (ctrl+f).
    action: {kind: press_key, key: ctrl+f}
  - reasoning: The Find field has the focus; type what to look for.
    action: {kind: type_text, text: request 52}
  - reasoning: The field holds the search.
    action: {kind: assert, target: {id: find-text}, condition: value_equals, value: request 52}
  - reasoning: Found.
    action: {kind: done, success: true, summary: "Line numbers on, request 52 searched."}
"""


@pytest.fixture(scope="module")
def toolong(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path]:
    """A folder with a log and the Logs app, and the python of a venv with toolong 1.5.0."""
    cache = getattr(request.config, "cache", None)
    root = Path(cache.mkdir("textual-venvs")) if cache else tmp_path_factory.mktemp("venvs")
    try:
        python = venv_python(root, "toolong==1.5.0")
    except Unavailable as exc:
        pytest.skip(f"no venv with toolong: {exc}")
    folder = tmp_path_factory.mktemp("toolong")
    (folder / "toolong_logs.py").write_text(TOOLONG_APP)
    (folder / "find.yaml").write_text(TOOLONG_SCENARIO)
    levels = ["INFO", "INFO", "WARNING", "ERROR"]
    (folder / "app.log").write_text(
        "".join(
            f"2026-11-23T04:{n // 6:02d}:{n % 6 * 10:02d} {levels[n % 4]} worker-{n % 3} "
            f"request {n} handled in {n * 13 % 200} ms\n"
            for n in range(60)
        )
    )
    return folder, python


@pytest.mark.timeout(900)  # the first run installs toolong's venv
async def test_toolong_on_textual_058_in_its_own_venv(toolong, monkeypatch, tmp_path):
    folder, python = toolong
    monkeypatch.chdir(folder)  # the companion imports toolong_logs from here
    device = f"textual+{python}:toolong_logs:Logs@100x24"
    scenario = load_scenario(folder / "find.yaml")
    scripted = await record(scenario, tmp_path / "find.cassette", device=device)
    assert scripted.report.status == "passed", scripted.report
    assert (await replay(scripted.cassette)).faithful

    explored = Scenario(
        name="explore-toolong",
        app="toolong_logs:Logs",
        goal="explore",
        max_steps=12,
        timeout_seconds=120,
    )
    explorer = ExplorerAgent()
    run = await record(explored, tmp_path / "explore.cassette", device=device, agent=explorer)
    assert not run.report.errors, run.report.errors
    assert run.report.total_steps >= 5 and len(explorer.coverage().screens) >= 2
    outcome = await replay(run.cassette)  # without toolong's venv
    assert outcome.faithful, outcome.differences


async def test_the_explorer_covers_textuals_demo_while_its_game_never_goes_quiet(tmp_path):
    """Every page of textual.demo (Home, its code dialog, Game with its dialog, Projects,
    Widgets) within 27 steps; from the running game on the app never settles quiet, and each
    step settles at the cap and goes on."""
    scenario = Scenario(
        name="explore-textual-demo",
        app="textual.demo.demo_app:DemoApp@100x30",
        goal="explore",
        max_steps=27,
        timeout_seconds=120,
    )
    explorer = ExplorerAgent()
    run = await record(
        scenario, tmp_path / "demo.cassette", device="textual:" + scenario.app, agent=explorer
    )
    assert not run.report.errors, run.report.errors
    names = [screen.name for screen in explorer.coverage().screens]
    assert names == ["Home", "Code for this page", "Game", "Game dialog", "Projects", "Widgets"]
    settles = [line for line in run.cassette.read_text().splitlines() if '"settled"' in line]
    assert any('"quiet":false' in line for line in settles)
    assert any('"quiet":true' in line for line in settles)


# frogmouth's viewer takes argparse's Namespace; a spec's arguments are strings.
FROGMOUTH_APP = """from argparse import Namespace

from frogmouth.app.app import MarkdownViewer


class Frog(MarkdownViewer):
    def __init__(self) -> None:
        super().__init__(Namespace(file="notes.md"))
"""


@pytest.mark.timeout(900)  # the first run installs frogmouth's venv
async def test_frogmouth_on_textual_043_explored_twice_the_same(request, tmp_path, monkeypatch):
    """frogmouth 0.9.2 pins Textual 0.43 (below the companion's 0.47 floor, and it works):
    two explorations through the companion see the same screens and the same coverage."""
    cache = getattr(request.config, "cache", None)
    root = Path(cache.mkdir("textual-venvs")) if cache else tmp_path / "venvs"
    try:
        python = venv_python(root, "frogmouth==0.9.2")
    except Unavailable as exc:
        pytest.skip(f"no venv with frogmouth: {exc}")
    (tmp_path / "frog.py").write_text(FROGMOUTH_APP)
    (tmp_path / "notes.md").write_text("# Notes\n\nSee [more](more.md).\n\n## Two\n\nText.\n")
    monkeypatch.chdir(tmp_path)  # the companion imports frog from here
    seen = []
    for run in (1, 2):
        explorer = ExplorerAgent()
        scenario = Scenario(
            name=f"explore-frogmouth-{run}", app="frog:Frog", goal="explore", max_steps=8
        )
        recording = await record(
            scenario,
            tmp_path / f"frog{run}.cassette",
            device=f"textual+{python}:frog:Frog@100x30",
            agent=explorer,
        )
        assert not recording.report.errors, recording.report.errors
        coverage = explorer.coverage()
        seen.append([(s.name, s.tried, s.no_effect) for s in coverage.screens])
    assert seen[0] == seen[1] and len(seen[0]) >= 3
    assert (await replay(tmp_path / "frog1.cassette")).faithful


@pytest.mark.timeout(900)  # the first run installs n-filej's venv
@pytest.mark.slow(reason="n-filej explored 200 steps through orav explore in a sandbox")
def test_n_filej_explored_deletes_nothing_in_home(request, tmp_path):
    """n-filej 0.1.8, a file manager over ``~`` whose footer's ``delete`` removes the
    highlighted file without a question (issue 22: it had deleted ``~/notes.md``): explored
    through ``orav explore`` with a HOME of the test's, every file there is as it was."""
    cache = getattr(request.config, "cache", None)
    root = Path(cache.mkdir("textual-venvs")) if cache else tmp_path / "venvs"
    try:
        python = venv_python(root, "n-filej==0.1.8")
    except Unavailable as exc:
        pytest.skip(f"no venv with n-filej: {exc}")
    work, home = tmp_path / "work", tmp_path / "home"
    (home / "Documents").mkdir(parents=True)
    work.mkdir()
    (home / "notes.md").write_text("# Notes\nkeep me\n")
    (home / "Documents" / "todo.txt").write_text("water the plants\n")
    (work / "readme.txt").write_text("hello\n")
    before = fingerprint(work, home)
    spec = f"textual+{python}:file_manager.main:NFileJ@100x30"
    report = explore_textual(spec, work, home, tmp_path / "explore.cassette", 200)
    assert fingerprint(work, home) == before
    no_outward_and_no_remedy(ledger(report).get("deeds", []))
    assert "every reachable element was tried" in report["summary"], report["summary"]
