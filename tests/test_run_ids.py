"""Run ids as seed 002 writes them: ``run_YYYYMMDD_HHMMSS``, with a suffix when more runs start
in the same second, in one process or several; ids recorded before (32 hex digits) still read."""

import asyncio
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from orav.cassette import Header, read_cassette
from orav.model import Scenario
from orav.report.html import render_html
from orav.report.junit import junit_xml
from orav.report.timeline import read_run
from orav.run_ids import new_run_id
from orav.scenario_loader import load_scenario
from orav.session import record

ROOT = Path(__file__).resolve().parent.parent
FORM = re.compile(r"run_\d{8}_\d{6}(_\d+)?")
MOMENT = datetime(2026, 2, 16, 14, 30, 22, 900_000, tzinfo=UTC)


def test_runs_in_the_same_second_get_a_suffix(tmp_path: Path):
    state = tmp_path / "ids"
    same = [new_run_id(MOMENT + timedelta(milliseconds=i), state=state) for i in range(3)]
    assert same == ["run_20260216_143022", "run_20260216_143022_2", "run_20260216_143022_3"]
    assert new_run_id(MOMENT + timedelta(seconds=1), state=state) == "run_20260216_143023"
    assert new_run_id(MOMENT, state=state) == "run_20260216_143022"  # a new second starts over


def test_runs_started_by_several_processes_at_once_are_told_apart(tmp_path: Path):
    state = tmp_path / "ids"
    code = (
        "from datetime import datetime, UTC; from pathlib import Path; "
        "from orav.run_ids import new_run_id; "
        f"print(*(new_run_id(datetime.fromisoformat({MOMENT.isoformat()!r}), "
        f"state=Path({str(state)!r})) for _ in range(5)))"
    )
    workers = [
        subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    ids = [i for w in workers for i in w.communicate(timeout=60)[0].split()]
    assert all(w.returncode == 0 for w in workers)
    assert len(ids) == len(set(ids)) == 20
    assert sorted(ids) == sorted(
        ["run_20260216_143022"] + [f"run_20260216_143022_{n}" for n in range(2, 21)]
    )


def test_a_recorded_run_and_its_report_carry_the_seeds_form(tmp_path: Path):
    assert FORM.fullmatch(Header(scenario=Scenario("s", "com.x", "g")).run_id)
    out = tmp_path / "login.cassette"
    scenario = load_scenario(ROOT / "orav" / "scenarios" / "login.yaml")
    asyncio.run(record(scenario, out))
    cassette = read_cassette(out)
    assert FORM.fullmatch(cassette.header.run_id)
    assert cassette.report().run_id == cassette.header.run_id


def test_an_id_recorded_before_is_read_and_shown_as_it_is():
    golden = ROOT / "recordings" / "login.cassette"
    old = read_cassette(golden).header.run_id
    assert re.fullmatch(r"[0-9a-f]{32}", old)
    run = read_run(golden)
    assert old in render_html(run)
    assert f'value="{old}"' in junit_xml([run])
