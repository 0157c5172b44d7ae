"""Claims in words: the scenario forms that make them (a sentence, a named state no `states:`
defines), their bad forms as located errors (exit 2), the table judge, the model judge over
loopback HTTP (never shown a secret), and the judge's decisions regression-tested on a replay."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest
from command import orav
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from standin import StandIn, serving

from orav import session
from orav.errors import InputError
from orav.judges import Question
from orav.judges.model import ModelJudge, parse_judgement
from orav.judges.table import TableJudge
from orav.model import Credentials, Element, Frame, Judgement, Observation, Scenario
from orav.scenario_loader import load_scenario

pytest_plugins = ["pytester"]
BENCH = Path(__file__).resolve().parents[1] / "orav" / "scenarios" / "bench"
SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

# Words the code never saw: letters of several scripts, digits, punctuation, inner spaces.
words = st.text(alphabet="abcxyzéø漢 ,'-?!0123", min_size=1, max_size=80).filter(
    lambda s: s.strip() and not s.startswith(("-", "?", "!", " ", "'", ","))
)
state_names = st.from_regex(r"[a-z][a-z0-9]{0,8}(_[a-z0-9]{1,8}){0,3}", fullmatch=True).filter(
    lambda n: n != "app_launched"
)


def _scenario_file(tmp_path: Path, **fields) -> Path:
    data = {"name": "words", "app": "com.orav.demo", "goal": "a goal", **fields}
    path = tmp_path / "words.yaml"
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False))  # JSON is YAML
    return path


# --- the forms --------------------------------------------------------------------------------


@SETTINGS
@given(sentences=st.lists(words, min_size=1, max_size=4), named=st.dictionaries(
    state_names, st.booleans(), max_size=3))  # fmt: skip
def test_sentences_and_undefined_named_states_become_claims_named_as_written(
    tmp_path_factory, sentences: list[str], named: dict[str, bool]
) -> None:
    tmp_path = tmp_path_factory.mktemp("forms")
    criteria = [*sentences, *({n: v} for n, v in named.items()), {"target": {"id": "settings"}}]
    path = _scenario_file(tmp_path, success_criteria=criteria, preconditions=sentences[:1])
    scenario = load_scenario(path)
    *claims, selector = scenario.success_criteria
    assert [c.claim for c in claims[: len(sentences)]] == sentences
    assert all(c.name is None for c in claims[: len(sentences)])
    for check, (name, value) in zip(claims[len(sentences) :], named.items(), strict=True):
        spoken = name.replace("_", " ")
        assert check.claim == (spoken if value else f"not {spoken}")
        assert check.name == (name if value else f"not {name}")
    assert selector.claim is None and selector.target is not None
    (precondition,) = scenario.preconditions
    assert precondition.kind == "assert" and precondition.claim == sentences[0]


@SETTINGS
@given(sentence=words)
def test_an_assert_step_may_be_a_claim(tmp_path_factory, sentence: str) -> None:
    tmp_path = tmp_path_factory.mktemp("step")
    step = {"action": {"kind": "assert", "claim": sentence}}
    scenario = load_scenario(_scenario_file(tmp_path, script=[step]))
    assert scenario.script[0].action.claim == sentence


BAD_CRITERIA = st.one_of(
    st.integers(),
    st.floats(allow_nan=False),
    st.none(),
    st.just(""),
    st.just("   "),
    st.text(alphabet="ab ", min_size=501, max_size=600).filter(str.strip),
    st.lists(st.integers(), min_size=1, max_size=2),
    st.just({"claim": "the cart is empty", "target": {"id": "cart"}}),
    st.just({"claim": ""}),
    st.just({"logged_in": "yes"}),
    st.just({"logged_in": True, "home": True}),
)


@SETTINGS
@given(before=st.lists(words, max_size=3), bad=BAD_CRITERIA)
def test_a_bad_criterion_is_an_error_at_its_line(tmp_path_factory, before, bad) -> None:
    tmp_path = tmp_path_factory.mktemp("bad")
    path = _scenario_file(tmp_path, success_criteria=[*before, bad])
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if '"success_criteria"' in line) + 2
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    where = caught.value.where or ""
    match = re.fullmatch(rf"{re.escape(str(path))}:(\d+):(\d+)", where)
    assert match, (where, str(caught.value))
    assert int(match.group(1)) >= start + len(before), (where, path.read_text())
    assert "success_criteria" in str(caught.value)


def test_bad_criteria_exit_2_with_one_located_line(tmp_path: Path) -> None:
    path = _scenario_file(tmp_path, success_criteria=["the cart shows two items", ""])
    done = orav("validate", path)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith(f"orav: error: {path}:") and "claim" in line


# --- the table judge ----------------------------------------------------------------------------

SCREEN = Observation(
    elements=(
        Element("AXStaticText", "Basket: 2 parsnips", "basket", frame=Frame(0, 100, 390, 40)),
        Element("AXButton", "Pay now", "pay", frame=Frame(20, 700, 350, 50)),
    ),
    app="org.veg.box",
)
SCENARIO = Scenario(name="veg", app="org.veg.box", goal="Fill the basket.")


async def test_the_table_judges_by_fixed_answers_and_selector_checks(tmp_path: Path) -> None:
    table = tmp_path / "t.table"
    table.write_text(
        "The basket holds two parsnips.: {target: {id: basket}, condition: contains, "
        "value: 2 parsnips}\n"
        "payment is offered: [{target: {label: Pay now}}, {target: {id: refund}, "
        "condition: absent}]\n"
        "the weather is fine: true\n"
        "the basket is empty: {target: {id: basket}, condition: value_equals, value: '0'}\n"
    )
    judge = TableJudge.load(table)

    async def ask(claim: str) -> Judgement:
        return await judge.judge(Question(claim, SCREEN, SCENARIO))

    assert (await ask("the basket  holds two PARSNIPS")).passed  # words, not spelling
    paid = await ask("payment is offered")
    assert paid.passed and paid.evidence == "'Pay now' is visible; #refund is absent"
    assert (await ask("the weather is fine")).passed
    empty = await ask("the basket is empty")
    assert not empty.passed and empty.evidence == "#basket has value '0': value None"
    unknown = await ask("the parsnips are organic")
    assert not unknown.sure and f"add it to {table}" in unknown.reason()
    assert paid.at == Frame(20, 700, 350, 50)  # the evidence: the element the checks found


async def test_the_table_matches_claims_whatever_unicode_form_or_case(tmp_path: Path) -> None:
    table = tmp_path / "t.table"  # written composed (NFC), asked decomposed and upper case
    table.write_text("die straße ist geöffnet: true\n", encoding="utf-8")
    judge = TableJudge.load(table)
    asked = unicodedata.normalize("NFD", "Die STRASSE ist geöffnet.")
    assert (await judge.judge(Question(asked, SCREEN, SCENARIO))).passed


@pytest.mark.parametrize(
    ("text", "where", "what"),
    [
        ("- a list\n", "1:1", "expected a mapping of claims"),
        ("fine: 3\n", "1:1", "expected true, false or selector checks"),
        ("ok: true\nbad: {target: {id: x}, condition: glows}\n", "2:6", "condition"),
        ("ok: true\nbad: [{target: {id: x}}, {claim: words}]\n", "2:1", "by selectors"),
    ],
)
def test_a_bad_table_is_an_error_at_its_line(tmp_path: Path, text: str, where: str, what: str):
    table = tmp_path / "bad.table"
    table.write_text(text)
    with pytest.raises(InputError) as caught:
        TableJudge.load(table)
    assert caught.value.where.startswith(f"{table}:{where.split(':')[0]}:"), caught.value.where
    assert what in str(caught.value)
    done = orav("replay", BENCH / "nothing.cassette", "--judge", f"table:{table}")
    assert done.returncode == 2 and str(table) in done.stderr


# --- the model judge --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "holds", "confidence"),
    [
        ('{"holds": true, "evidence": "x", "confidence": 0.9}', True, 0.9),
        ('```json\n{"holds": "no", "evidence": "x", "confidence": 80}\n```', False, 0.8),
        ('{"holds": false, "evidence": "x"}', False, 1.0),
        (
            'Looking at it: {"holds": true, "evidence": "x", "confidence": 0.75} is my answer',
            True,
            0.75,
        ),
        ('<tool_call>{"holds": false, "evidence": "x", "confidence": 0.9}</tool_call>', False, 0.9),
    ],
)
def test_a_models_judgement_is_read_within_reason(answer: str, holds: bool, confidence: float):
    judgement = parse_judgement(answer)
    assert (judgement.holds, judgement.confidence) == (holds, confidence)


@pytest.mark.parametrize(
    "answer",
    ["[]", '{"verdict": true}', '{"holds": true, "confidence": 400}', "yes",
     '{"holds": true, "confidence": "very"}'],
)  # fmt: skip
def test_a_judgement_off_the_schema_is_refused_with_a_reason(answer: str) -> None:
    from orav.agents.answer import InvalidAnswer

    with pytest.raises(InvalidAnswer):
        parse_judgement(answer)


async def test_the_model_judge_is_never_shown_a_secret(monkeypatch) -> None:
    password, token = "Parsnip-Secret-9!", "tok-7f3a9c2e11"
    monkeypatch.setenv("VEG_TOKEN", token)
    scenario = Scenario(
        name="veg",
        app="org.veg.box",
        goal="Sign in and fill the basket.",
        credentials=Credentials("grower@veg.box", password),
        variables=("VEG_TOKEN",),
    )
    leaky = Observation(
        elements=(
            Element(
                "AXTextField", "Notes", "notes", value=f"pw {password}", frame=Frame(0, 0, 9, 9)
            ),
            Element("AXStaticText", f"token {token}", frame=Frame(0, 20, 9, 9)),
            Element("AXTextField", "Password", value="•••", secure=True, frame=Frame(0, 40, 9, 9)),
        ),
        app="org.veg.box",
    )
    model = StandIn()
    with serving(model) as url:
        async with ModelJudge.from_spec("openai:judge", base_url=url, max_retries=0) as judge:
            judgement = await judge.judge(Question("the notes are empty", leaky, scenario))
    assert judgement.holds and judgement.call is not None and judgement.call.prompt_tokens == 800
    sent = json.dumps(model.requests)
    assert password not in sent and token not in sent
    assert "{{password}}" in sent and "{{VEG_TOKEN}}" in sent  # stand-ins a model can name
    assert model.judged == ["the notes are empty"]


# --- the judge's decisions regression-tested ---------------------------------------------------


def test_replay_with_a_candidate_judge_lists_where_it_judged_otherwise(tmp_path: Path) -> None:
    scenario = BENCH / "demo_sign_in.yaml"
    cassette = tmp_path / "sign_in.cassette"
    table = BENCH / "judge.table"
    done = orav("record", scenario, "--judge", f"table:{table}", "--out", cassette)
    assert done.returncode == 0, done.stderr
    same = orav("replay", cassette, "--judge", f"table:{table}")
    assert same.returncode == 0, same.stderr
    assert "3 of 3 judgements of table:" in same.stdout
    strict = tmp_path / "strict.table"
    strict.write_text(
        table.read_text().replace(
            "no sign-in button is visible: {target: {id: sign_in}, condition: absent}",
            "no sign-in button is visible: {target: {id: settings}, condition: absent}",
        )
    )
    differs = orav("replay", cassette, "--judge", f"table:{strict}")
    assert differs.returncode == 1
    assert "2 of 3 judgements" in differs.stdout
    assert "step 6: 'no sign-in button is visible': recorded holds" in differs.stdout
    assert "fails (#settings is absent: it is still there ('Settings'))" in differs.stdout


async def test_a_replay_asked_another_claim_than_recorded_diverges(tmp_path: Path) -> None:
    cassette = tmp_path / "sign_in.cassette"
    scenario = load_scenario(BENCH / "demo_sign_in.yaml")
    judge = TableJudge.load(BENCH / "judge.table")
    recorded = await session.record(scenario, cassette, judge=judge)
    assert recorded.report.goal_met
    lines = cassette.read_text().splitlines()
    edited = [  # the judgement only: the scenario in the header still asks the old claim
        line.replace('"claim":"no sign-in button is visible"', '"claim":"no button at all"')
        if line.startswith('{"type":"judge"')
        else line
        for line in lines
    ]
    cassette.write_text("\n".join(edited) + "\n")
    from orav.errors import ReplayDivergence

    with pytest.raises(ReplayDivergence, match="expected judge 'no button at all'"):
        await session.replay(cassette)


def test_a_claim_exports_to_maestro_as_its_own_ai_assertion(tmp_path: Path) -> None:
    cassette = tmp_path / "sign_in.cassette"
    table = BENCH / "judge.table"
    done = orav(
        "record", BENCH / "demo_sign_in.yaml", "--judge", f"table:{table}", "--out", cassette
    )
    assert done.returncode == 0, done.stderr
    flow = tmp_path / "flow.yaml"
    exported = orav("export", "maestro", cassette, "--out", flow)
    assert exported.returncode == 0, exported.stderr
    text = flow.read_text()
    for claim in ("the sign-in form is showing", "no sign-in button is visible"):
        assert f"- assertWithAI:\n    assertion: {claim}\n" in text


MARKED_WORDS = """
import pytest


@pytest.mark.orav(scenario={scenario!r}, judge={judge!r})
def test_sign_in(orav):
    assert orav.report.goals_achieved == (
        'the home screen lists "Getting started"', "no sign-in button is visible"
    )
"""


def test_a_marked_test_judges_when_it_records_and_replays_with_no_judge(pytester) -> None:
    scenario, table = BENCH / "demo_sign_in.yaml", BENCH / "judge.table"
    pytester.makepyfile(
        test_words=MARKED_WORDS.format(scenario=str(scenario), judge=f"table:{table}")
    )
    plain = ("-p", "no:cacheprovider", "-p", "no:asyncio")
    pytester.runpytest("--orav-record-mode", "once", *plain).assert_outcomes(passed=1)
    cassette = pytester.path / "cassettes" / "test_words" / "test_sign_in.cassette"
    assert cassette.read_text().count('"type":"judge"') == 3
    # the replay asks no judge: the marker's names a table that is not there
    pytester.makepyfile(test_words=MARKED_WORDS.format(scenario=str(scenario), judge="table:/nope"))
    pytester.runpytest(*plain).assert_outcomes(passed=1)
