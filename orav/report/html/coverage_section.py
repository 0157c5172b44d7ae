"""The coverage of an exploration in the HTML report: the screen graph drawn, and what is left.

``orav explore`` writes ``NAME.coverage.json`` beside the cassette (``orav.report.coverage``);
the report of that cassette shows it: each screen a box (amber while it has untried elements,
red for a dead end), each transition an arrow labelled with the control, gesture or key that
took it, laid out by distance from the first screen; below, a table of every screen with what
was tried, what did nothing, what is untried and why, what was disabled or skipped.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import deque

from orav.model.coverage import Coverage, ScreenCoverage

BOX_W, BOX_H, GAP_X, GAP_Y, MARGIN = 170, 46, 90, 26, 12


def coverage_section(coverage: Coverage) -> ET.Element:
    """The report's "Coverage" section: summary, graph, table."""
    section = ET.Element("section", {"id": "coverage", "class": "coverage"})
    ET.SubElement(section, "h2").text = "Coverage"
    ET.SubElement(section, "p", {"class": "goal"}).text = coverage.summary
    section.append(_graph(coverage))
    section.append(_table(coverage))
    return section


def _layers(coverage: Coverage) -> list[list[str]]:
    """Screens by their distance from the first along the transitions seen; unconnected last."""
    keys = [s.key for s in coverage.screens]
    if not keys:
        return []
    out: dict[str, list[str]] = {k: [] for k in keys}
    for t in coverage.transitions:
        if t.source != t.target and t.source in out and t.target in out:
            out[t.source].append(t.target)
    depth = {keys[0]: 0}
    queue = deque([keys[0]])
    while queue:
        node = queue.popleft()
        for target in out[node]:
            if target not in depth:
                depth[target] = depth[node] + 1
                queue.append(target)
    last = max(depth.values()) + 1
    layers: list[list[str]] = [[] for _ in range(last + 1)]
    for key in keys:
        layers[depth.get(key, last)].append(key)
    return [layer for layer in layers if layer]


def _graph(coverage: Coverage) -> ET.Element:
    layers = _layers(coverage)
    where: dict[str, tuple[float, float]] = {}
    for column, layer in enumerate(layers):
        for row, key in enumerate(layer):
            where[key] = (MARGIN + column * (BOX_W + GAP_X), MARGIN + row * (BOX_H + GAP_Y))
    width = MARGIN * 2 + max(len(layers), 1) * (BOX_W + GAP_X) - GAP_X
    height = MARGIN * 2 + max((len(layer) for layer in layers), default=1) * (BOX_H + GAP_Y)
    svg = ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "width": str(width),
            "height": str(height),
            "viewBox": f"0 0 {width} {height}",
            "role": "img",
            "aria-label": "the screen graph of the exploration",
        },
    )
    defs = ET.SubElement(svg, "defs")
    marker = ET.SubElement(
        defs,
        "marker",
        {"id": "cov-arrow", "viewBox": "0 0 10 10", "refX": "10", "refY": "5"}
        | {"markerWidth": "7", "markerHeight": "7", "orient": "auto-start-reverse"},
    )
    ET.SubElement(marker, "path", {"d": "M 0 0 L 10 5 L 0 10 z", "fill": "#57606a"})
    labels: dict[tuple[str, str], list[str]] = {}
    for t in coverage.transitions:
        if t.source != t.target and t.source in where and t.target in where:
            labels.setdefault((t.source, t.target), []).append(t.element)
    for (source, target), elements in labels.items():
        _arrow(svg, where[source], where[target], elements)
    dead = set(coverage.dead_ends)
    for screen in coverage.screens:
        _screen_box(svg, screen, where[screen.key], dead=screen.key in dead)
    figure = ET.Element("figure")
    figure.append(svg)
    ET.SubElement(figure, "figcaption").text = (
        "Screens by distance from the first; green: everything tried, amber: untried elements "
        "left, red: a dead end (no way out was seen). Arrows: the control, gesture or key that "
        "led there (hover for all of them)."
    )
    return figure


