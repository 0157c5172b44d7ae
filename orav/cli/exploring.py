"""``orav explore``: the systematic explorer (no model) discovers every reachable screen of an
app; the run is recorded like any other, and its coverage is written beside the cassette."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from orav.cli.flags import (
    credentials,
    device_option,
    examples,
    regression_check_option,
    verbosity,
    verbosity_options,
    world,
    world_options,
)
from orav.cli.group import cli
from orav.cli.recording import recorded, with_check, write_reports
from orav.cli.render import print_coverage, print_reports, progress_console
from orav.errors import InputError

if TYPE_CHECKING:
    from orav.model import Credentials, Scenario


@cli.command(epilog=examples("orav explore --device textual:orav.demo_tui:DemoApp"))
@click.option("--app", "bundle", help="Bundle id to explore (default: the simulated app's).")
@device_option
@click.option(
    "--max-steps",
    default=100,
    show_default=True,
    type=click.IntRange(1, 10_000),
    help="Step budget of the exploration.",
)
@click.option(
    "--timeout",
    default=600.0,
    show_default=True,
    type=click.FloatRange(1.0, 7 * 86400),
    help="Seconds the exploration may take.",
)
@click.option("--out", type=click.Path(path_type=Path), help="Cassette path.")
@click.option(
    "--credentials",
    "login",
    metavar="USER:PASS",
    help="Test credentials for login fields (default: the simulated app's).",
)
@click.option("--overwrite", is_flag=True, help="Replace an existing cassette.")
@regression_check_option("After exploring", "the app")
@world_options
@verbosity_options
def explore(
    bundle: str | None,
    device: str,
    max_steps: int,
    timeout: float,
    out: Path | None,
    login: str | None,
    overwrite: bool,
    regression_check: tuple[Path, ...],
    network: bool | None,
    keep_sandbox: bool,
    disposable: bool,
    quiet: bool,
    verbose: int,
) -> None:
    """Discover every reachable screen with the systematic explorer (no model); report coverage.

    Writes a cassette that `orav replay` replays, and the coverage next to it as JSON and as
    markdown with a mermaid screen graph. Exit 0 when the exploration finished within the
    step budget.
    """
    from orav import session
    from orav.agents.explorer import ExplorerAgent
    from orav.cassette.slot import did_not_pass
    from orav.config import load_config
    from orav.regression_check import find_flows, revisit_after
    from orav.report.console import Progress
    from orav.report.coverage import write_coverage

    flows = find_flows(regression_check) if regression_check else []
    app, known = _explore_target(bundle, device)
    scenario = exploration(app, max_steps, timeout, credentials(login) if login else known)
    out = out or Path("recordings") / f"{scenario.name}.cassette"
    if out.exists() and not overwrite and not did_not_pass(out):
        raise InputError("cassette already exists; replace it with --overwrite", str(out))
    explorer = ExplorerAgent()
    progress = Progress(
        progress_console(), max_steps=max_steps, verbosity=verbosity(quiet, verbose)
    )
    result = recorded(
        session.record(
            scenario,
            out,
            device=device,
            agent=explorer,
            overwrite=overwrite,
            progress=progress,
            world=world(load_config(), network, keep_sandbox, disposable),
        )
    )
    coverage = explorer.coverage()
    json_path, md_path = write_coverage(coverage, out)
    print_coverage(coverage)
    print_reports([(result.report, out, None)])
    click.echo(coverage.summary)
    click.echo(write_reports(result, out))
    click.echo(f"coverage: {json_path}\ngraph:    {md_path}")
    checked = not flows or revisit_after(
        flows, [(out, app, True)], device=device, scenarios=_homes(), say=click.echo
    )
    with_check([out] if flows else [])
    sys.exit(0 if coverage.finished and result.report.goal_met and checked else 1)


def _homes() -> list[Path]:
    """Where the revisited flows' scenario files are (they hold the secrets): the config's."""
    from orav.config import load_config

    return [Path(p) for p in load_config().scenarios]


def exploration(app: str, max_steps: int, timeout: float, login: Credentials | None) -> Scenario:
    """The scenario of an exploration of ``app``: no goal but to try everything, within the
    budgets; its name (and so its cassette's) follows the app."""
    from orav.model import Scenario

    if not app.strip():
        raise InputError("no app to explore (the app model's bundle_id is empty)", "--app")
    return Scenario(
        name="explore-" + re.sub(r"[^A-Za-z0-9_-]+", "-", app)[:80],
        app=app,
        goal="explore",
        description="orav explore: discover every reachable screen, report coverage",
        max_steps=max_steps,
        timeout_seconds=timeout,
        credentials=login,
    )


def _explore_target(bundle: str | None, device: str) -> tuple[str, Credentials | None]:
    """The bundle to explore and the app model's credentials, when the simulator hosts it."""
    if device == "sim" or device.startswith("sim:"):
        from orav.sim import DEMO_APP
        from orav.specs import app_model

        model = app_model(Path(device.removeprefix("sim:")) if device != "sim" else DEMO_APP)
        return bundle or model.bundle_id, model.credentials
    if bundle is None and device.startswith(("idb:", "class:")):
        raise InputError(f"name the app to explore on {device!r}", "--app")
    # A Textual app is named by its spec; an unknown device is the session's to report.
    return bundle or re.sub(r"^textual(\+[^:]*)?:", "", device), None
