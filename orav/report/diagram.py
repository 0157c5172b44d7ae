"""A state machine drawn as inline SVG, the transitions a run took marked with their counts.

The report must open offline and graphviz is not at hand, so the layout is our own and simple:
states in layers by breadth-first distance from the initial state (ordered within a layer by
the mean position of their neighbours), an edge between adjacent layers as a straight arrow,
any other edge routed around the side in the gaps between layers, so no line crosses a state.
Layers run top to bottom, or left to right when a layer would be too wide for a page.

Two things keep a big machine readable, and the caption says which were done: a machine of
more than ``FULL_STATES`` states is drawn around what the run touched (the states it entered,
or the initial one, and every state one transition away from those), and an event that leads
to the same state from ``CATCH_ALL`` or more drawn states (``abort``, ``time_up``) is named in
the caption instead of drawn from each of them, unless the run took it.

``fired_transitions`` is the one count of what a run fired, which the drawing and the report's
transition table (``orav.report.html.machine_section``) both show. The module is long because
the layout is one algorithm (layers, order, coordinates, routes, labels); it is kept whole.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter, defaultdict, deque
from collections.abc import Sequence

from attrs import define, frozen
from statemachine import StateChart

from orav.machines import flat_transitions, leaf_states
from orav.model import Transition

FULL_STATES = 16
CATCH_ALL = 3

STATE_FONT = 7.3  # px per character of a state name (12 px monospace)
LABEL_FONT = 6.7  # px per character of an edge label (11 px monospace)
BOX_DEPTH = 30  # a state box's size along the layer axis
PAD = 11  # text to box edge
RANK_GAP = {"TB": 74, "LR": 150}  # between layers: room for the edge labels
ORDER_GAP = {"TB": 34, "LR": 16}  # between the states of one layer
LANE = 6  # between parallel detours
WIDEST_TB_LAYER = 4  # more states in a layer than this: draw left to right


@frozen
class Fired:
    """One transition of a machine and how often a run took it: ``steps`` are the steps it
    fired at (the step under way); ``known`` is false for one the machine class no longer
    has (recorded by an older machine)."""

    source: str
    event: str
    target: str
    count: int = 0
    steps: tuple[int, ...] = ()
    known: bool = True


def fired_transitions(cls: type[StateChart], name: str, taken: Sequence[Transition]) -> list[Fired]:
    """Every transition of machine class ``cls`` (recorded as ``name``) with how often the run
    (``taken``) fired it, in definition order, then those recorded that the class no longer
    has. The one count both the drawing and the report's transition table show.

    A transition with several events names the one the run took (else its last); fired
    ``(source, event, target)`` is counted once even when the class lists it twice."""
    steps: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for t in taken:
        if t.machine == name:
            steps[(t.source, t.event, t.target)].append(t.step)
    found = []
    for source, names, target in flat_transitions(cls):
        event = next((n for n in names if (source, n, target) in steps), None)
        if event is None:
            found.append(Fired(source, names[-1] if names else "(automatic)", target))
        else:
            at = steps.pop((source, event, target))
            found.append(Fired(source, event, target, len(at), tuple(at)))
    found += [Fired(*key, len(at), tuple(at), known=False) for key, at in steps.items()]
    return found


@frozen
class Drawing:
    """The ``<svg>`` of one machine and the caption that says what it leaves out."""

    svg: ET.Element
    caption: str


@define
class _Edge:
    source: str
    target: str
    events: list[tuple[str, int]]  # (event, times the run took it), in definition order

    @property
    def fired(self) -> bool:
        return any(count for _, count in self.events)

    @property
    def label(self) -> str:
        return ", ".join(f"{e} ×{n}" if n else e for e, n in self.events)


@define
class _Box:
    state: str
    rank: int
    breadth: float  # along the layer: the name's width (TB) or the box height (LR)
    depth: float  # across the layer
    order: float = 0.0  # centre along the layer
    top: float = 0.0  # start across the layer


def draw_machine(cls: type[StateChart], name: str, taken: Sequence[Transition]) -> Drawing:
    """Draw machine class ``cls`` (recorded as ``name``) with the run's ``taken`` transitions."""
    transitions = fired_transitions(cls, name, taken)
    visited = {s for t in transitions if t.count for s in (t.source, t.target)}
    states = [s.id for s in leaf_states(cls)]
    states += sorted(visited - set(states))  # recorded by an older machine
    initial = next((s.id for s in cls.states if s.initial), states[0])
    finals = {s.id for s in leaf_states(cls) if s.final}

    focused = len(states) > FULL_STATES
    core = (visited or {initial}) if focused else set(states)
    edges, summarised = _edges(transitions, core)
    shown = core | {s for edge in edges for s in (edge.source, edge.target)}
    nodes = [s for s in states if s in shown]
    last = _last_state(taken, name)

    svg = _Layout(nodes, initial, edges).draw(name, visited, finals, last)
    caption = _caption(len(states), len(nodes), visited, focused=focused)
    return Drawing(svg, caption + _not_drawn(summarised))


