"""The model judge against answers it was not written for, over the real openai client to a
loopback server: prose, a tool call, ``holds`` as "Yes", "true" or 1, confidence as a
percentage or a word, no evidence, evidence as a list or an object, an unsure answer, one that
answers both ways, a slow one, HTTP 5xx, a server that refuses the judgement's schema. Whatever
it answers, an answer that is not a sure yes never passes: an unreadable or unsure judgement
fails the claim with the judge's words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from command import orav
from hypothesis import given, settings
from hypothesis import strategies as st
from model_server import HOME, SCENARIO, ModelServer

from orav.agents.prompt import encode_tree
from orav.agents.reply import InvalidAnswer
from orav.errors import AgentError
from orav.judges import Question
from orav.judges.model import ModelJudge, parse_judgement
from orav.model import Frame

BENCH = Path(__file__).resolve().parents[1] / "orav" / "scenarios" / "bench"
CLAIM = "the list shows getting started"  # words the judge's code never saw


def judgement(holds: Any = True, evidence: Any = "'Getting started' is listed", confidence=0.9):
    return json.dumps({"holds": holds, "evidence": evidence, "confidence": confidence})


def tool_call(arguments: str) -> str:
    """A chat completion whose answer is a tool call, its content null."""
    call = {"id": "c1", "type": "function", "function": {"name": "judge", "arguments": arguments}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    choice = {"index": 0, "finish_reason": "tool_calls", "message": message}
    usage = {"prompt_tokens": 900, "completion_tokens": 30, "total_tokens": 930}
    body = {"id": "x", "object": "chat.completion", "created": 1, "model": "m"}
    return json.dumps({**body, "choices": [choice], "usage": usage})


async def ask(server: ModelServer, **options: Any):
    options = {"base_url": server.url, "max_retries": 0, **options}
    async with ModelJudge.from_spec("openai:judge-model", **options) as judge:
        return await judge.judge(Question(CLAIM, HOME, SCENARIO, step=3))


@pytest.mark.parametrize(
    ("replies", "holds", "confidence", "evidence"),
    [
        # the object after prose, in a fence, as a Python literal, in tool-call tags
        ([f"Looking at the list: {judgement()} That is all."], True, 0.9, "'Getting started'"),
        ([f"```json\n{judgement(holds='No.')}\n```"], False, 0.9, "is listed"),
        (["{'holds': True, 'evidence': 'the cell', 'confidence': 0.8}"], True, 0.8, "the cell"),
        ([f'<tool_call>{{"name": "verdict", "arguments": {judgement()}}}</tool_call>'], True, 0.9,
         "listed"),
        # holds and confidence in other words
        ([judgement(holds="Yes")], True, 0.9, "listed"),
        ([judgement(holds="TRUE")], True, 0.9, "listed"),
        ([judgement(holds=1, confidence="85%")], True, 0.85, "listed"),
        ([judgement(holds=0, confidence="0.95")], False, 0.95, "listed"),
        ([judgement(confidence=92)], True, 0.92, "listed"),
        # a word for the confidence is re-asked with the reason, then read
        ([judgement(confidence="high"), judgement(confidence=0.9)], True, 0.9, "listed"),
        # evidence missing, a list, an object: kept as text, nothing lost
        ([json.dumps({"holds": True, "confidence": 0.9})], True, 0.9, ""),
        ([judgement(evidence=["Home", "Getting started"])], True, 0.9, "Home; Getting started"),
        ([judgement(evidence={"element": "e3", "label": "Getting started"})], True, 0.9,
         "element: e3; label: Getting started"),
    ],
)  # fmt: skip
async def test_an_answer_in_another_shape_is_read(
    server: ModelServer, replies: list[str], holds: bool, confidence: float, evidence: str
) -> None:
    server.answer(*replies)
    judged = await ask(server)
    assert (judged.holds, judged.confidence) == (holds, confidence)
    assert evidence in judged.evidence if evidence else judged.evidence == ""
    assert judged.call is not None and judged.call.attempts == len(replies)
    if len(replies) > 1:  # the re-ask said what was wrong
        said = json.dumps(server.bodies()[1]["messages"][-1])
        assert "confidence: expected a number from 0 to 1, got 'high'" in said


async def test_an_answer_as_a_tool_call_is_read(server: ModelServer) -> None:
    server.replies.append({"raw": tool_call(judgement(holds="yes", confidence=0.8))})
    judged = await ask(server)
    assert (judged.holds, judged.confidence, judged.call.prompt_tokens) == (True, 0.8, 900)


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (judgement(holds=None, evidence="the list is cut off"), "holds: null: the list is cut off"),
        (judgement(holds="unsure", evidence="too small to read"), "holds: 'unsure'"),
        (judgement(holds="partly"), "holds: 'partly'"),
        (judgement(confidence=0.4), "the judge is unsure (confidence 0.40)"),
        (judgement() + " On reflection: " + judgement(holds=False), "answers disagree"),
    ],
)
async def test_an_unsure_or_self_contradicting_answer_fails_with_the_judges_words(
    server: ModelServer, reply: str, why: str
) -> None:
    server.answer(reply)
    judged = await ask(server)
    assert not judged.passed
    assert why in judged.reason()
    assert len(server.requests) == 1  # not re-asked: the judge did answer


async def test_prose_that_never_becomes_an_answer_fails_the_claim_with_its_reason(server):
    server.answer(*["Yes, Getting started is clearly in the list."] * 3)
    judged = await ask(server, reasks=2)
    assert not judged.passed and judged.confidence == 0
    assert judged.reason().startswith(
        "the judge is unsure (confidence 0.00): its answer could not be read after 3 answers: "
        "no JSON object in the answer (it begins 'Yes, Getting started"
    )
    assert judged.call is not None and judged.call.attempts == 3  # what it cost is counted


async def test_a_server_that_refuses_the_judgements_schema_is_asked_the_looser_way(server):
    refused = {"status": 400, "message": "response_format json_schema is not supported"}
    server.replies.extend([refused, {"content": judgement()}])
    judged = await ask(server)
    assert judged.passed
    formats = [body.get("response_format", {}).get("type") for body in server.bodies()]
    assert formats == ["json_schema", "json_object"]


async def test_http_5xx_and_a_slow_judge_are_errors_within_the_budget(server) -> None:
    server.replies.extend([{"status": 503}, {"status": 502}])
    with pytest.raises(AgentError, match="answered HTTP 502"):
        await ask(server, max_retries=1)
    assert len(server.requests) == 2
    server.replies.append({"hang": True})
    with pytest.raises(AgentError, match="timed out"):
        await ask(server, timeout=0.3)


# --- where the evidence points -------------------------------------------------------------

CELL = Frame(0, 120, 390, 60)  # HOME's "Getting started"


@pytest.mark.parametrize(
    ("fields", "at"),
    [
        ({"element": "e2"}, CELL),  # a ref
        ({"element": "Getting started"}, CELL),  # a label
        ({"element": "the getting started row"}, CELL),  # a label said within a phrase
        ({"element": [200, 150]}, CELL),  # a point on it, in points
        ({"element": {"x": 340, "y": 800}}, Frame(300, 780, 80, 44)),
        ({"element": "(10, 20)"}, Frame(10, 20, 0, 0)),  # a point on no element
        ({"evidence": 'the row "Getting started" is listed'}, CELL),  # a quoted label
        ({"evidence": "the badge at (340, 800) is there"}, Frame(300, 780, 80, 44)),
        ({"evidence": {"element": "e2", "why": "listed"}}, CELL),
        ({"element": "e99"}, None),  # nothing on this screen
        ({"element": None, "evidence": "the list is there"}, None),
    ],
)
def test_the_evidence_points_at_an_element_by_ref_label_or_point(fields, at) -> None:
    _, refs = encode_tree(HOME)
    answer = json.dumps({"holds": True, "evidence": "x", "confidence": 0.9, **fields})
    assert parse_judgement(answer, refs=refs).at == at


def test_a_point_past_any_number_is_no_place() -> None:
    answer = "{'holds': True, 'evidence': 'x', 'element': [1e999, 5]}"  # a literal reads inf
    judged = parse_judgement(answer, refs=encode_tree(HOME)[1])
    assert judged.passed and judged.at is None


# --- never a false pass ------------------------------------------------------------------------

_YES = {"yes", "true", "1"}
values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=True),
    st.text(max_size=12),
    st.sampled_from(["Yes", "yes.", " TRUE ", "No!", "unsure", "maybe", "1", "0", "ja"]),
    st.lists(st.booleans(), max_size=2),
)


@settings(max_examples=300, deadline=None)
@given(holds=values, confidence=values, evidence=values, twice=st.one_of(st.none(), values))
def test_an_answer_passes_only_when_it_says_yes_surely(holds, confidence, evidence, twice):
    fields = {"holds": holds, "evidence": evidence, "confidence": confidence}
    text = json.dumps(fields)
    if twice is not None:  # a second answer after the first
        text += "\n" + json.dumps({**fields, "holds": twice})
    try:
        judged = parse_judgement(text)
    except InvalidAnswer:
        return  # re-asked: not a pass
    if judged.passed:
        said = [holds] if twice is None else [holds, twice]
        for value in said:
            assert (
                value is True
                or value == 1
                or str(value).strip().strip(".!").strip().lower() in _YES
            )
        assert isinstance(judged.confidence, float) and 0.7 <= judged.confidence <= 1


def test_a_judge_with_no_server_aborts_the_run_naming_the_claim(tmp_path: Path) -> None:
    cassette = tmp_path / "sign_in.cassette"
    done = orav(
        "record", BENCH / "demo_sign_in.yaml", "--judge", "openai:j",
        "--base-url", "http://127.0.0.1:9/v1", "--agent-option", "max_retries=0",
        "--out", cassette,
    )  # fmt: skip
    assert done.returncode == 1
    report = json.loads(cassette.with_suffix(".report.json").read_text())
    assert report["status"] == "aborted" and report["total_steps"] == 0
    (error,) = report["errors"]
    assert error["error"].startswith("judging 'the sign-in form is showing': openai:j: cannot")
