"""Cassettes for the report tests: the golden ones, and two recorded once with injected faults."""

import asyncio
from pathlib import Path

import pytest
from attrs import evolve

from orav.model import Fault
from orav.scenario_loader import load_scenario
from orav.session import record

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "recordings"
SCENARIOS = ROOT / "orav" / "scenarios"
PASSWORD = "Orav-Demo-1!"  # typed by the demo scenarios: it must never reach a report

# name: (scenario, fault)
RUNS = {
    # An alert after the second input, dismissed: completed_with_errors, one recovery.
    "recovered": ("login", Fault("alert", at_step=2)),
    # A login wall at the first step after signing in, and no credentials in the scenario:
    # the recovery fails and the run aborts.
    "failed": ("open_detail", Fault("login", at_step=6)),
}
_recorded: dict[str, Path] = {}


def recorded(name: str, factory: pytest.TempPathFactory) -> Path:
    """The cassette of run ``name``, recorded against the embedded simulator on first use."""
    if name not in _recorded:
        scenario_name, fault = RUNS[name]
        scenario = load_scenario(SCENARIOS / f"{scenario_name}.yaml")
        scenario = evolve(scenario, name=name, faults=(fault,), settle_seconds=0.05)
        out = factory.mktemp("runs") / f"{name}.cassette"
        asyncio.run(record(scenario, out))
        _recorded[name] = out
    return _recorded[name]
