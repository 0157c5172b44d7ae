"""The everyday loop: progress while a run goes, why a run failed, suites (folders, globs, tags,
shards, workers, retries), ``${VAR}`` from the environment, the config file. Real ``orav``
processes against the simulator; a pseudo-terminal for what a terminal shows."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from command import ORAV, orav
from hypothesis import given
from hypothesis import strategies as st

from orav.config import load_config
from orav.errors import InputError
from orav.model import RunReport, RunStatus
from orav.report.html import render_html
from orav.report.timeline import read_run
from orav.scenario_loader import example_scenarios, load_scenario
from orav.suite import Job, Outcome, expand, parse_shard, run_serial, shard_of, wanted

EXAMPLES = {path.stem: path for path in example_scenarios()}
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def copy_example(folder: Path, name: str, *, edit=lambda text: text, to: str | None = None):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{to or name}.yaml"
    path.write_text(edit(EXAMPLES[name].read_text()))
    return path


def wrong_value(text: str) -> str:
    """change_setting expecting the switch 'off': the app says '0', so the run fails."""
    return text.replace('value: "0"}', 'value: "off"}')


# --- choosing the scenarios ---------------------------------------------------------------------


def test_folders_and_globs_expand_sorted_each_file_once(tmp_path: Path):
    for name in ("login", "open_detail"):
        copy_example(tmp_path / "a", name)
    copy_example(tmp_path / "a" / "deep", "submit_form")
    found = expand([tmp_path / "a", str(tmp_path / "a" / "*.yaml")])
    names = [p.relative_to(tmp_path / "a").as_posix() for p in found]
    assert names == ["deep/submit_form.yaml", "login.yaml", "open_detail.yaml"]
    with pytest.raises(InputError, match="no file matches this pattern"):
        expand([str(tmp_path / "*.nothing")])


@given(count=st.integers(1, 12), items=st.integers(0, 40))
def test_shards_split_every_item_exactly_once(count: int, items: int):
    chosen = [shard_of(range(items), parse_shard(f"{i}/{count}")) for i in range(1, count + 1)]
    assert sorted(x for part in chosen for x in part) == list(range(items))


@pytest.mark.parametrize("text", ["0/2", "3/2", "1", "a/b", "1/0"])
def test_a_bad_shard_is_refused_naming_the_flag(text: str):
    with pytest.raises(InputError, match="--shard"):
        parse_shard(text)


def test_tags_include_and_exclude():
    assert wanted(("smoke", "login"), ["smoke"], [])
    assert not wanted(("smoke", "slow"), ["smoke"], ["slow"])
    assert not wanted((), ["smoke"], [])
    assert wanted((), [], ["slow"])


def test_a_retry_that_passes_is_flaky():
    def report(status: RunStatus) -> RunReport:
        return RunReport(run_id="r", scenario="x", status=status)

    answers = iter([report("failed"), report("completed_with_errors")])
    [outcome] = run_serial(
        [Job(Path("x"), None, Path("x"))], lambda job, n: next(answers), retries=2
    )
    assert outcome.ok and outcome.flaky and outcome.attempts == 2
    assert not Outcome(Job(Path("x"), None, Path("x")), report("passed")).flaky


# --- ${VAR} and the config file -----------------------------------------------------------------


def test_variables_come_from_the_environment_and_an_unset_one_is_located(tmp_path: Path):
    path = copy_example(tmp_path, "login", edit=lambda t: t.replace("Orav-Demo-1!", '"${DEMO_PW}"'))
    scenario = load_scenario(path, {"DEMO_PW": "s3cret-pw"})
    assert scenario.variables == ("DEMO_PW",)
    assert any(getattr(d.action, "text", "") == "s3cret-pw" for d in scenario.script)
    with pytest.raises(InputError) as caught:
        load_scenario(path, {})
    line = next(n for n, t in enumerate(path.read_text().splitlines(), 1) if "${DEMO_PW}" in t)
    assert str(caught.value).startswith(f"{path}:{line}:")
    # the first use of the variable is located: the credentials' password
    assert "credentials.password: ${DEMO_PW}: the environment variable DEMO_PW is not set" in str(
        caught.value
    )
    literal = tmp_path / "literal.yaml"
    literal.write_text("name: s\napp: a\ngoal: 'costs $${PRICE}'\n")
    assert load_scenario(literal, {}).goal == "costs ${PRICE}"


def test_a_secret_from_the_environment_never_reaches_the_disk(tmp_path: Path):
    path = copy_example(tmp_path, "login", edit=lambda t: t.replace("Orav-Demo-1!", '"${PW}"'))
    env = {**os.environ, "PW": "Orav-Demo-1!"}
    done = subprocess.run(
        [*ORAV, "record", path, "-q"],
        check=False,
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    written = [p for p in (tmp_path / "recordings").iterdir()]
    assert {p.name for p in written} >= {"login.cassette", "login.report.json", "login.html"}
    assert not [p for p in written if b"Orav-Demo-1!" in p.read_bytes()]


def test_the_config_file_sets_defaults_and_a_bad_one_is_located(tmp_path: Path):
    (tmp_path / "orav.toml").write_text('device = "sim"\nrecordings = "tapes"\nretries = 1\n')
    config = load_config(tmp_path / "orav.toml")
    assert (config.recordings, config.retries) == (str(tmp_path / "tapes"), 1)
    (tmp_path / "pyproject.toml").write_text("[tool.orav]\nworkers = 2\n")
    assert load_config(tmp_path / "pyproject.toml").workers == 2
    (tmp_path / "orav.toml").write_text('device = "sim"\nwokers = 2\n')
    done = orav("record", "x.yaml", cwd=tmp_path)
    assert done.returncode == 2
    assert (
        done.stderr.startswith("orav: error: ")
        and "orav.toml:2: wokers: unknown setting" in done.stderr
    )
    (tmp_path / "orav.toml").write_text("retries = 99\n")
    assert "retries: expected 0 to 10, got 99" in orav("record", "x.yaml", cwd=tmp_path).stderr


# --- runs: progress, reasons, suites ------------------------------------------------------------


def test_progress_on_a_terminal_and_as_plain_lines(tmp_path: Path):
    path = copy_example(tmp_path, "change_setting")
    main, secondary = pty.openpty()
    process = subprocess.Popen(
        [*ORAV, "record", path], cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=secondary
    )
    os.close(secondary)
    shown = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    assert process.wait(timeout=60) == 0
    os.close(main)
    text = shown.decode()
    assert ANSI.search(text), text  # coloured on a terminal
    plain = ANSI.sub("", text)
    assert re.search(r"step 1/8 +tap #settings", plain)
    assert re.search(r"step 2/8 +tap #notifications_switch", plain)
    piped = orav("record", path, "--record-mode", "all", "-v", cwd=tmp_path)
    assert piped.returncode == 0 and not ANSI.search(piped.stderr)
    assert re.search(r"step 1/8 +tap #settings", piped.stderr)
    assert re.search(r"phase +acting", piped.stderr)  # -v: the run machine's phases
    quiet = orav("record", path, "--record-mode", "all", "-q", cwd=tmp_path)
    assert quiet.returncode == 0 and quiet.stderr == ""


def test_a_failed_run_says_what_was_expected_and_found_and_never_blocks_the_next(tmp_path: Path):
    path = copy_example(tmp_path, "change_setting", edit=wrong_value)
    for _ in range(2):  # the failed cassette is no golden: the second attempt records over it
        done = orav("record", path, "-q", "--retries", "1", "--junit", "j.xml", cwd=tmp_path)
        assert done.returncode == 1, done.stderr
        assert "expected #notifications_switch has value 'off'; found value '0'" in done.stderr
        assert "retry 1 of 1" in done.stderr
    junit = (tmp_path / "j.xml").read_text()
    assert "goal missed: #notifications_switch has value 'off'; found value '0'" in junit
    assert '<property name="attempts" value="2" />' in junit and "flaky" not in junit
    html = render_html(read_run(tmp_path / "recordings" / "change_setting.cassette"))
    verdict = re.search(r'id="verdict".*?</div>', html).group(0)
    assert "Failed: the goal is not reached" in verdict and "found value '0'" in verdict
    assert "the goal is reached</h3>" not in html  # the agent's claim is not the headline
    # The timeline: a chip per step, each a link to its card.
    timeline = re.search(r'<nav class="timeline".*?</nav>', html).group(0)
    assert re.findall(r'href="#([^"]+)"', timeline) == ["step-1", "step-2"]
    assert all(f'id="step-{n}"' in html for n in (1, 2))
    # Each step folds the tree the agent saw, its target marked, values readable.
    marked = re.findall(r'<li class="target">([^<]*)</li>', html)
    assert marked == [
        "Button 'Settings' #settings at 290,47 92×44 ← target",
        "Switch 'Notifications' #notifications_switch value '1' at 0,100 390×52 ← target",
    ]


def test_a_suite_with_workers_gives_the_serial_verdicts(tmp_path: Path):
    """Every example scenario of the demo app, a failing one among them, tags and a shard."""
    folder = tmp_path / "scenarios"
    for name in EXAMPLES:
        copy_example(folder, name)
    copy_example(
        folder / "more",
        "change_setting",
        to="wrong",
        edit=lambda t: wrong_value(t).replace("name: change_setting", "name: wrong\ntags: [slow]"),
    )
    serial = orav(
        "record",
        "-q",
        "--workers",
        "1",
        "--record-mode",
        "all",
        "--junit",
        "serial.xml",
        cwd=tmp_path,
    )
    parallel = orav("record", "scenarios", "--workers", "4", "--record-mode", "all", cwd=tmp_path)
    for done in (serial, parallel):
        assert done.returncode == 1, done.stderr
        n = len(EXAMPLES)
        assert f"{n} of {n + 1} met their goal: {n} passed; 1 did not" in done.stdout
        assert "recordings/more/wrong.cassette: expected #notifications_switch" in done.stderr
    verdicts = [re.findall(r"(\w+) +│ (passed|failed)", d.stdout) for d in (serial, parallel)]
    assert verdicts[0] == verdicts[1] and len(verdicts[0]) == len(EXAMPLES) + 1
    assert 'failures="1"' in (tmp_path / "serial.xml").read_text()
    kept = orav("record", "--skip-tag", "slow", "--shard", "1/2", cwd=tmp_path)
    assert kept.returncode == 0, kept.stderr  # the goldens are replayed, not recorded
    assert kept.stderr.count("replayed, not recorded") == (len(EXAMPLES) + 1) // 2
    nothing = orav("record", "--tag", "nosuch", cwd=tmp_path)
    assert (
        nothing.returncode == 2 and "no scenario of 5 is selected by --tag nosuch" in nothing.stderr
    )
    both = orav("record", "--out", "x.cassette", cwd=tmp_path)
    assert both.returncode == 2 and "--out: names one cassette, but 5 scenarios" in both.stderr
    replayed = orav("replay", "recordings", cwd=tmp_path)
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout.count("faithful") == len(EXAMPLES) + 1
    # One file, one cassette: alone it records where the suite recorded it.
    alone = orav("record", "scenarios/more/wrong.yaml", "-q", cwd=tmp_path)
    assert alone.returncode == 1 and "recordings/more/wrong.cassette: expected" in alone.stderr
    checked = orav("validate", "scenarios", cwd=tmp_path)
    assert checked.returncode == 0 and checked.stdout.count(": ok (") == len(EXAMPLES) + 1


def test_orav_help_still_imports_no_rich_console_progress_machinery():
    code = "import sys, orav.cli; print('orav.report.console' in sys.modules, 'orav.config' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=30, check=False
    )
    assert out.stdout.split() == ["False", "False"]


def test_a_suite_over_two_idb_companions_runs_one_scenario_on_each_at_a_time(tmp_path: Path):
    """Two simulated idb companions (`orav sim`, real gRPC), one scenario each at a time."""
    folder = tmp_path / "scenarios"
    for name in ("login", "open_detail", "submit_form"):  # a companion keeps the app's state:
        copy_example(folder, name, edit=lambda t: t + "reset: [keychain]\n")  # sign out first
    companions = [
        subprocess.Popen([*ORAV, "sim"], stdout=subprocess.PIPE, text=True) for _ in range(2)
    ]
    try:
        addresses = [c.stdout.readline().strip() for c in companions]
        devices = ",".join(f"idb:{a}" for a in addresses)
        done = orav("record", "--device", devices, "--record-mode", "all", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert "3 of 3 met their goal: 3 passed" in done.stdout
        twice = orav("record", "--device", f"idb:{addresses[0]},idb:{addresses[0]}", cwd=tmp_path)
        assert twice.returncode == 2 and "is listed twice: one run at a time each" in twice.stderr
        mixed = orav("record", "--device", "sim,idb:1.2.3.4:5", cwd=tmp_path)
        assert mixed.returncode == 2 and "idb:HOST:PORT companions only" in mixed.stderr
    finally:
        for companion in companions:
            companion.terminate()
            companion.wait(timeout=10)


@pytest.mark.parametrize("text", ["[" * 5000, "[]", "nan", '{"duration_seconds": "long"}'])
def test_a_damaged_report_beside_a_cassette_only_loses_its_place_in_the_order(tmp_path, text):
    """Workers start the longest runs first, as last recorded; a report.json that cannot say
    (nested past the bounds, not a mapping, NaN) counts as no time, never an error."""
    from orav.suite import _last_duration

    cassette = tmp_path / "login.cassette"
    cassette.with_suffix(".report.json").write_text('{"duration_seconds": 2.5}')
    assert _last_duration(cassette) == 2.5
    cassette.with_suffix(".report.json").write_text(text)
    assert _last_duration(cassette) == 0.0
