"""Every page of README and docs/ refers to what exists: the orav names it cites, the files it
links, the commands it shows and their flags. A rename that leaves a page behind fails here."""

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = ["README.md", *(f"docs/{page.name}" for page in sorted(DOCS.glob("*.md")))]
BASH_BLOCK = re.compile(r"```bash\n(.*?)```", re.DOTALL)
FLAG = r"(?<![\w-])--[a-z][a-z-]*"


def resolves(name: str) -> bool:
    """``orav.a.b.C.d``: the longest importable module, then attributes."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            if not hasattr(found, part):
                return False
            found = getattr(found, part)
        return True
    return False


@pytest.mark.parametrize("page", PAGES)
def test_every_orav_name_a_page_cites_exists(page):
    cited = set(re.findall(r"`(orav(?:\.\w+)+)", (ROOT / page).read_text())) - {"orav.toml"}
    missing = sorted(name for name in cited if not resolves(name))
    assert not missing, f"{page} cites {missing}, which orav does not have"


@pytest.mark.parametrize("page", PAGES)
def test_every_relative_link_of_a_page_leads_somewhere(page):
    path = ROOT / page
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text())
    broken = [link for link in links if "://" not in link and not (path.parent / link).exists()]
    assert not broken, f"{page} links to {broken}"


def cli_sections() -> dict[str, str]:
    """Each command's help as docs/cli.md (kept current by test_docs) has it."""
    parts = re.split(r"(?m)^#{2,3} orav (.+)$", (DOCS / "cli.md").read_text())
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def command_lines(text: str) -> list[tuple[str, bool]]:
    """``orav …`` as a page writes it: lines of its bash blocks (each must be a command), and
    inline code (a command when its first word names one: `orav regression check` is a name)."""
    found = [(line, True) for block in BASH_BLOCK.findall(text) for line in block.splitlines()]
    found += [(code, False) for code in re.findall(r"`(orav [^`\n]+)`", text)]
    return [
        (re.split(r" #| \| |&&", line)[0], strict)
        for line, strict in found
        if line.startswith("orav ") and not line.startswith("orav -")
    ]


@pytest.mark.parametrize("page", [page for page in PAGES if page != "docs/cli.md"])
def test_every_command_a_page_shows_has_the_flags_it_uses(page):
    sections = cli_sections()
    first_words = {name.split()[0] for name in sections}
    for line, strict in command_lines((ROOT / page).read_text()):
        words = line.split()[1:]
        if not strict and words[0] not in first_words:
            continue
        named = [" ".join(words[:n]) for n in (2, 1) if " ".join(words[:n]) in sections]
        assert named, f"{page}: `{line}`: no such command"
        flags = set(re.findall(FLAG + r"(?![\w-])", sections[named[0]]))
        unknown = [flag for flag in re.findall(FLAG, line) if flag not in flags]
        assert not unknown, f"{page}: `{line}`: {named[0]} has no {unknown}"
