"""The explorer through the whole engine: the simulator's demo app over real gRPC and the fb-idb
client, a cassette written by ``orav.session.record`` and replayed; and ``orav explore``.

Sleeps are virtual (``VirtualClock``): the settle time after each action is recorded, not waited.
"""

from __future__ import annotations

import json

from attrs import evolve
from click.testing import CliRunner

from orav.agents.explorer import ExplorerAgent
from orav.cassette import read_cassette
from orav.cassette.events import DecideEvent
from orav.cli import cli
from orav.model import Credentials, Scenario, TypeText
from orav.report.coverage import coverage_paths
from orav.session import record, replay
from orav.testing import VirtualClock

DEMO_SCREENS = {"Sign in", "Home", "Getting started", "Release notes", "Privacy"}
DEMO_SCREENS |= {"Settings", "Feedback"}
CREDENTIALS = Credentials("demo@orav.dev", "Orav-Demo-1!")


def explore_scenario(max_steps: int = 100) -> Scenario:
    return Scenario(
        "explore-demo",
        "com.orav.demo",
        "explore",
        max_steps=max_steps,
        settle_seconds=0.05,
        credentials=CREDENTIALS,
    )


async def test_the_demo_app_is_explored_completely_and_replays_faithfully(tmp_path) -> None:
    explorer = ExplorerAgent()
    cassette = tmp_path / "explore.cassette"
    recorded = await record(explore_scenario(), cassette, agent=explorer, clock=VirtualClock())
    report = recorded.report
    coverage = explorer.coverage()
    assert {s.name for s in coverage.screens} == DEMO_SCREENS
    assert len(coverage.screens) == 7  # each screen once, however often it was reached
    assert set(report.screens_visited) == DEMO_SCREENS
    assert coverage.finished and report.goal_met, report
    assert coverage.elements_tried + coverage.elements_skipped == coverage.elements_total
    assert sum(len(s.elements) - len(s.gestures) for s in coverage.screens) == 19
    assert all(len(s.gestures) >= 4 for s in coverage.screens)  # a swipe each way, at least
    # Release notes and Privacy are Getting started for other rows: their swipes are skipped
    first, *alike = [
        s
        for s in coverage.screens
        if s.name in DEMO_SCREENS - {"Sign in", "Home", "Settings", "Feedback"}
    ]
    assert first.alike is None and first.skipped == ()
    assert [s.alike for s in alike] == [first.key, first.key]
    assert all(s.tried == ("#back",) and "(swipe left)" in s.skipped for s in alike), alike
    assert coverage.dead_ends == ()
    assert coverage.steps == report.total_steps <= 80
    # Every screen but the start was reached through a transition the explorer recorded.
    reached = {coverage.name_of(t.target) for t in coverage.transitions}
    assert reached == DEMO_SCREENS
    # The credentials went into the login form, the password as a secure value kept out.
    typed = [
        e.decision.action
        for e in read_cassette(cassette).events
        if isinstance(e, DecideEvent) and isinstance(e.decision.action, TypeText)
    ]
    assert typed[0] == TypeText(CREDENTIALS.username)
    assert typed[1].secure and typed[1].text != CREDENTIALS.password
    assert CREDENTIALS.password.encode() not in cassette.read_bytes()

    replayed = await replay(cassette)
    assert replayed.faithful, replayed.differences
    assert replayed.report == report


async def test_a_small_step_budget_ends_the_run_unfinished(tmp_path) -> None:
    explorer = ExplorerAgent()
    cassette = tmp_path / "short.cassette"
    recorded = await record(explore_scenario(5), cassette, agent=explorer, clock=VirtualClock())
    assert recorded.report.status == "step_limit"
    coverage = explorer.coverage()
    assert not coverage.finished and coverage.steps == 5
    assert [s.name for s in coverage.screens] == ["Sign in"]
    # the form's fields first; step 5 tapped Sign in: no later observation showed what it did
    assert coverage.screens[0].tried == ("#email", "#password")
    assert (await replay(cassette)).faithful


APP = """\
name: Tiny
bundle_id: com.example.tiny
start: main
screens:
  main:
    title: Main
    elements:
      - {role: AXButton, id: open, label: Open, frame: [20, 120, 350, 44], on_tap: [{to: detail}]}
  detail:
    title: Detail
    elements:
      - {role: AXButton, id: back, label: Back, frame: [8, 47, 80, 44], on_tap: [{to: back}]}
"""


