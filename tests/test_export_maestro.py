"""Maestro export of the golden cassettes: structure and order against the recorded actions.

No Maestro binary runs here (a JVM tool, not installable from these registries): the flows
are checked by parsing them back and comparing them with the cassettes' performed actions.
"""

import re
from pathlib import Path

import pytest
from attrs import evolve
from command import orav
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from orav.cassette import REDACTED
from orav.export import NotExportable, export_maestro, maestro_flow, regex_literal
from orav.model import (
    Assert,
    Launch,
    Point,
    PressKey,
    Swipe,
    Tap,
    Target,
    TypeText,
    Wait,
)
from orav.report.timeline import RecoveryView, StepView, read_run

RECORDINGS = Path(__file__).resolve().parent.parent / "recordings"
IOS = sorted(RECORDINGS.glob("*.cassette")) + sorted((RECORDINGS / "recovery").glob("*.cassette"))
TEXTUAL = sorted((RECORDINGS / "textual").glob("*.cassette"))
LOGIN = RECORDINGS / "login.cassette"


def parse(text: str) -> tuple[dict, list]:
    header, commands = YAML(typ="safe").load_all(text)
    return header, commands


def expected_actions(path: Path) -> list:
    """What the flow must do, from the cassette: the performed preconditions, then each step's
    performed actions (a check's decision when it performed none), from the last relaunch on."""
    run = read_run(path)
    timeline = list(run.timeline)
    relaunches = [
        i
        for i, b in enumerate(timeline)
        if isinstance(b, RecoveryView) and any(isinstance(p.action, Launch) for p in b.actions)
    ]
    if relaunches:
        timeline = timeline[relaunches[-1] :]
    actions = [p.action for p in run.setup if not isinstance(p.action, Launch)]
    for block in timeline:
        if isinstance(block, StepView):
            performed = [p.action for p in block.actions if p.ok]
            actions += performed or [block.decision.action]
    return actions + list(run.header.scenario.success_criteria)


def describes(command, action) -> bool:
    """The Maestro command does what the recorded action did."""
    match action:
        case Tap(target=Target(id=str(id_))):
            return command == {"tapOn": {"id": id_}}
        case Tap(target=Target(label=str(label))):
            text = command.get("tapOn")
            return isinstance(text, str) and re.fullmatch(text, label) is not None
        case TypeText(secure=True):
            return command == {"inputText": "${PASSWORD}"}
        case TypeText(text=text):
            return command == {"inputText": text}
        case Assert(target=target, condition=condition, value=value):
            name = "assertNotVisible" if condition == "absent" else "assertVisible"
            selector = command.get(name)
            if isinstance(selector, str):
                return target.id is None and re.fullmatch(selector, target.label) is not None
            if selector is None or selector.get("id") != target.id:
                return False
            return value is None or re.fullmatch(selector["text"], value) is not None
    return False


def is_tolerance(command) -> bool:
    """A command a recovery added: an optional dismiss tap, or hiding the keyboard."""
    if command == "hideKeyboard":
        return True
    tap = command.get("tapOn") if isinstance(command, dict) else None
    return isinstance(tap, dict) and tap.get("optional") is True


