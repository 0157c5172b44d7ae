"""The model judge: any OpenAI-compatible (vision) model decides whether a claim holds.

It is shown the goal, the claim, the screenshot and the compact element tree (secure values as
bullets, the test password and ``${NAME}`` values by their stand-ins, ``orav.secrets``), and answers a small schema:
``holds``, the ``evidence`` it saw, its ``confidence``, read as the LLM agent reads its answers
(in a fence, after prose, in tool-call tags or a tool call). An answer off the schema is
re-asked with the reason, within the agent's budget, and past it the claim fails, unsure, with
that reason; the connection, retries, prices and the looser ways a server that refuses the
schema is asked are the LLM agent's (``orav.agents.openai``), so ``--judge openai:MODEL`` takes
the same options.
"""

from __future__ import annotations

import asyncio
import math
import re
import time
from typing import Any, Self

from attrs import evolve

from orav.agents.completion import kept, prompt_digest, reply_of, token_counts
from orav.agents.openai import OpenAIAgent, Refused, reask
from orav.agents.prompt import encode_tree, screenshot_data_url
from orav.agents.refs import element_at, named
from orav.agents.reply import InvalidAnswer, ToolCall, answer_object, answer_objects
from orav.codec import show
from orav.judges import Question
from orav.model import Element, Frame, Judgement
from orav.secrets import Scrubber, scenario_secrets

JUDGE_PROMPT = """\
You judge one claim about the screen of an app under test, for a UI acceptance test. Look at \
the screenshot and the element tree (one element a line: ref, role, "label", #id, =value, \
@centre) and answer with one JSON object:
- holds: true when the claim is true of this screen as it is now, else false;
- evidence: one sentence naming what on the screen shows it (quote labels and values);
- confidence: 0 to 1, how sure you are; below 0.7 when the screen does not show enough to tell;
- element: the ref (e12) of the element that shows it most, or null.
Judge only what the screen shows; do not assume what it might show after another action."""

JUDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "holds": {"type": "boolean"},
        "evidence": {"type": "string"},
        "confidence": {"type": "number"},
        "element": {"type": ["string", "null"]},
    },
    "required": ["holds", "evidence", "confidence", "element"],
    "additionalProperties": False,
}
_FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": "orav_judgement", "strict": True, "schema": JUDGE_SCHEMA},
}
_QUOTED = re.compile(r'"([^"]{1,200})"|“([^”]{1,200})”|\'([^\']{1,200})\'')
_NUMBER = r"-?\d+(?:\.\d+)?"
_POINT = re.compile(rf"\(?\s*({_NUMBER})\s*,\s*({_NUMBER})\s*\)?")
_POINT_IN = re.compile(rf"\(\s*{_NUMBER}\s*,\s*{_NUMBER}\s*\)")
_TRUTHS = {"yes": True, "true": True, "1": True, "no": False, "false": False, "0": False}


def _truth(value: Any) -> bool | None:
    """``holds`` as a truth value: a boolean, 1 or 0, or yes / no / true / false in any case
    and punctuation; None when it says neither (null, "unsure", "partly")."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        return _TRUTHS.get(value.strip().strip(".!").strip().lower())
    return None


def _confidence(value: Any) -> float:
    """``confidence`` from 0 to 1: a number, a percentage (85, "85%"), or a number's text."""
    number = value
    if isinstance(value, str):
        text = value.strip().removesuffix("%").strip()
        try:
            number = float(text)
        except ValueError:
            number = None
        if number is not None and value.strip().endswith("%"):
            number /= 100
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        raise InvalidAnswer(f"confidence: expected a number from 0 to 1, got {show(value)}")
    if 1 < number <= 100:  # a percentage
        number /= 100
    if not 0 <= number <= 1:
        raise InvalidAnswer(f"confidence: expected a number from 0 to 1, got {show(value)}")
    return float(number)


