"""Bad input always gets one clear message that says where: app models, scenarios, cassettes and
the CLI's output paths (the CLI ones as subprocesses: exit 2, ``orav: error: WHERE: WHAT``)."""

from __future__ import annotations

import base64
import hashlib
import json
import math
import subprocess
from pathlib import Path

import attrs
import pytest
from command import orav
from grpclib import GRPCError, Status
from grpclib.client import Channel
from idb.grpc import idb_pb2 as pb
from idb.grpc.idb_grpc import CompanionServiceStub

from orav import session
from orav.cassette import CassetteWriter, read_cassette
from orav.cassette.events import Header
from orav.codec import from_json, load_yaml
from orav.errors import InputError
from orav.model import Point, PressKey, Scenario, Swipe, Tap, Wait
from orav.scenario_loader import load_scenario
from orav.sim import SimCompanion
from orav.sim.appmodel import ElementSpec, Screen
from orav.sim.loading import load_app_model

ROOT = Path(__file__).resolve().parents[1]
LOGIN = ROOT / "recordings" / "login.cassette"
KINDS = (
    "['assert', 'done', 'launch', 'press_key', 'recover', 'swipe', 'tap', 'terminate', "
    "'type_text', 'wait']"
)


def assert_bad_input(done: subprocess.CompletedProcess, line: str) -> None:
    """Exit 2 and exactly one line on stderr: ``orav: error: WHERE: WHAT``."""
    assert (done.returncode, done.stderr.splitlines()) == (2, [f"orav: error: {line}"]), done.stderr


# --- app models -------------------------------------------------------------------------------

APP = """\
name: Tiny
bundle_id: com.orav.tiny
start: home
width: 390
height: 844
screens:
  home:
    elements:
      - {role: AXButton, id: go, label: Go, frame: [20, 100, 350, 44]}
"""
SIZE = "must be a number of points above 0 and at most 10000"
FRAME = "frame values must be numbers from -10000 to 10000"


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        ("width: 390", "width: -5", f"4:8: width {SIZE}"),
        ("height: 844", "height: 0", f"5:9: height {SIZE}"),
        ("width: 390", "width: .nan", f"4:8: width {SIZE}"),
        ("height: 844", "height: 1e400", f"5:9: height {SIZE}"),
        ("350, 44]", "1e400, 44]", f"9:45: {FRAME}"),
        ("350, 44]", ".nan, 44]", f"9:45: {FRAME}"),
        ("[20, 100,", "[1e300, 100,", f"9:45: {FRAME}"),
        (
            "[20, 100, 350, 44]",
            "[0, 0, 10]",
            "9:45: screens.home.elements[0].frame: expected a list of 4 numbers, got 3",
        ),
        (
            "\n      - {role: AXButton, id: go, label: Go, frame: [20, 100, 350, 44]}",
            ' "oops"',
            "8:15: screens.home.elements: expected a list of mappings, got a string 'oops'",
        ),
        (
            "44]}",
            "44], traits: header}",
            (
                "9:80: screens.home.elements[0].traits: expected a list of strings, "
                "got a string 'header'"
            ),
        ),
        (
            "screens:",
            "faults: [{type: alert, probability: 2}]\nscreens:",
            "6:37: faults[0].probability: must be between 0 and 1, got 2.0",
        ),
    ],
)
def test_app_models_the_simulator_cannot_draw_are_located_errors(old, new, error):
    assert old in APP
    with pytest.raises(InputError) as caught:
        load_app_model(APP.replace(old, new), name="tiny.yaml")
    assert str(caught.value) == f"tiny.yaml:{error}"


def _broken(kind: str):
    """An app model past the loader's checks, standing in for a bug in the simulator."""
    model = load_app_model(APP, name="tiny.yaml")
    if kind == "size":
        return attrs.evolve(model, width=-5.0)
    element = ElementSpec(role="AXButton", id="go", label="Go", frame=(0, 0, math.inf, 44))
    return attrs.evolve(model, screens={"home": Screen(elements=(element,))})


@pytest.mark.parametrize(
    ("kind", "call", "failure"),
    [
        ("size", "describe", "ValueError"),
        ("frame", "screenshot", "OverflowError"),
    ],
)
async def test_a_simulator_bug_is_one_internal_status_line_without_a_traceback(
    capsys, kind, call, failure
):
    async with SimCompanion(_broken(kind)) as sim, Channel(sim.host, sim.port) as channel:
        stub = CompanionServiceStub(channel)
        request = pb.TargetDescriptionRequest() if call == "describe" else pb.ScreenshotRequest()
        with pytest.raises(GRPCError) as caught:
            await getattr(stub, call)(request, timeout=10)
    assert caught.value.status is Status.INTERNAL
    assert caught.value.message.startswith(f"orav sim: {call} failed: {failure}: ")
    assert "\n" not in caught.value.message
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Application error" not in err


