"""pytest plugin: every golden cassette is a test that replays it offline.

    pytest --orav-cassettes recordings/        # or, in pytest.ini: orav_cassettes = recordings

Each ``*.cassette`` file under those folders becomes one test item, ``replay``, that passes when
the replay is faithful and fails with the divergence or the report differences otherwise.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("orav")
    group.addoption(
        "--orav-cassettes",
        action="append",
        default=[],
        metavar="DIR",
        help="replay every *.cassette under DIR as a test (repeatable)",
    )
    parser.addini("orav_cassettes", "folders whose *.cassette files are replayed", type="paths")


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