def _arrow(
    svg: ET.Element, at: tuple[float, float], to: tuple[float, float], elements: list[str]
) -> None:
    """An arrow between two screens' boxes (bent out to the right within a column), labelled
    with the first of the ``elements`` that led there (hover: all of them)."""
    (x1, y1), (x2, y2) = at, to
    forward = x2 > x1
    start = (x1 + BOX_W, y1 + BOX_H * 0.4) if forward else (x1, y1 + BOX_H * 0.6)
    end = (x2, y2 + BOX_H * 0.4) if forward else (x2 + BOX_W, y2 + BOX_H * 0.6)
    if x1 == x2:  # same column: bend out to the right
        start, end = (x1 + BOX_W, y1 + BOX_H * 0.7), (x2 + BOX_W, y2 + BOX_H * 0.3)
        bend = x1 + BOX_W + GAP_X * 0.6
        path = f"M {start[0]} {start[1]} C {bend} {start[1]} {bend} {end[1]} {end[0]} {end[1]}"
    else:
        path = f"M {start[0]} {start[1]} L {end[0]} {end[1]}"
    edge = ET.SubElement(svg, "path", {"class": "edge", "d": path})
    ET.SubElement(edge, "title").text = ", ".join(elements)
    label = elements[0] + (f" +{len(elements) - 1}" if len(elements) > 1 else "")
    text = ET.SubElement(
        svg,
        "text",
        {
            "class": "edge-label",
            "x": f"{(start[0] + end[0]) / 2:.0f}",
            "y": f"{(start[1] + end[1]) / 2 - 3:.0f}",
            "text-anchor": "middle",
        },
    )
    text.text = _short(label, 22)


def _screen_box(
    svg: ET.Element, screen: ScreenCoverage, at: tuple[float, float], *, dead: bool
) -> None:
    """A screen's box: its name and how much of it was tried, coloured by what is left."""
    x, y = at
    kind = "dead" if dead else "pending" if screen.untried else ""
    group = ET.SubElement(svg, "g", {"class": f"screen {kind}".strip()})
    ET.SubElement(group, "title").text = (
        f"{screen.name}: {len(screen.tried)} of {len(screen.elements)} tried"
        + (f"; untried: {', '.join(screen.untried)}" if screen.untried else "")
    )
    ET.SubElement(
        group, "rect", {"x": str(x), "y": str(y), "width": str(BOX_W), "height": str(BOX_H)}
    ).set("rx", "6")
    name = ET.SubElement(group, "text", {"x": str(x + 8), "y": str(y + 18)})
    name.text = _short(screen.name, 24)
    ET.SubElement(group, "text", {"x": str(x + 8), "y": str(y + 36)}).text = (
        f"{len(screen.tried)}/{len(screen.elements)} tried" + (" · dead end" if dead else "")
    )


def _table(coverage: Coverage) -> ET.Element:
    table = ET.Element("table")
    head = ET.SubElement(table, "tr")
    for title in (
        "screen",
        "tried",
        "no effect",
        "untried (why)",
        "disabled",
        "skipped",
        "leads to",
    ):
        ET.SubElement(head, "th").text = title
    why = "the run ended first" if not coverage.finished else "no known way back to it"
    for screen in coverage.screens:
        row = ET.SubElement(table, "tr")
        cells = (
            screen.name,
            f"{len(screen.tried)}/{len(screen.elements)}",
            ", ".join(screen.no_effect) or "-",
            f"{', '.join(screen.untried)} ({why})" if screen.untried else "-",
            ", ".join(screen.disabled) or "-",
            _skipped(coverage, screen),
            _leads_to(coverage, screen),
        )
        for text in cells:
            ET.SubElement(row, "td").text = text
    return table


def _skipped(coverage: Coverage, screen: ScreenCoverage) -> str:
    if not screen.skipped:
        return "-"
    if screen.alike is not None:
        why = f"tried on {coverage.name_of(screen.alike)}, a screen alike, or quit or sign out"
    else:
        why = "they quit the app or sign out"
    return f"{', '.join(screen.skipped)} ({why})"


def _leads_to(coverage: Coverage, screen: ScreenCoverage) -> str:
    found = []
    for t in coverage.transitions:
        if t.source == screen.key and t.target != screen.key:
            item = f"{t.element} → {coverage.name_of(t.target)}"
            if item not in found:
                found.append(item)
    return "; ".join(found) or "-"


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"
