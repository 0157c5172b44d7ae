"""The LLM agent against a real HTTP server on 127.0.0.1 with the real openai client."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import logging
import os
import re
import time
from collections.abc import Iterator
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from model_server import (
    API_KEY,
    HOME,
    LOGIN,
    PASSWORD,
    SCENARIO,
    TAP_SIGN_IN,
    agent_context,
    answer,
    decide,
    make_agent,
    user_content,
    user_text,
)
from PIL import Image

from orav.agents import AgentContext
from orav.agents.answer import InvalidAnswer, parse_answer, strip_fence
from orav.agents.openai import OpenAIAgent
from orav.agents.openai_config import OpenAIConfig, Price
from orav.agents.prompt import SYSTEM_PROMPT, encode_tree, screen_of
from orav.agents.refs import element_at
from orav.agents.schema import ANSWER_SCHEMA
from orav.codec import to_json
from orav.errors import AgentError, InputError
from orav.model import (
    ActionResult,
    Decision,
    Done,
    Element,
    Frame,
    Observation,
    PressKey,
    Step,
    Tap,
    Target,
    TypeText,
    Usage,
    Verification,
    Wait,
)
from orav.secrets import Scrubber


def _history() -> tuple[Step, ...]:
    tap = Decision(
        Tap(195, 242, Target("Email", "email")),
        reasoning="focus the email field",
        element_label="Email",
        expected_outcome="The email field has focus",
    )
    typed = Decision(
        TypeText("demo@orav.dev"), expected_outcome='The email field shows "demo@orav.dev"'
    )
    return (
        Step(1, "login", tap, ActionResult(), Verification(changed=True, expected_seen=True)),
        Step(2, "login", typed, ActionResult(), Verification(changed=False, input_dropped=True)),
    )


# --- request shape --------------------------------------------------------------------------------


async def test_request_carries_schema_screenshot_tree_history_and_key(server):
    server.answer(TAP_SIGN_IN)
    decision = await decide(server, agent_context(step=3, history=_history()))
    assert isinstance(decision.action, Tap)
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == f"Bearer {API_KEY}"
    body = request["body"]
    assert body["model"] == "gpt-4o-mini"
    assert body["temperature"] == 0.0
    assert body["max_tokens"] == 1024
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["strict"] is True
    assert fmt["json_schema"]["schema"] == ANSWER_SCHEMA
    assert body["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    text_part, image_part = user_content(body)
    assert image_part["type"] == "image_url"
    url = image_part["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    image = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert image.size == (390, 844)  # downscaled to points: pixels and points agree
    text = text_part["text"]
    assert "Goal: Sign in with the demo account" in text
    assert "#settings visible; #sign_in absent" in text
    assert (
        "1. [login] tap #email (195, 242); expected: The email field has focus; result: ok" in text
    )
    assert "2. [login] type 'demo@orav.dev'" in text
    assert "UNCHANGED" in text and "input dropped" in text
    assert "Verify step 2" in text
    assert 'e5 Button "Sign in" @195,385' in text
    assert "e1 " not in text and "e7 " not in text  # container and zero-size node dropped
    assert PASSWORD not in json.dumps(body)


async def test_tree_only_mode_sends_no_image(server):
    server.answer(TAP_SIGN_IN)
    await decide(server, send_screenshot=False)
    body = server.bodies()[0]
    assert isinstance(user_content(body), str)
    assert "image_url" not in json.dumps(body)
    assert 'e3 TextField "Email" @195,242' in user_text(body)


def test_openai_url_gets_max_completion_tokens_and_seed(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    agent = OpenAIAgent.from_spec("openai:gpt-4o", api_key=API_KEY, seed=7, max_output_tokens=300)
    request = agent._request([])
    assert request["max_completion_tokens"] == 300 and "max_tokens" not in request
    assert request["seed"] == 7


async def test_json_object_mode_puts_the_schema_in_the_prompt(server):
    server.answer(TAP_SIGN_IN)
    await decide(server, response_format="json_object")
    body = server.bodies()[0]
    assert body["response_format"] == {"type": "json_object"}
    assert '"additionalProperties":false' in body["messages"][0]["content"]


# --- the decision ---------------------------------------------------------------------------------


async def test_reference_resolves_to_centre_and_call_is_recorded(server):
    server.answer(answer({"kind": "tap", "x": 5, "y": 5, "duration": None}, "e5", met=True))
    decision = await decide(server, agent_context(step=3, history=_history()))
    assert decision.action == Tap(195, 385, Target("Sign in", "sign_in"))
    assert decision.element_label == "Sign in"
    assert decision.previous_outcome_met is True
    call = decision.call
    messages = server.bodies()[0]["messages"]
    canonical = json.dumps(messages, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert call.prompt_digest == hashlib.sha256(canonical.encode()).hexdigest()
    assert (call.model, call.prompt_tokens, call.completion_tokens, call.attempts) == (
        "gpt-4o-mini",
        1000,
        50,
        1,
    )
    assert json.loads(call.raw_response)["element"] == "e5"
    assert 0 < call.latency_seconds < 5


async def test_first_step_has_no_verdict_and_coordinates_mark_a_vision_tap(server):
    server.answer(answer({"kind": "tap", "x": 100, "y": 700, "duration": None}, met=False))
    decision = await decide(server)
    assert decision.previous_outcome_met is None
    assert decision.action == Tap(100, 700, vision=True)


async def test_password_placeholder_is_filled_in_and_marked_secure(server):
    server.answer(answer({"kind": "type_text", "text": "{{password}}"}, "e4"))
    decision = await decide(server)
    assert decision.action == TypeText(PASSWORD, secure=True)
    assert PASSWORD not in decision.call.raw_response
    assert PASSWORD not in json.dumps(server.bodies())


async def test_fenced_json_is_accepted_without_a_reask(server):
    server.answer(f"```json\n{TAP_SIGN_IN}\n```")
    decision = await decide(server)
    assert decision.call.attempts == 1 and len(server.requests) == 1


MALFORMED = {
    "not json": ({"content": "I would tap Sign in."}, "no JSON object in the answer"),
    "broken json": (
        {"content": 'Here: {"reasoning": "x", "action": {"kind": '},
        "not valid JSON (Expecting value at line 1 column",
    ),
    "unknown action": (
        {"content": answer({"kind": "tapp", "x": 1, "y": 1, "duration": None})},
        "unknown action kind 'tapp'",
    ),
    "missing field": ({"content": answer({"kind": "type_text"})}, "action.text"),
    "no action": ({"content": json.dumps({"reasoning": "r"})}, "action: expected an object"),
    "refusal": ({"content": None, "refusal": "I can't help with that."}, "refused"),
    "empty": ({"content": ""}, "empty"),
    "length": (
        {"content": '{"previous_outcome_met": null, "reas', "finish_reason": "length"},
        "cut off",
    ),
    "unknown ref": (
        {"content": answer({"kind": "tap", "x": None, "y": None, "duration": None}, "e99")},
        "element: 'e99' is not on this screen",
    ),
    "tap off screen": (
        {"content": answer({"kind": "tap", "x": 200, "y": 900, "duration": None})},
        "outside the screen",
    ),
    "swipe off screen": (
        {
            "content": answer(
                {
                    "kind": "swipe",
                    "start": {"x": 200, "y": 600},
                    "end": {"x": -5, "y": 600},
                    "duration": None,
                }
            )
        },
        "swipe end",
    ),
    "bad key": (
        {"content": answer({"kind": "press_key", "key": "hyperspace"})},
        "unknown key 'hyperspace'",
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
async def test_malformed_answer_is_reasked_with_the_error(server, case):
    reply, error = MALFORMED[case]
    server.replies.append(reply)
    server.answer(TAP_SIGN_IN)
    decision = await decide(server)
    assert decision.action.target == Target("Sign in", "sign_in")
    assert decision.call.attempts == 2
    assert decision.call.prompt_tokens == 2000  # both calls counted
    first, second = server.bodies()
    assert second["messages"][: len(first["messages"])] == first["messages"]
    reask = second["messages"][-1]
    assert reask["role"] == "user" and "rejected" in reask["content"]
    assert error in reask["content"]
    assert second["messages"][-2]["role"] == "assistant"


async def test_reask_budget_exhausted_raises_agent_error(server):
    server.answer(*["not json"] * 5)
    with pytest.raises(AgentError) as caught:
        await decide(server, agent_context(step=4), reasks=2)
    assert len(server.requests) == 3
    message = str(caught.value)
    assert message.startswith("openai:gpt-4o-mini: no valid decision after 3 answers")
    assert "no JSON object in the answer" in message


# --- transport -------------------------------------------------------------------------------------


async def test_429_and_503_are_retried_by_the_sdk(server):
    fast = {"retry-after-ms": "5"}
    server.replies.extend([{"status": 429, "headers": fast}, {"status": 503, "headers": fast}])
    server.answer(TAP_SIGN_IN)
    decision = await decide(server, max_retries=2)
    assert isinstance(decision.action, Tap)
    assert len(server.requests) == 3
    assert decision.call.attempts == 1  # one valid answer; HTTP retries are the SDK's


async def test_http_errors_after_retries_become_agent_error(server):
    server.replies.extend([{"status": 503, "message": "overloaded"}] * 2)
    with pytest.raises(AgentError, match=r"answered HTTP 503 \(2 tries\): overloaded"):
        await decide(server, max_retries=1)
    assert len(server.requests) == 2


async def test_a_busy_server_is_waited_for_as_it_asks_within_the_budget(server):
    """A server that says when to come back (Retry-After) is trusted: three 429s in a row are
    waited out whatever max_retries says, as long as the waits stay within retry_seconds."""
    busy = {"status": 429, "headers": {"retry-after-ms": "20"}, "message": "slow down"}
    server.replies.extend([busy] * 3)
    server.answer(TAP_SIGN_IN)
    decision = await decide(server, max_retries=0)
    assert isinstance(decision.action, Tap) and len(server.requests) == 4
    server.replies.extend([busy] * 3)
    with pytest.raises(AgentError, match=r"answered HTTP 429 \(2 tries\): slow down"):
        await decide(server, max_retries=0, retry_seconds=0.03)


async def test_a_server_that_never_answers_times_out(server):
    server.replies.append({"hang": True})
    started = time.monotonic()
    with pytest.raises(AgentError, match="timed out"):
        await decide(server, timeout=0.3)
    assert time.monotonic() - started < 3


async def test_an_unreachable_server_is_an_agent_error():
    agent = OpenAIAgent.from_spec(
        "openai:m", base_url="http://user:pw@127.0.0.1:9/v1", api_key=API_KEY, max_retries=0
    )
    with pytest.raises(AgentError, match="cannot reach the model server at http://127.0.0.1:9/v1"):
        await agent.decide(agent_context())
    await agent.close()


async def test_api_key_never_in_decision_error_or_logs(server, caplog):
    caplog.set_level(logging.DEBUG)
    server.answer("nope")
    server.answer(answer({"kind": "type_text", "text": "{{password}}"}, "e4"))
    decision = await decide(server)
    assert API_KEY not in to_json(decision) and API_KEY not in repr(decision)
    leaked = f"Incorrect API key provided: {API_KEY}. Authorization: Bearer {API_KEY}"
    server.replies.append({"status": 401, "message": leaked})
    with pytest.raises(AgentError) as caught:
        await decide(server)
    assert "HTTP 401" in str(caught.value)
    assert API_KEY not in str(caught.value)
    assert API_KEY not in caplog.text
    assert PASSWORD not in caplog.text
    assert API_KEY not in repr(make_agent(server).config)


def test_no_key_for_openai_itself_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    agent = OpenAIAgent.from_spec("openai:gpt-4o")
    with pytest.raises(AgentError, match="set OPENAI_API_KEY"):
        agent._connect()


async def test_env_base_url_and_dummy_key_for_local_servers(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    server.answer(TAP_SIGN_IN)
    async with OpenAIAgent.from_spec("openai:llava:7b", max_retries=0) as agent:
        decision = await agent.decide(agent_context())
    assert decision.call.model == "llava:7b"
    assert server.requests[0]["headers"]["authorization"] == "Bearer unused"


# --- configuration, usage ---------------------------------------------------------------------------


def test_spec_parsing_and_option_errors():
    config = OpenAIConfig.from_spec("openai:llama3.2-vision:11b", base_url=None, reasks=1)
    assert (config.model, config.reasks, config.base_url) == ("llama3.2-vision:11b", 1, None)
    with pytest.raises(InputError, match="expected openai:MODEL"):
        OpenAIConfig.from_spec("anthropic:claude")
    with pytest.raises(InputError, match="unknown key 'bogus'"):
        OpenAIConfig.from_spec("openai:gpt-4o", bogus=1)
    with pytest.raises(InputError, match="timeout"):
        OpenAIConfig.from_spec("openai:gpt-4o", timeout=0)
    with pytest.raises(InputError, match="image_detail"):
        OpenAIConfig.from_spec("openai:gpt-4o", image_detail="ultra")


def test_usage_sums_tokens_and_the_costs_each_call_was_priced_at():
    agent = OpenAIAgent.from_spec("openai:gpt-4o", api_key=API_KEY)
    priced = agent._call("gpt-4o-2024-08-06", "", "", 1_000_000, 100_000, 0.1, 1)
    assert priced.cost == pytest.approx(2.5 + 1.0)  # a dated model takes its family's price
    unknown = agent._call("llava:7b", "", "", 10, 10, 0.1, 1)
    assert unknown.cost is None
    local = OpenAIAgent.from_spec("openai:llava:7b", api_key=API_KEY, prices={"llava": Price(1, 1)})
    assert local._call(None, "", "", 10, 10, 0.1, 1).cost == pytest.approx(20 / 1e6)
    assert Usage.of([priced, unknown]) == Usage(2, 1_000_010, 100_010, None)
    assert Usage.of([priced, priced]).cost == pytest.approx(7.0)
    assert Usage.of([]) == Usage(0, 0, 0, 0)


def test_the_scrubber_removes_keys_and_bearer_tokens():
    text = f"key {API_KEY} and Authorization: Bearer abc.def and sk-proj-abcdefghij"
    clean = Scrubber([API_KEY]).text(text)
    assert API_KEY not in clean and "abc.def" not in clean and "sk-proj-abcdefghij" not in clean


# --- tree, schema, parsing --------------------------------------------------------------------------


def test_tree_references_are_stable_when_values_change():
    typed = Observation(
        tuple(
            Element(e.role, e.label, e.unique_id, "demo@orav.dev", e.frame, focused=True)
            if e.unique_id == "email"
            else e
            for e in LOGIN.elements
        )
    )
    _, before = encode_tree(LOGIN)
    text, after = encode_tree(typed)
    assert list(before) == list(after) == ["e2", "e3", "e4", "e5", "e6"]
    assert 'e3 TextField "Email" ="demo@orav.dev" @195,242 focused' in text
    assert 'e4 TextField "Password" secure @195,302' in text


def test_tree_keeps_ids_and_placeholders_that_add_information():
    unlabelled = Element(
        "AXTextField", unique_id="q", frame=Frame(0, 0, 100, 40), placeholder="Search"
    )
    text, _ = encode_tree(Observation((*HOME.elements, unlabelled)))
    assert text.splitlines() == [
        'e1 Text "Home" @195,80',
        'e2 Cell "Getting started" #item_1 @195,150',
        'e3 Button "Settings" @340,802',
        'e4 TextField #q placeholder="Search" @50,20',
    ]


def test_screen_falls_back_to_the_application_frame():
    context = AgentContext(SCENARIO, HOME, 1)
    assert screen_of(context).width == 390 and screen_of(context).height == 844


def _walk(schema: Any) -> Iterator[dict[str, Any]]:
    if isinstance(schema, dict):
        yield schema
        for value in schema.values():
            yield from _walk(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _walk(value)


def test_schema_is_strict_everywhere():
    objects = [s for s in _walk(ANSWER_SCHEMA) if s.get("type") == "object"]
    assert len(objects) > 10
    for obj in objects:
        assert obj["additionalProperties"] is False
        assert obj["required"] == list(obj["properties"])
    kinds = [
        a["properties"]["kind"]["enum"][0] for a in ANSWER_SCHEMA["properties"]["action"]["anyOf"]
    ]
    assert kinds == [
        "tap",
        "type_text",
        "swipe",
        "press_key",
        "wait",
        "launch",
        "terminate",
        "assert",
        "done",
        "recover",
    ]
    tap = ANSWER_SCHEMA["properties"]["action"]["anyOf"][0]["properties"]
    assert "target" not in tap and "vision" not in tap


def test_fence_stripping():
    assert strip_fence('```json\n{"a": 1}\n```') == '{"a": 1}'
    assert strip_fence('```\n{"a": 1}```') == '{"a": 1}'
    assert strip_fence(' {"a": 1} ') == '{"a": 1}'


_points = st.builds(lambda x, y: {"x": x, "y": y}, st.integers(0, 389), st.integers(0, 843))
_texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20)
_actions = st.one_of(
    st.builds(lambda p: {"kind": "tap", **p, "duration": None}, _points),
    st.builds(
        lambda t: {"kind": "type_text", "text": t}, _texts.filter(lambda t: t and "{{" not in t)
    ),
    st.builds(
        lambda a, b, d: {"kind": "swipe", "start": a, "end": b, "duration": d},
        _points,
        _points,
        st.none() | st.floats(0.1, 2),
    ),
    st.builds(lambda k: {"kind": "press_key", "key": k}, st.sampled_from(["return", "tab", 40])),
    st.builds(lambda s: {"kind": "wait", "seconds": s}, st.none() | st.floats(0, 5)),
    st.builds(
        lambda label, c: {
            "kind": "assert",
            "target": {"label": label, "id": None},
            "condition": c,
            "value": None,
        },
        _texts.filter(bool),
        st.sampled_from(["visible", "absent", None]),
    ),
    st.builds(lambda ok: {"kind": "done", "success": ok, "summary": None}, st.booleans()),
)


@settings(deadline=None, max_examples=150)
@given(
    action=_actions,
    met=st.none() | st.booleans(),
    element=st.none() | st.sampled_from(["e3", "e5"]),
)
def test_any_schema_conforming_answer_parses(action, met, element):
    _, refs = encode_tree(LOGIN)
    screen = screen_of(agent_context())
    decision = parse_answer(
        answer(action, element, met), refs, screen=screen, fills={"{{password}}": PASSWORD}
    )
    assert decision.action.kind == action["kind"]
    assert decision.previous_outcome_met is met
    if action["kind"] == "tap" and element is not None:
        assert decision.action.target.id == refs[element].unique_id
        assert decision.element_label == refs[element].label
    elif action["kind"] == "tap":  # on an element: a tap on it; else a vision tap
        under = element_at(action["x"], action["y"], refs)
        if under is None:
            assert decision.action.vision and decision.action.x == action["x"]
        else:
            assert not decision.action.vision and decision.element_label == under.label
            assert decision.action.x == under.frame.center.x
    if action["kind"] == "wait":
        assert decision.action == Wait(1.0 if action["seconds"] is None else action["seconds"])
    if isinstance(decision.action, PressKey):
        assert decision.action.key == action["key"]
    if isinstance(decision.action, Done):
        assert decision.action.summary == ""


def test_typing_into_a_secure_field_is_marked_secure():
    _, refs = encode_tree(LOGIN)
    text = answer({"kind": "type_text", "text": "hunter2"}, "e4")
    assert parse_answer(text, refs).action == TypeText("hunter2", secure=True)
    with pytest.raises(InvalidAnswer, match="no test password"):
        parse_answer(answer({"kind": "type_text", "text": "{{password}}"}, None), refs)


# --- live ------------------------------------------------------------------------------------------


@pytest.mark.live_ai
@pytest.mark.skipif(not os.environ.get("OPENAI_API_KEY"), reason="OPENAI_API_KEY is not set")
async def test_live_model_decides_one_step_on_the_login_screen():
    model = os.environ.get("ORAV_LIVE_MODEL", "gpt-4o-mini")
    async with OpenAIAgent.from_spec(f"openai:{model}", timeout=60) as agent:
        decision = await agent.decide(agent_context())
    assert decision.action.kind in {"tap", "type_text"}
    assert decision.call is not None and decision.call.prompt_tokens > 0


# --- end to end: engine + simulator + real idb client + this agent -----------------------------------


async def test_engine_runs_the_demo_login_on_scripted_model_answers(server):
    from orav.drivers.idb import IdbDevice
    from orav.engine import Engine
    from orav.scenario_loader import example_scenarios, load_scenario
    from orav.sim import DEMO_APP, SimCompanion, load_app_model

    app = load_app_model(DEMO_APP)
    login = next(path for path in example_scenarios() if path.stem == "login")
    scenario = attrs.evolve(
        load_scenario(login), script=(), credentials=app.credentials, settle_seconds=0.05
    )
    tap = {"kind": "tap", "x": None, "y": None, "duration": None}
    server.answer(
        "I will tap the email field first.",  # not JSON: re-asked within the step
        answer(tap, "e3", expected="The email field has focus"),
        answer({"kind": "type_text", "text": "demo@orav.dev"}, None, True),
        answer(tap, "e4", True, expected="The password field has focus"),
        answer({"kind": "type_text", "text": "{{password}}"}, None, True),
        answer(tap, "e5", True, expected='"Getting started" is listed'),
        answer({"kind": "done", "success": True, "summary": "Signed in."}, None, True),
    )
    async with (
        SimCompanion(app) as sim,
        IdbDevice.connect(sim.address, bundle_id=app.bundle_id) as device,
        make_agent(server) as agent,
    ):
        report = await Engine(device, agent).run(scenario)
    assert report.status == "passed", report.errors
    assert report.total_steps == 5 and report.goals_missed == ()  # `done` is not a step
    assert report.usage.calls >= 5 and report.usage.prompt_tokens >= 6000  # re-ask counted
    bodies = server.bodies()
    assert len(bodies) == 7
    first = user_text(bodies[0])
    assert 'e3 TextField "Email"' in first and 'e5 Button "Sign in"' in first
    assert user_content(bodies[0])[1]["image_url"]["url"].startswith("data:image/png;base64,")
    second = user_text(bodies[2])
    assert re.search(
        r"\[Sign in\] tap #email \([\d.]+, [\d.]+\); expected: The email field has focus; "
        r"result: ok",
        second,
    )
    assert "Keyboard @195,698 (30 keys: use type_text and press_key)" in second
    assert 'Button "q"' not in second
    assert "type a secret (secure)" in user_text(bodies[6])
    assert PASSWORD not in json.dumps(bodies)


async def test_an_llm_run_records_and_replays_offline_without_key_or_network(server, tmp_path):
    from orav.scenario_loader import example_scenarios, load_scenario
    from orav.session import record, replay

    login = next(path for path in example_scenarios() if path.stem == "login")
    scenario = attrs.evolve(load_scenario(login), script=(), settle_seconds=0.05)
    tap = {"kind": "tap", "x": None, "y": None, "duration": None}
    server.answer(
        answer(tap, "e3", expected="The email field has focus"),
        answer({"kind": "type_text", "text": "demo@orav.dev"}, None, True),
        answer(tap, "e4", True),
        answer({"kind": "type_text", "text": "{{password}}"}, None, True),  # its credentials
        answer(tap, "e5", True, expected='"Getting started" is listed'),
        answer({"kind": "done", "success": True, "summary": "Signed in."}, None, True),
    )
    cassette = tmp_path / "llm.cassette"
    recording = await record(scenario, cassette, agent=make_agent(server))
    assert recording.report.status == "passed", recording.report.errors
    assert recording.report.usage.calls == 6
    raw = cassette.read_bytes()
    assert API_KEY.encode() not in raw and PASSWORD.encode() not in raw
    assert b"gpt-4o-mini" in raw  # the model name is kept, the secrets are not
    served = len(server.bodies())
    outcome = await replay(cassette)  # the replay agent: no network, no key
    assert outcome.faithful, outcome.differences
    assert outcome.report == recording.report
    assert len(server.bodies()) == served


async def test_the_scenario_timeout_bounds_a_model_call_in_flight(server):
    from orav.drivers.idb import IdbDevice
    from orav.engine import Engine
    from orav.model import Scenario
    from orav.sim import SimCompanion

    server.replies.append({"hang": True})  # held for 10 s, then the connection closes
    scenario = Scenario(name="t", app="com.orav.demo", goal="g", timeout_seconds=4.0)
    async with (
        SimCompanion() as sim,
        IdbDevice.connect(sim.address, bundle_id=scenario.app) as device,
        make_agent(server, timeout=60.0) as agent,
    ):
        report = await Engine(device, agent).run(scenario)
        ended = time.monotonic()
    assert report.status == "timed_out"
    assert report.transitions[-1].source == "reasoning"
    # cut by the scenario's 4 s, not by the server letting go (10 s) nor the agent's 60 s
    assert ended - server.requests[0]["at"] < 8
