"""The import graph is the architecture: docs/architecture.md's layers, read from the code.

Every import of an orav module counts, wherever it is written: at module level, inside a
function, under ``TYPE_CHECKING``. The package must have no import cycle, and no module may
import one in a layer above its own (the layers are the ``### name`` headings of the doc's
"Layers" section, lowest first; a module's layer is the heading its line is under). The doc's
diagram of which layer imports which is generated from the same graph:
``python tests/test_architecture.py`` writes it, and the test fails while it is stale.
"""

from __future__ import annotations

import ast
import re
import shutil
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = Path("docs/architecture.md")
BEGIN = "<!-- the layer diagram: written by `python tests/test_architecture.py` -->"
END = "<!-- end of the layer diagram -->"


def modules(root: Path) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    found = {}
    for path in (root / "orav").rglob("*.py"):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(root: Path) -> dict[str, set[str]]:
    """Which orav modules each module imports, anywhere in its body."""
    known = modules(root)

    def owner(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = defaultdict(set)
    for module, path in known.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                named = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, *([base] if base else [])])
                # ``from orav import session`` imports the module orav.session
                named = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                    for alias in node.names
                ]
            else:
                continue
            for name in named:
                target = owner(name) if name.split(".")[0] == "orav" else None
                if target is not None and target != module:
                    graph[module].add(target)
    return graph


def layers(root: Path) -> tuple[list[str], dict[str, str]]:
    """The doc's layers, lowest first, and the layer of each module its lines name."""
    text = (root / DOC).read_text()
    section = text.split("\n## Layers", 1)[1].split("\n## ", 1)[0]
    order: list[str] = []
    layer_of: dict[str, str] = {}
    for line in section.splitlines():
        if line.startswith("### "):
            order.append(line[4:].split(":")[0].strip())
        elif line.startswith("- `") and order:
            for path in re.findall(r"`(orav/[\w/]+\.py)`", line.split("`:", 1)[0] + "`"):
                name = path[: -len(".py")].replace("/", ".").removesuffix(".__init__")
                layer_of[name] = order[-1]
    return order, layer_of


def layer_of_module(module: str, order: list[str], named: dict[str, str]) -> str:
    """A module's layer: its line's; a package's (or ``__main__``'s) without a line, the
    highest of its package's modules; the front door ``orav`` is above every layer."""
    if module in named:
        return named[module]
    if module == "orav" or module == "orav.__main__":
        return "front door"
    package = module.removesuffix(".__main__")
    below = [named[m] for m in named if m.startswith(package + ".")]
    return max(below, key=order.index) if below else "unplaced"


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles: strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def problems(root: Path) -> list[str]:
    """Every import cycle, every upward import and every module the doc does not place."""
    graph = imports(root)
    order, named = layers(root)
    ranks = {name: rank for rank, name in enumerate([*order, "front door"])}
    found = [f"import cycle: {' -> '.join(cycle)}" for cycle in cycles(graph)]
    for module in sorted(modules(root)):
        layer = layer_of_module(module, order, named)
        if layer == "unplaced":
            found.append(f"{module}: in no layer of {DOC}")
            continue
        for target in sorted(graph.get(module, ())):
            above = layer_of_module(target, order, named)
            if ranks.get(above, -1) > ranks[layer]:
                found.append(f"upward import: {module} ({layer}) imports {target} ({above})")
    return found


def diagram(root: Path) -> str:
    """Each layer and the layers it imports, from the code: the doc's diagram."""
    graph = imports(root)
    order, named = layers(root)
    uses: dict[str, set[str]] = defaultdict(set)
    for module, targets in graph.items():
        for target in targets:
            uses[layer_of_module(module, order, named)].add(layer_of_module(target, order, named))
    width = max(len(name) for name in order)
    rows = []
    for name in reversed(order):
        below = [other for other in reversed(order) if other in uses[name] and other != name]
        rows.append(f"{name:<{width}}  ──► {', '.join(below) if below else '(nothing of orav)'}")
    return "\n".join(["```", *rows, "```"])


def written_diagram(root: Path) -> str:
    text = (root / DOC).read_text()
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip() if BEGIN in text else ""


def test_the_package_has_no_import_cycle_and_no_upward_import():
    found = problems(ROOT)
    assert not found, "\n".join(found)


def test_the_docs_layer_diagram_is_drawn_from_the_code():
    assert written_diagram(ROOT) == diagram(ROOT), (
        f"{DOC}'s layer diagram is stale: run `python tests/test_architecture.py`"
    )


def _copy(tmp_path: Path) -> Path:
    """The package's sources and the doc, copied for a self-check that edits them."""
    shutil.copytree(ROOT / "orav", tmp_path / "orav", ignore=shutil.ignore_patterns("*.pyc"))
    (tmp_path / "docs").mkdir()
    shutil.copy(ROOT / DOC, tmp_path / DOC)
    return tmp_path


@pytest.mark.parametrize(
    "written",
    [
        "from orav.session import record\n",
        "def later():\n    from orav.session import record\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from orav.session import record\n",
    ],
    ids=["module-level", "in-a-function", "type-checking"],
)
def test_self_check_an_upward_import_anywhere_fails(tmp_path: Path, written: str):
    """The check itself: the model importing the session, however it is written, is both an
    upward import and a cycle (the session imports the model)."""
    root = _copy(tmp_path)
    geometry = root / "orav/model/geometry.py"
    geometry.write_text(geometry.read_text() + "\n" + written)
    found = problems(root)
    assert "upward import: orav.model.geometry (model) imports orav.session (entry)" in found
    assert any(p.startswith("import cycle:") and "orav.model.geometry" in p for p in found)


def test_self_check_a_module_the_doc_does_not_place_fails(tmp_path: Path):
    root = _copy(tmp_path)
    (root / "orav/stray.py").write_text("from orav.model import Tap\n")
    assert "orav.stray: in no layer of docs/architecture.md" in problems(root)


def _write() -> None:
    """Write the layer diagram into the doc between its markers."""
    path = ROOT / DOC
    text = path.read_text()
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    path.write_text(f"{head}{BEGIN}\n{diagram(ROOT)}\n{END}{tail}")


if __name__ == "__main__":
    _write()
