"""The ``live_ai`` marker and switch (``--orav-live-ai``, ``ORAV_LIVE_AI=1``): which tests get
the live OpenAI-compatible agent, and that agent, built from the environment."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from orav.agents import Agent

LIVE_ENV = "ORAV_LIVE_AI"
MODEL_ENV = "ORAV_MODEL"
DEFAULT_MODEL = "gpt-4o-mini"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("orav").addoption(
        "--orav-live-ai",
        action="store_true",
        default=None,
        help=f"uat_driver uses the live LLM agent in every test (or {LIVE_ENV}=1)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "live_ai: run with the live LLM agent (uat_driver); skipped without credentials",
    )


def live_switch(config: pytest.Config) -> bool:
    """Whether every test goes live: ``--orav-live-ai`` or ``ORAV_LIVE_AI`` set (not ``0``)."""
    return bool(config.getoption("orav_live_ai")) or os.environ.get(LIVE_ENV, "") not in (
        "",
        "0",
    )


def live_agent() -> Agent:
    """The OpenAI-compatible agent from the environment; skips the test without credentials."""
    if not (os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL")):
        pytest.skip("live AI test: set OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)")
    from orav.agents.openai import OpenAIAgent

    agent = OpenAIAgent.from_spec("openai:" + os.environ.get(MODEL_ENV, DEFAULT_MODEL))
    if agent.missing_key:
        pytest.skip(f"live AI test: {agent.missing_key}")
    return agent
