"""Issue 11 at the model boundary, with the real openai client and a loopback HTTP server: a
huge answer, a body that is not a chat completion, a model typing the API key, honest try counts.
"""

from __future__ import annotations

import json

import pytest
from model_server import API_KEY, PASSWORD, TAP_SIGN_IN, answer, decide

from orav.agents.answer import MAX_TEXT_CHARACTERS, InvalidAnswer, parse_answer
from orav.agents.completion import MAX_RAW_RESPONSE, NOT_A_COMPLETION
from orav.errors import AgentError
from orav.model import Tap

TYPE = {"kind": "type_text", "text": None}


async def test_5_an_answer_past_the_bound_is_reasked_and_only_its_start_is_kept(server):
    huge = answer({"kind": "wait", "seconds": 1}, reasoning="x" * 2_000_000)
    server.answer(huge, TAP_SIGN_IN)
    decision = await decide(server)
    assert isinstance(decision.action, Tap) and decision.call.attempts == 2
    reask = server.bodies()[1]["messages"]
    assert "characters long" in reask[-1]["content"]
    assert len(json.dumps(reask)) < 200_000  # the 2 MB answer is not sent back whole


async def test_5_a_response_past_4_mb_is_refused_before_its_body_is_read(server):
    server.answer(answer({"kind": "wait", "seconds": 1}, reasoning="z" * 5_000_000), TAP_SIGN_IN)
    decision = await decide(server)
    assert isinstance(decision.action, Tap) and decision.call.attempts == 2
    assert "more than 4 MB" in server.bodies()[1]["messages"][-1]["content"]


async def test_5_a_long_reasoning_is_cut_and_raw_response_bounded(server):
    long = answer(
        {"kind": "tap", "x": None, "y": None, "duration": None}, "e5", reasoning="y" * 50_000
    )
    server.answer(long)
    decision = await decide(server)
    assert len(decision.reasoning) <= MAX_TEXT_CHARACTERS + 10
    assert len(decision.call.raw_response) <= MAX_RAW_RESPONSE + 60


@pytest.mark.parametrize(
    "body",
    [
        '{"choices": [',
        "<html><body>502 Bad Gateway</body></html>",
        '{"choices": null, "usage": "x"}',
        "[]",
        '{"choices": [{"message": null}]}',
        '{"choices": [{"message": {"content": 5}}]}',
    ],
)
async def test_6_a_body_that_is_not_a_chat_completion_is_reasked(server, body):
    server.replies.append({"raw": body})
    server.answer(TAP_SIGN_IN)
    decision = await decide(server)
    assert isinstance(decision.action, Tap) and decision.call.attempts == 2


async def test_6_only_bodies_that_are_not_completions_end_in_a_clear_agent_error(server):
    server.replies.extend([{"raw": "<html></html>"}] * 3)
    with pytest.raises(AgentError) as caught:
        await decide(server, reasks=2)
    assert NOT_A_COMPLETION in str(caught.value)
    assert len(server.requests) == 3


async def test_4_a_model_that_types_the_api_key_is_refused_and_reasked(server):
    leak = answer({**TYPE, "text": f"my key is {API_KEY}"}, "e4")
    server.answer(leak, TAP_SIGN_IN)
    decision = await decide(server)
    assert isinstance(decision.action, Tap)
    reask = server.bodies()[1]["messages"][-1]["content"]
    assert "secret orav will not type" in reask and API_KEY not in reask


def test_4_the_password_is_typed_only_through_its_placeholder():
    with pytest.raises(InvalidAnswer, match="secret orav will not type"):
        parse_answer(answer({**TYPE, "text": PASSWORD}), {}, fills={"{{password}}": PASSWORD})
    typed = parse_answer(
        answer({**TYPE, "text": "{{password}}"}), {}, fills={"{{password}}": PASSWORD}
    )
    assert typed.action.text == PASSWORD and typed.action.secure


@pytest.mark.parametrize(("status", "headers"), [(401, {}), (429, {"retry-after": "100000"})])
async def test_12_an_http_error_counts_the_requests_it_sent(server, status, headers):
    server.replies.extend([{"status": status, "headers": headers, "message": "no"}] * 3)
    with pytest.raises(AgentError) as caught:
        await decide(server, max_retries=2, timeout=2)
    sent = len(server.requests)
    word = "try" if sent == 1 else "tries"
    assert f"HTTP {status} ({sent} {word})" in str(caught.value)
