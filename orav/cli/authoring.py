"""The commands an author of scenarios and app models works with: ``orav validate`` (check
files without running them) and ``orav sim`` (serve an app model as an idb companion)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from orav.cli.flags import expanded
from orav.cli.group import cli
from orav.errors import DeviceError, InputError, OravError


@cli.command()
@click.argument("scenarios", nargs=-1, required=True, type=click.Path(path_type=Path))
def validate(scenarios: tuple[Path, ...]) -> None:
    """Check scenario files and app models (by their keys or `kind: app`, linted too) without
    running them (each bad one is reported; exit 2 if any). A folder means every YAML file
    under it; a glob its matches."""
    from orav.model import Done
    from orav.scenario_loader import load_scenario
    from orav.sim.lint import check_app_model, looks_like_app_model

    bad = 0
    for path in expanded(scenarios, (".yaml", ".yml")):
        try:
            if isinstance(path, InputError):
                raise path
            if looks_like_app_model(path):
                model, findings = check_app_model(path)
                for finding in findings:
                    click.echo(f"orav: error: {finding}", err=True)
                bad += bool(findings)
                if not findings:
                    click.echo(f"{path}: ok (app {model.name}, {len(model.screens)} screens)")
                continue
            scenario = load_scenario(path)
        except OravError as exc:
            click.echo(f"orav: error: {exc}", err=True)
            bad += 1
            continue
        steps = sum(not isinstance(d.action, Done) for d in scenario.script)  # done is no step
        click.echo(f"{path}: ok ({scenario.name}, {steps} scripted steps)")
    if bad:
        sys.exit(2)


@cli.command()
@click.argument("app", required=False, type=click.Path(path_type=Path))
@click.option(
    "--port",
    default=0,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="TCP port on 127.0.0.1 (0: pick one).",
)
@click.option(
    "--scale",
    default=1.0,
    show_default=True,
    type=click.FloatRange(0.25, 4.0),
    help="Pixels per point of screenshots.",
)
@click.option("--seed", default=0, show_default=True, help="Seed of probabilistic faults.")
@click.option(
    "--animation-ms",
    type=click.IntRange(0, 10_000),
    help="How long transitions, alerts, the keyboard and spinners animate (default: the app "
    "model's animation_ms; 0: instant).",
)
def sim(app: Path | None, port: int, scale: float, seed: int, animation_ms: int | None) -> None:
    """Serve a simulated idb companion hosting APP (an app-model YAML; the demo app by default).

    Prints 127.0.0.1:PORT on the first line, then serves until interrupted.
    """
    import asyncio
    import signal

    from orav.sim import DEMO_APP, SimCompanion, load_app_model

    model = load_app_model(app or DEMO_APP, scale=scale)  # refuses a screen too big to draw

    async def serve() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        async with SimCompanion(
            model, port=port, scale=scale, seed=seed, animation_ms=animation_ms
        ) as companion:
            click.echo(companion.address)
            sys.stdout.flush()
            await stop.wait()

    try:
        asyncio.run(serve())
    except DeviceError as exc:
        if port and "cannot listen" in str(exc):  # a busy --port is a bad flag, as others are
            raise InputError(str(exc).split(": ", 1)[-1], f"--port {port}") from None
        raise
