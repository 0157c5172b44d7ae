"""Issue 11, item by item: hostile input and hostile conditions end in a located error (exit 2)
or a whole cassette, never a hang, an internal error, a leaked secret or a mixed cassette.

Each test runs the reproduction of its item against the real ``orav`` command (or the real
library with the real simulator, the real openai client and a loopback HTTP server).
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from command import ORAV, children_cpu, orav
from fuzz_corpus import run_measured

from orav.cassette import read_cassette
from orav.secrets import BULLET

ROOT = Path(__file__).resolve().parents[1]
MINIMAL = "name: s\napp: com.orav.demo\ngoal: g\n"
PASSWORD = "Orav-Demo-1!"


def bad_input(done: subprocess.CompletedProcess, where: str, what: str) -> None:
    """Exit 2 and one error line (per file) naming ``where`` and saying ``what``."""
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    line = done.stderr.splitlines()[0]
    assert line.startswith(f"orav: error: {where}"), line
    assert what in line, line


def alias_bomb(levels: int = 8) -> str:
    lines = ["a0: &a0 [x,x,x,x,x,x,x,x,x,x]"] + [
        f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels)
    ]
    return MINIMAL + "x:\n" + "\n".join("  " + line for line in lines) + "\n"


# --- 1. alias bombs ---------------------------------------------------------------------------


def test_1_an_alias_bomb_is_refused_at_once_where_it_expands(tmp_path: Path):
    path = tmp_path / "bomb.yaml"
    path.write_text(alias_bomb(9))
    done, peak_mb, cpu = run_measured("validate", path)
    assert cpu < 10
    bad_input(done, f"{path}:", "values once its aliases are expanded")
    assert peak_mb < 200  # it reached 2.2 GB


def test_1_every_yaml_reader_refuses_it(tmp_path: Path):
    app = (ROOT / "orav" / "sim" / "demo.yaml").read_text()
    bomb = tmp_path / "app.yaml"
    bomb.write_text(app + alias_bomb().removeprefix(MINIMAL).replace("x:", "x_bomb:", 1))
    login = ROOT / "orav" / "scenarios" / "login.yaml"
    for args in (
        ["sim", bomb],
        ["record", login, "--device", f"sim:{bomb}", "--out", tmp_path / "o.cassette"],
        ["explore", "--device", f"sim:{bomb}", "--out", tmp_path / "e.cassette"],
    ):
        bad_input(orav(*args), f"{bomb}:", "aliases are expanded")
    scenario = tmp_path / "s.yaml"
    scenario.write_text(alias_bomb())
    bad_input(orav("record", scenario), f"{scenario}:", "aliases are expanded")


# --- 2. large inputs --------------------------------------------------------------------------


def test_2_a_10_mb_scenario_is_refused_by_its_size_before_it_is_parsed(tmp_path: Path):
    path = tmp_path / "big.yaml"
    path.write_text(MINIMAL + "x:\n" + "  key: v\n" * 1_300_000)
    started = children_cpu()
    done = orav("validate", path)
    assert children_cpu() - started < 5
    bad_input(done, f"{path}:", "more than the 512 KB of YAML orav reads")


# --- 3. two writers of one new cassette -------------------------------------------------------


def test_3_two_records_of_one_new_cassette_leave_one_whole_run(tmp_path: Path):
    out = tmp_path / "c.cassette"
    scenario = ROOT / "orav" / "scenarios" / "login.yaml"
    env = {k: v for k, v in os.environ.items() if k != "ORAV_DEBUG"}
    runs = [
        subprocess.Popen(
            [*ORAV, "record", scenario, "--out", out, "--record-mode", mode],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for mode in ("all", "all")
    ]
    codes = [run.wait(timeout=90) for run in runs]
    errors = [run.stderr.read() for run in runs]
    assert all(code == 0 for code in codes), errors
    cassette = read_cassette(out)
    assert cassette.truncated is None
    ids = {line.split('"run_id":"')[1].split('"')[0] for line in out.read_text().splitlines()[:1]}
    assert len(ids) == 1  # one header: not a mix of two runs
    assert sum(1 for e in cassette.events if e.type == "report") == 1
    replayed = orav("replay", out)
    assert replayed.returncode == 0, replayed.stderr
    assert not list(tmp_path.glob(".*.tmp"))


# --- 4. secrets through edits -----------------------------------------------------------------

EDITED = """\
name: edited
app: com.orav.demo
goal: type a secret into a field that does not mask it, then edit it
script:
  - action: {kind: tap, target: {id: email}}
  - action: {kind: type_text, text: "Orav-Demo-1!", secure: true}
  - action: {kind: press_key, key: backspace}
  - action: {kind: tap, target: {id: password}}
  - action: {kind: type_text, text: "abc", secure: true}
  - action: {kind: press_key, key: backspace}
  - action: {kind: done, success: true}
