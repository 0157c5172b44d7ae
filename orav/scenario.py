"""Loading scenarios: YAML through the codec, plus the checks the types cannot express."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from orav.codec import load_yaml
from orav.errors import InputError
from orav.model import Done, Scenario


def load_scenario(path: Path) -> Scenario:
    """Load and check one scenario file; errors name file:line:col or step N."""
    scenario = load_yaml(path, Scenario)
    if scenario.max_steps < 1:
        raise InputError("max_steps must be at least 1", str(path))
    if scenario.timeout_seconds <= 0:
        raise InputError("timeout_seconds must be positive", str(path))
    for index, decision in enumerate(scenario.script, start=1):
        if isinstance(decision.action, Done) and index != len(scenario.script):
            raise InputError(
                f"script step {index} is `done` but {len(scenario.script) - index} more follow",
                str(path),
            )
    return scenario


def example_scenarios() -> list[Path]:
    """The example scenarios for the demo app, shipped inside the package."""
    folder = resources.files("orav") / "scenarios"
    return sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith(".yaml"))
