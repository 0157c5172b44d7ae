"""pytest plugin: UAT fixtures for Textual apps, the ``live_ai`` marker, and golden cassettes as
tests.

Fixtures (the app is ``orav_app`` in the ini file or ``--orav-app``, ``package.module:AppClass``;
docs/textual.md shows a whole test):

- ``uat_app``: the app under test, built fresh for the test; an app whose constructor takes a
  ``database`` gets one in the test's temporary folder. ``@pytest.mark.uat_app(seed="demo")``
  passes more keyword arguments.
- ``uat_driver``: runs scenarios on that app (in a terminal of ``orav_size``, 80x24 unless set)
  with a deterministic agent: the scenario's script, or a function that decides (``agent=``). A test marked ``live_ai``, or any test under
  ``--orav-live-ai`` / ``ORAV_LIVE_AI=1``, gets the live agent instead.
- ``live_uat_driver``: the same with the OpenAI-compatible agent from the environment
  (``OPENAI_API_KEY`` or ``OPENAI_BASE_URL``, model ``ORAV_MODEL``); the test is skipped, with
  the reason, when no credentials are set.

Golden cassettes: ``pytest --orav-cassettes recordings/`` (or ``orav_cassettes = recordings``
in the ini file) makes each ``*.cassette`` under those folders one test item, ``replay``, that
passes when the replay is faithful and the recorded run passed (a failed or aborted recording
is no golden). With ``--orav-live`` each is rerun live on ``--orav-device`` instead
(``orav.golden.rerun``): the app itself is tested.

Scenarios as tests, in pytest-recording's terms (docs/goldens.md): a test marked
``@pytest.mark.orav(scenario="scenarios/login.yaml")`` runs that scenario with its cassette
named after the test, ``cassettes/{module}/{test}.cassette`` beside the test file (the
``orav_cassette_dir`` and ``orav_cassette_name`` fixtures), in ``--orav-record-mode``
(``orav_record_mode`` in the ini file): ``none`` (the default: replay, fail without a cassette),
``once``, ``new_episodes``, ``all`` (as vcrpy) or ``rerun`` (live, as ``--orav-live``).
``--orav-repeat N`` reruns N times: pass@k, and a test that passes only some of the times is
reported flaky (a JUnit property), not failed. The ``orav`` fixture gives the outcome.
``--orav-regression-check PATH`` (``orav_regression_check``, or the marker's
``regression_check=``): once a marked test's live run reaches its goal, the passing flows of its
app under PATH are rerun live (``orav.regression_check``); one that regressed fails the test.
"""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import pytest

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr  # pytest does not export the type

    from orav.agents import Agent
    from orav.model import RunReport, Scenario
    from orav.regression_check import RegressionCheck

Mode = Literal["none", "once", "new_episodes", "all", "rerun"]  # a record mode, or rerun live
RECORD_MODES: tuple[Mode, ...] = ("none", "once", "new_episodes", "all", "rerun")
LIVE_ENV = "ORAV_LIVE_AI"
MODEL_ENV = "ORAV_MODEL"
DEFAULT_MODEL = "gpt-4o-mini"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("orav")
    group.addoption(
        "--orav-cassettes",
        action="append",
        default=[],
        metavar="DIR",
        help="replay every *.cassette under DIR as a test (repeatable)",
    )
    group.addoption(
        "--orav-app",
        default=None,
        metavar="MODULE:CLASS",
        help="the Textual app the uat_app fixture builds (else the orav_app ini value)",
    )
    group.addoption(
        "--orav-live-ai",
        action="store_true",
        default=None,
        help=f"uat_driver uses the live LLM agent in every test (or {LIVE_ENV}=1)",
    )
    group.addoption(
        "--orav-record-mode",
        default=None,
        choices=RECORD_MODES,
        help="how @pytest.mark.orav tests use their cassettes (default: none, replay only)",
    )
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
        help="the device of live runs: sim, sim:APP.yaml, idb:HOST:PORT, textual:module:App",
    )
    group.addoption(
        "--orav-repeat",
        type=int,
        default=1,
        metavar="N",
        help="rerun each golden N times live: pass@k, flaky steps",
    )
    group.addoption(
        "--orav-scenarios",
        action="append",
        default=[],
        metavar="DIR",
        help="where a collected cassette's scenario file is found for --orav-live",
    )
    group.addoption(
        "--orav-regression-check",
        action="append",
        default=[],
        metavar="PATH",
        help="after a marked test's live run reaches its goal, rerun live the passing flows "
        "(cassettes, folders of them) of its app under PATH; a regression fails the test",
    )
    parser.addini("orav_cassettes", "folders whose *.cassette files are replayed", type="paths")
    parser.addini(
        "orav_regression_check",
        "passing flows a marked test's live run revisits once it reaches its goal",
        type="paths",
    )
    parser.addini("orav_record_mode", "record mode of @pytest.mark.orav tests (none)")
    parser.addini("orav_scenarios", "folders of the scenarios of collected cassettes", type="paths")
    parser.addini("orav_app", "the Textual app of the uat_app fixture, package.module:AppClass")
    parser.addini("orav_size", "the terminal size of the uat_driver fixture, WIDTHxHEIGHT")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "live_ai: run with the live LLM agent (uat_driver); skipped without credentials",
    )
    config.addinivalue_line(
        "markers", "uat_app(**kwargs): keyword arguments for the app the uat_app fixture builds"
    )
    config.addinivalue_line(
        "markers",
        "orav(scenario, device=None, agent='scripted', expect='passed', regression_check=None): "
        "run the scenario with a cassette named after the test, in --orav-record-mode",
    )
    # fb-idb passes loop= to grpclib's Channel: its warning is no concern of the user's tests.
    config.addinivalue_line(
        "filterwarnings", "ignore:The loop argument is deprecated:DeprecationWarning"
    )
    _collect_cassette_folders(config)


