"""Scenarios as tests, in pytest-recording's terms: a test marked ``@pytest.mark.orav`` runs
its scenario with a cassette named after the test, in ``--orav-record-mode`` (replay, record
or rerun live), then, once a live run reaches its goal, the regression check of its app."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import pytest

from orav.pytest_plugin.verdict import (
    CassetteDiverged,
    GoldenFailed,
    check_rerun,
    check_status,
    named,
    rerun,
)

if TYPE_CHECKING:
    from orav.cassette.record_mode import RecordMode
    from orav.model import RunReport, Scenario
    from orav.report.revisits import RegressionCheck

    Mode = RecordMode | Literal["rerun"]  # a record mode of orav record's, or rerun live

RERUN: Literal["rerun"] = "rerun"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("orav")
    group.addoption(
        "--orav-record-mode",
        default=None,
        metavar="MODE",
        help="how @pytest.mark.orav tests use their cassettes: a record mode of orav record's "
        "(none, the default: replay only) or rerun (live)",
    )
    group.addoption(
        "--orav-regression-check",
        action="append",
        default=[],
        metavar="PATH",
        help="after a marked test's live run reaches its goal, rerun live the passing flows "
        "(cassettes, folders of them) of its app under PATH; a regression fails the test",
    )
    parser.addini(
        "orav_regression_check",
        "passing flows a marked test's live run revisits once it reaches its goal",
        type="paths",
    )
    parser.addini("orav_record_mode", "record mode of @pytest.mark.orav tests (none)")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("orav_record_mode") or config.getini("orav_record_mode"):
        _record_mode(config)  # a mode that does not exist stops the session before any test
    config.addinivalue_line(
        "markers",
        "orav(scenario, device=None, agent='scripted', expect='passed', regression_check=None, "
        "judge=None): run the scenario with a cassette named after the test, in "
        "--orav-record-mode; device, agent and judge are specs as orav record takes them "
        "(class:module:Class for your own); a replay asks no judge",
    )


@pytest.fixture
def orav_cassette_dir(request: pytest.FixtureRequest) -> Path:
    """Where a marked test's cassette lives: ``cassettes/{module}`` beside the test file."""
    path = request.node.path
    return path.parent / "cassettes" / path.stem


@pytest.fixture
def orav_cassette_name(request: pytest.FixtureRequest) -> str:
    """The cassette's name: the test's (``Class.test`` in a class), ``.cassette`` added."""
    node = request.node
    name = node.name.replace("/", "-")
    if node.cls is not None:
        name = f"{node.cls.__name__}.{name}"
    return f"{name}.cassette"


GOLDEN = pytest.StashKey["Golden"]()


class Golden:
    """What a marked test ran: its ``cassette``, ``mode``, the run's ``report``, and the
    ``replay``, ``recording`` or ``reruns`` (an ``orav.golden.Repeated``) behind it."""

    def __init__(self, cassette: Path, mode: Mode) -> None:
        self.cassette = cassette
        self.mode = mode
        self.report: RunReport | None = None
        self.replay: Any = None
        self.recording: Any = None
        self.reruns: Any = None
        self.regression_check: RegressionCheck | None = None  # when the test asked for one
        self.failure = ""  # why the golden did not hold ("" when it did)


@pytest.fixture
def orav(
    request: pytest.FixtureRequest, orav_cassette_dir: Path, orav_cassette_name: str
) -> Golden:
    """Runs the scenario of the test's ``orav`` marker in the record mode; the test fails
    unless the run ended as the marker expects (``expect``, ``passed`` by default)."""
    from orav.errors import OravError

    marker = request.node.get_closest_marker("orav")
    if marker is None:
        raise pytest.UsageError(
            f"{request.node.nodeid}: the orav fixture needs @pytest.mark.orav(scenario=...)"
        )
    options = dict(marker.kwargs)
    if marker.args:
        options.setdefault("scenario", marker.args[0])
    known = {"scenario", "device", "agent", "expect", "cassette", "regression_check", "judge"}
    unknown = set(options) - known
    if unknown or "scenario" not in options:
        raise pytest.UsageError(
            f"{request.node.nodeid}: @pytest.mark.orav takes scenario= (required), device=, "
            f"agent=, expect=, cassette=, regression_check= and judge=; "
            f"not {sorted(unknown) or 'without scenario'}"
        )
    config = request.config
    mode = RERUN if config.getoption("orav_live") else _record_mode(config)
    golden = Golden(orav_cassette_dir / options.get("cassette", orav_cassette_name), mode)
    request.node.stash[GOLDEN] = golden
    try:
        _run_golden(request, golden, options)
    except (GoldenFailed, OravError) as exc:
        golden.failure = named(golden.cassette, exc)
    return golden


