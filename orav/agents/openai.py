"""The LLM agent: any OpenAI-compatible (vision) model decides each step via Chat Completions.

One call per step both verifies the previous action (``previous_outcome_met``) and decides the
next, under a strict JSON schema (or as a call of the ``decide`` tool); the answer is still
read tolerantly and validated (local servers may ignore the schema, a model family answers in
its own words and coordinates) and re-asked with the error, up to a budget. A server that
refuses how the answer is asked for (HTTP 400 or 422) is asked again the next looser way, once
per way, and the agent keeps to it. ``openai`` is imported on first use only.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import os
import re
import time
from typing import TYPE_CHECKING, Any, Self

import attrs

from orav.agents import AgentContext
from orav.agents.answer import InvalidAnswer, parse_answer
from orav.agents.completion import NOT_A_COMPLETION, kept, prompt_digest, reply_of, token_counts
from orav.agents.family import family_of
from orav.agents.marks import marked
from orav.agents.openai_config import OPENAI_URL, OpenAIConfig, price_of, public_url, url_problem
from orav.agents.prompt import build_messages, screenshot_data_url, space_of
from orav.agents.schema import ANSWER_SCHEMA, RESPONSE_FORMAT, TOOL
from orav.agents.space import Space
from orav.errors import AgentError
from orav.model import Decision, Element, ModelCall
from orav.perceive.legend import Legends
from orav.perceive.screens import screen_name
from orav.secrets import REDACTED, Scrubber, scenario_secrets

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion

log = logging.getLogger(__name__)


MAX_RESPONSE_BYTES = 4 * 1024 * 1024  # of one HTTP response: a real completion is a few KB


class _TooLarge(Exception):
    """A response whose Content-Length is past MAX_RESPONSE_BYTES, refused before its body."""


def _too_large(exc: _TooLarge) -> InvalidAnswer:
    limit = MAX_RESPONSE_BYTES // (1024 * 1024)
    return InvalidAnswer(f"{exc}, more than {limit} MB; keep the reasoning to one sentence")


# How an answer is asked for, strictest first: a server that refuses one gets the next.
MODES = ("tool", "json_schema", "json_object", "text")


class Refused(Exception):
    """The server refused the request's ``response_format`` or ``tools`` (HTTP 400 or 422)."""


def _mark(
    messages: list[dict[str, Any]], refs: dict[str, Any], size: tuple[int, int], space: Space
) -> None:
    """The user turn's screenshot with numbered marks (``orav.agents.marks``), said in its text."""
    text, image = messages[1]["content"]
    points = (space.width * space.x_points, space.height * space.y_points)
    url = marked(image["image_url"]["url"], refs, size[0] / points[0], size[1] / points[1])
    image["image_url"]["url"] = url
    text["text"] += (
        "\nThe screenshot is marked: the number at an element's top left corner is its "
        "reference (12 is e12)."
    )


