"""``--workers N``: long-lived worker processes (``orav.cli.worker``) record scenario after
scenario; a worker that dies under one scenario, or outlives its time limit, is replaced and
that scenario alone reported, the others recorded as usual."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from command import orav

from orav.scenario_loader import example_scenarios
from orav.suite import Worker

EXAMPLES = {path.stem: path for path in example_scenarios()}
WORKER = [sys.executable, "-m", "orav.cli.worker"]

# A user's agent that plays each scenario's script, except under one it never saw by name,
# where the process it runs in dies (a native crash, an os._exit in a library).
FRAIL = """
import os
from orav.agents.scripted import ScriptedAgent

class Frail(ScriptedAgent):
    async def decide(self, context):
        if context.scenario.name == "quartz_keel" and context.step == 2:
            os._exit(7)
        return await super().decide(context)
"""


def test_a_worker_that_dies_under_one_scenario_is_replaced_and_the_others_pass(tmp_path: Path):
    folder = tmp_path / "scenarios"
    folder.mkdir()
    names = ("login", "open_detail", "change_setting", "submit_form")
    for name in names:
        (folder / f"{name}.yaml").write_text(EXAMPLES[name].read_text())
    text = EXAMPLES["open_detail"].read_text().replace("name: open_detail", "name: quartz_keel")
    (folder / "quartz_keel.yaml").write_text(text)
    (tmp_path / "frail_agents.py").write_text(FRAIL)
    done = orav(
        "record", "--workers", "2", "--agent", "class:frail_agents:Frail", "--record-mode",
        "all", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr  # a run that could not end: an error
    assert "error scenarios/quartz_keel.yaml: its worker process died (exit 7)" in done.stderr
    for name in names:
        assert re.search(rf"passed scenarios/{name}\.yaml on sim", done.stderr), done.stderr
    assert "4 of 5 met their goal: 4 passed; 1 did not" in done.stdout


def test_a_worker_runs_commands_one_after_another_and_one_past_its_limit_is_replaced(
    tmp_path: Path,
):
    worker = Worker(WORKER)
    try:
        scenario = EXAMPLES["login"]
        assert worker.run(["validate", str(scenario)], limit=60) == (
            0,
            f"{scenario}: ok (login, 5 scripted steps)",
        )
        first = worker._process
        status, said = worker.run(["validate", str(tmp_path / "none.yaml")], limit=60)
        assert status == 2 and "none.yaml" in said  # its error, its own last line
        assert worker._process is first  # the same process: imports paid once
        status, said = worker.run(["sim"], limit=3)  # serves until stopped
        assert status is None and said.startswith("no end after 3 s"), said
        assert worker._process is None and first is not None and first.poll() is not None
        assert worker.run(["validate", str(scenario)], limit=60)[0] == 0  # a fresh worker
    finally:
        worker.stop()
