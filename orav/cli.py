"""The ``orav`` command. Heavy imports (openai, textual, grpc) happen inside the commands."""

from __future__ import annotations

import sys

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