class OpenAIAgent:
    """The Agent protocol over an OpenAI-compatible Chat Completions endpoint."""

    reconsiders = True  # a model answers each step afresh: told its done is unproven, it goes on

    def __init__(self, config: OpenAIConfig) -> None:
        self.config = config
        self.name = f"openai:{config.model}"
        self.model = config.model
        self._client: AsyncOpenAI | None = None
        self._requests = 0  # HTTP requests sent, retries included: what "(N tries)" counts
        self._legends = Legends()  # the keys the app's help screens listed in this run
        self._base_url = config.base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL
        self._api_key = config.api_key or os.environ.get("OPENAI_API_KEY")
        self._scrubber = Scrubber(self.secrets)  # for what orav itself says (errors, logs)
        self.family = family_of(config.model, config.family)
        self.mode = config.response_format or self.family.response_format

    @classmethod
    def from_spec(cls, spec: str, **options: Any) -> OpenAIAgent:
        """``OpenAIAgent.from_spec("openai:gpt-4o", base_url=..., temperature=0)``."""
        return cls(OpenAIConfig.from_spec(spec, **options))

    @property
    def secrets(self) -> tuple[str, ...]:
        """What a cassette writer must scrub: the API key, when there is one."""
        return (self._api_key,) if self._api_key else ()

    @property
    def base_url(self) -> str:
        return public_url(self._base_url)

    @property
    def missing_key(self) -> str | None:
        """Why this agent cannot call its model (OpenAI itself needs a key), or None."""
        if self._api_key or self._base_url.rstrip("/") != OPENAI_URL:
            return None
        return (
            f"no API key for {self.name}: set OPENAI_API_KEY (or use --base-url for a local server)"
        )

    def _connect(self) -> AsyncOpenAI:
        if self._client is None:
            from openai import AsyncOpenAI

            if self.missing_key:
                raise AgentError(self.missing_key)
            problem = url_problem(self._base_url)
            if problem:
                raise AgentError(f"{self.name}: base URL: {problem}")
            from openai import DefaultAsyncHttpxClient

            async def count(_request: Any) -> None:
                self._requests += 1

            async def bounded(response: Any) -> None:
                length = response.headers.get("content-length", "")
                if length.isdigit() and int(length) > MAX_RESPONSE_BYTES:
                    await response.aclose()
                    raise _TooLarge(f"a response of {int(length)} bytes")

            key = self._api_key or "unused"  # local servers ignore it, the SDK insists on one
            self._client = AsyncOpenAI(
                api_key=key,
                base_url=self._base_url,
                timeout=self.config.timeout,
                max_retries=0,  # retried here (_pause), Retry-After within a budget
                http_client=DefaultAsyncHttpxClient(
                    event_hooks={"request": [count], "response": [bounded]}
                ),
            )
        return self._client

    def _request(
        self, messages: list[dict[str, Any]], schema_format: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The request's body; ``schema_format`` replaces the decision's JSON schema (the
        judge's answer, ``orav.judges.model``)."""
        config = self.config
        request: dict[str, Any] = {
            "model": config.model,
            "messages": messages,
            "temperature": config.temperature,
        }
        if config.seed is not None:
            request["seed"] = config.seed
        # OpenAI's reasoning models take only max_completion_tokens; local servers max_tokens.
        if self._base_url.rstrip("/") == OPENAI_URL:
            request["max_completion_tokens"] = config.max_output_tokens
        else:
            request["max_tokens"] = config.max_output_tokens
        mode = self.mode
        if schema_format is not None and mode == "tool":  # another answer (a judge's): no tool
            mode = "json_schema"
        if mode == "json_schema":
            request["response_format"] = schema_format or RESPONSE_FORMAT
        elif mode == "json_object":
            request["response_format"] = {"type": "json_object"}
        elif mode == "tool":
            request["tools"] = [TOOL]
            request["tool_choice"] = {"type": "function", "function": {"name": "decide"}}
        return request

    def _error(self, what: str) -> AgentError:
        return AgentError(f"{self.name}: {self._scrubber.text(what)}")  # the run adds the step

    async def _complete(
        self, messages: list[dict[str, Any]], schema_format: dict[str, Any] | None = None
    ) -> ChatCompletion:
        """One model call, a transient failure retried (``_pause``), bounded as a whole; errors
        as AgentError, a body that is not a chat completion as InvalidAnswer (re-asked within
        the budget)."""
        import openai

        config = self.config
        client = self._connect()
        # Each attempt within the SDK's timeout, and the waits between them within retry_seconds.
        budget = config.timeout * (config.max_retries + 1) + config.retry_seconds
        sent = self._requests
        request = self._request(messages, schema_format)
        retried, waited = 0, 0.0
        try:
            async with asyncio.timeout(budget):
                while True:
                    try:
                        return await client.chat.completions.create(**request)
                    except (openai.APIStatusError, openai.APIConnectionError) as exc:
                        pause = self._pause(exc, retried, waited)
                        if pause is None:
                            raise
                    retried += 1
                    waited += pause
                    log.info("%s: retrying in %.1f s", self.name, pause)
                    await asyncio.sleep(pause)
        except TimeoutError:
            what = f"model call at {self.base_url} timed out ({self._tries(sent)}, {budget:g} s)"
        except openai.OpenAIError as exc:
            what = self._failure(exc, sent)
        except _TooLarge as exc:  # refused unread: re-asked like any answer past the bound
            raise _too_large(exc) from None
        except (ValueError, TypeError) as exc:  # a 200 whose body the SDK cannot read
            raise InvalidAnswer(f"{NOT_A_COMPLETION} ({type(exc).__name__})") from None
        raise self._error(what[:600]) from None

    def _pause(self, exc: Exception, retried: int, waited: float) -> float | None:
        """How long to wait before trying a failed request again, or None not to: a transient
        failure (408, 409, 429, 5xx, a dropped connection, a timeout) waits what the server's
        ``Retry-After`` says, else a backoff counted against ``max_retries``; all waits of a
        call within ``retry_seconds``."""
        status = getattr(exc, "status_code", None)
        if status is not None and status not in (408, 409, 429) and status < 500:
            return None
        if isinstance(exc.__cause__, _TooLarge):
            return None
        response = getattr(exc, "response", None)
        after = retry_after(response.headers) if response is not None else None
        if after is None:
            if retried >= self.config.max_retries:
                return None
            after = min(0.5 * 2**retried, 8.0)
        after = max(after, 0.01)  # a zero Retry-After is no reason to spin
        return after if waited + after <= self.config.retry_seconds else None

    def _failure(self, exc: Exception, sent: int) -> str:
        """What a failed call says, HTTP status, tries and the server's words; a refusal of
        how the answer is asked for is ``Refused``, a response past the bound re-asked."""
        import openai

        where = f"at {self.base_url}"
        if isinstance(exc, openai.APITimeoutError):
            return (
                f"model call {where} timed out ({self._tries(sent)} of {self.config.timeout:g} s)"
            )
        if isinstance(exc, openai.APIStatusError):
            if exc.status_code in (400, 422) and self.mode != MODES[-1]:
                raise Refused(str(exc.message)[:200]) from None
            detail = re.sub(r"^Error code: \d+ - ", "", " ".join(str(exc.message).split()))[:300]
            tries = self._tries(sent)
            return f"model server {where} answered HTTP {exc.status_code} ({tries}): {detail}"
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc
            if isinstance(cause, _TooLarge):
                raise _too_large(cause) from None
            return f"cannot reach the model server {where} ({self._tries(sent)}): {cause}"
        return f"model call {where} failed: {exc}"

    def _tries(self, before: int) -> str:
        """How many HTTP requests the call sent, as a message says it."""
        n = max(self._requests - before, 1)
        return f"{n} {'try' if n == 1 else 'tries'}"

    async def decide(self, context: AgentContext) -> Decision:
        """Ask the model; re-ask with the validation error until valid or the budget is spent."""
        config = self.config
        messages, refs, space = await self._prompt(context)
        known = scenario_secrets(context.scenario)
        scrubber = Scrubber(self.secrets, named=known)  # the model names what it cannot see
        messages = scrubber.messages(messages)
        system = messages[0]["content"]
        messages[0] = self._system(system)
        digest = prompt_digest(messages)
        fills = {stand_in: value for value, stand_in in known.items() if stand_in != REDACTED}
        conversation = list(messages)
        prompt_tokens = completion_tokens = 0
        latency = 0.0
        problem = ""
        model = None
        for attempt in range(1, config.reasks + 2):
            started = time.perf_counter()
            text = ""
            try:
                try:
                    while True:
                        try:
                            completion = await self._complete(conversation)
                            break
                        except Refused as refused:
                            self.loosen(str(refused))
                            conversation[0] = self._system(system)
                            digest = prompt_digest([conversation[0], *messages[1:]])
                finally:
                    latency += time.perf_counter() - started
                prompt, completed = token_counts(completion)
                prompt_tokens += prompt
                completion_tokens += completed
                model = getattr(completion, "model", None)
                text, calls = reply_of(completion, config.max_output_tokens)
                if calls and not text.strip():
                    arguments = calls[0].arguments
                    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
                decision = parse_answer(
                    text,
                    refs,
                    space=space,
                    tool_calls=calls,
                    focused=context.observation.focused,
                    fills=fills,
                    first_step=not context.history,
                    secrets=self.secrets,
                )
            except InvalidAnswer as exc:
                problem = self._scrubber.text(str(exc))
                log.info("step %d: answer %d rejected: %s", context.step, attempt, problem)
                asked = reask(text, problem, "one JSON object that follows the schema")
                conversation += scrubber.messages(asked)
                continue
            call = self._call(
                model if isinstance(model, str) else None,
                digest,
                kept(text),
                prompt_tokens,
                completion_tokens,
                latency,
                attempt,
            )
            log.debug(
                "step %d: %s in %d attempt(s), %d+%d tokens, %.3f s",
                context.step,
                decision.action.kind,
                attempt,
                prompt_tokens,
                completion_tokens,
                latency,
            )
            return attrs.evolve(decision, call=call)
        error = self._error(
            f"no valid decision after {config.reasks + 1} answers; last problem: {problem}",
        )
        error.call = self._call(
            None, digest, kept(text), prompt_tokens, completion_tokens, latency, config.reasks + 1
        )
        raise error

    async def _prompt(
        self, context: AgentContext
    ) -> tuple[list[dict[str, Any]], dict[str, Element], Space | None]:
        """The step's messages (the screenshot marked where asked), the references they cite,
        and the coordinate space they speak in."""
        config = self.config
        image = size = None
        shot = context.observation.screenshot
        if config.send_screenshot and shot is not None and shot.data:
            image, size = await asyncio.to_thread(
                screenshot_data_url, shot, config.screenshot_max_size, self.family.block
            )
        space = space_of(context, size, self.family.unit)
        if not context.history:
            self._legends = Legends()  # a new run: what its help lists is read afresh
        self._legends.read(context.observation, screen_name(context.observation), context.step)
        messages, refs = build_messages(
            context,
            history=config.history,
            image=image,
            detail=config.image_detail,
            space=space,
            legends=self._legends,
        )
        if config.marks and image is not None and size is not None and space is not None:
            await asyncio.to_thread(_mark, messages, refs, size, space)
        return messages, refs, space

    def _system(self, prompt: str) -> dict[str, Any]:
        """The system message: the prompt, the family's own words, and the schema where the
        server does not hold the answer to it."""
        parts = [prompt]
        if self.family.guide:
            parts.append(self.family.guide)
        if self.mode in ("json_object", "text"):
            parts.append("Schema: " + json.dumps(ANSWER_SCHEMA, separators=(",", ":")))
        return {"role": "system", "content": "\n".join(parts)}

    def loosen(self, why: str) -> None:
        """Ask the next looser way from now on: the server refused this one."""
        looser = MODES[MODES.index(self.mode) + 1]
        log.warning(
            "%s: the server refused %s answers (%s); asking for %s from now on",
            self.name,
            self.mode,
            self._scrubber.text(" ".join(why.split()))[:200],
            looser,
        )
        self.mode = looser

    def _call(
        self,
        model: str | None,
        digest: str,
        raw: str,
        prompt_tokens: int,
        completion_tokens: int,
        latency: float,
        attempts: int,
    ) -> ModelCall:
        """The call's record, priced with this agent's table (None for an unknown model)."""
        model = model or self.config.model
        price = price_of(model, self.config.prices)
        cost = None
        if price is not None:
            cost = (prompt_tokens * price.input + completion_tokens * price.output) / 1e6
        return ModelCall(
            model=model,
            prompt_digest=digest,
            raw_response=raw,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            latency_seconds=latency,
            attempts=attempts,
            cost=cost,
        )

    async def close(self) -> None:
        """Close the HTTP connections; the agent reconnects if asked again."""
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


def retry_after(headers: Any) -> float | None:
    """Seconds a server asks the client to wait: ``retry-after-ms``, else ``Retry-After`` as
    seconds or an HTTP date; None when it says nothing readable."""
    try:
        milliseconds = headers.get("retry-after-ms")
        if milliseconds is not None:
            return max(float(milliseconds) / 1000, 0.0)
        said = headers.get("retry-after")
        if said is None:
            return None
        try:
            return max(float(said), 0.0)
        except ValueError:
            when = email.utils.parsedate_to_datetime(said)
            return max(when.timestamp() - time.time(), 0.0)
    except (TypeError, ValueError, OverflowError):
        return None


def reask(text: str, problem: str, wanted: str) -> list[dict[str, str]]:
    """The turns that re-ask a model: its rejected answer (as kept), then why and what to send."""
    return [
        {"role": "assistant", "content": kept(text) or "(no answer)"},
        {
            "role": "user",
            "content": f"That answer was rejected: {problem}. Reply again with {wanted}.",
        },
    ]
