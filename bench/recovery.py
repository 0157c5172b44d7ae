"""Issue 9's recovery figures: false recoveries where nothing was injected, and the fault matrix.

False recoveries: every example scenario (``orav/scenarios/**``, the fault scenarios left out)
runs live with the scripted agent, and the explorer walks every example app (each app model
under ``orav/`` and each Textual app an example names) for EXPLORE_STEPS steps. No fault is
injected, so every recovery started is a false one (target 0), except a tap that rightly changed
nothing, retried and handed back to the agent (issue 9's "no effect", counted apart). A retry
that then *did* change the screen hit something else, and counts as false. The faults an app
model has of its own (Clock's media-library permission, Monzo's notifications, feed and
statements: ``faults:`` in the model) are real, as is the keyboard over the next target: their
recoveries are counted apart too ("real").

Fault matrix: every case of ``tests/test_recovery_matrix.py`` (each fault type of the recovery
reference, injected by the simulator) and the RPC-fault look-alikes of
``orav/scenarios/lookalikes`` (list_apps_error, slow_describe, slow_launch), judged by their own
tests: recovered or reported as the reference says, within budget, replayed faithfully, and
within HANG_SECONDS (target 100 %).

Waits of a remedy are virtual; settle waits (up to ``SettleClock.REAL_UP_TO``) are real: a
Textual app's own timers run in real time. Run: ``python bench/recovery.py [--no-explore]``.
"""

from __future__ import annotations

import asyncio
import inspect
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import pytest
from test_lookalikes import SettleClock

from orav.model import Credentials, RunReport, Scenario
from orav.scenario_loader import load_scenario
from orav.session import record

SCENARIOS = ROOT / "orav" / "scenarios"
DEMO_APP = ROOT / "orav" / "sim" / "demo.yaml"
EXPLORE_STEPS = 100
HANG_SECONDS = 120.0
RPC_LOOKALIKES = ("bank_list_apps_error", "bank_slow_describe", "bank_slow_launch")


def app_models() -> dict[str, Path]:
    """Bundle id → app model file, for every app model shipped under orav/."""
    found = {}
    for path in sorted((ROOT / "orav").rglob("*.yaml")):
        if SCENARIOS in path.parents:
            continue
        for line in path.read_text().splitlines():
            if line.startswith("bundle_id:"):
                found[line.split(":", 1)[1].strip()] = path
                break
    return found


def device_of(app: str, models: dict[str, Path]) -> str | None:
    if ":" in app:
        return f"textual:{app}"
    model = models.get(app)
    if model is None:
        return None
    return "sim" if model == DEMO_APP else f"sim:{model.relative_to(ROOT)}"


def examples() -> list[Path]:
    """Every example scenario that injects no fault."""
    return [
        p
        for p in sorted(SCENARIOS.rglob("*.yaml"))
        if "faults" not in p.relative_to(SCENARIOS).parts and not load_scenario(p).faults
    ]


def recoveries(report: RunReport) -> list[list[tuple[str, str, str]]]:
    found: list[list[tuple[str, str, str]]] = []
    for t in report.transitions:
        if t.machine == "recovery":
            if t.source == "detected":
                found.append([])
            found[-1].append((t.source, t.event, t.target))
    return found


def handed_back(path: list[tuple[str, str, str]]) -> bool:
    """A no-op tap retried and handed back: the policy's "no effect", not a false recovery."""
    return path[0][1] == "no_effect" and path[-1][2] == "handed_back"


def real_faults(app: str, models: dict[str, Path]) -> frozenset[str]:
    """The fault types ``app``'s model injects itself, and the keyboard over a target: what a
    run meets for real, not a look-alike."""
    if app not in models:
        return frozenset({"keyboard"})
    from orav.sim import load_app_model

    return frozenset({"keyboard", *(f.type for f in load_app_model(models[app]).faults)})


class Row:
    def __init__(self, name: str, device: str, real: frozenset[str] = frozenset()) -> None:
        self.name, self.device, self.real = name, device, real
        self.status, self.steps, self.false, self.no_effect, self.restarts = "-", 0, 0, 0, 0
        self.met = 0  # recoveries of real faults
        self.kinds: Counter[str] = Counter()
        self.seconds = 0.0

    def take(self, report: RunReport) -> None:
        paths = recoveries(report)
        self.status, self.steps = report.status, report.total_steps
        self.no_effect = sum(map(handed_back, paths))
        false = [p for p in paths if not handed_back(p) and p[0][1] not in self.real]
        self.met = sum(not handed_back(p) and p[0][1] in self.real for p in paths)
        self.false = len(false)
        self.kinds = Counter(p[0][1] for p in false)
        self.restarts = sum(any(t in ("relaunching", "restarting") for *_, t in p) for p in paths)


async def run(row: Row, scenario: Scenario, agent=None) -> None:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        try:
            recorded = await asyncio.wait_for(
                record(
                    scenario,
                    Path(folder) / "run.cassette",
                    device=row.device,
                    agent=agent,
                    clock=SettleClock(),
                ),
                HANG_SECONDS,
            )
            row.take(recorded.report)
        except TimeoutError:
            row.status = f"hang (> {HANG_SECONDS:g} s)"
        except Exception as exc:  # noqa: BLE001 - a bench row, not a crash of the bench
            row.status = f"error: {type(exc).__name__}: {str(exc)[:60]}"
    row.seconds = time.perf_counter() - started


