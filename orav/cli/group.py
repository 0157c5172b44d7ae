"""The ``orav`` command group: every error becomes one line on stderr and an exit status."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from orav.__version__ import __version__
from orav.errors import Interrupted, OravError


class OravGroup(click.Group):
    """Turns every OravError into one line on stderr and its exit status: no traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except OravError as exc:
            click.echo(f"orav: error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except Interrupted as exc:  # the run's cassette and reports say how far it got
            click.echo(f"orav: {exc}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("orav: interrupted", err=True)
            sys.exit(130)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise  # usage errors (exit 2), --help and friends: click reports them itself
        except BrokenPipeError:  # `orav audit … | head`: the reader has what it wanted
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(0)
        except Exception as exc:  # a bug in orav: one line, the traceback only when asked for
            if os.environ.get("ORAV_DEBUG"):
                raise
            click.echo(
                f"orav: internal error: {type(exc).__name__}: {exc} "
                "(set ORAV_DEBUG=1 for the traceback, and please report it)",
                err=True,
            )
            sys.exit(1)


@click.group(cls=OravGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="orav")
def cli() -> None:
    """AI-driven UI acceptance testing: Observe, Reason, Act, Verify, with replayable cassettes."""


def main() -> None:
    cli(prog_name="orav")
