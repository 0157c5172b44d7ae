"""Issue 23, third round: answers in words and shapes the decoder was not written for are read
by what they mean. An action's kind in another word (``orav.agents.verbs``: the schema's own
names and verbs), a reference written otherwise, numbers and truths as text, a point in
fractions of the screen, JSON5, fields one a line, the answer left in a reasoning field, a
done said in prose; what cannot be read is still a located re-ask, never a guess at an action.

Hypothesis draws the spellings (cases, separators, words around the verb that are no verb)
from what the schema says, never from a list of the model behaviours seen; the real openai
client over HTTP reads the reasoning fields (``tests/model_server.py``).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from model_server import LOGIN, SCENARIO, TAP_SIGN_IN, agent_context, answer, decide

from orav.agents import AgentContext
from orav.agents.answer import InvalidAnswer, parse_answer
from orav.agents.prompt import encode_tree, screen_of
from orav.agents.schema import KINDS
from orav.agents.verbs import VERBS, kind_of, sentence_kind, words
from orav.model import Done, PressKey, Tap, TypeText, Wait

_, REFS = encode_tree(LOGIN)
SCREEN = screen_of(AgentContext(SCENARIO, LOGIN, 1))
SIGN_IN = next(ref for ref, element in REFS.items() if element.label == "Sign in")


def decode(text: str | None, **options: Any):
    return parse_answer(text, REFS, screen=SCREEN, **options)


# Each verb the schema gives one kind alone, with that kind: the words a model may use for it.
OWN = sorted((word, next(iter(kinds))) for word, kinds in VERBS.items() if len(kinds) == 1)
# Words that name no kind: what models put around a verb (``_element_by_index``, ``_at``).
others = st.from_regex(r"[a-z]{2,9}", fullmatch=True).filter(lambda w: not kind_of(w))


def _spelled(parts: list[str], style: str) -> str:
    if style == "snake":
        return "_".join(parts)
    if style == "upper":
        return "_".join(parts).upper()
    if style == "camel":
        return parts[0] + "".join(part.title() for part in parts[1:])
    return " ".join(parts).title()


@settings(max_examples=200, deadline=None)
@given(
    pair=st.sampled_from(OWN),
    before=st.lists(others, max_size=1),
    after=st.lists(others, max_size=2),
    style=st.sampled_from(["snake", "upper", "camel", "title"]),
)
def test_a_verb_the_schema_gives_a_kind_names_it_however_it_is_spelled(pair, before, after, style):
    verb, kind = pair
    assert kind_of(_spelled([*before, verb, *after], style)) == kind


ARGUMENTS = {
    "tap": {},
    "type_text": {"text": "hello"},
    "press_key": {"key": "return"},
    "wait": {"seconds": 1},
    "done": {"success": True, "summary": "Signed in."},
}
TYPES = {"tap": Tap, "type_text": TypeText, "press_key": PressKey, "wait": Wait, "done": Done}


@settings(max_examples=150, deadline=None)
@given(
    pair=st.sampled_from([(w, k) for w, k in OWN if k in ARGUMENTS]),
    after=st.lists(others, max_size=1),
    style=st.sampled_from(["snake", "upper", "camel"]),
    shape=st.sampled_from(["kind", "verb", "keyed", "list"]),
)
def test_an_action_in_other_words_and_shapes_is_the_action_meant(pair, after, style, shape):
    """The kind in another word, as orav's ``kind``, as the seed's verb beside its fields, as
    an object keyed by its verb (browser-use) or the first of a list of such."""
    verb, kind = pair
    spelled = _spelled([verb, *after], style)
    arguments = ARGUMENTS[kind]
    element = SIGN_IN if kind == "tap" else None
    if shape == "kind":
        action: Any = {"kind": spelled, **arguments}
        data = {"reasoning": "r", "element": element, "action": action}
    elif shape == "verb":
        data = {"reasoning": "r", "element": element, "action": spelled, **arguments}
    else:
        keyed = {spelled: {**arguments, **({"index": int(element[1:])} if element else {})}}
        data = {"reasoning": "r", "action": keyed if shape == "keyed" else [keyed, {"wait": {}}]}
    decision = decode(json.dumps(data))
    assert isinstance(decision.action, TYPES[kind])
    if kind == "tap":
        assert decision.element_label == "Sign in"


@pytest.mark.parametrize("word", ["press", "go", "frobnicate"])
def test_a_word_that_names_no_kind_or_two_alike_is_reasked_naming_the_kinds(word):
    with pytest.raises(InvalidAnswer, match=f"unknown action kind '{word}'; expected one of"):
        decode(answer({"kind": word}))


def test_the_answers_fields_tip_a_shared_verb_to_the_kind_that_takes_them():
    assert kind_of("press", ["key"]) == "press_key"
    assert kind_of("press", ["element"]) == "tap"
    assert kind_of("terminate", ["status"]) == "done"
    assert isinstance(decode(json.dumps({"action": "press", "key": "escape"})).action, PressKey)
    gave_up = {"action": {"kind": "task_complete", "status": "failure"}}  # its own fields too
    assert decode(json.dumps(gave_up)).action == Done(success=False)


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ('Tap on the "Sign in" button', "tap"),
        ("Press the escape key", "press_key"),
        ('Type "hello" into e4', "type_text"),
        ("Wait a second", "wait"),
        ("Done: the task is complete", "done"),
        ("I'm sorry, I can't assist with that.", None),
    ],
)
def test_a_sentence_names_its_kind_by_its_first_own_verb(sentence, kind):
    assert sentence_kind(sentence) == kind


@settings(max_examples=100, deadline=None)
@given(
    ref=st.sampled_from([ref for ref in REFS if re.fullmatch(r"e\d+", ref)]),
    form=st.sampled_from(
        ["element {n}", "[{n}]", "#{n}", "E{n}", "({ref})", "ref {ref}", "Element #{n}", "{n}"]
    ),
)
def test_a_reference_written_otherwise_is_that_reference(ref, form):
    said = form.format(n=ref[1:], ref=ref)
    decision = decode(answer({"kind": "tap"}, said))
    element = REFS[ref]
    assert decision.element_label == (element.label or element.unique_id)


def test_a_reference_written_otherwise_that_is_not_on_the_screen_is_stale():
    with pytest.raises(InvalidAnswer, match="'e99' is not on this screen"):
        decode(answer({"kind": "tap"}, "element 99"))


@settings(max_examples=100, deadline=None)
@given(
    ref=st.sampled_from([r for r, e in REFS.items() if e.frame.width > 4 and e.interactive]),
    fractions=st.booleans(),
)
def test_a_point_in_fractions_of_the_screen_or_as_text_is_the_element_there(ref, fractions):
    centre = REFS[ref].frame.center
    if fractions:  # three decimals, as models write them
        x, y = round(centre.x / SCREEN.width, 3), round(centre.y / SCREEN.height, 3)
        assert not (float(x).is_integer() and float(y).is_integer())
    else:
        x, y = f"{centre.x:g}", f" {centre.y:g} "
    decision = decode(answer({"kind": "tap", "x": x, "y": y}))
    assert decision.element_label == (REFS[ref].label or REFS[ref].unique_id)
    assert not decision.action.vision


def test_truths_and_numbers_as_text_are_read_where_the_schema_wants_them():
    said = {"previous_outcome_met": "yes", "action": {"kind": "wait", "seconds": "2.5"}}
    decision = decode(json.dumps({"reasoning": "r", **said}))
    assert decision.previous_outcome_met is True and decision.action == Wait(2.5)
    done = decode(json.dumps({"action": {"kind": "done", "success": "false"}}))
    assert done.action.success is False
    with pytest.raises(InvalidAnswer, match="seconds"):
        decode(json.dumps({"action": {"kind": "wait", "seconds": "soon"}}))


json5_answers = st.builds(
    lambda quote, comma, comment, bare: (
        "{\n"
        + ("  // my answer\n" if comment else "")
        + f"  {'reasoning' if bare else quote + 'reasoning' + quote}: {quote}r{quote},\n"
        + f"  element: {quote}{SIGN_IN}{quote},\n"
        + f"  action: {{kind: {quote}tap{quote}{',' if comma else ''}}}{',' if comma else ''}\n"
        + "}"
        + (" /* end */" if comment else "")
    ),
    st.sampled_from(["'", '"']),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)


@given(text=json5_answers, lead=st.sampled_from(["", "Here it is: ", "```json5\n"]))
def test_json5_is_read_as_json(text, lead):
    decision = decode(lead + text)
    assert isinstance(decision.action, Tap) and decision.element_label == "Sign in"


def test_fields_one_a_line_in_markdown_are_the_answer():
    text = (
        "**Reasoning:** the form is filled.\n\n- **Action:** `type_text`\n"
        f"- **Element:** {SIGN_IN} (the button)\n- **Text:** `hello`\n- **Expected outcome:** typed"
    )
    decision = decode(text)
    assert decision.action == TypeText("hello") and decision.reasoning == "the form is filled."
    with pytest.raises(InvalidAnswer, match="no JSON object"):
        decode("Note: nothing to do\nStatus: fine")  # fields, but no action among them


def test_only_a_done_is_read_from_prose_and_it_is_a_claim_to_prove():
    decision = decode("I have completed the task: the home screen shows.")
    assert isinstance(decision.action, Done) and decision.action.success
    with pytest.raises(InvalidAnswer, match="no JSON object"):
        decode("I would tap the Sign in button.")  # an action is taken from structure only


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_an_answer_left_in_a_reasoning_field_is_read(server, field):
    server.replies.append({"message": {field: f"Let me see. {TAP_SIGN_IN}"}})
    decision = await decide(server, agent_context())
    assert decision.element_label == "Sign in" and decision.call.attempts == 1
    server.replies.append({"content": "", "message": {field: "  "}})
    server.answer(TAP_SIGN_IN)
    decision = await decide(server, agent_context())
    assert decision.call.attempts == 2  # nothing anywhere: re-asked as empty


def test_the_schema_tells_the_model_each_kinds_verbs():
    for kind, description in KINDS.items():
        assert words(kind)[0] in words(description.partition(":")[0])


def test_field_names_in_another_case_an_element_object_and_fields_no_kind_has_are_read():
    """Hold-out shapes written after the mechanisms above: the schema's names capitalised or
    in camelCase, the element as an object, fields of the model's own inside the action."""
    capital = {
        "Reasoning": "r",
        "Element": SIGN_IN,
        "Action": {"Kind": "tap"},
        "expectedOutcome": "x",
    }
    decision = decode(json.dumps(capital))
    assert decision.element_label == "Sign in" and decision.expected_outcome == "x"
    as_object = {"element": {"ref": SIGN_IN, "label": "Sign in"}, "action": {"kind": "tap"}}
    assert decode(json.dumps(as_object)).element_label == "Sign in"
    named = {"element": {"name": "sign-in"}, "action": {"kind": "tap"}}
    assert decode(json.dumps(named)).element_label == "Sign in"
    extra = {"action": {"kind": "done", "result": "success", "confidence": 0.9}}
    assert decode(json.dumps(extra)).action == Done()


def test_yaml_is_read_as_the_answer():
    text = f"reasoning: the form is filled\nelement: {SIGN_IN}\naction:\n  Kind: tap\n"
    decision = decode(f"```yaml\n{text}```")
    assert isinstance(decision.action, Tap) and decision.element_label == "Sign in"


def test_an_xml_elements_attributes_are_the_answer_and_no_entity_is_expanded():
    text = (
        f'I will <action kind="tap" element="{SIGN_IN}" reasoning="the &quot;Sign in&quot; one"/>'
    )
    decision = decode(text)
    assert decision.element_label == "Sign in" and decision.reasoning == 'the "Sign in" one'
    bomb = '<!DOCTYPE a [<!ENTITY x "xxxxxxxx">]><action kind="type_text" text="&x;&x;"/>'
    assert decode(bomb).action == TypeText("&x;&x;")  # typed as written, never expanded
