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
