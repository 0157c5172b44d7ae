"""The UAT fixtures: ``uat_app`` (the Textual app under test, built for the test),
``uat_driver`` and ``live_uat_driver`` (run scenarios on it), and their ``UatDriver``."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from orav.pytest_plugin.live_ai import live_agent, live_switch

if TYPE_CHECKING:
    from orav.agents import Agent
    from orav.model import RunReport, Scenario


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("orav")
    group.addoption(
        "--orav-app",
        default=None,
        metavar="MODULE:CLASS",
        help="the Textual app the uat_app fixture builds (else the orav_app ini value)",
    )
    parser.addini("orav_app", "the Textual app of the uat_app fixture, package.module:AppClass")
    parser.addini("orav_size", "the terminal size of the uat_driver fixture, WIDTHxHEIGHT")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "uat_app(**kwargs): keyword arguments for the app the uat_app fixture builds"
    )


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
    if request.node.get_closest_marker("live_ai") is not None or live_switch(request.config):
        return UatDriver(uat_app, factory, live=live_agent(), size=size)
    return UatDriver(uat_app, factory, size=size)


@pytest.fixture
def live_uat_driver(uat_app: Any, request: pytest.FixtureRequest, tmp_path: Path) -> UatDriver:
    """Runs scenarios on ``uat_app`` with the live OpenAI-compatible agent (skips without
    credentials)."""
    factory, size = _app_factory(request, tmp_path), _size(request.config)
    return UatDriver(uat_app, factory, live=live_agent(), size=size)


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