def _edges(
    transitions: Sequence[Fired], core: set[str]
) -> tuple[list[_Edge], dict[tuple[str, str], set[str]]]:
    """The edges drawn: every transition taken, and the idle ones from the ``core`` states;
    and the idle events from many drawn states into one (event and target → their sources),
    named in the caption, not drawn."""
    edges: dict[tuple[str, str], _Edge] = {}
    idle: list[tuple[str, str, str]] = []
    for t in transitions:
        if t.count:
            _edge(edges, t.source, t.target).events.append((t.event, t.count))
        elif t.source in core:
            idle.append((t.source, t.event, t.target))
    sources: dict[tuple[str, str], set[str]] = defaultdict(set)
    for source, event, target in idle:
        sources[(event, target)].add(source)
    summarised = {key: found for key, found in sources.items() if len(found) >= CATCH_ALL}
    for source, event, target in idle:
        if (event, target) not in summarised:
            _edge(edges, source, target).events.append((event, 0))
    return list(edges.values()), summarised


def _caption(states: int, nodes: int, visited: set[str], *, focused: bool) -> str:
    """Which states the drawing shows, and how it marks the transitions taken."""
    if not focused:
        caption = f"All {states} states."
    elif visited:
        plural = "s" if len(visited) != 1 else ""
        caption = (
            f"The {len(visited)} state{plural} this run entered and every state one transition "
            f"from them ({nodes} of {states}); every transition is in the table."
        )
    else:
        caption = (
            f"This run entered none of its states: the initial state and every state one "
            f"transition from it ({nodes} of {states}); every transition is in the table."
        )
    return caption + " Blue and bold: transitions this run took, with how often."


def _not_drawn(summarised: dict[tuple[str, str], set[str]]) -> str:
    """The caption's note of the idle events not drawn from each state, by target."""
    if not summarised:
        return ""
    notes = defaultdict(list)
    for event, target in sorted(summarised):
        notes[(target, len(summarised[(event, target)]))].append(event)
    return (
        " Not drawn from each state: "
        + "; ".join(
            f"{', '.join(events)} → {target} (from {count} states)"
            for (target, count), events in notes.items()
        )
        + "."
    )


def _edge(edges: dict[tuple[str, str], _Edge], source: str, target: str) -> _Edge:
    return edges.setdefault((source, target), _Edge(source, target, []))


def _last_state(taken: Sequence[Transition], name: str) -> str | None:
    mine = [t for t in taken if t.machine == name]
    return mine[-1].target if mine else None


