"""A judge's answer to a claim about one screen, and the judged claim as a report lists it."""

from __future__ import annotations

from attrs import field, frozen

from orav.model.decision import ModelCall
from orav.model.geometry import Frame
from orav.model.limits import at_least, at_most

SURE = 0.7  # the confidence below which a judgement is unsure, and fails with its reason
MAX_EVIDENCE = 2000  # characters of evidence kept


def _clip(text: str) -> str:
    return text if len(text) <= MAX_EVIDENCE else text[: MAX_EVIDENCE - 1] + "…"


@frozen
class Judgement:
    """Whether a claim ``holds`` on the screen, the ``evidence`` the judge saw, how sure it is
    (``confidence``, 0 to 1), what asking a model cost (``call``), and where on the screen the
    evidence is (``at``: the frame of the element it points at, or a point as an empty frame;
    None when it points at nothing)."""

    holds: bool
    evidence: str = field(default="", converter=_clip)
    confidence: float = field(default=1.0, validator=[at_least(0), at_most(1)])
    call: ModelCall | None = None
    at: Frame | None = None

    @property
    def sure(self) -> bool:
        return self.confidence >= SURE

    @property
    def passed(self) -> bool:
        """The claim holds, and the judge is sure of it."""
        return self.holds and self.sure

    def reason(self) -> str:
        """Why it failed, in the judge's words: "" when it passed."""
        if self.passed:
            return ""
        evidence = self.evidence or "no evidence given"
        if not self.sure:
            return f"the judge is unsure (confidence {self.confidence:.2f}): {evidence}"
        return evidence


@frozen
class Judged:
    """One claim judged in a run: at which step (0: a precondition), on which screen (its
    digest, ``orav.perceive.change.screen_digest``), and the judgement."""

    step: int
    claim: str
    screen: str
    holds: bool
    evidence: str = ""
    confidence: float = 1.0
    at: Frame | None = None  # where the evidence is on the screen (``Judgement.at``)

    @property
    def passed(self) -> bool:
        return self.holds and self.confidence >= SURE

    @classmethod
    def of(cls, step: int, claim: str, screen: str, judgement: Judgement) -> Judged:
        j = judgement
        return cls(step, claim, screen, j.holds, j.evidence, j.confidence, j.at)