"""


def json_blobs(path: Path) -> list:
    found = []
    for line in path.read_text().splitlines():
        event = json.loads(line)
        if event["type"] == "blob" and event["media_type"] == "application/json":
            found.append(json.loads(base64.b64decode(event["data"])))
    return found


def test_4_a_secret_for_a_field_that_does_not_mask_it_is_refused_and_edits_stay_bullets(
    tmp_path: Path,
):
    scenario = tmp_path / "edited.yaml"
    scenario.write_text(EDITED)
    out = tmp_path / "edited.cassette"
    done = orav("record", scenario, "--out", out)
    assert done.returncode == 0, done.stderr
    raw = out.read_bytes()
    assert b"Orav-Demo" not in raw
    values = {}
    for elements in json_blobs(out):
        for element in elements:
            if element.get("unique_id") in ("email", "password") and "value" in element:
                value = element["value"]
                assert set(value) == {BULLET}, value  # never the text, never a prefix
                values.setdefault(element["unique_id"], []).append(len(value))
    # The secret never reaches the field that would show it (the engine refuses to type it),
    # and a 3-character secret, too short to scrub as text, is bullets as many as the field
    # showed because its field held a secret.
    assert "email" not in values and 3 in values["password"]
    assert (
        "refused to type a secret into a field that shows"
        in out.with_suffix(".report.json").read_text()
    )
    assert orav("replay", out).returncode == 0


# --- 6. internal errors that are bad input ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "where", "what"),
    [
        (MINIMAL + "x: " + "[" * 1000 + "]" * 1000 + "\n", ":4:", "nested deeper than 64"),
        (MINIMAL + "max_steps: " + "9" * 5000 + "\n", ":4:12", "a number of 5000 characters"),
        (MINIMAL + "1: a\nfoo: b\n", ":4:1", "unknown key '1'"),
        ("name: s\napp: a\ngoal: !!float abc\n", ":3:7", "'abc' is not a valid float"),
        (MINIMAL + "description: 2024-01-01\n", ":4:14", "unsupported YAML value (date)"),
        (MINIMAL + "description: !!set {a, b}\n", ":4:14", "unsupported YAML value (set)"),
        (MINIMAL + "description: !!binary aGk=\n", ":4:14", "unsupported YAML value (bytes)"),
        (MINIMAL + "description: a\x01b\n", ":4:15", "character #x0001 is not allowed"),
        ("42\n", ":1:1", "expected a Scenario mapping, got 42"),
    ],
)
def test_6_and_12_hostile_yaml_is_a_located_error(tmp_path: Path, text, where, what):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    bad_input(orav("validate", path), f"{path}{where}", what)


def test_12_bytes_that_are_not_utf8_are_located(tmp_path: Path):
    path = tmp_path / "s.yaml"
    path.write_bytes(MINIMAL.encode() + b"description: caf\xe9\n")
    bad_input(orav("validate", path), f"{path}:4:17", "not UTF-8 text")


def test_12_a_huge_value_is_not_echoed_whole(tmp_path: Path):
    path = tmp_path / "s.yaml"
    path.write_text(MINIMAL + 'max_steps: "' + "x" * 100_000 + '"\n')
    done = orav("validate", path)
    bad_input(done, f"{path}:4:12", "more characters")
    assert len(done.stderr) < 1000


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    """A real cassette of the demo login, recorded once for the damage tests."""
    out = tmp_path_factory.mktemp("recorded") / "login.cassette"
    done = orav("record", ROOT / "orav" / "scenarios" / "login.yaml", "--out", out)
    assert done.returncode == 0, done.stderr
    return out


def damage_element_blob(source: Path, target: Path, change) -> None:
    """Copy ``source`` with its first element blob's JSON text replaced by ``change(text)``
    (the blob's sha256 and every reference to it follow, so only the content is hostile)."""
    lines = source.read_text().splitlines()
    for index, line in enumerate(lines):
        event = json.loads(line)
        if event["type"] == "blob" and event["media_type"] == "application/json":
            old = event["sha256"]
            data = change(base64.b64decode(event["data"]).decode()).encode()
            new = hashlib.sha256(data).hexdigest()
            event.update(sha256=new, data=base64.b64encode(data).decode())
            lines[index] = json.dumps(event, separators=(",", ":"))
            text = "\n".join(lines) + "\n"
            target.write_text(text.replace(old, new))
            return
    raise AssertionError("no element blob")


@pytest.mark.parametrize(
    ("change", "what"),
    [
        (lambda text: "[" * 5000 + "]" * 5000, "nested deeper than 64 levels"),
        (lambda text: text.replace('"width":', '"width":' + "9" * 5000 + ',"w":', 1), "digits"),
        (lambda text: text.replace('"width":', '"width":NaN,"w":', 1), "NaN"),
    ],
    ids=["deep", "digits", "nan"],
)
@pytest.mark.parametrize("command", ["replay", "report", "audit", "export maestro"])
def test_6_and_12_a_hostile_element_blob_is_found_when_read(
    recorded: Path, tmp_path: Path, change, what, command
):
    damaged = tmp_path / "d.cassette"
    damage_element_blob(recorded, damaged, change)
    done = orav(*command.split(), damaged)
    bad_input(done, f"{damaged}:", "element blob: expected a JSON list of elements")
    assert what in done.stderr


def test_12_a_missing_screenshot_blob_is_damage(recorded: Path, tmp_path: Path):
    lines = recorded.read_text().splitlines()
    kept = [line for line in lines if '"media_type":"image/png"' not in line]
    assert len(kept) < len(lines)
    damaged = tmp_path / "d.cassette"
    damaged.write_text("\n".join(kept) + "\n")
    bad_input(orav("replay", damaged), f"{damaged}:", "screenshot blob")


def test_6_an_app_model_without_a_bundle_id_is_bad_input_for_explore(tmp_path: Path):
    app = tmp_path / "app.yaml"
    demo = (ROOT / "orav" / "sim" / "demo.yaml").read_text()
    app.write_text(demo.replace("bundle_id: com.orav.demo", 'bundle_id: ""'))
    done = orav("explore", "--device", f"sim:{app}", "--out", tmp_path / "e.cassette")
    assert done.returncode == 2 and "internal error" not in done.stderr, done.stderr


# --- 7. --out is checked before the run -------------------------------------------------------


def test_7_an_out_that_cannot_be_written_is_refused_before_the_run(tmp_path: Path):
    scenario = ROOT / "orav" / "scenarios" / "login.yaml"
    folder = tmp_path / "dir"
    folder.mkdir()
    file = tmp_path / "file"
    file.write_text("x")
    dangling = tmp_path / "dangling.cassette"
    dangling.symlink_to(tmp_path / "nowhere")
    cases = [
        (["--out", folder, "--overwrite"], f"{folder}: is a directory"),
        (["--out", file / "x.cassette"], f"{file / 'x.cassette'}: {file} is not a directory"),
        (["--out", dangling], f"{dangling}: is a symlink"),
    ]
    for args, line in cases:
        done = orav("record", scenario, *args)
        assert done.stdout == ""  # nothing was run: a run prints its row (status, steps)
        bad_input(done, line, "")
    # nothing written anywhere, not even a temp file in the folder named as the cassette
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["dangling.cassette", "dir", "file"]


# --- 8. temp files ----------------------------------------------------------------------------


def test_8_stale_temp_files_are_removed_and_a_live_ones_kept(tmp_path: Path):
    out = tmp_path / "login.cassette"
    scenario = ROOT / "orav" / "scenarios" / "login.yaml"
    assert orav("record", scenario, "--out", out).returncode == 0
    stale = tmp_path / ".login.cassette.killed.tmp"  # a run killed with SIGKILL left it
    stale.write_text("half a cassette")
    stale_report = tmp_path / ".login.html.killed.tmp"  # killed while writing its report
    stale_report.write_text("<html>")
    live = tmp_path / ".login.cassette.live.tmp"  # a run recording now holds its lock
    live.write_text("")
    with live.open() as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        done = orav("record", scenario, "--out", out, "--overwrite")
        assert done.returncode == 0, done.stderr
    assert not stale.exists() and not stale_report.exists() and live.exists()
    assert sorted(p.name for p in tmp_path.glob(".*")) == [live.name]


# --- 9. reports never follow a symlink --------------------------------------------------------


def test_9_reports_replace_a_planted_symlink_instead_of_writing_through_it(tmp_path: Path):
    out = tmp_path / "login.cassette"
    victims = []
    for suffix in (".report.json", ".html"):
        victim = tmp_path / f"victim{suffix}"
        victim.write_text("precious")
        out.with_suffix(suffix).symlink_to(victim)
        victims.append(victim)
    done = orav("record", ROOT / "orav" / "scenarios" / "login.yaml", "--out", out)
    assert done.returncode == 0, done.stderr
    for victim in victims:
        assert victim.read_text() == "precious"
    for suffix in (".report.json", ".html"):
        assert not out.with_suffix(suffix).is_symlink()
        assert out.with_suffix(suffix).stat().st_size > 100
    assert not list(tmp_path.glob(".*.tmp"))


# --- 11. SIGINT and SIGTERM -------------------------------------------------------------------

SLOW = """\
name: slow
app: com.orav.demo
goal: wait a while
timeout_seconds: 120
script:
  - action: {kind: tap, target: {id: email}}
  - action: {kind: wait, seconds: 60}
  - action: {kind: done, success: true}
"""


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
@pytest.mark.parametrize("mode", ["once", "all"])
def test_11_a_signal_ends_the_run_with_an_interrupted_report(tmp_path: Path, signum, code, mode):
    scenario = tmp_path / "slow.yaml"
    scenario.write_text(SLOW)
    out = tmp_path / "slow.cassette"
    env = {k: v for k, v in os.environ.items() if k != "ORAV_DEBUG"}
    run = subprocess.Popen(
        [*ORAV, "record", scenario, "--out", out, "--record-mode", mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 50  # a loaded machine starts Python slowly
    while time.monotonic() < deadline:  # until the run is in its 60 s wait
        written = out if mode == "once" else next(iter(tmp_path.glob(".slow.cassette.*")), out)
        if written.exists() and b'"kind":"wait"' in written.read_bytes():
            break
        time.sleep(0.1)
    else:
        run.kill()
        pytest.fail(f"the run never reached its wait: {run.communicate()[1][-2000:]}")
    time.sleep(0.3)
    run.send_signal(signum)
    stdout, stderr = run.communicate(timeout=30)
    assert run.returncode == code, stderr
    assert stderr.splitlines()[-1] == f"orav: interrupted by {signum.name}", stderr
    assert "Traceback" not in stderr
    cassette = read_cassette(out)
    report = cassette.events[-1]
    assert report.type == "report" and report.report["status"] == "interrupted"
    saved = json.loads(out.with_suffix(".report.json").read_text())
    assert saved["status"] == "interrupted" and out.with_suffix(".html").exists()
    assert "interrupted" in stdout
    replayed = orav("replay", out)
    assert replayed.returncode == 0 and "interrupted" in replayed.stdout, replayed.stderr
    assert not list(tmp_path.glob(".*.tmp"))


# --- 12. flags --------------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["not a url", "ftp://example.com/v1", "http://[::1"])
def test_12_a_bad_base_url_is_a_bad_flag(url: str):
    done = orav(
        "record", ROOT / "orav/scenarios/login.yaml", "--agent", "openai:m", "--base-url", url
    )
    bad_input(done, "--base-url: ", "URL")


def test_12_options_for_an_agent_that_takes_none_are_refused():
    done = orav(
        "record", ROOT / "orav/scenarios/login.yaml", "--agent", "explorer", "--agent-option", "a=b"
    )
    bad_input(done, "--agent-option: ", "the explorer agent takes no options")


def test_12_a_busy_port_is_a_bad_flag():
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = orav("sim", "--port", port)
    bad_input(done, f"--port {port}: ", "in use")