def credentials_of(app: str, scenarios: list[Scenario], models: dict[str, Path]):
    for scenario in scenarios:
        if scenario.app == app and scenario.credentials is not None:
            return scenario.credentials
    if app in models:
        from orav.sim import load_app_model

        return load_app_model(models[app]).credentials
    module = __import__(app.split(":")[0].split("?")[0], fromlist=["_"])
    if hasattr(module, "EMAIL") and hasattr(module, "PASSWORD"):
        return Credentials(module.EMAIL, module.PASSWORD)
    return None


async def false_recoveries(explore: bool) -> list[Row]:
    from orav.agents.explorer import ExplorerAgent

    models = app_models()
    rows, loaded = [], []
    for path in examples():
        scenario = load_scenario(path)
        loaded.append(scenario)
        device = device_of(scenario.app, models) or "?"
        row = Row(str(path.relative_to(SCENARIOS)), device, real_faults(scenario.app, models))
        rows.append(row)
        if row.device == "?":
            row.status = "no device for this app"
            continue
        await run(row, scenario)
    if explore:
        apps = list(models) + sorted({s.app for s in loaded if ":" in s.app})
        for app in apps:
            device = device_of(app, models)
            scenario = Scenario(
                name="explore",
                app=app,
                goal="explore",
                max_steps=EXPLORE_STEPS,
                timeout_seconds=600,
                # real settle waits: long enough for a Textual button's 0.2 s flash
                settle_seconds=0.25 if ":" in app else 0.05,
                credentials=credentials_of(app, loaded, models),
            )
            row = Row(f"explore {app}", device, real_faults(app, models))
            rows.append(row)
            await run(row, scenario, agent=ExplorerAgent())
    return rows


async def fault_matrix() -> list[tuple[str, str]]:
    """(case, "ok" or why not) for every matrix case and RPC-fault look-alike."""
    import test_lookalikes
    import test_recovery_matrix

    matrix = test_recovery_matrix.test_fault_is_recovered_or_reported
    lookalike = test_lookalikes.test_a_lookalike_passes_live_with_no_recovery
    jobs = []
    for case in test_recovery_matrix.CASES:
        jobs.append((case.id, matrix, {"case": case}))
    for name in RPC_LOOKALIKES:
        path = test_lookalikes.LOOKALIKES / f"{name}.yaml"
        if path.exists():
            jobs.append((name, lookalike, {"path": path}))
    results = []
    for name, test, arguments in jobs:
        with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
            if "monkeypatch" in inspect.signature(test).parameters:
                arguments = {**arguments, "monkeypatch": patch}
            try:
                await asyncio.wait_for(test(tmp_path=Path(folder), **arguments), HANG_SECONDS)
                results.append((name, "ok"))
            except TimeoutError:
                results.append((name, f"hang (> {HANG_SECONDS:g} s)"))
            except AssertionError as exc:
                first = (str(exc).splitlines() or [""])[0]
                results.append((name, f"not as the reference says: {first[:90]}"))
            except Exception as exc:  # noqa: BLE001 - a bench row, not a crash of the bench
                where = traceback.extract_tb(exc.__traceback__)[-1]
                results.append((name, f"{type(exc).__name__}: {str(exc)[:70]} ({where.name})"))
    return results


def print_false(rows: list[Row]) -> None:
    print(
        f"{'run':<44} {'status':<22} {'steps':>5} {'false':>5} {'no-op':>5} {'real':>5} "
        f"{'restarts':>8}  kinds"
    )
    for r in rows:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(r.kinds.items()))
        print(
            f"{r.name:<44} {r.status[:22]:<22} {r.steps:>5} {r.false:>5} {r.no_effect:>5} "
            f"{r.met:>5} {r.restarts:>8}  {kinds}"
        )
    runs = [r for r in rows if r.device != "?"]
    with_false = sum(r.false > 0 for r in runs)
    print(
        f"False recoveries: {sum(r.false for r in runs)} on {with_false} of {len(runs)} runs "
        f"with no injected fault (target 0); no-effect retries handed back: "
        f"{sum(r.no_effect for r in runs)}; real faults recovered: {sum(r.met for r in runs)}; "
        f"app restarts: {sum(r.restarts for r in runs)}; "
        f"{sum(r.seconds for r in runs):.0f} s"
    )


def print_matrix(results: list[tuple[str, str]]) -> None:
    for name, verdict in results:
        print(f"  {name:<32} {verdict}")
    ok = sum(verdict == "ok" for _, verdict in results)
    hangs = sum(verdict.startswith("hang") for _, verdict in results)
    print(
        f"Fault matrix: {ok}/{len(results)} recovered or reported as the reference says "
        f"({100 * ok / len(results):.0f} %, target 100 %); {hangs} hung"
    )


async def main(explore: bool) -> None:
    print_false(await false_recoveries(explore))
    print()
    print_matrix(await fault_matrix())


if __name__ == "__main__":
    asyncio.run(main(explore="--no-explore" not in sys.argv[1:]))