class _Layout:
    """Layers, order within layers, coordinates and edge routes of one drawing."""

    def __init__(self, nodes: list[str], initial: str, edges: list[_Edge]) -> None:
        self.edges = edges
        ranks = _ranks(nodes, initial, edges)
        layers: dict[int, list[str]] = defaultdict(list)
        for node in nodes:
            layers[ranks[node]].append(node)
        self.layers = [layers[r] for r in sorted(layers)]
        _order(self.layers, edges)
        self.way = "TB" if max(len(layer) for layer in self.layers) <= WIDEST_TB_LAYER else "LR"
        self.boxes: dict[str, _Box] = {}
        self.place()

    def place(self) -> None:
        way = self.way
        for rank, layer in enumerate(self.layers):
            for state in layer:
                width = len(state) * STATE_FONT + 2 * PAD
                breadth, depth = (width, BOX_DEPTH) if way == "TB" else (BOX_DEPTH, width)
                self.boxes[state] = _Box(state, rank, breadth, depth)
        sizes = [
            sum(self.boxes[s].breadth for s in layer) + ORDER_GAP[way] * (len(layer) - 1)
            for layer in self.layers
        ]
        widest = max(sizes)
        top = 0.0
        self.extent: list[tuple[float, float]] = []  # each layer's start and end, across
        for layer, size in zip(self.layers, sizes, strict=True):
            depth = max(self.boxes[s].depth for s in layer)
            self.extent.append((top, top + depth))
            at = (widest - size) / 2
            for state in layer:
                box = self.boxes[state]
                box.order, box.top = at + box.breadth / 2, top + (depth - box.depth) / 2
                at += box.breadth + ORDER_GAP[way]
            top += depth + RANK_GAP[way]
        self.span = widest

    def draw(self, name: str, visited: set[str], finals: set[str], last: str | None) -> ET.Element:
        svg = ET.Element("svg", {"class": "machine-diagram", "role": "img"})
        ET.SubElement(svg, "title").text = f"the {name} machine"
        defs = ET.SubElement(svg, "defs")
        for kind, colour in (("idle", "#afb8c1"), ("fired", "#0969da")):
            marker = ET.SubElement(
                defs,
                "marker",
                {
                    "id": f"arrow-{name}-{kind}",
                    "viewBox": "0 0 10 10",
                    "refX": "9",
                    "refY": "5",
                    "markerWidth": "7" if kind == "idle" else "5",
                    "markerHeight": "7" if kind == "idle" else "5",
                    "orient": "auto-start-reverse",
                },
            )
            ET.SubElement(marker, "path", {"d": "M0,0 L10,5 L0,10 z", "fill": colour})
        bounds = _Bounds()
        edges_group = ET.SubElement(svg, "g", {"class": "edges"})
        for edge, points, label in self.routes():
            kind = "fired" if edge.fired else "idle"
            group = ET.SubElement(
                edges_group,
                "g",
                {
                    "class": "edge fired" if edge.fired else "edge",
                    "data-source": edge.source,
                    "data-target": edge.target,
                },
            )
            for x, y in points:
                bounds.add(x, y)
            ET.SubElement(
                group,
                "path",
                {
                    "d": _path(points, loop=edge.source == edge.target),
                    "marker-end": f"url(#arrow-{name}-{kind})",
                },
            )
            self.label(group, edge, label, bounds)
        for state, box in self.boxes.items():
            classes = ["state"]
            classes += ["visited"] if state in visited else []
            classes += ["final"] if state in finals else []
            classes += ["last"] if state == last else []
            group = ET.SubElement(svg, "g", {"class": " ".join(classes), "data-state": state})
            x, y, w, h = self.rect(box)
            bounds.add(x, y)
            bounds.add(x + w, y + h)
            ET.SubElement(group, "rect", _rect(x, y, w, h, 7, "outer"))
            if state in finals:
                ET.SubElement(group, "rect", _rect(x + 3, y + 3, w - 6, h - 6, 5, "inner"))
            text = ET.SubElement(
                group,
                "text",
                {"x": _n(x + w / 2), "y": _n(y + h / 2 + 4), "text-anchor": "middle"},
            )
            text.text = state
        first = self.boxes[self.layers[0][0]]
        fx, fy = self.xy(first.order, first.top)
        start = {"TB": (fx, fy - 14), "LR": (first.top - 14, first.order)}[self.way]
        ET.SubElement(
            svg, "circle", {"class": "start", "cx": _n(start[0]), "cy": _n(start[1]), "r": "4"}
        )
        bounds.add(start[0] - 6, start[1] - 6)
        x0, y0, x1, y1 = bounds.box(margin=8)
        svg.set("viewBox", f"{_n(x0)} {_n(y0)} {_n(x1 - x0)} {_n(y1 - y0)}")
        svg.set("width", _n(x1 - x0))
        svg.set("height", _n(y1 - y0))
        return svg

    def xy(self, order: float, across: float) -> tuple[float, float]:
        return (order, across) if self.way == "TB" else (across, order)

    def rect(self, box: _Box) -> tuple[float, float, float, float]:
        x, y = self.xy(box.order - box.breadth / 2, box.top)
        w, h = (box.breadth, box.depth) if self.way == "TB" else (box.depth, box.breadth)
        return x, y, w, h

    def routes(self) -> list[tuple[_Edge, list[tuple[float, float]], tuple[float, float, str]]]:
        """Each edge's points and where its label goes (x, y, anchor)."""
        found = []
        ports = self.ports()
        gutter = {"back": self.span + 18.0, "long": -18.0}
        lanes: Counter[tuple[int, str]] = Counter()
        for edge in self.edges:
            s, t = self.boxes[edge.source], self.boxes[edge.target]
            if edge.source == edge.target:  # a loop over the box's top right corner
                x, y, w, _ = self.rect(s)
                points = [
                    (x + w - 18, y),
                    (x + w - 16, y - 24),
                    (x + w + 24, y + 6),
                    (x + w, y + 10),
                ]
                found.append((edge, points, (x + w + 12, y - 6, "start")))
                continue
            so, to = ports[(id(edge), "out")], ports[(id(edge), "in")]
            down = s.top + s.depth
            if t.rank == s.rank + 1:
                mid = 0.5 if self.way == "TB" else 0.62
                label = (so + (to - so) * mid, down + (t.top - down) * mid)
                points = [(so, down), (to, t.top)]
                found.append(self.mapped(edge, points, label, "middle"))
                continue
            under = self.extent[s.rank][1]
            if t.rank == s.rank:  # along the gap under the layer
                lanes[(s.rank, "under")] += 1
                lane = under + 10 + LANE * lanes[(s.rank, "under")]
                points = [(so, down), (so, lane), (to, lane), (to, t.top + t.depth)]
                if self.way == "TB":
                    label, anchor = ((so + to) / 2, lane + 10), "middle"
                else:
                    label, anchor = ((so + to) / 2, lane + 6), "start"
                found.append(self.mapped(edge, points, label, anchor))
                continue
            back = t.rank < s.rank
            kind = "back" if back else "long"
            gutter[kind] += LANE if back else -LANE
            side = gutter[kind]
            if back:  # leave from the top, come in from below
                start, end = s.top, t.top + t.depth
                lanes[(s.rank, "over")] += 1
                lanes[(t.rank, "under")] += 1
                leave = self.extent[s.rank][0] - 10 - LANE * lanes[(s.rank, "over")]
                enter = self.extent[t.rank][1] + 10 + LANE * lanes[(t.rank, "under")]
            else:
                start, end = down, t.top
                lanes[(s.rank, "under")] += 1
                lanes[(t.rank, "over")] += 1
                leave = under + 10 + LANE * lanes[(s.rank, "under")]
                enter = self.extent[t.rank][0] - 10 - LANE * lanes[(t.rank, "over")]
            points = [
                (so, start),
                (so, leave),
                (side, leave),
                (side, enter),
                (to, enter),
                (to, end),
            ]
            if self.way == "TB":
                label, anchor = (
                    (side + (8 if back else -8), (leave + enter) / 2),
                    ("start" if back else "end"),
                )
            else:
                label, anchor = (side + (16 if back else -8), (leave + enter) / 2), "middle"
            found.append(self.mapped(edge, points, label, anchor))
        return found

    def mapped(
        self,
        edge: _Edge,
        points: list[tuple[float, float]],
        label: tuple[float, float],
        anchor: str,
    ) -> tuple[_Edge, list[tuple[float, float]], tuple[float, float, str]]:
        """An edge routed in (along, across) layer coordinates, in x and y."""
        x, y = self.xy(*label)
        return edge, [self.xy(o, a) for o, a in points], (x, y + 4, anchor)

    def ports(self) -> dict[tuple[int, str], float]:
        """Where each edge leaves and enters its boxes, spread along the box's side."""
        sides: dict[tuple[str, str], list[tuple[float, int, str]]] = defaultdict(list)
        for edge in self.edges:
            if edge.source == edge.target:
                continue
            s, t = self.boxes[edge.source], self.boxes[edge.target]
            back = t.rank < s.rank
            same = t.rank == s.rank
            far = self.span + 18 if back else -18
            aim_out = t.order if t.rank == s.rank + 1 or same else far
            aim_in = s.order if t.rank == s.rank + 1 or same else far
            sides[(edge.source, "top" if back else "bottom")].append((aim_out, id(edge), "out"))
            sides[(edge.target, "bottom" if back or same else "top")].append(
                (aim_in, id(edge), "in")
            )
        ports = {}
        for (state, _), attached in sides.items():
            box = self.boxes[state]
            attached.sort()
            usable = box.breadth * 0.7
            for i, (_, key, way) in enumerate(attached):
                step = usable / len(attached)
                ports[(key, way)] = box.order - usable / 2 + step * (i + 0.5)
        return ports

    def label(
        self, group: ET.Element, edge: _Edge, at: tuple[float, float, str], bounds: _Bounds
    ) -> None:
        x, y, anchor = at
        width = len(edge.label) * LABEL_FONT
        left = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
        bounds.add(left, y - 11)
        bounds.add(left + width, y + 3)
        text = ET.SubElement(group, "text", {"x": _n(x), "y": _n(y), "text-anchor": anchor})
        for i, (event, count) in enumerate(edge.events):
            span = ET.SubElement(
                text,
                "tspan",
                {
                    "class": "event fired" if count else "event",
                    "data-event": event,
                    "data-count": str(count),
                },
            )
            span.text = f"{event} ×{count}" if count else event
            if i < len(edge.events) - 1:
                span.tail = ", "


