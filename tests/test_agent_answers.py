"""Issue 23, items 2 and 3: what real servers send is accepted (JSON after prose or in a fence,
tool calls, the seed's shape, a family's own format and coordinates), every rejection is
located and bounded, and the prompt's coordinates agree with the image the model gets.

The decoder's properties are tested on words and shapes it never saw (hypothesis); the agent
is tested with the real openai client over HTTP to a loopback server (``test_agent_openai``).
"""

from __future__ import annotations

import base64
import io
import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from model_server import (
    API_KEY,
    DEVICE,
    LOGIN,
    PASSWORD,
    SCENARIO,
    TAP_SIGN_IN,
    agent_context,
    answer,
    make_agent,
    png,
    user_content,
    user_text,
)
from PIL import Image

from orav.agents import AgentContext
from orav.agents.answer import InvalidAnswer, ToolCall, parse_answer
from orav.agents.family import FAMILIES, action_call, family_of
from orav.agents.openai import OpenAIAgent
from orav.agents.prompt import encode_tree, screen_of, screenshot_data_url, space_of
from orav.agents.space import space_for
from orav.errors import InputError
from orav.model import (
    ActionResult,
    Decision,
    DeviceInfo,
    Element,
    Frame,
    Observation,
    PressKey,
    Scenario,
    Screenshot,
    Step,
    Swipe,
    Tap,
    Target,
    TypeText,
    Verification,
)

_, REFS = encode_tree(LOGIN)
SCREEN = screen_of(AgentContext(SCENARIO, LOGIN, 1, device=DEVICE))


def decode(text: str | None, tool_calls=(), **options: Any):
    return parse_answer(text, REFS, screen=SCREEN, tool_calls=tool_calls, **options)


# --- wherever the server put it --------------------------------------------------------------

_words = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="{}`"),
    max_size=80,
)
_decisions = st.sampled_from(
    [
        answer({"kind": "tap", "x": None, "y": None, "duration": None}, "e5"),
        answer({"kind": "type_text", "text": "{{password}}"}, "e4", met=True),
        answer({"kind": "press_key", "key": "return"}, None, met=False),
        answer({"kind": "done", "success": True, "summary": "Signed in."}),
        json.dumps(
            {
                "reasoning": "Tap Sign in.",
                "action": "tap",
                "coordinates": {"x": 195, "y": 385},
                "element_label": "Sign in",
                "expected_outcome": "Home",
            }
        ),
    ]
)


def _wrapped(how: str, before: str, after: str, body: str) -> tuple[str | None, list[ToolCall]]:
    if how == "prose":
        return f"{before}\n{body}\n{after}", []
    if how == "fence":
        return f"{before}\n```json\n{body}\n```\n{after}", []
    if how == "tags":  # a tool call written out in the content, as Qwen's servers do
        call = json.dumps({"name": "decide", "arguments": json.loads(body)})
        return f"{before}<tool_call>\n{call}\n</tool_call>", []
    if how == "tool_call":
        return None, [ToolCall("decide", body)]
    return None, [ToolCall("decide", json.loads(body))]  # arguments as an object


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    body=_decisions,
    how=st.sampled_from(["prose", "fence", "tags", "tool_call", "tool_object"]),
    before=_words,
    after=_words,
)
def test_any_wrapping_of_a_valid_answer_decodes_to_the_same_decision(body, how, before, after):
    bare = decode(body, fills={"{{password}}": PASSWORD})
    content, calls = _wrapped(how, before, after, body)
    assert decode(content, calls, fills={"{{password}}": PASSWORD}) == bare


_junk = st.one_of(
    st.text(max_size=300),
    st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(
                st.sampled_from(
                    ["action", "element", "kind", "x", "y", "text", "coordinates", "a"]
                ),
                inner,
                max_size=5,
            )
        ),
        max_leaves=20,
    ).map(lambda data: json.dumps(data, allow_nan=True)),
    st.text(max_size=40).map(lambda t: f"Thought: hm\nAction: {t}"),
    st.text(alphabet="{[\"'`:,}] ae1", max_size=200),
)


