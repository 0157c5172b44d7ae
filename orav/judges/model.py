"""The model judge: any OpenAI-compatible (vision) model decides whether a claim holds.

It is shown the goal, the claim, the screenshot and the compact element tree (secure values as
bullets, the test password and ``${NAME}`` values by their stand-ins, ``orav.secrets``), and answers a small schema:
``holds``, the ``evidence`` it saw, its ``confidence``, read as the LLM agent reads its answers
(in a fence, after prose, in tool-call tags or a tool call). An answer off the schema is
re-asked with the reason, within the agent's budget; the connection, retries and prices are the LLM
agent's (``orav.agents.openai``), so ``--judge openai:MODEL`` takes the same options.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Self

from orav.agents.completion import kept, prompt_digest, reply_of, token_counts
from orav.agents.openai import OpenAIAgent, reask
from orav.agents.prompt import encode_tree, screenshot_data_url
from orav.agents.reply import InvalidAnswer, ToolCall, answer_object
from orav.judges import Question
from orav.model import Judgement
from orav.secrets import Scrubber, scenario_secrets

JUDGE_PROMPT = """\
You judge one claim about the screen of an app under test, for a UI acceptance test. Look at \
the screenshot and the element tree (one element a line: ref, role, "label", #id, =value, \
@centre) and answer with one JSON object:
- holds: true when the claim is true of this screen as it is now, else false;
- evidence: one sentence naming what on the screen shows it (quote labels and values);
- confidence: 0 to 1, how sure you are; below 0.7 when the screen does not show enough to tell.
Judge only what the screen shows; do not assume what it might show after another action."""

JUDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "holds": {"type": "boolean"},
        "evidence": {"type": "string"},
        "confidence": {"type": "number"},
    },
    "required": ["holds", "evidence", "confidence"],
    "additionalProperties": False,
}
_FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": "orav_judgement", "strict": True, "schema": JUDGE_SCHEMA},
}
_WORDS = {"yes": True, "true": True, "no": False, "false": False}


def parse_judgement(text: str, tool_calls: tuple[ToolCall, ...] = ()) -> Judgement:
    """A model's answer as a Judgement, wherever the server put the object (the LLM agent's
    tolerant reading, ``orav.agents.reply``); InvalidAnswer with a reason the model can act
    on."""
    data = answer_object(text, tool_calls)
    holds = data.get("holds")
    if isinstance(holds, str):
        holds = _WORDS.get(holds.strip().lower(), holds)
    if not isinstance(holds, bool):
        raise InvalidAnswer("holds: expected true or false")
    evidence = data.get("evidence", "")
    if not isinstance(evidence, str):
        raise InvalidAnswer("evidence: expected a sentence")
    confidence = data.get("confidence", 1.0)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        raise InvalidAnswer("confidence: expected a number from 0 to 1")
    if not 0 <= confidence <= 1:
        if 1 < confidence <= 100:  # a percentage
            confidence = confidence / 100
        else:
            raise InvalidAnswer("confidence: expected a number from 0 to 1")
    return Judgement(holds, evidence.strip(), float(confidence))


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
        digest = prompt_digest(conversation)
        prompt_tokens = completion_tokens = 0
        latency = 0.0
        problem, text = "", ""
        for attempt in range(1, config.reasks + 2):
            started = time.perf_counter()
            text = ""
            try:
                try:
                    completion = await model._complete(conversation, _FORMAT)
                finally:
                    latency += time.perf_counter() - started
                prompt, completed = token_counts(completion)
                prompt_tokens += prompt
                completion_tokens += completed
                text, calls = reply_of(completion, config.max_output_tokens)
                judgement = parse_judgement(text, calls)
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
            return Judgement(judgement.holds, judgement.evidence, judgement.confidence, call)
        error = model._error(f"no valid judgement after {config.reasks + 1} answers: {problem}")
        error.call = model._call(
            None, digest, kept(text), prompt_tokens, completion_tokens, latency, attempt
        )
        raise error

    async def close(self) -> None:
        await self._model.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
