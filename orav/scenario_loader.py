"""Loading scenarios: YAML through the codec, plus the checks the types cannot express."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from attrs import evolve

from orav.codec import converter, locate, read_text, read_yaml, show
from orav.codec.converter import raise_structure_error
from orav.errors import InputError
from orav.model import Assert, Done, Scenario
from orav.model.scenario import NamedState

# The seed's goal YAML names states in preconditions and success criteria: ``{logged_in: false}``.
# Each such item is held by a placeholder while the rest is structured, then replaced.
_HOLD_ACTION = {"kind": "wait", "seconds": 0}
_HOLD_ASSERT = {"target": {"id": "orav-named-state"}}
LAUNCHED = "app_launched"  # the one state every run knows: it launches the app


# ``${NAME}`` reads the environment variable NAME; ``$${`` is a literal ``${``.
_VARIABLE = re.compile(r"\$(\$)?\{([^}]*)\}")
_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def load_scenario(path: str | Path, environ: Mapping[str, str] | None = None) -> Scenario:
    """Load and check one scenario file; every error names file:line:col.

    ``${NAME}`` in any string is replaced by the environment variable NAME (``environ``, else
    ``os.environ``): secrets stay out of the file and, listed in ``variables``, out of every
    cassette and report. An unset variable is an error at its place in the file.

    Impossible values (``max_steps: 0``, a negative wait, a NaN tap) are refused by the model's
    validators, which the codec locates; what spans fields is checked here. A criterion or
    precondition may be a sentence (a claim a judge decides, ``orav.judges``). Named states
    (``preconditions: [{logged_in: false}]``, the seed's goal YAML) resolve through the
    scenario's ``states``, else are claims in words. Without ``app:`` the run takes the
    device's only app (``orav.specs.resolve_app``).
    """
    path = Path(path)
    source = str(path)
    text = read_text(path, source)
    data = read_yaml(text, source)
    if data is None:
        raise InputError("empty document; expected a Scenario mapping", f"{source}:1:1")
    if not isinstance(data, dict):
        what = f"expected a Scenario mapping, got {show(data)}"
        raise InputError(what, locate(text, (), source))
    used = _interpolate(data, (), os.environ if environ is None else environ, text, source)
    if used:
        data["variables"] = sorted(used)
    named = _hold_named_states(data)
    _claims_in_words(data)
    if data.get("app") == "":  # left out, it is the device's only app; written, it is a mistake
        what = "app: must not be empty (leave `app:` out to run the device's only app)"
        raise InputError(what, locate(text, ("app",), source))
    data.setdefault("app", "")
    if named and isinstance(data.get("name"), str):
        data["name"] = re.sub(r"[^A-Za-z0-9._-]+", "_", data["name"]).strip("_") or "scenario"
    try:
        scenario = converter.structure(data, Scenario)
    except Exception as exc:
        raise_structure_error(exc, data, source, lambda where: locate(text, where, source))
        raise  # unreachable
    if named:
        scenario = _resolve_named_states(scenario, named, text, source)
    if scenario.install is not None:
        scenario = evolve(scenario, install=str((path.parent / scenario.install).resolve()))
    scenario = evolve(
        scenario,
        device=_beside(path, scenario.device, "sim:"),
        judge=_beside(path, scenario.judge, "table:"),
    )
    for index, decision in enumerate(scenario.script):
        if isinstance(decision.action, Done) and index != len(scenario.script) - 1:
            follow = len(scenario.script) - index - 1
            text = path.read_text(encoding="utf-8")
            where = locate(text, ("script", index, "action", "kind"), str(path))
            what = f"`done` must be the last step, but {follow} more follow"
            raise InputError(f"script[{index}].action.kind: {what}", where)
    return scenario


def _beside(path: Path, spec: str | None, prefix: str) -> str | None:
    """A spec whose rest is a file (``sim:APP.yaml``, ``table:FILE``), that file relative to
    the scenario's folder (said from the working folder when it is under it): a scenario
    names its files as it names ``install``, wherever orav runs it from."""
    if spec is None or not spec.startswith(prefix) or Path(spec[len(prefix) :]).is_absolute():
        return spec
    found = (path.parent / spec[len(prefix) :]).resolve()
    try:
        found = found.relative_to(Path.cwd().resolve())
    except ValueError:
        pass
    return prefix + str(found)


def _interpolate(
    data: Any, where: tuple, environ: Mapping[str, str], text: str, source: str
) -> set[str]:
    """Replace ``${NAME}`` in every string of ``data`` in place; the names used."""
    used: set[str] = set()
    if isinstance(data, dict):
        items = list(data.items())
    elif isinstance(data, list):
        items = list(enumerate(data))
    else:
        return used
    for key, value in items:
        if isinstance(value, (dict, list)):
            used |= _interpolate(value, (*where, key), environ, text, source)
        elif isinstance(value, str) and "${" in value:
            data[key] = _substitute(value, (*where, key), environ, used, text, source)
    return used


def _substitute(
    value: str, where: tuple, environ: Mapping[str, str], used: set[str], text: str, source: str
) -> str:
    def one(match: re.Match) -> str:
        escaped, name = match.groups()
        if escaped:
            return "${" + name + "}"
        field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in where).lstrip(".")
        if not _VARIABLE_NAME.fullmatch(name):
            what = f"${{{name}}} is no variable name (letters, digits and _)"
            raise InputError(f"{field}: {what}", locate(text, where, source))
        if name not in environ:
            what = f"${{{name}}}: the environment variable {name} is not set"
            raise InputError(f"{field}: {what}", locate(text, where, source))
        used.add(name)
        return environ[name]

    return _VARIABLE.sub(one, value)


def _hold_named_states(data: dict[str, Any]) -> list[tuple[str, int, str, bool]]:
    """Swap each ``{name: true|false}`` item of preconditions / success_criteria for a
    placeholder; the items as (list, index, name, value)."""
    found = []
    for key, hold in (("preconditions", _HOLD_ACTION), ("success_criteria", _HOLD_ASSERT)):
        items = data.get(key)
        if not isinstance(items, list):
            continue
        for index, item in enumerate(items):
            if (
                isinstance(item, Mapping)
                and len(item) == 1
                and all(isinstance(k, str) for k in item)
                and not {"kind", "target"} & set(item)
                and isinstance(next(iter(item.values())), bool)
            ):
                (name, value), *_ = item.items()
                found.append((key, index, str(name), value))
                items[index] = dict(hold)
    return found


def _claims_in_words(data: dict[str, Any]) -> None:
    """A sentence among the success criteria or preconditions is a claim a judge decides."""
    for key, claim in (("success_criteria", {}), ("preconditions", {"kind": "assert"})):
        items = data.get(key)
        if isinstance(items, list):
            for index, item in enumerate(items):
                if isinstance(item, str):
                    items[index] = {**claim, "claim": item}


def words(name: str) -> str:
    """A state's name as the words a judge is asked: ``home_screen_visible`` → "home screen
    visible"; ``false`` is asked as "not …"."""
    return " ".join(re.split(r"[_\W]+", name)).strip() or name


def _in_words(name: str, value: bool) -> Assert:
    """A named state no ``states:`` entry defines: a claim in words, named as the author did."""
    if value:
        return Assert(claim=words(name), name=name)
    return Assert(claim=f"not {words(name)}", name=f"not {name}")


def _resolve_named_states(
    scenario: Scenario, named: list[tuple[str, int, str, bool]], text: str, source: str
) -> Scenario:
    """Put each named state's actions, assertions and resets where its item stood."""
    preconditions: list[Any] = list(scenario.preconditions)
    criteria: list[Any] = list(scenario.success_criteria)
    reset = list(scenario.reset)
    for key, index, name, value in named:
        where = locate(text, (key, index, name, None), source)
        state = scenario.states.get(name)
        if key == "preconditions":
            preconditions[index], undo = _precondition(name, state, value, f"{key}[{index}]", where)
            reset += [step for step in undo if step not in reset]
        else:
            criteria[index] = _criterion(name, state, value, f"{key}[{index}]", where)
    return evolve(
        scenario,
        preconditions=tuple(_flatten(preconditions)),
        success_criteria=tuple(_flatten(criteria)),
        reset=tuple(reset),
    )


def _precondition(
    name: str, state: NamedState | None, value: bool, field: str, where: str
) -> tuple[Any, tuple[Any, ...]]:
    """What a named state as a precondition stands for (None: nothing to do before the run),
    and the steps that undo it: its ``setup`` when true, its ``reset`` when false."""
    if name == LAUNCHED:
        if not value:
            raise InputError(f"{field}: a run always launches the app", where)
        return None, ()  # every run launches the app
    if state is None:  # not defined by selectors: judged in words
        return _in_words(name, value), ()
    if value:
        if not state.setup:
            what = f"state {name!r} has no `setup`: say which actions make it true"
            raise InputError(f"{field}.{name}: {what}", where)
        return state.setup, ()
    if not state.reset:
        what = f"state {name!r} has no `reset`: say how a run starts without it"
        raise InputError(f"{field}.{name}: {what}", where)
    return None, tuple(state.reset)


def _criterion(name: str, state: NamedState | None, value: bool, field: str, where: str) -> Any:
    """The checks a named state as a success criterion stands for (negated when false)."""
    if state is None:  # not defined by selectors: judged in words
        return _in_words(name, value)
    if value:
        if not state.check:
            what = f"state {name!r} has no `check`: say which assertions show it"
            raise InputError(f"{field}.{name}: {what}", where)
        return tuple(evolve(c, name=name) for c in state.check)
    negated = _negated(state.check, f"{field}.{name}", where)
    return (evolve(negated, name=f"not {name}"),)


def _negated(check: tuple[Assert, ...], field: str, where: str) -> Assert:
    if len(check) != 1 or check[0].condition == "value_equals":
        what = "`false` negates a state with one visible / absent check only"
        raise InputError(f"{field}: {what}", where)
    return evolve(check[0], condition="absent" if check[0].condition == "visible" else "visible")


def _flatten(items: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if isinstance(item, tuple):
            out.extend(item)
        elif item is not None:
            out.append(item)
    return out


def example_scenarios() -> list[Path]:
    """The example scenarios for the demo app, shipped inside the package."""
    folder = resources.files("orav") / "scenarios"
    return sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith(".yaml"))


def shop_scenarios() -> list[Path]:
    """The example scenarios for the shopping app (orav/sim/shop.yaml)."""
    folder = resources.files("orav") / "scenarios" / "shop"
    return sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith(".yaml"))
