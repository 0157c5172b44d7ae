"""What an exploration covered: the screens found, their elements, and the screen graph.

The explorer (``orav.agents.explorer``) builds a ``Coverage``; ``write_coverage`` puts it next
to the cassette as JSON (through the one converter) and as markdown with a mermaid flowchart,
``read_coverage`` reads it back for the HTML report (``orav.report.html.coverage_section``
draws it).
"""

from __future__ import annotations

import json
from pathlib import Path

from attrs import frozen
from cattrs.gen import make_dict_unstructure_fn

from orav.codec import converter, from_json, unstructure
from orav.errors import OravError
from orav.report.files import write_text


@frozen
class ScreenCoverage:
    """One screen: its interactive elements (``#id`` or ``'label'``), the gestures and keys
    tried on it (``(swipe left)``, ``(swipe left on #row)``, ``(key down)``), and what became
    of them.

    ``no_effect``: tried, and the screen did not change (input dropped, or a control that does
    nothing). ``skipped``: never tried on purpose (quit; sign-out without credentials to sign
    back in; tried already on the screen ``alike``, one with the same controls for another
    item). ``disabled``: never seen enabled, so never tried: not counted as untried.
    """

    key: str
    name: str
    elements: tuple[str, ...] = ()
    tried: tuple[str, ...] = ()
    no_effect: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    disabled: tuple[str, ...] = ()
    alike: str | None = None
    first_step: int = 0

    @property
    def untried(self) -> tuple[str, ...]:
        """Elements neither tried, nor skipped on purpose, nor disabled whenever seen."""
        left_out = {*self.tried, *self.skipped, *self.disabled}
        return tuple(e for e in self.elements if e not in left_out)

    @property
    def gestures(self) -> tuple[str, ...]:
        """The gestures and keys among the elements."""
        return tuple(e for e in self.elements if e.startswith("("))


@frozen
class ScreenTransition:
    """``source --element--> target`` (screen keys), first seen at ``step``.

    The target is the screen the explorer saw at its next decision: a recovery in between
    (a login wall passed with the scenario's credentials) is folded into the transition.
    """

    source: str
    element: str
    target: str
    step: int = 0


@frozen
class Coverage:
    """The whole exploration: ``finished`` is true when the explorer ran out of things to try
    (rather than out of steps); ``dead_ends`` are screens no observed transition left."""

    screens: tuple[ScreenCoverage, ...] = ()
    transitions: tuple[ScreenTransition, ...] = ()
    dead_ends: tuple[str, ...] = ()
    steps: int = 0
    finished: bool = False
    summary: str = ""

    @property
    def elements_total(self) -> int:
        return sum(len(s.elements) for s in self.screens)

    @property
    def elements_tried(self) -> int:
        return sum(len(s.tried) for s in self.screens)

    @property
    def elements_skipped(self) -> int:
        """Elements never tried on purpose (they quit the app, sign out with no way back, or
        were tried on a screen alike)."""
        return sum(len(s.skipped) for s in self.screens)

    def name_of(self, key: str) -> str:
        return next((s.name for s in self.screens if s.key == key), key)

    def to_mermaid(self) -> str:
        """The screen graph as a mermaid ``flowchart`` (transitions that stay on a screen are
        left out: they are in the element counts)."""
        ids = {screen.key: f"s{index}" for index, screen in enumerate(self.screens)}
        lines = ["flowchart LR"]
        for screen in self.screens:
            counts = f"{len(screen.tried)}/{len(screen.elements)} tried"
            lines.append(f'  {ids[screen.key]}["{_mermaid(screen.name)}<br/>{counts}"]')
        seen = set()
        for t in self.transitions:
            edge = (t.source, t.element, t.target)
            if t.source == t.target or edge in seen or t.source not in ids or t.target not in ids:
                continue
            seen.add(edge)
            lines.append(f'  {ids[t.source]} -->|"{_mermaid(t.element)}"| {ids[t.target]}')
        return "\n".join(lines) + "\n"

    def to_markdown(self, title: str = "Exploration coverage") -> str:
        rows = [
            f"# {title}",
            "",
            self.summary,
            "",
            "| screen | tried | no effect | untried | disabled |",
            "| --- | --- | --- | --- | --- |",
        ]
        for s in self.screens:
            untried = ", ".join((*s.untried,)) or "-"
            rows.append(
                f"| {_cell(s.name)} | {len(s.tried)}/{len(s.elements)} | "
                f"{_cell(', '.join(s.no_effect) or '-')} | {_cell(untried)} | "
                f"{_cell(', '.join(s.disabled) or '-')} |"
            )
        if self.dead_ends:
            names = ", ".join(self.name_of(key) for key in self.dead_ends)
            rows += ["", f"Dead ends (no way out was observed): {_cell(names)}"]
        rows += ["", "```mermaid", self.to_mermaid().rstrip(), "```"]
        return "\n".join(rows) + "\n"


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
    write_text(md_path, coverage.to_markdown(f"Exploration coverage: {cassette.name}"))
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


def _mermaid(text: str) -> str:
    """Text safe inside a quoted mermaid label (entity codes for the characters it parses)."""
    for char, code in (("#", "#35;"), ('"', "#quot;"), ("<", "#lt;"), (">", "#gt;")):
        text = text.replace(char, code)
    return text


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
