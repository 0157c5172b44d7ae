"""Whether a golden holds, for collected cassettes and marked tests alike: its failures, the
check of a run's status, and the live rerun (``--orav-live`` on ``--orav-device``,
``--orav-repeat`` times) with its flaky verdict."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from orav.model import RunReport, Scenario


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("orav")
    group.addoption(
        "--orav-live",
        action="store_true",
        default=False,
        help="rerun golden cassettes live on --orav-device instead of replaying them",
    )
    group.addoption(
        "--orav-device",
        default=None,
        metavar="SPEC",
        help="the device of live runs: sim, sim:APP.yaml, idb:HOST:PORT, textual:module:App, "
        "class:module:Device (a Device of your own)",
    )
    group.addoption(
        "--orav-repeat",
        type=int,
        default=1,
        metavar="N",
        help="rerun each golden N times live: pass@k, flaky steps",
    )


def pytest_configure(config: pytest.Config) -> None:
    # fb-idb passes loop= to grpclib's Channel: its warning is no concern of the user's tests.
    config.addinivalue_line(
        "filterwarnings", "ignore:The loop argument is deprecated:DeprecationWarning"
    )


class GoldenFailed(Exception):
    """A golden that does not hold: a replay that was not faithful, a recorded or live run
    that did not end as expected, a live rerun that regressed."""


class CassetteDiverged(GoldenFailed):
    """A replay that was not faithful."""


def named(cassette: Path, exc: BaseException) -> str:
    """The failure, named by its cassette once."""
    text = str(exc)
    return text if text.startswith(f"{cassette.name}: ") else f"{cassette.name}: {text}"


def check_status(report: RunReport | None, expect: str, cassette: Path | None = None) -> None:
    """Fail unless ``report`` ended as ``expect`` (``passed``: the goal was met, errors on the
    way or not), with the report's own explanation (``RunReport.explain``)."""
    if report is None:
        raise GoldenFailed("the recorded run did not finish: no golden")
    met = report.goal_met if expect == "passed" else report.status == expect
    if not met:
        golden = "; a run that did not pass is no golden" if expect == "passed" else ""
        raise GoldenFailed(
            f"the run ended {report.status}, not {expect}{golden}\n"
            + report.explain(cassette=cassette)
        )


def rerun(path: Path, config: pytest.Config, *, scenario: Scenario | None, device=None, judge=None):
    """Rerun ``path`` live (``--orav-repeat`` times): a Repeated; ``judge`` is asked where a
    judged screen changed."""
    from orav.golden import repeat

    device = config.getoption("orav_device") or device
    times = config.getoption("orav_repeat")
    return asyncio.run(repeat(path, times, device=device, scenario=scenario, judge=judge))


def check_rerun(item: pytest.Item, repeated: Any) -> None:
    """Fail when no live run passed; a test that passed only some of the times is flaky,
    which its JUnit properties say."""
    for run in repeated.runs:
        item.user_properties.append(("orav_rerun", run.explain()))
    if repeated.passed == 0:
        raise GoldenFailed(repeated.runs[0].explain())
    if repeated.flaky:
        item.user_properties.append(("orav_flaky", repeated.explain()))
        item.warn(pytest.PytestWarning(f"flaky: {repeated.explain()}"))