@settings(max_examples=400, deadline=None)
@given(junk=_junk, tool=st.booleans())
def test_junk_is_a_located_rejection_never_an_exception(junk, tool):
    calls = [ToolCall("decide", junk)] if tool else []
    try:
        decision = decode(None if tool else junk, calls)
    except InvalidAnswer as exc:
        message = str(exc)
        assert message and len(message) < 1200
        assert re.match(r"^[\w .\[\]()'-]+", message)  # it starts by saying where or what
    else:
        assert decision.action.kind  # junk that happens to be a decision is one


def test_rejections_say_where():
    with pytest.raises(InvalidAnswer, match=r"not valid JSON \(.* at line 1 column \d+\)"):
        decode('Sure: {"action": {"kind": "tap", ')
    with pytest.raises(InvalidAnswer, match=r"^no JSON object in the answer \(it begins 'I "):
        decode("I would tap the button.")
    with pytest.raises(InvalidAnswer, match=r"^tool_calls\[0\]\.function\.arguments: not valid"):
        decode(None, [ToolCall("decide", "{'action': 1}")])
    with pytest.raises(InvalidAnswer, match=r"^action: tap at 500,900 is outside the screen"):
        decode(answer({"kind": "tap", "x": 500, "y": 900}))
    with pytest.raises(InvalidAnswer, match=r"^action\.text"):
        decode(answer({"kind": "type_text"}))


# --- the element an answer names --------------------------------------------------------------


@pytest.mark.parametrize(
    "said",
    ["Sign in", "sign in", "SIGN IN", "  Sign   in ", "sign-in", "the Sign in button", "#sign_in"],
)
def test_a_label_is_matched_case_space_and_phrase_insensitively(said):
    decision = decode(answer({"kind": "tap"}, said))
    assert decision.action == Tap(195, 385, Target("Sign in", "sign_in"))


def test_a_paraphrase_is_reasked_naming_the_nearest_three_refs():
    with pytest.raises(InvalidAnswer) as caught:
        decode(answer({"kind": "tap"}, "Log in", reasoning="Submit the form to log in."))
    message = str(caught.value)
    assert message.startswith("element: no element here is called 'Log in'")
    nearest = re.findall(r"\be\d+\b", message.split("nearest are:")[1])
    assert len(nearest) == 3 and nearest[0] == "e5"  # "Sign in" first, not the first five refs


def test_a_stale_ref_is_reasked_with_what_the_reasoning_names():
    with pytest.raises(InvalidAnswer) as caught:
        decode(answer({"kind": "tap"}, "e31", reasoning="Focus the password field."))
    message = str(caught.value)
    assert "'e31' is not on this screen" in message
    assert re.findall(r"\be\d+\b", message.split("nearest are:")[1])[0] == "e4"


@settings(max_examples=150, deadline=None)
@given(
    index=st.sampled_from(sorted(REFS)),
    dx=st.floats(-0.49, 0.49),
    dy=st.floats(-0.49, 0.49),
    seed=st.booleans(),
)
def test_a_point_on_an_element_is_a_tap_on_that_element(index, dx, dy, seed):
    element = REFS[index]
    frame = element.frame
    x, y = frame.center.x + dx * frame.width, frame.center.y + dy * frame.height
    text = (
        json.dumps({"reasoning": "r", "action": "tap", "coordinates": {"x": x, "y": y}})
        if seed
        else answer({"kind": "tap", "x": x, "y": y, "duration": None})
    )
    decision = decode(text)
    assert not decision.action.vision
    assert (decision.action.x, decision.action.y) == (frame.center.x, frame.center.y)
    assert decision.element_label == (element.label or element.unique_id)


