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
passes when the replay is faithful.
"""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from orav.agents import Agent
    from orav.model import RunReport, Scenario

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
    parser.addini("orav_cassettes", "folders whose *.cassette files are replayed", type="paths")
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
        from orav.scenario import load_scenario

        if not hasattr(scenario, "goal"):
            scenario = load_scenario(Path(scenario))
        chosen = self._agent(agent)
        first = [self.app]

        def build() -> Any:  # the fixture's app first, fresh ones on relaunch
            return first.pop() if first else self.factory()

        name = type(self.app).__name__
        async with TextualDevice(build, name=name, size=self.size) as device:
            self.report = await Engine(device, chosen).run(scenario)
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
    from orav.drivers.textual.device import parse_size

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
    """Replays one cassette offline; faithful or failed."""

    def runtest(self) -> None:
        from orav.runner import replay

        outcome = asyncio.run(replay(self.path))
        if not outcome.faithful:
            raise CassetteDiverged("; ".join(outcome.differences))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> str:
        from orav.errors import OravError

        if isinstance(excinfo.value, (CassetteDiverged, OravError)):
            return f"{self.path.name}: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"replay {self.path.name}"


class CassetteDiverged(Exception):
    """A replay that was not faithful."""