# --- scenarios --------------------------------------------------------------------------------

MINIMAL = "name: s\napp: com.orav.demo\ngoal: sign in\n"


@pytest.mark.parametrize(
    ("extra", "error"),
    [
        ("max_steps: 0\n", "4:12: max_steps: must be at least 1, got 0"),
        ("max_steps: -3\n", "4:12: max_steps: must be at least 1, got -3"),
        ("timeout_seconds: 0\n", "4:18: timeout_seconds: must be at least 1.0, got 0.0"),
        ("timeout_seconds: .inf\n", "4:18: timeout_seconds: must be a finite number, got inf"),
        ("settle_seconds: -1\n", "4:17: settle_seconds: must be at least 0, got -1.0"),
        ("max_steps: 1000000\n", "4:12: max_steps: must be at most 100000, got 1000000"),
        ("settle_seconds: 3600\n", "4:17: settle_seconds: must be at most 60, got 3600.0"),
        (
            "script:\n  - action: {kind: press_key, key: 99999}\n",
            "5:36: script[0].action.key: a HID keycode is 1 to 255, got 99999",
        ),
        (
            "script:\n  - action: {kind: press_key, key: true}\n",
            "5:36: script[0].action.key: a HID keycode is 1 to 255, got True",
        ),
        (
            "script:\n  - action: {kind: type_text, text: ''}\n",
            "5:37: script[0].action.text: must not be empty",
        ),
        (
            "script:\n  - action: {kind: wait, seconds: -3}\n",
            "5:35: script[0].action.seconds: must be at least 0, got -3.0",
        ),
        (
            (
                "script:\n  - action: {kind: swipe, start: {x: 1, y: 2}, end: {x: 3, y: 4}, "
                "duration: -1}\n"
            ),
            "5:77: script[0].action.duration: must be at least 0, got -1.0",
        ),
        (
            "preconditions:\n  - {kind: tap, x: .nan, y: 10}\n",
            "5:20: preconditions[0].x: must be a finite number, got nan",
        ),
        (
            "preconditions:\n  - {kind: tap, x: 10, y: -.inf}\n",
            "5:27: preconditions[0].y: must be a finite number, got -inf",
        ),
        (
            "preconditions:\n  - {kind: swipe, start: {x: 1, y: .nan}, end: {x: 3, y: 4}}\n",
            "5:36: preconditions[0].start.y: must be a finite number, got nan",
        ),
        (
            "faults:\n  - {type: alert, probability: 1.5}\n",
            "5:32: faults[0].probability: must be between 0 and 1, got 1.5",
        ),
        (
            "faults:\n  - {type: alert, probability: -0.1}\n",
            "5:32: faults[0].probability: must be between 0 and 1, got -0.1",
        ),
        (
            "faults:\n  - {type: alert, times: 0}\n",
            "5:26: faults[0].times: must be at least 1, got 0",
        ),
        (
            "faults:\n  - {type: loading, duration: -1}\n",
            "5:31: faults[0].duration: must be at least 0, got -1",
        ),
        (
            "faults:\n  - {type: alert, at_step: 0}\n",
            "5:28: faults[0].at_step: must be at least 1, got 0",
        ),
        (
            "script:\n  - action: {kind: done}\n  - action: {kind: wait}\n",
            "5:20: script[0].action.kind: `done` must be the last step, but 1 more follow",
        ),
        (
            "preconditions:\n  - {kind: press_key, key: f25}\n",
            (
                "5:28: preconditions[0].key: unknown key 'f25': expected a Textual key name "
                "such as enter, escape, tab, up, down, pageup, end, f5, ctrl+s, shift+tab or a "
                "printable character, or a HID keycode"
            ),
        ),
        (
            "preconditions: &loop [*loop]\n",
            "4:16: an alias refers to a mapping or list that contains it (an alias loop)",
        ),
        (
            "description: &loop {again: *loop}\n",
            "4:14: an alias refers to a mapping or list that contains it (an alias loop)",
        ),
    ],
)
def test_impossible_scenario_values_are_located_errors(tmp_path: Path, extra: str, error: str):
    path = tmp_path / "s.yaml"
    path.write_text(MINIMAL + extra)
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    assert str(caught.value) == f"{path}:{error}"


