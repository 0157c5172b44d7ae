"""The commands the pages show a user (README.md, docs/*.md), as a test follows them.

A command is a line of a shell block (```bash, ```sh, ```console; a ``$ `` prompt, where a
block has one, marks the commands and the lines after one are its output) or a ``$ `` line of
an output block (```text or a bare fence; indented in a command's --help, docs/cli.md). Every one is run by a test that follows its page
with ``commands(page)`` in order, or its block is marked, on the line before the fence, with
why it cannot run here: ``<!-- not run here: needs a Mac's idb_companion -->``.
tests/test_guides.py holds every page to that."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["README.md", *(f"docs/{page.name}" for page in sorted((ROOT / "docs").glob("*.md")))]
SHELL = ("bash", "sh", "console")
OUTPUT = ("text", "")
FENCE = re.compile(r"^```(\S*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
NOT_RUN = re.compile(r"<!-- not run here: (.+?) -->\n$")
HEREDOC = re.compile(r"<<-?'?(\w+)'?")


@dataclass(frozen=True)
class Command:
    """One command as the shell reads it: continuation lines joined, a heredoc's lines kept,
    the prompt and a trailing comment dropped."""

    page: str
    line: int
    text: str
    comment: str = ""
    output: tuple[str, ...] = ()
    not_run: str = ""  # why it cannot run here; empty when a test runs it

    @property
    def exit(self) -> int:
        """The status the page promises: ``# exit 1``; 2 where it shows ``orav: error:`` (bad
        input, docs/cli.md); else 0."""
        said = re.search(r"\bexit (\d+)", self.comment)
        if said:
            return int(said.group(1))
        return 2 if self.output[:1] and self.output[0].startswith("orav: error:") else 0

    @property
    def argv(self) -> list[str]:
        return shlex.split(self.text)


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    fence: str
    body: str
    not_run: str


def blocks(page: str) -> list[Block]:
    text = (ROOT / page).read_text()
    found = []
    for match in FENCE.finditer(text):
        before = text[: match.start()]
        marked = NOT_RUN.search(before)
        found.append(
            Block(
                page,
                before.count("\n") + 1,
                match.group(1),
                match.group(2),
                marked.group(1) if marked else "",
            )
        )
    return found


def split_comment(line: str) -> tuple[str, str]:
    """``orav record x  # exit 1`` → the command and its comment (a ``#`` in quotes stays)."""
    quote = ""
    for at, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (at == 0 or line[at - 1] in " \t"):
            return line[:at].rstrip(), line[at + 1 :].strip()
    return line.rstrip(), ""


def block_commands(block: Block) -> list[Command]:
    """The commands of one block, each with the comment and output lines that follow it."""
    lines = block.body.splitlines()
    if block.fence in OUTPUT:  # a command's --help indents its examples (docs/cli.md)
        lines = [line.strip() if line.lstrip().startswith("$ ") else line for line in lines]
    prompted = any(line.startswith("$ ") for line in lines)
    if block.fence not in SHELL and not prompted:
        return []
    found: list[Command] = []
    at = 0
    while at < len(lines):
        line, number = lines[at], block.line + 1 + at
        at += 1
        if prompted and not line.startswith("$ "):
            if found and line.strip():
                found[-1] = _with(found[-1], output=(*found[-1].output, line))
            continue
        text, comment = split_comment(line.removeprefix("$ "))
        while text.endswith("\\") and at < len(lines):
            more, said = split_comment(lines[at].removeprefix("> "))
            text, comment, at = text[:-1].rstrip() + " " + more.strip(), comment or said, at + 1
        heredoc = HEREDOC.search(text)
        if heredoc:
            end = lines.index(heredoc.group(1), at)
            text, at = "\n".join([text, *lines[at : end + 1]]), end + 1
        if not text.strip():
            if comment and found:  # a comment of its own goes on with the command above
                found[-1] = _with(found[-1], comment=f"{found[-1].comment} {comment}")
            continue
        found.append(Command(block.page, number, text.strip(), comment, (), block.not_run))
    return found


def _with(command: Command, **changes: object) -> Command:
    return Command(**{**command.__dict__, **changes})


def all_commands(page: str) -> list[Command]:
    return [command for block in blocks(page) for command in block_commands(block)]


def commands(page: str) -> list[Command]:
    """The page's commands a test runs, in the page's order."""
    return [command for command in all_commands(page) if not command.not_run]


def unprompted(page: str) -> list[str]:
    """Lines of output blocks that read as commands but have no ``$ `` prompt: a reader cannot
    tell them from output, and no test would run them."""
    return [
        f"{page}:{block.line}: {line}"
        for block in blocks(page)
        if block.fence in OUTPUT and "$ " not in block.body
        for line in block.body.splitlines()
        if re.match(r"(orav|python3?|pip|pytest) ", line)
    ]


def clone(where: Path) -> Path:
    """A fresh clone of this repository (what a user starts from): its committed files only."""
    target = where / "orav"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(target)], check=True, timeout=120)
    return target


def environment() -> dict[str, str]:
    """A user's shell: this Python's folder first on PATH (its ``orav``, ``python3``,
    ``pytest``), ORAV_DEBUG dropped so errors read as a user sees them."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return {**{k: v for k, v in os.environ.items() if k != "ORAV_DEBUG"}, "PATH": path}


@dataclass
class Shell:
    """Runs a page's commands in order as a user's shell would: each in bash, ``cd`` moving it
    on to the next."""

    cwd: Path

    def run(self, command: Command, **replace: str) -> subprocess.CompletedProcess:
        text = command.text
        for name, value in replace.items():
            text = text.replace(name, value)
        argv = shlex.split(text) if "\n" not in text else []
        if argv[:1] == ["cd"] and len(argv) == 2:
            self.cwd = (self.cwd / argv[1]).resolve()
            return subprocess.CompletedProcess(argv, 0, "", "")
        done = subprocess.run(
            ["bash", "-c", text],
            cwd=self.cwd,
            capture_output=True,
            text=True,
            timeout=300,
            env=environment(),
            check=False,
        )
        said = done.stdout + done.stderr
        assert done.returncode == command.exit, (command.page, command.line, text, said[-3000:])
        return done

    def follow(self, page: str, **replace: str) -> list[subprocess.CompletedProcess]:
        """Every command of the page in order, each with the exit status its comment says and
        the output lines the page shows after it (``...`` and ``…`` stand for lines left out)."""
        done = []
        for command in commands(page):
            result = self.run(command, **replace)
            said = result.stdout + result.stderr
            for line in command.output:
                if line.strip() not in ("...", "…"):
                    assert line.strip() in said, (command.page, command.line, line, said[-3000:])
            done.append(result)
        return done