class _Bounds:
    def __init__(self) -> None:
        self.xs: list[float] = []
        self.ys: list[float] = []

    def add(self, x: float, y: float) -> None:
        self.xs.append(x)
        self.ys.append(y)

    def box(self, margin: float) -> tuple[float, float, float, float]:
        return (
            min(self.xs) - margin,
            min(self.ys) - margin,
            max(self.xs) + margin,
            max(self.ys) + margin,
        )


def _ranks(nodes: list[str], initial: str, edges: list[_Edge]) -> dict[str, int]:
    """Breadth-first distance from the initial state; a state it cannot reach goes last."""
    following: dict[str, list[str]] = defaultdict(list)
    for edge in edges:
        if edge.source != edge.target:
            following[edge.source].append(edge.target)
    ranks = {initial: 0} if initial in nodes else {}
    queue = deque(ranks)
    while queue:
        state = queue.popleft()
        for target in following[state]:
            if target not in ranks and target in nodes:
                ranks[target] = ranks[state] + 1
                queue.append(target)
    beyond = max(ranks.values(), default=-1) + 1
    return {node: ranks.get(node, beyond) for node in nodes}


def _order(layers: list[list[str]], edges: list[_Edge]) -> None:
    """Order each layer by the mean position of its neighbours in the layer before, then after."""
    near: dict[str, list[str]] = defaultdict(list)
    for edge in edges:
        near[edge.source].append(edge.target)
        near[edge.target].append(edge.source)
    for sweep in range(4):
        indices = range(1, len(layers)) if sweep % 2 == 0 else range(len(layers) - 2, -1, -1)
        for i in indices:
            other = layers[i - 1] if sweep % 2 == 0 else layers[i + 1]
            where = {s: n for n, s in enumerate(other)}
            current = {s: n for n, s in enumerate(layers[i])}

            def centre(state: str, where=where, current=current) -> float:
                seen = [where[s] for s in near[state] if s in where]
                return sum(seen) / len(seen) if seen else current[state]

            layers[i].sort(key=centre)


def _path(points: list[tuple[float, float]], *, loop: bool) -> str:
    if loop:
        (x0, y0), *controls = points
        return f"M{_n(x0)},{_n(y0)} C" + " ".join(f"{_n(x)},{_n(y)}" for x, y in controls)
    return "M" + " L".join(f"{_n(x)},{_n(y)}" for x, y in points)


def _rect(x: float, y: float, w: float, h: float, radius: float, cls: str) -> dict[str, str]:
    return {
        "class": cls,
        "x": _n(x),
        "y": _n(y),
        "width": _n(w),
        "height": _n(h),
        "rx": str(radius),
    }


def _n(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")
