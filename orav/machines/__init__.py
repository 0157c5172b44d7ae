"""The StateCharts of orav (run lifecycle, recovery) and their mermaid diagrams."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from statemachine import State, StateChart


def machine_classes() -> list[type[StateChart]]:
    """Every StateChart class defined in a module of this package, in module then line order."""
    found: list[type[StateChart]] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        classes = [
            cls
            for cls in vars(module).values()
            if inspect.isclass(cls)
            and issubclass(cls, StateChart)
            and cls.__module__ == module.__name__
        ]
        found.extend(sorted(classes, key=lambda cls: inspect.getsourcelines(cls)[1]))
    return found


def leaf_states(cls: type[StateChart]) -> list[State]:
    """The states a run can be in, innermost: a compound state stands for its children."""
    return [state for state in cls.states_map.values() if not state.states]


def flat_transitions(cls: type[StateChart]) -> list[tuple[str, list[str], str]]:
    """Every transition as (source, event names, target) between leaf states, the way runs
    record them: one of a compound state (``time_up`` on ``running``) is one per child it
    can cut short, and one into a compound state goes to its initial child."""
    found = []
    for state in cls.states_map.values():
        sources = [s.id for s in _leaves(state)]
        for transition in state.transitions:
            names = [str(e) for e in transition.events]
            if not names:
                continue  # a compound state's way into its initial child
            target = transition.target
            while target.states:
                target = next(s for s in target.states if s.initial)
            found += [(source, names, target.id) for source in sources]
    return found


def _leaves(state: State) -> list[State]:
    if not state.states:
        return [state]
    return [leaf for child in state.states for leaf in _leaves(child)]


def diagrams() -> str:
    """Markdown with one mermaid block per machine: the content of docs/machines.md."""
    from statemachine.contrib.diagram import formatter

    parts = [
        "# State machines",
        "",
        "Generated from the code by `orav.machines.diagrams()` (`orav diagrams`); do not edit.",
    ]
    for cls in machine_classes():
        doc = inspect.getdoc(cls) or ""
        summary = doc.splitlines()[0] if doc else ""
        parts += [
            "",
            f"## {cls.__name__} (`{cls.__module__}`)",
            "",
            *([summary, ""] if summary else []),
            "```mermaid",
            formatter.render(cls, "mermaid").rstrip(),
            "```",
        ]
    return "\n".join(parts) + "\n"
