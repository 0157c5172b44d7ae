"""Loading scenarios: YAML through the codec, plus the checks the types cannot express."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from orav.codec import load_yaml, locate
from orav.errors import InputError
from orav.model import Done, Scenario


def load_scenario(path: Path) -> Scenario:
    """Load and check one scenario file; every error names file:line:col.

    Impossible values (``max_steps: 0``, a negative wait, a NaN tap) are refused by the model's
    validators, which the codec locates; what spans fields is checked here.
    """
    scenario = load_yaml(path, Scenario)
    for index, decision in enumerate(scenario.script):
        if isinstance(decision.action, Done) and index != len(scenario.script) - 1:
            follow = len(scenario.script) - index - 1
            text = path.read_text(encoding="utf-8")
            where = locate(text, ("script", index, "action", "kind"), str(path))
            what = f"`done` must be the last step, but {follow} more follow"
            raise InputError(f"script[{index}].action.kind: {what}", where)
    return scenario


def example_scenarios() -> list[Path]:
    """The example scenarios for the demo app, shipped inside the package."""
    folder = resources.files("orav") / "scenarios"
    return sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith(".yaml"))


def shop_scenarios() -> list[Path]:
    """The example scenarios for the shopping app (orav/sim/shop.yaml)."""
    folder = resources.files("orav") / "scenarios" / "shop"
    return sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith(".yaml"))
