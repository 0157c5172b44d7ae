"""Generated docs stay true to the code."""

import re
from pathlib import Path

from orav.cli.reference import cli_reference

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_cli_reference_is_current():
    assert (DOCS / "cli.md").read_text() == cli_reference(), "regenerate it with `just docs`"


def test_every_doc_the_readme_links_exists():
    readme = (DOCS.parent / "README.md").read_text()
    for name in (
        "architecture",
        "scenarios",
        "cli",
        "cassette-format",
        "machines",
        "recovery",
        "app-model",
        "agents",
        "performance",
        "maestro",
        "guide-ios-app",
        "guide-agent",
        "guide-device",
        "many-machines",
        "api",
    ):
        assert f"docs/{name}.md" in readme
        assert (DOCS / f"{name}.md").exists(), name


def test_architecture_names_every_module_once():
    """One line per module (``- `orav/...`: what it owns``); no line for a module that is gone."""
    text = (DOCS / "architecture.md").read_text()
    root = DOCS.parent
    lines = re.findall(r"^- `(orav/[^`]+)`", text, flags=re.MULTILINE)
    for named in re.findall(r"`(orav/[\w./]+)`", text):
        assert (root / named).exists(), f"docs/architecture.md names {named}, which does not exist"
    modules = {
        module.relative_to(root).as_posix()
        for module in (root / "orav").rglob("*.py")
        if module.name not in ("__init__.py", "__main__.py")
    }
    for module in sorted(modules):
        count = lines.count(module)
        assert count == 1, f"docs/architecture.md has {count} lines for {module}, wants one"
    twice = sorted({line for line in lines if lines.count(line) > 1})
    assert not twice, f"docs/architecture.md has more than one line for {twice}"
