"""Regression check in a run: the seed's fourth decision heuristic, "revisit previously working
flows to detect regressions", as a behaviour (docs/goldens.md).

Once a run has reached its goal, or an exploration has ended, each previously passing flow
(a golden cassette of the same app, named by file or folder) is rerun live on the same device
(``orav.golden.rerun``), and what no longer works is reported: the flow, the step, what was
expected and what is there, both screenshots, and what was healed on the way::

    flows = find_flows(["recordings"])            # bad input is said before anything runs
    check = await check_regressions(flows, app=scenario.app, device="sim", skip=[out])
    check.regressed                              # the flows that no longer work
    print(check.explain())
    write_revisits(check, out)                   # orav.report.revisits: out.regressions.json, for reports
    add_to_junit(check, Path("junit.xml"))       # one testcase per flow revisited

Bounded: ``max_steps`` steps and ``timeout`` seconds in all; each flow runs with its own limits
capped by what is left, and a flow the budget did not let finish is ``unchecked`` (said, never
silently dropped, never called a regression). It never acts against the test: it starts after
the run's verdict and never changes it; each flow runs in a device session of its own; no agent
improvises: only the recorded decisions of a flow that passed are played, and a flow stops at
its first regression.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from attrs import evolve

from orav.errors import InputError, OravError
from orav.report.revisits import RegressionCheck, Revisit, add_to_junit, write_revisits

if TYPE_CHECKING:
    from orav.cassette import Cassette

MAX_STEPS = 200  # steps of all the flows revisited together
TIMEOUT = 600.0  # seconds of all the flows revisited together


def find_flows(paths: Iterable[str | Path]) -> list[Path]:
    """The cassettes ``paths`` name (files, folders of ``*.cassette``, globs); one that names
    nothing is an InputError, said before any run starts."""
    from orav.suite import expand

    found = expand(paths, suffixes=(".cassette",))
    missing = next((path for path in found if not path.is_file()), None)
    if missing is not None:
        raise InputError("no such cassette or folder of cassettes", str(missing))
    return found


async def check_regressions(
    flows: Sequence[Path],
    *,
    app: str | None,
    device: str | None = None,
    skip: Iterable[Path] = (),
    scenarios: Sequence[Path] = (),
    max_steps: int = MAX_STEPS,
    timeout: float = TIMEOUT,
    seed: int = 0,
) -> RegressionCheck:
    """Rerun live each of ``flows`` that is a golden of ``app`` (None: any app) and not one of
    ``skip`` (the cassettes the run itself just wrote), on ``device`` (by default the one its
    scenario runs on, as ``orav.specs.device_for``), within ``max_steps`` steps and
    ``timeout`` seconds in all. A flow's scenario file (needed when it types a secret) is
    looked up by name under ``scenarios`` and beside the cassette."""
    from orav.cassette import read_cassette

    skipped = {Path(p).resolve() for p in skip}
    revisits: list[Revisit] = []
    not_goldens: list[Path] = []
    steps_left, deadline = max_steps, time.monotonic() + timeout
    for cassette in flows:
        if cassette.resolve() in skipped:
            continue
        try:
            recorded = read_cassette(cassette)
            report = recorded.report()
        except (InputError, OSError) as exc:
            revisits.append(Revisit(cassette, "?", "unchecked", f"unreadable: {exc}"))
            continue
        scenario = recorded.header.scenario
        if app is not None and scenario.app != app:
            continue  # another app's flow: not this run's to revisit
        if report is None or not report.goal_met:
            not_goldens.append(cassette)
            continue
        seconds_left = deadline - time.monotonic()
        if steps_left < 1 or seconds_left < 1:
            spent = "steps" if steps_left < 1 else "time"
            revisits.append(
                Revisit(cassette, scenario.name, "unchecked", f"the check's {spent} ran out")
            )
            continue
        revisit = await _revisit(
            cassette,
            recorded,
            device,
            [cassette.parent, *scenarios],
            steps_left,
            seconds_left,
            seed,
        )
        steps_left -= revisit.steps
        revisits.append(revisit)
    return RegressionCheck(tuple(revisits), tuple(not_goldens))


async def _revisit(
    cassette: Path,
    recorded: Cassette,
    device: str | None,
    folders: list[Path],
    steps_left: int,
    seconds_left: float,
    seed: int,
) -> Revisit:
    """One flow rerun live, its limits capped by the check's budget; ending on a limit the
    budget set (not the flow's own) is ``unchecked``, not a regression."""
    from orav.golden import rerun, scenario_of

    started = time.monotonic()
    name = recorded.header.scenario.name
    try:
        homes = [f for f in folders if f.is_dir()]
        scenario = scenario_of(cassette, recorded.header.scenario, homes)
        capped = evolve(
            scenario,
            max_steps=min(scenario.max_steps, steps_left),
            timeout_seconds=min(scenario.timeout_seconds, seconds_left),
        )
        result = await rerun(cassette, device=device, scenario=capped, seed=seed, recorded=recorded)
    except OravError as exc:  # a secret without its scenario file, a device that did not open
        return Revisit(cassette, name, "unchecked", str(exc))
    seconds = time.monotonic() - started
    report = result.report
    budget = (report.status == "step_limit" and capped.max_steps < scenario.max_steps) or (
        report.status == "timed_out" and capped.timeout_seconds < scenario.timeout_seconds
    )
    if budget and all(r.kind == "goal" for r in result.regressions):
        spent = "steps" if report.status == "step_limit" else "time"
        why = f"the check's {spent} ran out at step {report.total_steps}"
        return Revisit(
            cassette, scenario.name, "unchecked", why, report.total_steps, seconds, result.heals
        )
    return Revisit(
        cassette,
        scenario.name,
        result.status,
        "",
        report.total_steps,
        seconds,
        result.heals,
        result.regressions,
    )


def revisit_after(
    flows: Sequence[Path],
    runs: Sequence[tuple[Path, str, bool]],
    *,
    device: str | None,
    seed: int = 0,
    scenarios: Sequence[Path] = (),
    junit: Path | None = None,
    say: Callable[[str], object] = print,
) -> bool:
    """What ``orav record`` and ``orav explore`` do with ``--regression-check`` once their
    ``runs`` (each cassette, its app, and whether it reached its goal) are done: for each app
    with a run that reached its goal, revisit its ``flows`` (not the runs' own cassettes) on
    ``device``; say each verdict, write the check beside each such run's cassette, add it to
    ``junit``. False when a flow regressed."""
    import asyncio

    wrote = [cassette for cassette, _, _ in runs]
    ok = True
    for app in dict.fromkeys(app for _, app, reached in runs if reached):
        check = asyncio.run(
            check_regressions(
                flows, app=app, device=device, skip=wrote, scenarios=scenarios, seed=seed
            )
        )
        say(check.explain())
        for cassette, of, reached in runs:
            if of == app and reached:
                say(f"regressions: {_beside(check, cassette)}")
        if junit is not None:
            add_to_junit(check, junit, app=app)
        ok = ok and check.ok
    return ok


def _beside(check: RegressionCheck, cassette: Path) -> Path:
    """Write ``check`` beside the run's cassette, and the run's HTML report again, which
    was written before the check and shows it."""
    from orav.report.html import write_html
    from orav.report.timeline import read_run

    run = read_run(cassette)
    written = write_revisits(check, cassette, run.header.run_id)
    write_html(run)
    return written
