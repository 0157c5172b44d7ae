"""The ``orav`` command. Heavy imports (openai, textual, grpc) happen inside the commands."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from orav import __version__
from orav.errors import OravError


class _Group(click.Group):
    """Turns every OravError into one line on stderr and its exit status: no traceback."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except OravError as exc:
            click.echo(f"orav: error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("orav: interrupted", err=True)
            sys.exit(130)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="orav")
def cli() -> None:
    """AI-driven UI acceptance testing: Observe, Reason, Act, Verify, with replayable cassettes."""


def main() -> None:
    cli()


@cli.command()
@click.argument("scenarios", nargs=-1, required=True, type=click.Path(path_type=Path))
def validate(scenarios: tuple[Path, ...]) -> None:
    """Check scenario files without running them (exit 2 on the first bad one)."""
    from orav.scenario import load_scenario

    bad = 0
    for path in scenarios:
        try:
            scenario = load_scenario(path)
        except OravError as exc:
            click.echo(f"{exc}", err=True)
            bad += 1
            continue
        click.echo(f"{path}: ok ({scenario.name}, {len(scenario.script)} scripted steps)")
    if bad:
        sys.exit(2)
