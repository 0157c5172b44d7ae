"""The table judge: free and deterministic, for tests and CI (the scripted agent's counterpart).

A YAML table maps each claim to how it is decided: ``true`` or ``false`` (a fixed answer), or
one or a list of selector checks (an ``assert``'s ``target``, ``condition``, ``value``) that
must all hold on the screen::

    the cart shows two items: {target: {id: cart_badge}, condition: value_equals, value: "2"}
    logged in: [{target: {id: tab_profile}}, {target: {id: sign_in}, condition: absent}]
    no error message is visible: true

Claims are matched by their words (case, Unicode form, spacing and a final full stop aside).
A claim the table lacks is judged unsure, so it fails and says which file to add it to. A claim
its checks decide points at the first element they found (the report marks it on the
screenshot).
"""

from __future__ import annotations

from pathlib import Path

from orav.codec import read_located, read_text, show, structure
from orav.errors import InputError
from orav.judges import Question, normal
from orav.model import Assert, Judgement
from orav.perceive.assertions import check, describe_assertion, found_instead
from orav.perceive.targets import target_element

Answer = bool | tuple[Assert, ...]


class TableJudge:
    """Judges claims from ``answers`` (claim → a fixed answer or the checks that decide it)."""

    def __init__(self, answers: dict[str, Answer], name: str = "table") -> None:
        self.name = name
        self.answers = {normal(claim): answer for claim, answer in answers.items()}

    @classmethod
    def load(cls, path: str | Path, name: str | None = None) -> TableJudge:
        """The table in the YAML file at ``path`` (``name``: how cassettes and results name
        it, default ``table:PATH``); every error names file:line:col."""
        source = str(path)
        text = read_text(Path(path), source)
        data, at = read_located(text, source)
        if not isinstance(data, dict):
            what = f"expected a mapping of claims to answers, got {show(data)}"
            raise InputError(what, at(()))
        answers: dict[str, Answer] = {}
        for claim, value in data.items():
            if not isinstance(claim, str) or not claim.strip():
                raise InputError(f"a claim is a sentence, got {show(claim)}", at((claim,)))
            if isinstance(value, bool):
                answers[claim] = value
                continue
            items = value if isinstance(value, list) else [value]
            if not items or not all(isinstance(item, dict) for item in items):
                what = f"{claim}: expected true, false or selector checks, got {show(value)}"
                raise InputError(what, at((claim,)))
            listed = isinstance(value, list)

            def where_in(path: tuple, claim: str = claim, listed: bool = listed) -> str:
                return at((claim, *(path if listed else path[1:])))

            checks = structure(items, tuple[Assert, ...], source=source, locate=where_in)
            if any(c.claim is not None for c in checks):
                what = f"{claim}: a table decides a claim by selectors, not words"
                raise InputError(what, at((claim,)))
            answers[claim] = checks
        return cls(answers, name=name or f"table:{path}")

    async def judge(self, question: Question) -> Judgement:
        answer = self.answers.get(normal(question.claim))
        if answer is None:
            where = self.name.removeprefix("table:")
            return Judgement(False, f"the table has no answer for this claim: add it to {where}", 0)
        if isinstance(answer, bool):
            return Judgement(answer, "as the table says")
        seen = question.observation
        missed = [c for c in answer if not check(c, seen)]
        if missed:
            first = missed[0]
            return Judgement(False, f"{describe_assertion(first)}: {found_instead(first, seen)}")
        found = [target_element(seen, c.target) for c in answer if c.target is not None]
        at = next((element.frame for element in found if element is not None), None)
        return Judgement(True, "; ".join(describe_assertion(c) for c in answer), at=at)