def _run_golden(request: pytest.FixtureRequest, golden: Golden, options: dict) -> None:
    """Replay, record or rerun the marked test's scenario, as its mode says."""
    config = request.config
    cassette, mode = golden.cassette, golden.mode
    scenario = _scenario_of(request, options["scenario"])
    device = config.getoption("orav_device") or options.get("device")
    expect = options.get("expect", "passed")
    if mode == "once" and cassette.exists():
        from orav.cassette.record_mode import RecordMode
        from orav.cassette.slot import passed

        # a failed one is recorded over
        mode = RecordMode.NONE if passed(cassette) else RecordMode.ONCE
    if mode == "none":
        _replay(golden, expect)
    elif mode == RERUN:
        if not cassette.exists():
            raise GoldenFailed(f"no cassette at {cassette}: record it (--orav-record-mode once)")
        golden.reruns = rerun(
            cassette, config, scenario=scenario, device=device, judge=_judge(options)
        )
        golden.report = golden.reruns.runs[-1].report
        check_rerun(request.node, golden.reruns)
    else:
        from orav.session import record
        from orav.specs import device_for, make_agent

        device = device_for(scenario, device)
        agent = make_agent(options.get("agent", "scripted"))
        golden.recording = asyncio.run(
            record(scenario, cassette, device=device, agent=agent, mode=mode, judge=_judge(options))
        )
        golden.report = golden.recording.report
        check_status(golden.report, expect, golden.cassette)
    if mode != "none" and golden.report is not None and golden.report.goal_met:
        _check_regressions(request, golden, options, scenario, device)


def _judge(options: dict) -> Any:
    """The marker's ``judge=`` spec, made (None when not given)."""
    from orav.specs import make_judge

    spec = options.get("judge")
    return make_judge(spec) if spec else None


def _check_regressions(
    request: pytest.FixtureRequest,
    golden: Golden,
    options: dict,
    scenario: Scenario,
    device: str | None,
) -> None:
    """After a live run that reached its goal, revisit the passing flows the marker's
    ``regression_check=``, ``--orav-regression-check`` or the ini's ``orav_regression_check``
    name (``orav.regression_check``); one that regressed fails the test, naming it."""
    from orav.regression_check import check_regressions, find_flows

    config = request.config
    paths = options.get("regression_check") or config.getoption("orav_regression_check")
    paths = paths or config.getini("orav_regression_check")
    if not paths:
        return
    flows = find_flows([paths] if isinstance(paths, (str, Path)) else paths)
    given = options["scenario"]
    homes = [_scenario_path(request, given).parent] if isinstance(given, (str, Path)) else []
    check = asyncio.run(
        check_regressions(
            flows,
            app=scenario.app,
            device=device,
            skip=[golden.cassette],
            scenarios=[*homes, request.node.path.parent],
        )
    )
    golden.regression_check = check
    request.node.user_properties.append(("orav_regression_check", check.explain()))
    if not check.ok:
        raise GoldenFailed(check.explain())


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """A marked test whose golden did not hold fails (a failure of the test, not an error
    of its setup), before its body runs."""
    golden = item.stash.get(GOLDEN, None)
    if golden is not None and golden.failure:
        pytest.fail(golden.failure, pytrace=False)


@pytest.fixture(autouse=True)
def _orav_marked(request: pytest.FixtureRequest) -> None:
    """A test marked ``orav`` runs its scenario whether or not it asks for the fixture."""
    if request.node.get_closest_marker("orav") is not None:
        request.getfixturevalue("orav")


def _record_mode(config: pytest.Config) -> Mode:
    """The mode asked for: one of ``orav.cassette.record_mode.RecordMode`` (imported only when a
    mode is named or a marked test runs, not whenever pytest starts) or ``rerun``."""
    from orav.cassette.record_mode import RecordMode

    given = config.getoption("orav_record_mode") or config.getini("orav_record_mode") or "none"
    if given == RERUN:
        return RERUN
    try:
        return RecordMode(given)
    except ValueError:
        known = ", ".join(RecordMode)
        raise pytest.UsageError(
            f"orav_record_mode: {given!r} is not a record mode ({known}) nor {RERUN}"
        ) from None


def _scenario_of(request: pytest.FixtureRequest, given: Any) -> Scenario:
    """The marker's scenario: a Scenario, or a YAML path relative to the test file (else to
    the rootdir)."""
    from orav.scenario_loader import load_scenario

    if hasattr(given, "goal"):
        return given
    return load_scenario(_scenario_path(request, given))


def _scenario_path(request: pytest.FixtureRequest, given: str | Path) -> Path:
    """A marker's scenario file: relative to the test file, else to the rootdir."""
    path = Path(given)
    if not path.is_absolute():
        beside = request.node.path.parent / path
        path = beside if beside.exists() else request.config.rootpath / path
    return path


def _replay(golden: Golden, expect: str) -> None:
    from orav.session import replay

    if not golden.cassette.exists():
        raise GoldenFailed(
            f"no cassette at {golden.cassette}: record it with --orav-record-mode once"
        )
    golden.replay = asyncio.run(replay(golden.cassette))
    if not golden.replay.faithful:
        raise CassetteDiverged("; ".join(golden.replay.differences))
    golden.report = golden.replay.recorded
    check_status(golden.report, expect, golden.cassette)