def test_the_seeds_own_decision_at_the_centre_is_a_tap_on_the_element_it_names():
    submit = Element("AXButton", "Submit", frame=Frame(20, 280, 170, 60))
    seed = {
        "reasoning": "The 'Submit' button is visible and enabled.",
        "action": "tap",
        "coordinates": {"x": 105, "y": 310},
        "element_label": "Submit",
        "expected_outcome": "Form submitted, success message appears",
    }
    decision = parse_answer(json.dumps(seed), {"e1": submit}, screen=SCREEN)
    assert decision.action == Tap(105, 310, Target("Submit"))
    assert decision.element_label == "Submit"
    off = {**seed, "coordinates": {"x": 300, "y": 700}, "element_label": "Nowhere"}
    vision = parse_answer(json.dumps(off), {"e1": submit}, screen=SCREEN).action
    assert vision == Tap(300, 700, vision=True)  # no element there: the vision fallback


def test_of_two_with_the_label_the_control_is_tapped_or_the_one_pointed_at():
    title = Element("AXStaticText", "Sign in", frame=Frame(20, 50, 350, 40))
    button = Element("AXButton", "Sign in", frame=Frame(20, 360, 350, 50))
    refs = {"e1": title, "e2": button}
    named = parse_answer(answer({"kind": "tap"}, "sign in"), refs, screen=SCREEN)
    assert named.action.y == 385
    seed = json.dumps(
        {"action": "tap", "coordinates": {"x": 100, "y": 60}, "element_label": "Sign in"}
    )
    assert parse_answer(seed, refs, screen=SCREEN).action.y == 70


# --- families ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("gpt-4o-mini", "orav"),
        ("qwen2.5vl:7b", "qwen2.5"),
        ("Qwen/Qwen2.5-VL-72B-Instruct", "qwen2.5"),
        ("qwen3-vl:8b", "qwen3"),
        ("ByteDance-Seed/UI-TARS-1.5-7B", "uitars"),
        ("ui-tars:7b", "uitars"),
    ],
)
def test_the_family_is_detected_from_the_model_name(model, family):
    assert family_of(model).name == family
    assert OpenAIAgent.from_spec(f"openai:{model}").family.name == family


def test_the_family_flag_wins_and_bad_flags_are_located():
    agent = OpenAIAgent.from_spec("openai:my-finetune?family=uitars&reasks=1&send_screenshot=false")
    assert (agent.family.name, agent.config.reasks, agent.config.send_screenshot) == (
        "uitars",
        1,
        False,
    )
    assert agent.name == "openai:my-finetune" and agent.mode == "text"
    with pytest.raises(InputError, match="family"):
        OpenAIAgent.from_spec("openai:m?family=llava")
    with pytest.raises(InputError, match="after '\\?'"):
        OpenAIAgent.from_spec("openai:m?family")


def test_ui_tars_actions_are_read_never_run():
    assert action_call("Thought: open it\nAction: click(start_box='(100,200,120,220)')") == {
        "action": "click",
        "start_box": "(100,200,120,220)",
        "reasoning": "open it",
    }
    assert action_call("Action: __import__('os').system('x')") == {"action": "__import__"}
    assert action_call("no action here") is None


def _uitars(action: str, refs=REFS, screen=SCREEN):
    space = space_for(screen.width, screen.height, family_unit="thousandths")
    return parse_answer(
        f"Thought: next\nAction: {action}", refs, space=space, fills={"{{password}}": PASSWORD}
    )


def test_ui_tars_thousandths_become_points_and_elements():
    # Sign in's centre (195, 385) of a 390x844 screen is (500, 456) in thousandths.
    tap = _uitars("click(start_box='(490,450,510,462)')").action
    assert tap == Tap(195, 385, Target("Sign in", "sign_in"))
    assert _uitars("type(content='{{password}}')").action == TypeText(PASSWORD, secure=True)
    assert _uitars("hotkey(key='enter')").action == PressKey("return")
    scroll = _uitars("scroll(start_box='(500,500)', direction='down')").action
    assert isinstance(scroll, Swipe) and scroll.end.y < scroll.start.y
    assert _uitars("finished(content='Signed in.')").action.summary == "Signed in."
    with pytest.raises(InvalidAnswer, match="outside the screen"):
        _uitars("click(start_box='(1500,200)')")