def _evidence(value: Any) -> str:
    """``evidence`` as text: a sentence, a list's items, an object's fields, nothing lost."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return "; ".join(_evidence(item) for item in value)
    if isinstance(value, dict):
        return "; ".join(f"{key}: {_evidence(item)}" for key, item in value.items())
    return str(value)


def _point(value: Any) -> tuple[float, float] | None:
    """A point written as ``[x, y]``, ``{"x": x, "y": y}`` or ``"(x, y)"``, finite."""
    if isinstance(value, dict):
        value = [value.get("x"), value.get("y")]
    if isinstance(value, str):
        found = _POINT.fullmatch(value.strip())
        value = [float(found.group(1)), float(found.group(2))] if found else None
    if not isinstance(value, list) or len(value) != 2:
        return None
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in value):
        return None
    x, y = float(value[0]), float(value[1])
    return (x, y) if math.isfinite(x) and math.isfinite(y) else None


def _pointed(data: dict[str, Any], refs: dict[str, Element]) -> Frame | None:
    """Where the evidence is: the element the answer names (``element`` as a ref, a label or a
    point; else a label the evidence quotes, or a point it gives), its frame; a point on no
    element as an empty frame. None where it names nothing on the screen."""
    evidence = data.get("evidence")
    said = [data.get("element")]
    if isinstance(evidence, dict):
        said += [evidence.get("element"), evidence.get("label")]
    if isinstance(evidence, str):
        said += [quoted for pair in _QUOTED.findall(evidence) for quoted in pair if quoted]
        said += [found.group(0) for found in _POINT_IN.finditer(evidence)]
    for value in said:
        point = _point(value)
        if point is not None:
            under = element_at(*point, refs)
            return under.frame if under is not None else Frame(*point)
        if isinstance(value, str) and value.strip():
            element = refs.get(value.strip()) or named(value, refs)
            if element is not None:
                return element.frame
    return None


def parse_judgement(
    text: str, tool_calls: tuple[ToolCall, ...] = (), refs: dict[str, Element] | None = None
) -> Judgement:
    """A model's answer as a Judgement, wherever the server put the object (the LLM agent's
    tolerant reading, ``orav.agents.reply``); InvalidAnswer with a reason the model can act
    on. An answer that decides neither way (``holds`` null, "unsure"), or both ways (two
    answers that disagree), is unsure: the claim fails with the judge's words. ``refs``: the
    tree's elements as the prompt cited them, for where the evidence points."""
    data = answer_object(text, tool_calls, key="holds")
    if "holds" not in data:
        raise InvalidAnswer("holds: missing; expected true or false")
    evidence = _evidence(data.get("evidence"))
    holds = _truth(data["holds"])
    verdicts = {_truth(found["holds"]) for found in answer_objects(text, tool_calls, "holds")}
    if len(verdicts | {holds}) > 1:
        return Judgement(False, f"the judge's answers disagree: {evidence}", 0.0)
    if holds is None:
        said = f"holds: {show(data['holds'])}"
        return Judgement(False, f"{said}: {evidence}" if evidence else said, 0.0)
    confidence = _confidence(data.get("confidence", 1.0))
    return Judgement(holds, evidence, confidence, at=_pointed(data, refs or {}))


class ModelJudge:
    """The Judge protocol over an OpenAI-compatible model (the LLM agent's connection)."""

    def __init__(self, model: OpenAIAgent) -> None:
        self._model = model
        self.name = model.name
        self.model = model.model

    @classmethod
    def from_spec(cls, spec: str, **options: Any) -> ModelJudge:
        return cls(OpenAIAgent.from_spec(spec, **options))

    @property
    def secrets(self) -> tuple[str, ...]:
        return self._model.secrets

    @property
    def missing_key(self) -> str | None:
        return self._model.missing_key

    def messages(self, question: Question, image: tuple[str, tuple[int, int]] | None) -> list[dict]:
        observation = question.observation
        tree, _ = encode_tree(observation)
        app = observation.app or question.scenario.app
        text = "\n".join(
            [
                f"Goal of the test: {question.scenario.goal}",
                f"Claim: {question.claim}",
                f"Screen: app {app}. Elements:",
                tree or "(no elements)",
            ]
        )
        if image is None and observation.text:
            text += "\nScreen text:\n" + observation.text
        text = Scrubber(self.secrets, named=scenario_secrets(question.scenario)).text(text)
        content: Any = text
        if image is not None:
            content = [
                {"type": "text", "text": text},
                {"type": "image_url", "image_url": {"url": image[0]}},
            ]
        return [{"role": "system", "content": JUDGE_PROMPT}, {"role": "user", "content": content}]

    async def judge(self, question: Question) -> Judgement:
        """Ask the model; re-ask with the problem until it answers the schema, or give up."""
        model, config = self._model, self._model.config
        shot = question.observation.screenshot
        image = None
        if config.send_screenshot and shot is not None and shot.data:
            image = await asyncio.to_thread(screenshot_data_url, shot, config.screenshot_max_size)
        conversation = self.messages(question, image)
        _, refs = encode_tree(question.observation)  # what the prompt cited, for ``at``
        digest = prompt_digest(conversation)
        prompt_tokens = completion_tokens = 0
        latency = 0.0
        problem, text = "", ""
        for attempt in range(1, config.reasks + 2):
            started = time.perf_counter()
            text = ""
            try:
                try:
                    completion = await self._complete(conversation)
                finally:
                    latency += time.perf_counter() - started
                prompt, completed = token_counts(completion)
                prompt_tokens += prompt
                completion_tokens += completed
                text, calls = reply_of(completion, config.max_output_tokens)
                judgement = parse_judgement(text, calls, refs)
            except InvalidAnswer as exc:
                problem = str(exc)
                conversation += reask(text, problem, "one JSON object: holds, evidence, confidence")
                continue
            got = getattr(completion, "model", None)
            call = model._call(
                got if isinstance(got, str) else None,
                digest,
                kept(text),
                prompt_tokens,
                completion_tokens,
                latency,
                attempt,
            )
            return evolve(judgement, call=call)
        call = model._call(
            None, digest, kept(text), prompt_tokens, completion_tokens, latency, attempt
        )
        why = f"its answer could not be read after {attempt} answers: {problem}"
        return Judgement(False, why, 0.0, call)

    async def _complete(self, conversation: list[dict]) -> Any:
        """One model call for the judgement's schema, asked the next looser way (as the agent
        asks) where the server refuses it."""
        while True:
            try:
                return await self._model._complete(conversation, _FORMAT)
            except Refused as refused:
                self._model.loosen(str(refused))

    async def close(self) -> None:
        await self._model.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
