"""What a run's recovery machine went through, and the runs that put it to work: a walk
recorded on the simulator, the real-time stalls scaled down."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from attrs import evolve

import orav.drivers.idb
import orav.sim.server
import orav.specs
from orav.model import Assert, Decision, Done, RunReport, Scenario, Target
from orav.session import record
from orav.testing import VirtualClock


def recoveries(report: RunReport) -> list[list[tuple[str, str, str]]]:
    """The recovery machine's transitions of a run, one list per recovery."""
    found: list[list[tuple[str, str, str]]] = []
    for t in report.transitions:
        if t.machine != "recovery":
            continue
        if t.source == "detected":
            found.append([])
        found[-1].append((t.source, t.event, t.target))
    return found


# Slow RPC faults stall the simulator in real time, against the driver's real timeouts. Scaled
# runs keep every ratio of the ladder (an 8 s stall against the 5 s describe-all rung and the
# 30 s restart rung) at TIME_SCALE of the wall time: the relations under test, not the waiting.
TIME_SCALE = 0.1


def scaled_time(monkeypatch: pytest.MonkeyPatch) -> None:
    stall = orav.sim.server._stall

    async def scaled_stall(seconds: float) -> None:
        await stall(seconds * TIME_SCALE)

    monkeypatch.setattr(orav.sim.server, "_stall", scaled_stall)
    monkeypatch.setattr(orav.drivers.idb, "LAUNCH_TIMEOUT", 30.0 * TIME_SCALE)
    defaults = orav.specs.open_device.__wrapped__.__kwdefaults__
    monkeypatch.setitem(defaults, "timeout", 5.0 * TIME_SCALE)


async def walked(base: Scenario, walk: list, root: str, device: str) -> RunReport:
    """``base`` with its script replaced by the moves of ``walk`` then ``done``, recorded live on
    ``device`` on virtual time; passed when the app is back where ``#root`` shows."""
    script = (*(step for move in walk for step in move), Decision(Done(summary="walked")))
    scenario = evolve(
        base,
        name=f"{base.name}_walk",
        max_steps=len(script) + 1,
        script=script,
        success_criteria=(Assert(Target(id=root)),),
    )
    with tempfile.TemporaryDirectory() as folder:
        recorded = await record(
            scenario, Path(folder) / "walk.cassette", device=device, clock=VirtualClock()
        )
    return recorded.report
