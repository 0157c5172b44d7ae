"""The CLI reference (docs/cli.md), generated from the commands' own help: ``just docs``
writes it, and tests/test_docs.py keeps it current."""

from __future__ import annotations

import click

from orav.cli import cli

# The same text on any terminal, whatever ran before in this process.
WIDTH = 100


def cli_reference() -> str:
    """The CLI reference in markdown: every command's and subcommand's ``--help``."""
    lines = [
        "# The orav command line",
        "",
        "Generated from the code (`just docs`); do not edit. Exit status: 0 success, 1 the run",
        "failed or the replay diverged, 2 bad input (scenario, cassette, app model, flags).",
        "A command's examples, at the end of its help, run as written from a clone of orav, in",
        "this page's order (a test follows them).",
    ]
    root = _context(cli, "orav", None)
    for name in cli.list_commands(root):
        command = _command(cli, root, name)
        context = _context(command, f"orav {name}", root)
        help_text = command.get_help(context).replace("Usage: orav orav", "Usage: orav")
        lines += ["", f"## orav {name}", "", "```text", help_text.rstrip(), "```"]
        if not isinstance(command, click.Group):
            continue
        for sub in command.list_commands(context):
            subcommand = _command(command, context, sub)
            help_text = subcommand.get_help(_context(subcommand, sub, context))
            lines += ["", f"### orav {name} {sub}", "", "```text", help_text.rstrip(), "```"]
    return "\n".join(lines) + "\n"


def _command(group: click.Group, context: click.Context, name: str) -> click.Command:
    command = group.get_command(context, name)
    assert command is not None, f"{name} is listed, so it is there"
    return command


def _context(command: click.Command, name: str, parent: click.Context | None) -> click.Context:
    return click.Context(
        command,
        info_name=name,
        parent=parent,
        help_option_names=["-h", "--help"],
        terminal_width=WIDTH,
        max_content_width=WIDTH,
    )