def test_qwen_pixels_of_the_padded_image_become_points():
    space = space_for(390, 844, image=(390, 844), family_unit="pixels")
    call = {"name": "mobile_use", "arguments": {"action": "click", "coordinate": [195, 385]}}
    text = f"I will sign in.\n<tool_call>\n{json.dumps(call)}\n</tool_call>"
    decision = parse_answer(text, REFS, space=space)
    assert decision.action == Tap(195, 385, Target("Sign in", "sign_in"))
    assert decision.reasoning == ""  # the prose is not the answer's reasoning field


def test_qwen_pads_its_image_to_its_block_and_the_pixels_stay_put():
    shot = Screenshot.of(png(390, 844), 390, 844)
    url, size = screenshot_data_url(shot, 1024, FAMILIES["qwen2.5"].block)
    image = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert size == (390, 844) and image.size == (392, 868)
    assert image.getpixel((10, 10)) == (255, 255, 255) and image.getpixel((391, 867)) == (0, 0, 0)


# --- one coordinate space ---------------------------------------------------------------------


TERMINAL = DeviceInfo("textual", "planner", width=120, height=40)
CELLS = Observation(
    elements=(
        Element("AXApplication", "Planner", frame=Frame(0, 0, 120, 40)),
        Element("AXButton", "Save", "save", frame=Frame(100, 30, 10, 3)),
        Element("AXTextField", "Title", "title", frame=Frame(2, 4, 60, 3)),
    ),
    screenshot=Screenshot.of(png(960, 640), 960, 640),
)
TEXTUAL = Scenario(name="t", app="planner", goal="Save the item.")


async def test_a_terminal_prompt_says_cells_and_the_image_and_pixels_are_understood(server):
    tap_pixels = answer({"kind": "tap", "x": 840, "y": 504, "duration": None})  # Save, in pixels
    server.answer(tap_pixels)
    async with make_agent(server) as agent:
        decision = await agent.decide(AgentContext(TEXTUAL, CELLS, 1, device=TERMINAL))
    text = user_text(server.bodies()[0])
    assert "120x40 cells (the screenshot is 960x640 pixels, 8x16 pixels a cell" in text
    assert 'e1 Button "Save" @105,32' in text  # the tree in cells, as taps are
    image = user_content(server.bodies()[0])[1]["image_url"]["url"]
    assert Image.open(io.BytesIO(base64.b64decode(image.split(",", 1)[1]))).size == (960, 640)
    assert decision.action == Tap(105, 31.5, Target("Save", "save"))


async def test_a_pixel_family_sees_the_tree_in_the_pixels_it_answers_in(server):
    call = {"name": "mobile_use", "arguments": {"action": "click", "coordinate": [130, 90]}}
    server.answer(f"<tool_call>{json.dumps(call)}</tool_call>")
    async with make_agent(server, family="qwen2.5") as agent:
        decision = await agent.decide(AgentContext(TEXTUAL, CELLS, 1, device=TERMINAL))
    text = user_text(server.bodies()[0])
    assert "960x640 pixels (the screenshot's pixels (960x640))" in text
    assert 'e2 TextField "Title" @256,88' in text
    assert decision.action.target == Target("Title", "title")


def test_space_of_a_phone_says_nothing_when_pixels_are_points():
    space = space_of(AgentContext(SCENARIO, LOGIN, 1, device=DEVICE), (390, 844))
    assert space is not None and space.unit == "points" and space.describe() == ""


# --- how the answer is asked for ---------------------------------------------------------------


