"""Fixtures shared across test files. Helpers that are plain code (app models, strategies, the
loopback model server) live in modules beside this one, imported by name
(``from model_server import answer``): pytest puts tests/ on the path."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from model_server import ModelServer, serving


@pytest.fixture
def server() -> Iterator[ModelServer]:
    """The loopback OpenAI-compatible model server, started, with no reply queued."""
    with serving() as model:
        yield model