def test_an_alias_loop_around_the_whole_document_is_located():
    with pytest.raises(InputError) as caught:
        load_yaml("&top\n" + MINIMAL + "preconditions: [*top]\n", Scenario, source="s.yaml")
    assert str(caught.value) == "s.yaml:1:1: " + (
        "an alias refers to a mapping or list that contains it (an alias loop)"
    )


def test_large_finite_coordinates_load_and_impossible_values_fail_in_code_too():
    scenario = load_yaml(MINIMAL + "preconditions: [{kind: tap, x: 1e9, y: -1e9}]\n", Scenario)
    assert scenario.preconditions == (Tap(x=1e9, y=-1e9),)
    for build in (
        lambda: Wait(-0.5),
        lambda: Point(math.nan, 0),
        lambda: Swipe(Point(0, 0), Point(1, 1), duration=-1),
        lambda: PressKey("f25"),
    ):
        with pytest.raises(ValueError):
            build()


def test_more_problems_are_listed_one_per_line_up_to_five():
    kinds = "".join(f"  - {{kind: x{i}}}\n" for i in range(7))
    with pytest.raises(InputError) as caught:
        load_yaml(MINIMAL + "preconditions:\n" + kinds, Scenario, source="s.yaml")
    headline, *rest = str(caught.value).splitlines()
    expected = "preconditions[{0}].kind: unknown action kind 'x{0}'; expected one of " + KINDS
    assert headline == "s.yaml:5:12: " + expected.format(0)
    assert rest == [f"  s.yaml:{6 + i}:12: " + expected.format(1 + i) for i in range(4)] + [
        "  (and 2 more problems)"
    ]


def test_validate_reports_every_bad_file_on_its_own_prefixed_line(tmp_path: Path):
    (tmp_path / "wait.yaml").write_text(
        MINIMAL + "script:\n  - action: {kind: wait, seconds: -3}\n"
    )
    (tmp_path / "good.yaml").write_text(MINIMAL)
    (tmp_path / "steps.yaml").write_text(MINIMAL + "max_steps: 0\n")
    done = orav("validate", "wait.yaml", "good.yaml", "steps.yaml", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "orav: error: wait.yaml:5:35: script[0].action.seconds: must be at least 0, got -3.0",
        "orav: error: steps.yaml:4:12: max_steps: must be at least 1, got 0",
    ]
    assert done.stdout == "good.yaml: ok (s, 0 scripted steps)\n"


# --- cassettes --------------------------------------------------------------------------------


def _lines() -> list[bytes]:
    return LOGIN.read_bytes().split(b"\n")


def _blob_line(lines: list[bytes], media_type: str) -> int:
    return next(
        i
        for i, line in enumerate(lines)
        if b'"type":"blob"' in line and json.loads(line)["media_type"] == media_type
    )


def _damage(tmp_path: Path, media_type: str, data: bytes | None, text: str | None = None):
    """login.cassette with one blob's data replaced; (path, 1-based line of that blob)."""
    lines = _lines()
    index = _blob_line(lines, media_type)
    blob = json.loads(lines[index])
    if data is not None:  # well-formed, hash and all: the content itself is wrong
        blob["sha256"] = hashlib.sha256(data).hexdigest()
        old = json.loads(lines[index])["sha256"]
        lines = [line.replace(old.encode(), blob["sha256"].encode()) for line in lines]
        blob["data"] = base64.b64encode(data).decode()
    else:
        blob["data"] = text
    lines[index] = json.dumps(blob, separators=(",", ":")).encode()
    path = tmp_path / "damaged.cassette"
    path.write_bytes(b"\n".join(lines))
    return path, index + 1


@pytest.mark.parametrize(
    ("media_type", "data", "text", "what"),
    [
        ("image/png", None, "not base64!", "blob data: expected base64"),
        ("image/png", None, base64.b64encode(b"other bytes").decode(), "does not match its sha256"),
        ("application/json", b"[{]", None, "element blob: expected a JSON list of elements"),
    ],
)
def test_a_damaged_blob_is_found_when_the_cassette_is_read(tmp_path, media_type, data, text, what):
    path, line = _damage(tmp_path, media_type, data, text)
    with pytest.raises(InputError) as caught:
        read_cassette(path)
    assert str(caught.value).startswith(f"{path}:{line}: ")
    assert what in str(caught.value)


