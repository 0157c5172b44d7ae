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


@cli.command()
@click.argument("app", required=False, type=click.Path(path_type=Path))
@click.option("--port", default=0, show_default=True, help="TCP port on 127.0.0.1 (0: pick one).")
@click.option(
    "--scale",
    default=1.0,
    show_default=True,
    type=click.FloatRange(0.25, 4.0),
    help="Pixels per point of screenshots.",
)
@click.option("--seed", default=0, show_default=True, help="Seed of probabilistic faults.")
def sim(app: Path | None, port: int, scale: float, seed: int) -> None:
    """Serve a simulated idb companion hosting APP (an app-model YAML; the demo app by default).

    Prints 127.0.0.1:PORT on the first line, then serves until interrupted.
    """
    import asyncio
    import signal

    from orav.sim import DEMO_APP, SimCompanion, load_app_model

    model = load_app_model(app or DEMO_APP)

    async def serve() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        async with SimCompanion(model, port=port, scale=scale, seed=seed) as companion:
            click.echo(companion.address)
            sys.stdout.flush()
            await stop.wait()

    asyncio.run(serve())