def test_orav_explore_exit_codes_and_files(tmp_path) -> None:
    app = tmp_path / "tiny.yaml"
    app.write_text(APP)
    out = tmp_path / "tiny.cassette"
    runner = CliRunner()
    args = ["explore", "--device", f"sim:{app}", "--out", str(out)]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "Exploration finished: every reachable element was tried or skipped" in result.output
    assert "Main" in result.output and "Detail" in result.output
    json_path, md_path = coverage_paths(out)
    data = json.loads(json_path.read_text())
    assert [s["name"] for s in data["screens"]] == ["Main", "Detail"]
    assert data["finished"] is True
    assert "flowchart LR" in md_path.read_text()
    assert runner.invoke(cli, ["replay", str(out)]).exit_code == 0

    # the step budget runs out before the exploration finishes: exit 1, coverage still written
    result = runner.invoke(cli, [*args, "--max-steps", "1", "--overwrite"])
    assert result.exit_code == 1, result.output
    assert json.loads(json_path.read_text())["finished"] is False

    for bad, message in [
        (["--credentials", "nopassword"], "--credentials: expected USER:PASS"),
        (["--device", "idb:127.0.0.1:9"], "--app: name the app to explore"),
        (["--device", "nowhere"], "unknown device 'nowhere'"),
    ]:
        result = runner.invoke(cli, ["explore", "--out", str(tmp_path / "x.cassette"), *bad])
        assert result.exit_code == 2, result.output
        assert message in result.output


# --- a tab bar and idempotent controls: "no effect", never a restart ------------------------

TABS_APP = """\
name: Tabs
bundle_id: com.example.tabs
start: home
tabs:
  - {id: tab_home, label: Home, screen: home}
  - {id: tab_cart, label: Cart, screen: cart}
screens:
  home:
    title: Home
    elements:
      - {role: AXButton, id: refresh, label: Refresh, frame: [20, 100, 350, 44]}
      - {role: AXButton, id: favourite, label: Favourite, frame: [20, 160, 350, 44]}
      - {role: AXCell, id: item, label: Item, frame: [0, 220, 390, 56], on_tap: [{to: detail}]}
      - {role: AXButton, id: share, label: Share, frame: [20, 290, 350, 44]}
  detail:
    title: Detail
    elements:
      - {role: AXButton, id: back, label: Back, frame: [8, 47, 80, 44], on_tap: [{to: back}]}
      - {role: AXButton, id: like, label: Like, frame: [20, 120, 350, 44]}
  cart:
    title: Cart
    elements:
      - {role: AXButton, id: sort, label: Sort, frame: [20, 100, 350, 44]}
"""
IDEMPOTENT = {"#refresh", "#favourite", "#share", "#like", "#sort", "#tab_home", "#tab_cart"}


async def explore_tabs(tmp_path, app: str, max_steps: int):
    path = tmp_path / "tabs.yaml"
    path.write_text(app, encoding="utf-8")
    explorer = ExplorerAgent()
    scenario = Scenario("explore-tabs", "com.example.tabs", "explore", max_steps=max_steps)
    scenario = evolve(scenario, settle_seconds=0.05)
    cassette = tmp_path / "tabs.cassette"
    recorded = await record(
        scenario, cassette, device=f"sim:{path}", agent=explorer, clock=VirtualClock()
    )
    return recorded.report, explorer.coverage(), cassette


def restarts(report) -> list[str]:
    return [
        t.target
        for t in report.transitions
        if t.target in ("restarting", "relaunching")
        or (t.machine == "run" and t.source == "recovering" and t.target == "preparing")
    ]


async def test_a_tab_bar_and_idempotent_buttons_are_explored_without_a_restart(tmp_path):
    report, coverage, cassette = await explore_tabs(tmp_path, TABS_APP, 60)
    assert report.status == "passed" and coverage.finished, report
    assert {s.name for s in coverage.screens} == {"Home", "Detail", "Cart"}
    # all but Share: an outward deed, never tried
    assert coverage.elements_tried == coverage.elements_total - 1
    assert all("#share" in s.skipped for s in coverage.screens if "#share" in s.elements)
    no_effect = {ref for s in coverage.screens for ref in s.no_effect if not ref.startswith("(")}
    assert {"#refresh", "#favourite", "#like", "#sort"} <= no_effect <= IDEMPOTENT
    assert restarts(report) == [] and report.errors == ()
    assert (await replay(cassette)).faithful


async def test_a_step_budget_is_run_to_its_end_on_idempotent_controls(tmp_path):
    report, coverage, _ = await explore_tabs(tmp_path, TABS_APP, 8)
    assert report.status == "step_limit" and report.total_steps == 8
    assert restarts(report) == [] and not coverage.finished


async def test_three_idempotent_buttons_in_a_row_do_not_restart_the_app(tmp_path):
    # refresh, favourite, share in a row (the item moves last): each changes nothing
    item = "      - {role: AXCell, id: item, label: Item, frame: [0, 220, 390, 56], on_tap: [{to: detail}]}\n"
    assert item in TABS_APP
    share = "      - {role: AXButton, id: share, label: Share, frame: [20, 290, 350, 44]}\n"
    app = TABS_APP.replace(item, "").replace(share, share + item)
    report, coverage, _ = await explore_tabs(tmp_path, app, 60)
    assert report.status == "passed" and coverage.finished, report
    assert restarts(report) == [] and report.errors == ()
