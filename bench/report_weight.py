"""The HTML report of a long run: weight per step and headless Chromium's load time.

Records two 500-step runs on the simulator with the scripted agent and renders their reports:
*revisiting* (the settings screen's notifications switch toggled 500 times: two screens, seen
again and again, as a long LLM run revisits its screens) and *typing* (one character typed
into the email field per step: a new screen at every step, the worst case for a report that
stores each screen once). Prints the bytes per step of each, the golden cassettes' per-step
weights, and Chromium's ``--dump-dom`` time of each 500-step report (best of 3), when chromium
is installed. Targets (issue 14): <= 60 KB a step, <= 2 s to load.

Run: /work/venv/bin/python bench/report_weight.py [STEPS]
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from attrs import evolve

from orav import session
from orav.model import Decision, Done, Scenario, Tap, Target, TypeText
from orav.report.html import render_html, write_html
from orav.report.timeline import read_run
from orav.scenario_loader import example_scenarios, load_scenario

ROOT = Path(__file__).resolve().parent.parent
STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 500
sys.path.insert(0, str(ROOT / "tests"))
from chromium import CHROMIUM, dump_dom


def long_scenario(base: str, first: Decision, step: Decision, steps: int) -> Scenario:
    """The example scenario ``base`` with a script of ``steps`` steps: ``first``, then ``step``
    again and again, then done; no success criteria, no fixed settle, an hour's time."""
    scenario = load_scenario(next(p for p in example_scenarios() if p.stem == base))
    script = (first, *[step] * (steps - 1), Decision(action=Done(success=True)))
    return evolve(
        scenario,
        script=script,
        max_steps=steps + 1,
        timeout_seconds=3600,
        success_criteria=(),
        settle_seconds=0,
    )


def main() -> None:
    settings = Decision(action=Tap(target=Target(id="settings")), reasoning="open settings")
    toggle = Decision(action=Tap(target=Target(id="notifications_switch")), reasoning="toggle")
    email = Decision(action=Tap(target=Target(id="email")), reasoning="focus the field")
    letter = Decision(action=TypeText(text="a"), reasoning="one more")
    measure("revisiting", long_scenario("change_setting", settings, toggle, STEPS))
    measure("typing", long_scenario("login", email, letter, STEPS))
    for path in sorted((ROOT / "recordings").glob("*.cassette")):
        golden = read_run(path)
        size = len(render_html(golden).encode()) / 1024
        print(f"  {path.stem}: {size:.0f} KB, {size / max(1, len(golden.steps)):.0f} KB a step")


def measure(kind: str, scenario: Scenario) -> None:
    with tempfile.TemporaryDirectory() as temp:
        cassette = Path(temp) / "long.cassette"
        started = time.perf_counter()
        result = asyncio.run(session.record(scenario, cassette))
        recorded = time.perf_counter() - started
        run = read_run(cassette)
        html = render_html(run).encode()
        steps = len(run.steps)
        print(f"{kind}: {steps}-step run ({result.report.status}) recorded in {recorded:.1f} s")
        print(f"  report: {len(html) / 1024:.0f} KB, {len(html) / 1024 / steps:.1f} KB a step")
        if CHROMIUM is None:
            print("  chromium is not installed: no load time")
            return
        page = write_html(run, Path(temp) / "long.html")
        times = []
        for _ in range(3):
            started = time.perf_counter()
            dump_dom(page, Path(temp), timeout=120)
            times.append(time.perf_counter() - started)
        print(f"  chromium --dump-dom of the report: {min(times):.2f} s (best of 3)")


if __name__ == "__main__":
    main()