async def test_the_decision_is_offered_as_a_tool_and_its_call_accepted(server):
    arguments = TAP_SIGN_IN
    call = {"id": "c1", "type": "function", "function": {"name": "decide", "arguments": arguments}}
    server.replies.append({"raw": _completion_with_tool_calls([call])})
    async with make_agent(server, response_format="tool") as agent:
        decision = await agent.decide(AgentContext(SCENARIO, LOGIN, 1, device=DEVICE))
    body = server.bodies()[0]
    assert body["tools"][0]["function"]["name"] == "decide"
    assert body["tool_choice"]["function"]["name"] == "decide"
    assert "response_format" not in body
    assert decision.action.target == Target("Sign in", "sign_in")
    assert decision.call.attempts == 1 and decision.call.raw_response == arguments


async def test_tool_calls_without_asking_are_accepted_not_empty(server):
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "decide", "arguments": TAP_SIGN_IN},
    }
    server.replies.append({"raw": _completion_with_tool_calls([call])})
    async with make_agent(server) as agent:
        decision = await agent.decide(AgentContext(SCENARIO, LOGIN, 1, device=DEVICE))
    assert decision.call.attempts == 1 and isinstance(decision.action, Tap)


async def test_a_server_refusing_the_schema_is_asked_looser_once_each(server, caplog):
    refused = {"status": 400, "message": "response_format json_schema is not supported"}
    server.replies.extend([refused, dict(refused)])
    server.answer(f"Here you go: {TAP_SIGN_IN}")
    async with make_agent(server) as agent:
        decision = await agent.decide(AgentContext(SCENARIO, LOGIN, 1, device=DEVICE))
        assert agent.mode == "text"
        server.answer(TAP_SIGN_IN)
        await agent.decide(AgentContext(SCENARIO, LOGIN, 1, device=DEVICE))
    first, second, third, fourth = server.bodies()
    assert first["response_format"]["type"] == "json_schema"
    assert second["response_format"] == {"type": "json_object"}
    assert "response_format" not in third and "response_format" not in fourth  # kept
    assert "Schema: " in third["messages"][0]["content"]
    assert decision.call.attempts == 1
    assert "asking for json_object from now on" in caplog.text


async def test_a_server_refusing_everything_ends_in_its_own_error(server):
    server.replies.extend([{"status": 400, "message": "bad image"}] * 4)
    async with make_agent(server) as agent:
        with pytest.raises(Exception, match="HTTP 400"):
            await agent.decide(AgentContext(SCENARIO, LOGIN, 1, device=DEVICE))
    assert len(server.requests) == 3  # json_schema, json_object, text: then the error


def _completion_with_tool_calls(calls: list[dict[str, Any]]) -> str:
    return json.dumps(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1700000000,
            "model": "gpt-4o-mini",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {"role": "assistant", "content": None, "tool_calls": calls},
                }
            ],
            "usage": {"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050},
        }
    )


def test_no_secret_in_a_rejection():
    leak = answer({"kind": "type_text", "text": f"key {API_KEY}"}, "e4")
    with pytest.raises(InvalidAnswer) as caught:
        decode(leak, secrets=[API_KEY])
    assert API_KEY not in str(caught.value)


def test_a_python_literal_and_a_gemini_box_are_read():
    literal = "{'reasoning': 'Sign in.', 'element': 'e5', 'action': {'kind': 'tap', 'x': None}}"
    assert decode(f"<think>{{not json}}</think>\n{literal}").action.target == Target(
        "Sign in", "sign_in"
    )
    assert action_call("x") is None and decode(literal).element_label == "Sign in"
    # Sign in's centre (195, 385) of 390x844 is y 456, x 500 in thousandths, y first.
    box = '{"action": "click", "box_2d": [450, 490, 462, 510], "label": "Sign in"}'
    space = space_for(390, 844, family_unit=family_of("gemini-2.5-flash").unit)
    tap = parse_answer(f"```json\n{box}\n```", REFS, space=space).action
    assert tap == Tap(195, 385, Target("Sign in", "sign_in"))