def _collect_cassette_folders(config: pytest.Config) -> None:
    """``--orav-cassettes DIR`` collects DIR even where ``testpaths`` names other folders
    (pytest would otherwise never look there)."""
    given = config.getoption("orav_cassettes")
    if given and config.args_source == pytest.Config.ArgsSource.TESTPATHS:
        config.args = [*config.args, *(str(Path(p).resolve()) for p in given)]


# --- UAT fixtures -------------------------------------------------------------------------------


@pytest.fixture
def uat_app(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """The Textual app under test, built for this test (with a database in ``tmp_path`` when
    its constructor takes one)."""
    return _app_factory(request, tmp_path)()


@pytest.fixture
def uat_driver(request: pytest.FixtureRequest, uat_app: Any, tmp_path: Path) -> UatDriver:
    """Runs scenarios on ``uat_app``: scripted (or ``agent=`` a function) unless the test is
    marked ``live_ai`` or the live switch is on."""
    factory, size = _app_factory(request, tmp_path), _size(request.config)
    if request.node.get_closest_marker("live_ai") is not None or _live_switch(request.config):
        return UatDriver(uat_app, factory, live=_live_agent(), size=size)
    return UatDriver(uat_app, factory, size=size)


@pytest.fixture
def live_uat_driver(uat_app: Any, request: pytest.FixtureRequest, tmp_path: Path) -> UatDriver:
    """Runs scenarios on ``uat_app`` with the live OpenAI-compatible agent (skips without
    credentials)."""
    factory, size = _app_factory(request, tmp_path), _size(request.config)
    return UatDriver(uat_app, factory, live=_live_agent(), size=size)


class UatDriver:
    """The engine driving one Textual app: ``await uat_driver.run(scenario)`` → RunReport.

    ``scenario`` is a Scenario or the path of its YAML file. ``agent`` is an Agent, or a
    function ``(AgentContext) -> Decision | Action`` (see ``orav.agents.function``); by
    default the scenario's script, or the live agent for a live test. Later launches (after a
    crash) build a fresh app the same way.
    """

    def __init__(
        self,
        app: Any,
        factory: Callable[[], Any],
        *,
        live: Agent | None = None,
        size: tuple[int, int] = (80, 24),
    ) -> None:
        self.app = app
        self.factory = factory
        self.live = live
        self.size = size
        self.report: RunReport | None = None

    @property
    def is_live(self) -> bool:
        return self.live is not None

    async def run(
        self, scenario: Scenario | str | Path, *, agent: Agent | Callable | None = None
    ) -> RunReport:
        from orav.drivers.textual import TextualDevice
        from orav.engine import Engine
        from orav.scenario_loader import load_scenario

        playing = load_scenario(Path(scenario)) if isinstance(scenario, (str, Path)) else scenario
        chosen = self._agent(agent)
        first = [self.app]

        def build() -> Any:  # the fixture's app first, fresh ones on relaunch
            return first.pop() if first else self.factory()

        name = type(self.app).__name__
        async with TextualDevice(build, name=name, size=self.size) as device:
            self.report = await Engine(device, chosen).run(playing)
        return self.report

    def run_sync(self, scenario: Scenario | str | Path, **options: Any) -> RunReport:
        """``run`` for a synchronous test."""
        return asyncio.run(self.run(scenario, **options))

    def _agent(self, agent: Agent | Callable | None) -> Agent:
        from orav.agents import Agent as AgentProtocol
        from orav.agents.function import FunctionAgent
        from orav.agents.scripted import ScriptedAgent

        if self.live is not None:
            return self.live
        if agent is None:
            return ScriptedAgent()
        if isinstance(agent, AgentProtocol):
            return agent
        if callable(agent):
            return FunctionAgent(agent)
        raise TypeError(f"agent must be an Agent or a function, not {agent!r}")


def _size(config: pytest.Config) -> tuple[int, int]:
    """The ``orav_size`` ini value (80x24 when not set)."""
    from orav.drivers.textual.spec import parse_size

    text = config.getini("orav_size")
    return parse_size(text) if text else (80, 24)


def _live_switch(config: pytest.Config) -> bool:
    return bool(config.getoption("orav_live_ai")) or os.environ.get(LIVE_ENV, "") not in (
        "",
        "0",
    )


def _live_agent() -> Agent:
    """The OpenAI-compatible agent from the environment; skips the test without credentials."""
    if not (os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL")):
        pytest.skip("live AI test: set OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)")
    from orav.agents.openai import OpenAIAgent

    agent = OpenAIAgent.from_spec("openai:" + os.environ.get(MODEL_ENV, DEFAULT_MODEL))
    if agent.missing_key:
        pytest.skip(f"live AI test: {agent.missing_key}")
    return agent


def _app_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], Any]:
    """A factory of the configured app, with the ``uat_app`` marker's keyword arguments and a
    ``database`` in ``tmp_path`` when the constructor takes one."""
    from orav.drivers.textual import load_app_factory

    config = request.config
    spec = config.getoption("orav_app") or config.getini("orav_app")
    if not spec:
        raise pytest.UsageError(
            "uat_app needs the app under test: set orav_app = package.module:AppClass in the "
            "ini file, pass --orav-app, or override the uat_app fixture"
        )
    app_class = load_app_factory(spec)
    marker = request.node.get_closest_marker("uat_app")
    arguments = dict(marker.kwargs) if marker is not None else {}
    parameters = inspect.signature(getattr(app_class, "app_class", app_class)).parameters
    if "database" in parameters:
        arguments.setdefault("database", tmp_path / "uat.sqlite")
    return lambda: app_class(**arguments)


