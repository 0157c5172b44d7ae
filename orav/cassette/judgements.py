"""Judgements as recorded facts: a judge's answers written to the cassette, served back by a
replay, served to a live rerun while the screen is the recorded one, and compared with a
candidate judge's.

API::

    judge = RecordingJudge(judge, writer)          # asks ``judge``, writes each JudgeEvent
    judge = ReplayJudge(cassette)                  # serves them in order: no model, no server
    judge = RerunJudge(cassette, live=None)        # recorded where the screen is the same
    judge = ComparingJudge(ReplayJudge(c), candidate)  # the candidate's disagreements

Every judgement is keyed by its claim and the screen's digest
(``orav.perceive.change.screen_digest``): a replay must ask the recorded claim on the recorded
screen, else ``ReplayDivergence``; a rerun asks ``live`` again only where the screen differs.
"""

from __future__ import annotations

import asyncio

from attrs import frozen

from orav.cassette.events import JudgeEvent, Raised
from orav.cassette.reader import Cassette
from orav.cassette.replay import Track
from orav.cassette.writer import CassetteWriter
from orav.errors import AgentError, OravError
from orav.judges import Judge, Question
from orav.model import Judgement
from orav.perceive.change import screen_digest


class RecordingJudge:
    """A Judge that passes every question to ``judge`` and records its answer."""

    def __init__(self, judge: Judge, writer: CassetteWriter) -> None:
        self._judge = judge
        self._writer = writer
        self.name = judge.name

    async def judge(self, question: Question) -> Judgement:
        screen = screen_digest(question.observation)

        def event(judgement: Judgement | None = None, raised: Raised | None = None) -> JudgeEvent:
            return JudgeEvent(question.step, question.claim, screen, judgement, raised)

        try:
            judgement = await self._judge.judge(question)
        except OravError as exc:
            self._writer.write(event(raised=Raised.of(exc)))
            raise
        except (asyncio.CancelledError, TimeoutError):
            self._writer.write(event(raised=Raised.deadline()))
            raise
        self._writer.write(event(judgement))
        return judgement


class ReplayJudge:
    """Serves a cassette's judgements in order; the claim and the screen must be the recorded."""

    def __init__(self, cassette: Cassette) -> None:
        self._track = Track(cassette, (JudgeEvent,), "judge")
        self.name = "replay"

    @property
    def pending(self) -> int:
        return self._track.pending

    async def judge(self, question: Question) -> Judgement:
        actual = f"judge {question.claim!r}"
        index, event = self._track.peek(JudgeEvent, actual)
        if event.claim != question.claim:
            self._track.diverge(index, f"judge {event.claim!r}", actual)
        screen = screen_digest(question.observation)
        if event.screen != screen:
            what = f"on screen {event.screen}, not {screen}"
            self._track.diverge(index, f"judge {event.claim!r} {what}", actual)
        self._track.advance()
        if event.raised is not None:
            raise event.raised.exception()
        return event.judgement


class RerunJudge:
    """For a live rerun: a recorded judgement of the same claim on the same screen is served;
    elsewhere ``live`` is asked again (``asked``), or, without one, the claim is unsure."""

    def __init__(self, cassette: Cassette, live: Judge | None = None) -> None:
        self._recorded = [
            (e.claim, e.screen, e.judgement)
            for e in cassette.events
            if isinstance(e, JudgeEvent) and e.judgement is not None
        ]
        self._live = live
        self.name = live.name if live is not None else "recorded"
        self.served = 0
        self.asked: list[str] = []  # the claims asked again, the screen having changed

    async def judge(self, question: Question) -> Judgement:
        screen = screen_digest(question.observation)
        for claim, recorded, judgement in self._recorded:
            if claim == question.claim and recorded == screen:
                self.served += 1
                return judgement
        self.asked.append(question.claim)
        if self._live is None:
            why = "the screen differs from the recording and no judge was given to ask (--judge)"
            return Judgement(False, why, 0.0)
        return await self._live.judge(question)


@frozen
class JudgementDiff:
    """A claim a candidate judge decided otherwise than the recording."""

    step: int
    claim: str
    recorded: str
    candidate: str


def _verdict(judgement: Judgement) -> str:
    return "holds" if judgement.passed else "fails"


class ComparingJudge:
    """Serves ``recorded``'s judgements and collects where ``candidate`` would have differed
    (passed against failed: the evidence is prose)."""

    def __init__(self, recorded: Judge, candidate: Judge) -> None:
        self.recorded = recorded
        self.candidate = candidate
        self.name = candidate.name
        self.differences: list[JudgementDiff] = []
        self.compared = 0

    async def judge(self, question: Question) -> Judgement:
        expected = await self.recorded.judge(question)
        self.compared += 1
        try:
            candidate = await self.candidate.judge(question)
        except AgentError as exc:
            shown = f"no judgement: {exc}"
        else:
            if candidate.passed == expected.passed:
                return expected
            shown = f"{_verdict(candidate)} ({candidate.reason() or candidate.evidence})"
        recorded = f"{_verdict(expected)} ({expected.reason() or expected.evidence})"
        self.differences.append(JudgementDiff(question.step, question.claim, recorded, shown))
        return expected
