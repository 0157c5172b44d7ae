"""The commands an author of scenarios and app models works with: ``orav validate`` (check
files without running them) and ``orav sim`` (serve an app model as an idb companion)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from orav.cli.flags import examples, expanded, judge_option, make_judge
from orav.cli.group import cli
from orav.errors import DeviceError, InputError, OravError

if TYPE_CHECKING:
    from orav.judges import Judge
    from orav.model import Scenario


@cli.command(
    epilog=examples(
        "orav validate scenarios/login.yaml orav/sim/shop.yaml",
        "orav validate orav/scenarios/textual/sign_in.yaml --device textual:orav.demo_tui:DemoApp",
    )
)
@click.argument("scenarios", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--device",
    default=None,
    metavar="SPEC",
    help="Also start each scenario's app on this device (as `orav record --device` names it), "
    "take its first look after the preconditions and warn of each success criterion that "
    "already holds there: a pass would prove nothing (docs/scenarios.md).",
)
@judge_option
def validate(scenarios: tuple[Path, ...], device: str | None, judge_spec: str | None) -> None:
    """Check scenario files and app models (by their keys or `kind: app`, linted too) without
    running them (each bad one is reported; exit 2 if any). A folder means every YAML file
    under it; a glob its matches. With --device, each scenario's app is started for its first
    look too."""
    from orav.model import Done
    from orav.scenario_loader import load_scenario
    from orav.sim.lint import check_app_model, looks_like_app_model

    judge = make_judge(judge_spec)
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
            warnings = _first_look(path, scenario, device, judge) if device else ()
            _named_in_model(path, scenario, device)  # what the first look did not reach too
        except OravError as exc:
            click.echo(f"orav: error: {exc}", err=True)
            bad += 1
            continue
        steps = sum(not isinstance(d.action, Done) for d in scenario.script)  # done is no step
        click.echo(f"{path}: ok ({scenario.name}, {steps} scripted steps)")
        for warning in warnings:
            click.echo(f"{path}: warning: {warning}", err=True)
    if bad:
        sys.exit(2)


def _named_in_model(path: Path, scenario: Scenario, device: str | None) -> None:
    """Each id and label the scenario aims at is in the app model it runs on (its device or
    ``--device``, when that is the simulator): an InputError naming the first that is not,
    with the nearest the model has."""
    from orav.model import Assert
    from orav.perceive.targets import nearest
    from orav.sim.apps import bundled_app
    from orav.sim.lint import words
    from orav.specs import app_model, device_for

    spec = device_for(scenario, device)
    if not (spec == "sim" or spec.startswith("sim:")) or scenario.install or not scenario.app:
        return
    model = app_model(Path(spec[4:]) if spec != "sim" else bundled_app(scenario.app))
    if model.bundle_id != scenario.app:  # not its app: `orav record` says so (check_app)
        return
    ids, labels = words(model)
    steps = [*scenario.preconditions, *scenario.success_criteria]
    steps += [decision.action for decision in scenario.script]
    for step in steps:
        target = getattr(step, "target", None)
        if target is None or (isinstance(step, Assert) and step.condition == "absent"):
            continue
        for word, patterns, shown in ((target.id, ids, "#{}"), (target.label, labels, "{!r}")):
            if word is None or any(p.fullmatch(word) for p in patterns.values()):
                continue
            near = nearest(word, list(patterns))
            guess = f"; did you mean {shown.format(near)}?" if near else ""
            what = f"no {shown.format(word)} in the app model of {model.bundle_id} ({spec}){guess}"
            raise InputError(what, str(path))


def _first_look(
    path: Path, scenario: Scenario, device: str, judge: Judge | None
) -> tuple[str, ...]:
    """The warnings of ``scenario``'s first look on ``device`` (``orav.session.first_look``);
    an error naming the file when the app could not be brought there."""
    import asyncio

    from orav.session import first_look

    report = asyncio.run(first_look(scenario, device, judge=judge))
    if report.errors:
        raise InputError(f"the first look: {report.errors[0].error}", str(path))
    return report.warnings


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
