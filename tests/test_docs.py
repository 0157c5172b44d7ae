"""Generated docs stay true to the code."""

from pathlib import Path

from orav.cli import reference

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_cli_reference_is_current():
    assert (DOCS / "cli.md").read_text() == reference(), "regenerate it with `just docs`"


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
    ):
        assert f"docs/{name}.md" in readme
        assert (DOCS / f"{name}.md").exists(), name


def test_architecture_names_every_module():
    text = (DOCS / "architecture.md").read_text()
    package = DOCS.parent / "orav"
    for module in package.rglob("*.py"):
        if module.name in ("__init__.py", "__main__.py"):
            continue
        relative = module.relative_to(package.parent)
        named = f"`{relative.as_posix()}`" in text or (
            f"`{relative.parent.as_posix()}/`" in text and f"`{module.stem}`" in text
        )
        assert named, f"docs/architecture.md does not name {relative}"