def test_a_key_folded_into_the_keyboard_line_cannot_be_cited_but_a_point_finds_it():
    keyboard = Element("Keyboard", "Keyboard", frame=Frame(0, 600, 390, 244))
    q = Element("AXButton", "q", frame=Frame(0, 610, 39, 50))
    typed = Observation((*LOGIN.elements[:-1], keyboard, q))
    tree, refs = encode_tree(typed)
    assert "(1 keys: use type_text and press_key)" in tree and "e9" not in tree
    with pytest.raises(InvalidAnswer, match="'e9' is not on this screen"):
        parse_answer(answer({"kind": "tap"}, "e9"), refs, screen=SCREEN)
    tap = parse_answer(answer({"kind": "tap", "x": 20, "y": 630}), refs, screen=SCREEN).action
    assert tap == Tap(19.5, 635, Target("q"))


async def test_marks_number_the_elements_on_the_screenshot_and_a_number_is_a_ref(server):
    server.answer(answer({"kind": "tap"}, "5"))
    context = AgentContext(SCENARIO, LOGIN, 1, device=DEVICE)
    async with make_agent(server, marks=True) as agent:
        decision = await agent.decide(context)
    content = user_content(server.bodies()[0])
    assert "the number at an element's top left corner is its reference" in content[0]["text"]
    url = content[1]["image_url"]["url"]
    image = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB")
    sign_in = LOGIN.elements[5].frame  # e5, outlined where the tree says it is
    assert image.getpixel((int(sign_in.x) + 100, int(sign_in.y))) != (255, 255, 255)
    assert image.getpixel((int(sign_in.x) + 100, int(sign_in.y) + 20)) == (255, 255, 255)
    assert decision.action.target == Target("Sign in", "sign_in")


def test_unescaped_quotes_inside_a_string_are_read_as_meant():
    said = '{"action": "done", "text": "The cart lists "2 x Enamel mug"."}'
    decision = decode(f"```json\n{said}\n```")
    assert decision.action.summary == 'The cart lists "2 x Enamel mug".'
    with pytest.raises(InvalidAnswer, match="not valid JSON"):
        decode('{"action": "done", "text": "a' + ' "b"' * 30 + '"}')  # past the bound


# --- memory: notes and a plan ------------------------------------------------------------------


def test_notes_and_a_plan_are_kept_bounded_and_a_plan_in_one_string_is_its_lines():
    body = json.loads(TAP_SIGN_IN)
    decision = decode(
        json.dumps({**body, "notes": "n" * 5000, "plan": [f"g{i}" for i in range(9)]})
    )
    assert decision.notes is not None and len(decision.notes) < 600
    assert decision.plan == ("g0", "g1", "g2", "g3", "g4")
    decision = decode(json.dumps({**body, "plan": "1. sign in\n- open the home screen\n"}))
    assert decision.plan == ("1. sign in", "open the home screen")
    assert decode(TAP_SIGN_IN).notes is None and decode(TAP_SIGN_IN).plan is None
    with pytest.raises(InvalidAnswer, match="plan"):
        decode(json.dumps({**body, "plan": {"first": "sign in"}}))


async def test_the_models_notes_and_plan_come_back_scrubbed_however_far_back(server):
    """The last notes and plan written, even before the recent steps shown, are in the next
    turn's prompt; a secret in them (a cassette's, a model's guess) reaches the model as its
    stand-in."""
    noted = Decision(
        Tap(target=Target("Email")),
        notes=f"typed the email; the password is {PASSWORD}",
        plan=("a", "b"),
    )
    steps = [Step(1, "login", noted, ActionResult(), Verification(changed=True))]
    steps += [
        Step(i, "login", Decision(Tap(target=Target("Email"))), ActionResult(), Verification(True))
        for i in range(2, 6)
    ]
    server.replies.append({"content": TAP_SIGN_IN})
    async with make_agent(server, history=2) as agent:
        await agent.decide(agent_context(6, tuple(steps)))
    text = user_text(server.bodies()[0])
    assert "Your plan (step 1): 1. a; 2. b" in text
    assert "Your notes (step 1): typed the email; the password is {{password}}" in text
    assert PASSWORD not in json.dumps(server.bodies()[0])
