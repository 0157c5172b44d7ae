"""A chat completion read: its reply (text and tool calls, or why to ask again), its token
counts, what is kept of its text; and the digest of the prompt it answered. The LLM agent and
the model judge read their models' answers the same way."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from orav.agents.reply import InvalidAnswer, ToolCall


def prompt_digest(messages: list[dict[str, Any]]) -> str:
    """The prompt's digest: the same messages, the same digest (a cassette's ``prompt_digest``)."""
    canonical = json.dumps(messages, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


MAX_RAW_RESPONSE = 8 * 1024  # characters of an answer kept in the cassette and the re-ask
NOT_A_COMPLETION = "the model server's answer was not a chat completion"
REASONING_FIELDS = ("reasoning_content", "reasoning")  # where thinking models' servers put it


def kept(text: str) -> str:
    """What is kept of an answer's text: the first MAX_RAW_RESPONSE characters."""
    if len(text) <= MAX_RAW_RESPONSE:
        return text
    return f"{text[:MAX_RAW_RESPONSE]}… ({len(text) - MAX_RAW_RESPONSE} more characters cut)"


def token_counts(completion: Any) -> tuple[int, int]:
    """Prompt and completion tokens of a response, 0 where the server sent none or nonsense."""
    usage = getattr(completion, "usage", None)
    return _count(getattr(usage, "prompt_tokens", 0)), _count(
        getattr(usage, "completion_tokens", 0)
    )


def _count(n: object) -> int:
    return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 0


def _tool_calls(message: Any) -> tuple[ToolCall, ...]:
    """The message's tool calls as names and argument texts (none where there are none)."""
    calls = getattr(message, "tool_calls", None)
    found = []
    for call in calls if isinstance(calls, list) else ():
        function = getattr(call, "function", None)
        name = getattr(function, "name", None)
        found.append(
            ToolCall(name if isinstance(name, str) else "", getattr(function, "arguments", None))
        )
    return tuple(found)


def reply_of(completion: Any, max_tokens: int) -> tuple[str, tuple[ToolCall, ...]]:
    """The answer's text and tool calls; InvalidAnswer for a body that is not a chat
    completion, no choice, a refusal, a cut-off or an answer with neither."""
    choices = getattr(completion, "choices", None)
    if not isinstance(choices, list):
        raise InvalidAnswer(f"{NOT_A_COMPLETION} (no list of choices)")
    if not choices:
        raise InvalidAnswer("the answer had no choices; reply with the JSON object")
    choice = choices[0]
    message = getattr(choice, "message", None)
    content = getattr(message, "content", None)
    if message is None or not (content is None or isinstance(content, str)):
        raise InvalidAnswer(f"{NOT_A_COMPLETION} (a choice without a text message)")
    refusal = getattr(message, "refusal", None)
    if refusal:
        refusal = kept(str(refusal))[:300]
        raise InvalidAnswer(f"the model refused ({refusal}); this is a UI test, decide an action")
    if choice.finish_reason == "length":
        raise InvalidAnswer(
            f"the answer was cut off at {max_tokens} output tokens; keep the reasoning to one "
            "sentence and reply with the JSON object only"
        )
    if choice.finish_reason == "content_filter":
        raise InvalidAnswer("the answer was withheld by a content filter; decide an action")
    content = content or ""
    calls = _tool_calls(message)
    if not content.strip() and not calls:
        content = _thought(message)  # a thinking model's answer, left in its reasoning
    if not content.strip() and not calls:
        raise InvalidAnswer("the answer was empty; reply with the JSON object")
    return content, calls


def _thought(message: Any) -> str:
    """The text of the message's reasoning field, whichever the server fills: vLLM's and
    DeepSeek's ``reasoning_content``, or ``reasoning`` (OpenRouter, newer vLLM); "" if none."""
    extra = getattr(message, "model_extra", None) or {}
    for field in REASONING_FIELDS:
        text = extra.get(field) if isinstance(extra, dict) else None
        text = text if text is not None else getattr(message, field, None)
        if isinstance(text, str) and text.strip():
            return text
    return ""