def test_a_blob_line_checked_before_is_trusted_only_byte_for_byte(tmp_path: Path):
    """Reading a cassette again finds its blob lines checked (a suite's goldens share screens):
    the same bytes come back; a line that holds the same sha256 over other data is checked."""
    first = read_cassette(LOGIN).blobs
    again = read_cassette(LOGIN).blobs
    assert {sha: again[sha] for sha in again} == {sha: first[sha] for sha in first}
    for media_type in ("image/png", "application/json"):
        other = base64.b64encode(b"other bytes").decode()
        path, line = _damage(tmp_path, media_type, None, other)
        with pytest.raises(InputError, match=f"{path}:{line}: blob .* does not match its sha256"):
            read_cassette(path)


def test_replaying_a_cassette_with_a_damaged_blob_is_bad_input(tmp_path: Path):
    path, line = _damage(tmp_path, "image/png", None, base64.b64encode(b"other").decode())
    done = orav("replay", path.name, cwd=tmp_path)
    sha = json.loads(_lines()[line - 1])["sha256"]
    assert_bad_input(done, f"{path.name}:{line}: blob {sha[:12]}… does not match its sha256")


async def test_a_cut_cassette_says_it_was_cut_off_once(tmp_path: Path):
    data = LOGIN.read_bytes()
    cut = data.rindex(b'"type":"step"')  # inside the last step event
    path = tmp_path / "cut.cassette"
    path.write_bytes(data[:cut])
    line = data[:cut].count(b"\n") + 1
    start = data.rindex(b"\n", 0, cut) + 1
    cassette = read_cassette(path)
    assert (
        cassette.truncated
        == f"line {line} (byte {start}): an incomplete event (no newline at the end)"
    )
    outcome = await session.replay(path)
    assert f"the cassette was cut off at {cassette.truncated}" in outcome.differences
    assert all(difference.count("cut off") <= 1 for difference in outcome.differences)


def test_json_errors_say_where_in_the_line(tmp_path: Path):
    lines = _lines()
    lines[2] = b'{"type":"step","step":"a\x01b"}'
    path = tmp_path / "control.cassette"
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(InputError) as caught:
        read_cassette(path)
    assert str(caught.value).startswith(
        f"{path}:3: not valid JSON (Invalid control character at column 25); expected a JSON event"
    )
    with pytest.raises(InputError) as caught:
        from_json('{"name": "a\x01"}', Scenario, source="s.json")
    assert str(caught.value) == "s.json:1:12: not valid JSON: Invalid control character"


def test_an_existing_cassette_points_at_the_flag(tmp_path: Path):
    path = tmp_path / "run.cassette"
    path.write_text("keep me")
    with pytest.raises(InputError) as caught:
        CassetteWriter.create(path, Header(scenario=Scenario(name="s", app="a", goal="g")))
    assert str(caught.value) == f"{path}: cassette already exists; use --overwrite to replace it"


# --- CLI output paths -------------------------------------------------------------------------


def test_unwritable_output_paths_are_bad_input_naming_the_path(tmp_path: Path):
    (tmp_path / "file").write_text("a file, not a directory")
    done = orav("diagrams", "--out", "file/diagrams.md", cwd=tmp_path)
    assert_bad_input(done, "file/diagrams.md: cannot write: Not a directory")
    done = orav("report", "--html", "file/html", LOGIN, cwd=tmp_path)
    assert_bad_input(done, "file/html: cannot write: Not a directory")
    done = orav("demo", "--out", "file/demo", cwd=tmp_path)
    assert_bad_input(done, "file/demo: cannot write: Not a directory")


def test_diagrams_check_without_out_is_a_usage_error(tmp_path: Path):
    done = orav("diagrams", "--check", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == "Error: --check needs --out FILE, the file to compare"
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("name: ../../tmp/evil\napp: a\ngoal: g\n", "1:7: name: must be up to 100 letters, digits"),
        ("name: a/b\napp: a\ngoal: g\n", "1:7: name: must be up to 100 letters, digits"),
        ("name: ok\napp: a\ngoal: '  '\n", "3:7: goal: must not be empty"),
        ("name: ok\napp: ''\ngoal: g\n", "2:6: app: must not be empty"),
    ],
)
def test_a_scenario_name_is_a_file_name_and_app_and_goal_are_not_empty(text, error, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    assert str(caught.value).startswith(f"{path}:{error}")
