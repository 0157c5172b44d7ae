"""The Judge protocol: whether a claim in words holds on a screen.

A success criterion, a precondition or an ``assert`` step may be a sentence ("the cart shows two
items") or a named state judged in words (``logged_in: true``); a judge decides it on the
screen, with its evidence and confidence (``orav.model.Judgement``). Judges:

- ``table:FILE`` (``orav.judges.table``): free and deterministic, for tests and CI: each claim's
  answer, or the selector checks that decide it, from a YAML table;
- ``openai:MODEL`` (``orav.judges.model``): a model shown the goal, the screenshot and the tree;
- ``class:package.module:Class``: a judge of your own.

A judge needs ``name`` and ``judge``; one that holds an API key has ``secrets``, one with
connections ``close()``, as agents do (``orav.agents``).
"""

from __future__ import annotations

import unicodedata
from typing import Protocol, runtime_checkable

from attrs import frozen

from orav.model import Judgement, Observation, Scenario


@frozen
class Question:
    """A claim to judge on ``observation`` at ``step`` (0: a precondition), in ``scenario``."""

    claim: str
    observation: Observation
    scenario: Scenario
    step: int = 0


@runtime_checkable
class Judge(Protocol):
    """Decides claims about screens. ``name`` goes into the cassette (``table:judge.yaml``).

    Raise ``orav.errors.AgentError`` when no answer can be had within the budget; answer with a
    low ``confidence`` when unsure (the claim then fails with the judge's reason).
    """

    name: str

    async def judge(self, question: Question) -> Judgement: ...


def normal(claim: str) -> str:
    """A claim as tables key it: words in one Unicode form (NFKC) and case (casefold: ß is
    ss), single spaces, no end punctuation."""
    return " ".join(unicodedata.normalize("NFKC", claim).casefold().split()).rstrip(".!")
