"""Fixtures shared across test files, and a map of tests/ for a newcomer.

Helpers that are plain code live in modules beside this one, imported by name
(``from model_server import answer``: pytest puts tests/ on the path; it is not a package):

- ``command.py``: the real ``orav`` command in its own process, as a user runs it.
- ``model_server.py``: a scripted OpenAI-compatible server on 127.0.0.1 (one queued reply per
  request) and the demo-like login the agent is asked about; ``standin.py``: one that plays a
  model (answers from the screen it is sent).
- ``strategies.py``: hypothesis strategies for orav's value types.
- ``recovery_paths.py``: what a run's recovery machine went through, walks recorded on the
  simulator, the real-time stalls scaled down.
- ``explorer_runs.py``, ``report_runs.py``, ``perceive_screens.py``, ``fuzz_corpus.py``: runs,
  cassettes, screens and hostile inputs made for those tests.
- ``chromium.py``, ``textual_venvs.py``: a headless browser; venvs with another Textual.
- App models and apps: ``apps/`` (written for these tests), ``unseen_apps/`` (written by
  another hand, in words orav's code never saw), ``textual_examples/``, ``companion_app.py``,
  ``world_app.py``.

Tests marked ``slow`` take over ~10 s for the reason on the mark; CI runs them all.
"""

from __future__ import annotations

import compileall
from collections.abc import Iterator
from pathlib import Path

import pytest
from model_server import ModelServer, serving

import orav


def pytest_configure(config: pytest.Config) -> None:
    """orav's bytecode written once, before the workers start: hundreds of tests run ``orav``
    in a process of its own, and where PYTHONDONTWRITEBYTECODE is set (as on this project's
    machines) each one compiled every module it imports again (~0.4 s of CPU a process)."""
    if not hasattr(config, "workerinput"):  # the controller, not each xdist worker
        compileall.compile_dir(Path(orav.__file__).parent, quiet=2)


@pytest.fixture
def server() -> Iterator[ModelServer]:
    """The loopback OpenAI-compatible model server, started, with no reply queued."""
    with serving() as model:
        yield model


@pytest.fixture(autouse=True)
def _extensions_outlive_pytester(request: pytest.FixtureRequest) -> None:
    """pytester's in-process runs put ``sys.modules`` back as it was before each run, dropping
    what the run imported; numpy's C extension cannot load twice in a process, so a numpy first
    imported inside such a run broke every later ``import numpy`` in that pytest worker (11
    tests of the change measure, in CI). Imported before pytester takes its snapshot, it stays."""
    if "pytester" in request.fixturenames:
        import numpy  # noqa: F401
