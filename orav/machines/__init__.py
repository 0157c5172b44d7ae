"""The StateCharts of orav (run lifecycle, recovery) and their mermaid diagrams."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from statemachine import StateChart


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