@pytest.mark.parametrize("path", IOS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_ios_golden_exports_its_recorded_path_in_order(path):
    text = export_maestro(path)
    header, commands = parse(text)
    scenario = read_run(path).header.scenario
    assert header == {"appId": scenario.app, "name": scenario.name, "tags": ["orav"]}
    denied = {"launchApp": {"permissions": {"all": "deny"}}}  # orav's answer, Maestro's way
    assert commands[0] == ("launchApp" if scenario.permissions == "allow" else denied)
    flow = [c for c in commands[1:] if not is_tolerance(c)]
    expected = expected_actions(path)
    assert len(flow) == len(expected), text
    for command, action in zip(flow, expected, strict=True):
        assert describes(command, action), (command, action)


@pytest.mark.parametrize("path", IOS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_secure_text_never_appears(path):
    text = export_maestro(path)
    assert REDACTED not in text
    secure = [a for a in expected_actions(path) if isinstance(a, TypeText) and a.secure]
    assert text.count("${PASSWORD}") == len(secure) > 0


def test_a_real_secret_in_a_secure_action_is_not_exported():
    run = read_run(LOGIN)
    secret = TypeText("hunter2-real-password", secure=True)
    run = evolve(
        run,
        header=evolve(run.header, scenario=evolve(run.header.scenario, preconditions=(secret,))),
    )
    text = maestro_flow(run).dump()
    assert "hunter2" not in text
    assert parse(text)[1][1] == {"inputText": "${PASSWORD}"}


@pytest.mark.parametrize("path", sorted((RECORDINGS / "recovery").glob("*.cassette")))
def test_a_recovered_run_carries_a_comment_where_each_recovery_ran(path):
    text = export_maestro(path)
    for recovery in read_run(path).recoveries:
        assert f"# recovery at step {recovery.step}: {recovery.fault} (resolved)" in text


def test_a_dismissed_alert_becomes_an_optional_tap_where_it_showed_up():
    _, commands = parse(export_maestro(RECORDINGS / "recovery" / "alert.cassette"))
    assert commands[1:4] == [
        {"tapOn": {"id": "email"}},
        {"tapOn": {"text": "Cancel", "optional": True}},  # the alert's declining answer
        {"inputText": "demo@orav.dev"},
    ]


def test_steps_a_crash_relaunch_undid_are_left_out_with_a_comment():
    text = export_maestro(RECORDINGS / "recovery" / "crash.cassette")
    assert "# steps 1, 2 left out: the app was relaunched after them" in text
    commands = parse(text)[1]
    assert commands.count({"tapOn": {"id": "feedback"}}) == 1


@pytest.mark.parametrize("path", TEXTUAL, ids=lambda p: p.stem)
@pytest.mark.parametrize("force", [False, True])
def test_textual_runs_are_refused_even_with_force(path, force):
    with pytest.raises(NotExportable, match="textual app .* Maestro drives mobile apps only"):
        export_maestro(path, force=force)


def test_a_run_that_did_not_meet_its_goal_needs_force_and_says_so(tmp_path):
    lines = LOGIN.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = tmp_path / "cut.cassette"
    cut.write_text("".join(lines[: len(lines) // 2]), encoding="utf-8")
    with pytest.raises(NotExportable, match=r"goal was not met \(status incomplete\).*--force"):
        export_maestro(cut)
    text = export_maestro(cut, force=True)
    assert text.splitlines()[2].startswith("# WARNING: exported with --force")
    assert parse(text)[1][0] == "launchApp"


screen = st.floats(-200, 1200, allow_nan=False)


@settings(deadline=None, max_examples=60)
@given(x=screen, y=screen, x2=screen, y2=screen)
def test_points_are_whole_percentages_of_the_recorded_screen(x, y, x2, y2):
    run = read_run(LOGIN)
    device = run.header.device
    actions = (Tap(x=x, y=y), Swipe(Point(x, y), Point(x2, y2), duration=0.4))
    run = evolve(
        run, header=evolve(run.header, scenario=evolve(run.header.scenario, preconditions=actions))
    )
    _, commands = parse(maestro_flow(run).dump())
    point = commands[1]["tapOn"]["point"]
    swipe = commands[2]["swipe"]
    assert swipe["duration"] == 400
    for text, sep in ((point, ","), (swipe["start"], ", "), (swipe["end"], ", ")):
        px, py = (int(v.removesuffix("%")) for v in text.split(sep))
        assert 0 <= px <= 100 and 0 <= py <= 100
    px, py = (int(v.removesuffix("%")) for v in point.split(","))
    assert px == min(100, max(0, round(100 * x / device.width)))
    assert py == min(100, max(0, round(100 * y / device.height)))


@settings(deadline=None, max_examples=200)
@given(label=st.text(), other=st.text())
def test_a_label_is_matched_by_its_regex_and_by_nothing_else(label, other):
    pattern = regex_literal(label)
    assert re.fullmatch(pattern, label)
    if other != label:
        assert not re.fullmatch(pattern, other)


@settings(deadline=None, max_examples=60)
@given(label=st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1))
def test_a_label_tap_survives_the_yaml(label):
    run = read_run(LOGIN)
    tap = Tap(target=Target(label=label))
    run = evolve(
        run, header=evolve(run.header, scenario=evolve(run.header.scenario, preconditions=(tap,)))
    )
    assert re.fullmatch(parse(maestro_flow(run).dump())[1][1]["tapOn"], label)


def test_keys_waits_and_backspaces_map_to_maestro_commands():
    run = read_run(LOGIN)
    actions = (
        PressKey("enter"),
        PressKey("space"),
        PressKey("escape"),
        PressKey(42),
        TypeText("ab\b\bcd"),
        Wait(1.5),
        Tap(target=Target(id="email"), duration=0.8),
    )
    run = evolve(
        run, header=evolve(run.header, scenario=evolve(run.header.scenario, preconditions=actions))
    )
    text = maestro_flow(run).dump()
    assert "# press escape: Maestro has no such key, left out" in text
    assert parse(text)[1][1:10] == [
        {"pressKey": "Enter"},
        {"inputText": " "},
        {"pressKey": "Backspace"},
        {"inputText": "ab"},
        {"eraseText": 2},
        {"inputText": "cd"},
        {"waitForAnimationToEnd": {"timeout": 1500}},
        {"longPressOn": {"id": "email"}},
        {"tapOn": {"id": "email"}},  # the recorded run's first step follows
    ]


def test_the_flow_docs_maestro_md_shows_is_the_login_golden_exported():
    page = (Path(__file__).resolve().parent.parent / "docs" / "maestro.md").read_text()
    shown = re.search(r"```yaml\n(# exported by orav.*?)```", page, re.DOTALL)
    assert shown is not None
    run_id = re.compile(r"\(run [0-9a-z_]+\)")
    assert run_id.sub("(run …)", shown.group(1)) == run_id.sub("(run …)", export_maestro(LOGIN))


def test_cli_writes_stdout_or_out_and_refuses_with_exit_2(tmp_path):
    def export(*args):
        return orav("export", "maestro", *args)

    shown = export(str(LOGIN))
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == export_maestro(LOGIN)
    out = tmp_path / "login.yaml"
    assert export(str(LOGIN), "--out", str(out)).returncode == 0
    assert out.read_text(encoding="utf-8") == shown.stdout
    refused = export(str(TEXTUAL[0]))
    assert refused.returncode == 2
    assert (
        refused.stderr.startswith("orav: error: ")
        and "Maestro drives mobile apps" in refused.stderr
    )
    assert "Traceback" not in refused.stderr


def test_line_breaks_in_the_goal_and_labels_stay_inside_comments_and_strings():
    run = read_run(RECORDINGS / "recovery" / "alert.cassette")
    scenario = evolve(
        run.header.scenario,
        goal="sign in\n- tapOn: evil\u2028- stopApp\x85x: 1",
        preconditions=(Tap(target=Target(label="a\nb\x85c")),),
    )
    run = evolve(run, header=evolve(run.header, scenario=scenario))
    header, commands = parse(maestro_flow(run).dump())
    assert header["name"] == run.header.scenario.name
    assert commands[1] == {"tapOn": regex_literal("a\nb\x85c")}
    assert "stopApp" not in commands and {"tapOn": "evil"} not in commands


def test_no_device_is_refused_and_denied_permissions_launch_denied():
    run = read_run(LOGIN)
    with pytest.raises(NotExportable, match="names no device"):
        maestro_flow(evolve(run, header=evolve(run.header, device=None)))
    denied = evolve(run.header.scenario, permissions="deny")
    _, commands = parse(
        maestro_flow(evolve(run, header=evolve(run.header, scenario=denied))).dump()
    )
    assert commands[0] == {"launchApp": {"permissions": {"all": "deny"}}}
