"""Golden cassettes as tests: every ``*.cassette`` under ``--orav-cassettes`` (or the
``orav_cassettes`` ini value) is one item, ``replay``, or a live rerun with ``--orav-live``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    from _pytest._code.code import TerminalRepr  # pytest does not export the type

    from orav.model import Scenario


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
        "--orav-scenarios",
        action="append",
        default=[],
        metavar="DIR",
        help="where a collected cassette's scenario file is found for --orav-live",
    )
    parser.addini("orav_cassettes", "folders whose *.cassette files are replayed", type="paths")
    parser.addini("orav_scenarios", "folders of the scenarios of collected cassettes", type="paths")


def pytest_configure(config: pytest.Config) -> None:
    """``--orav-cassettes DIR`` collects DIR even where ``testpaths`` names other folders
    (pytest would otherwise never look there)."""
    given = config.getoption("orav_cassettes")
    if given and config.args_source == pytest.Config.ArgsSource.TESTPATHS:
        config.args = [*config.args, *(str(Path(p).resolve()) for p in given)]


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
            check_rerun(self, rerun(self.path, config, scenario=self._scenario()))
            return
        outcome = asyncio.run(replay(self.path))
        if not outcome.faithful:
            raise CassetteDiverged("; ".join(outcome.differences))
        check_status(outcome.recorded, "passed", self.path)

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
            return named(self.path, excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"replay {self.path.name}"
