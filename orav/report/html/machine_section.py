"""The report's "State machines" section: each machine drawn from its class
(``orav.report.diagram``) above the table of all its transitions, those the run took marked
with how often and at which steps they fired (``diagram.fired_transitions``: the one count)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from functools import cache
from itertools import groupby

from statemachine import StateChart

from orav.machines import machine_classes
from orav.model import Transition
from orav.report.diagram import Fired, draw_machine, fired_transitions
from orav.report.html.elements import el


def machines_section(taken: Sequence[Transition]) -> ET.Element:
    """Every machine, those the run used first, with the run's ``taken`` transitions."""
    return el(
        "section",
        {"id": "machines"},
        el("h2", None, "State machines"),
        el(
            "p",
            {"class": "goal"},
            "Each machine drawn from its class, the transitions this run took in bold blue "
            "with how often; below each, the table of every transition with the steps it "
            "fired at.",
        ),
        [_machine(cls, taken) for cls in _in_order_of_use(taken)],
    )


def _in_order_of_use(taken: Sequence[Transition]) -> list[type[StateChart]]:
    """The machine classes, those the run used first (in the order it did), then the rest."""
    first = {t.machine: i for i, t in reversed(list(enumerate(taken)))}
    return sorted(_classes(), key=lambda cls: first.get(_machine_name(cls), len(taken)))


@cache
def _classes() -> tuple[type[StateChart], ...]:
    """The machine classes, found once a process (``machine_classes`` reads their source)."""
    return tuple(machine_classes())


def _machine_name(cls: type[StateChart]) -> str:
    """The name transitions are recorded under: ``run`` for RunMachine."""
    return cls.__name__.removesuffix("Machine").lower()


def _machine(cls: type[StateChart], taken: Sequence[Transition]) -> ET.Element:
    name = _machine_name(cls)
    transitions = fired_transitions(cls, name, taken)
    rows_fired = [_row(name, t) for t in transitions if t.count]
    rows_idle = [_row(name, t) for t in transitions if not t.count]
    drawing = draw_machine(cls, name, taken)
    head = el("tr", None, [el("th", None, h) for h in ("from", "event", "to", "fired", "steps")])
    return el(
        "div",
        {"class": "machine", "id": f"machine-{name}", "data-machine": name},
        el("h3", None, f"{cls.__name__} ", el("span", {"class": "chip"}, name)),
        el("figure", None, drawing.svg, el("figcaption", None, drawing.caption)),
        el("table", {"class": "fired"}, head, rows_fired)
        if rows_fired
        else el("p", None, "Not run."),
        el(
            "details",
            None,
            el("summary", None, f"{len(rows_idle)} transitions not taken"),
            el("table", {"class": "idle"}, head, rows_idle),
        ),
    )


def _row(machine: str, t: Fired) -> ET.Element:
    attrs = {
        "class": "transition" + (" fired" if t.count else "") + ("" if t.known else " unknown"),
        "data-machine": machine,
        "data-source": t.source,
        "data-event": t.event,
        "data-target": t.target,
        "data-count": str(t.count),
    }
    note = "" if t.known else " (not in this machine any more)"
    return el(
        "tr",
        attrs,
        el("td", None, t.source),
        el("td", None, el("code", None, t.event)),
        el("td", None, t.target + note),
        el("td", {"class": "count"}, f"×{t.count}" if t.count else ""),
        el("td", None, _step_ranges(t.steps)),
    )


def _step_ranges(steps: Sequence[int]) -> str:
    """``1–6, 9``: the steps a transition fired at (the step under way, as in the report)."""
    parts = []
    for _, run in groupby(enumerate(sorted(set(steps))), key=lambda pair: pair[1] - pair[0]):
        first, *rest = [n for _, n in run]
        parts.append(f"{first}–{rest[-1]}" if rest else f"{first}")
    return ", ".join(parts)
