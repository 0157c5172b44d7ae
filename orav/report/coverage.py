"""An exploration's coverage written and read: JSON and markdown beside its cassette.

The explorer (``orav.agents.explorer``) builds a ``Coverage`` (``orav.model.coverage``);
``write_coverage`` puts it next to the cassette as JSON (through the one converter) and as
markdown with a mermaid flowchart, ``read_coverage`` reads it back for the HTML report
(``orav.report.html.coverage_section`` draws it).
"""

from __future__ import annotations

import json
from pathlib import Path

from cattrs.gen import make_dict_unstructure_fn

from orav.codec import converter, from_json, unstructure
from orav.errors import OravError
from orav.model.coverage import Coverage, ScreenCoverage, ScreenTransition
from orav.report.files import write_text

__all__ = [
    "Coverage",
    "ScreenCoverage",
    "ScreenTransition",
    "coverage_markdown",
    "coverage_mermaid",
    "coverage_paths",
    "read_coverage",
    "write_coverage",
]


# Every field in the JSON, defaults too: readers see one shape whatever the run found.
for _cls in (ScreenCoverage, ScreenTransition, Coverage):
    converter.register_unstructure_hook(
        _cls, make_dict_unstructure_fn(_cls, converter, _cattrs_omit_if_default=False)
    )


def coverage_paths(cassette: Path) -> tuple[Path, Path]:
    """Where the coverage of the exploration recorded in ``cassette`` goes: JSON, markdown."""
    return cassette.with_suffix(".coverage.json"), cassette.with_suffix(".coverage.md")


def write_coverage(coverage: Coverage, cassette: Path) -> tuple[Path, Path]:
    """Write the coverage next to its cassette; returns the JSON and markdown paths."""
    json_path, md_path = coverage_paths(cassette)
    text = json.dumps(unstructure(coverage), indent=2, ensure_ascii=False)
    write_text(json_path, text + "\n")
    write_text(md_path, coverage_markdown(coverage, f"Exploration coverage: {cassette.name}"))
    return json_path, md_path


def read_coverage(cassette: Path) -> Coverage | None:
    """The coverage written beside ``cassette`` by ``orav explore``, or None (none, or not
    readable: a report is still written without it)."""
    path = coverage_paths(cassette)[0]
    if not path.is_file():
        return None
    try:
        return from_json(path.read_text(encoding="utf-8"), Coverage)
    except (OSError, ValueError, OravError):
        return None


def coverage_markdown(coverage: Coverage, title: str = "Exploration coverage") -> str:
    """The coverage as a table of screens, its dead ends and its screen graph (mermaid)."""
    rows = [
        f"# {title}",
        "",
        coverage.summary,
        "",
        "| screen | tried | no effect | untried | disabled |",
        "| --- | --- | --- | --- | --- |",
    ]
    for s in coverage.screens:
        untried = ", ".join((*s.untried,)) or "-"
        rows.append(
            f"| {_cell(s.name)} | {len(s.tried)}/{len(s.elements)} | "
            f"{_cell(', '.join(s.no_effect) or '-')} | {_cell(untried)} | "
            f"{_cell(', '.join(s.disabled) or '-')} |"
        )
    if coverage.dead_ends:
        names = ", ".join(coverage.name_of(key) for key in coverage.dead_ends)
        rows += ["", f"Dead ends (no way out was observed): {_cell(names)}"]
    rows += ["", "```mermaid", coverage_mermaid(coverage).rstrip(), "```"]
    return "\n".join(rows) + "\n"


def coverage_mermaid(coverage: Coverage) -> str:
    """The screen graph as a mermaid ``flowchart`` (transitions that stay on a screen are
    left out: they are in the element counts)."""
    ids = {screen.key: f"s{index}" for index, screen in enumerate(coverage.screens)}
    lines = ["flowchart LR"]
    for screen in coverage.screens:
        counts = f"{len(screen.tried)}/{len(screen.elements)} tried"
        lines.append(f'  {ids[screen.key]}["{_mermaid(screen.name)}<br/>{counts}"]')
    seen = set()
    for t in coverage.transitions:
        edge = (t.source, t.element, t.target)
        if t.source == t.target or edge in seen or t.source not in ids or t.target not in ids:
            continue
        seen.add(edge)
        lines.append(f'  {ids[t.source]} -->|"{_mermaid(t.element)}"| {ids[t.target]}')
    return "\n".join(lines) + "\n"


def _mermaid(text: str) -> str:
    """Text safe inside a quoted mermaid label (entity codes for the characters it parses)."""
    for char, code in (("#", "#35;"), ('"', "#quot;"), ("<", "#lt;"), (">", "#gt;")):
        text = text.replace(char, code)
    return text


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