# --- golden cassettes --------------------------------------------------------------------------


def _folders(config: pytest.Config) -> list[Path]:
    given = [Path(p).resolve() for p in config.getoption("orav_cassettes")]
    return given + [Path(p).resolve() for p in config.getini("orav_cassettes")]


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix != ".cassette":
        return None
    if any(file_path.resolve().is_relative_to(folder) for folder in _folders(parent.config)):
        return CassetteFile.from_parent(parent, path=file_path)
    return None


class CassetteFile(pytest.File):
    def collect(self):
        yield CassetteReplay.from_parent(self, name="replay")


class CassetteReplay(pytest.Item):
    """Replays one cassette offline (faithful, and its recorded run passed), or reruns it
    live with ``--orav-live``."""

    def runtest(self) -> None:
        from orav.session import replay

        config = self.config
        if config.getoption("orav_live"):
            _check_rerun(self, _rerun(self.path, config, scenario=self._scenario()))
            return
        outcome = asyncio.run(replay(self.path))
        if not outcome.faithful:
            raise CassetteDiverged("; ".join(outcome.differences))
        _check_status(outcome.recorded, "passed")

    def _scenario(self) -> Scenario | None:
        """The scenario file of the cassette's scenario, where ``--orav-scenarios`` says."""
        from orav.cassette import read_cassette
        from orav.golden import find_scenario

        config = self.config
        folders = [Path(p) for p in config.getoption("orav_scenarios")]
        folders += [Path(p) for p in config.getini("orav_scenarios")]
        name = read_cassette(self.path).header.scenario.name
        return find_scenario(name, folders) if folders else None

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        from orav.errors import OravError

        if isinstance(excinfo.value, (GoldenFailed, OravError)):
            return _named(self.path, excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"replay {self.path.name}"


class GoldenFailed(Exception):
    """A golden that does not hold: a replay that was not faithful, a recorded or live run
    that did not end as expected, a live rerun that regressed."""


class CassetteDiverged(GoldenFailed):
    """A replay that was not faithful."""


def _named(cassette: Path, exc: BaseException) -> str:
    """The failure, named by its cassette once."""
    text = str(exc)
    return text if text.startswith(f"{cassette.name}: ") else f"{cassette.name}: {text}"


def _check_status(report: RunReport | None, expect: str) -> None:
    """Fail unless ``report`` ended as ``expect`` (``passed``: the goal was met)."""
    if report is None:
        raise GoldenFailed("the recorded run did not finish: no golden")
    from orav.report.console import reasons

    met = report.ok if expect == "passed" else report.status == expect
    if not met:
        why = "; ".join(reasons(report)[1:])  # what was expected and found, the errors
        raise GoldenFailed(
            f"the run ended {report.status}, not {expect}: {report.summary or 'no summary'}"
            + (f" ({why})" if why else "")
            + ("" if expect != "passed" else "; a run that did not pass is no golden")
        )


def _rerun(path: Path, config: pytest.Config, *, scenario: Scenario | None, device=None):
    """Rerun ``path`` live (``--orav-repeat`` times): a Repeated."""
    from orav.golden import repeat

    device = config.getoption("orav_device") or device
    times = config.getoption("orav_repeat")
    return asyncio.run(repeat(path, times, device=device, scenario=scenario))


def _check_rerun(item: pytest.Item, repeated: Any) -> None:
    """Fail when no live run passed; a test that passed only some of the times is flaky,
    which its JUnit properties say."""
    for run in repeated.runs:
        item.user_properties.append(("orav_rerun", run.explain()))
    if repeated.passed == 0:
        raise GoldenFailed(repeated.runs[0].explain())
    if repeated.flaky:
        item.user_properties.append(("orav_flaky", repeated.explain()))
        item.warn(pytest.PytestWarning(f"flaky: {repeated.explain()}"))


# --- scenarios as tests, with cassettes named after them (pytest-recording's terms) ------------


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
    known = {"scenario", "device", "agent", "expect", "cassette", "regression_check"}
    unknown = set(options) - known
    if unknown or "scenario" not in options:
        raise pytest.UsageError(
            f"{request.node.nodeid}: @pytest.mark.orav takes scenario= (required), device=, "
            f"agent=, expect=, cassette= and regression_check=; "
            f"not {sorted(unknown) or 'without scenario'}"
        )
    config = request.config
    mode = "rerun" if config.getoption("orav_live") else _record_mode(config)
    golden = Golden(orav_cassette_dir / options.get("cassette", orav_cassette_name), mode)
    request.node.stash[GOLDEN] = golden
    try:
        _run_golden(request, golden, options)
    except (GoldenFailed, OravError) as exc:
        golden.failure = _named(golden.cassette, exc)
    return golden


def _run_golden(request: pytest.FixtureRequest, golden: Golden, options: dict) -> None:
    """Replay, record or rerun the marked test's scenario, as its mode says."""
    config = request.config
    cassette, mode = golden.cassette, golden.mode
    scenario = _scenario_of(request, options["scenario"])
    device = config.getoption("orav_device") or options.get("device")
    expect = options.get("expect", "passed")
    if mode == "once" and cassette.exists():
        from orav.cassette.mode import passed

        mode = "none" if passed(cassette) else "once"  # a failed one is recorded over
    if mode == "none":
        _replay(golden, expect)
    elif mode == "rerun":
        if not cassette.exists():
            raise GoldenFailed(f"no cassette at {cassette}: record it (--orav-record-mode once)")
        golden.reruns = _rerun(cassette, config, scenario=scenario, device=device)
        golden.report = golden.reruns.runs[-1].report
        _check_rerun(request.node, golden.reruns)
    else:
        from orav.golden import default_device
        from orav.session import record
        from orav.specs import make_agent

        device = device or default_device(scenario)
        agent = make_agent(options.get("agent", "scripted"))
        golden.recording = asyncio.run(
            record(scenario, cassette, device=device, agent=agent, mode=mode)
        )
        golden.report = golden.recording.report
        _check_status(golden.report, expect)
    if mode != "none" and golden.report is not None and golden.report.ok:
        _check_regressions(request, golden, options, scenario, device)


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
    given = config.getoption("orav_record_mode") or config.getini("orav_record_mode") or "none"
    for mode in RECORD_MODES:
        if given == mode:
            return mode
    raise pytest.UsageError(f"orav_record_mode: {given!r} is not one of {RECORD_MODES}")


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
    _check_status(golden.report, expect)
