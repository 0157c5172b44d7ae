"""The zoo (orav/zoo/): simulated models over real HTTP, the real openai client and the real
apps (the simulator over fb-idb's gRPC, the planner under Pilot), and the robustness the LLM
agent holds against them on main. bench/agent_zoo.py measures the whole matrix; this keeps a
small fixed seed set so CI sees a regression on every commit.

When the agent learns to handle a mistake kind, add it to ``ALONE`` (a wild behaviour to
``WILD_READ``); ``FLOOR`` holds issue 23's targets (95 % at 10 %, 90 % at 30 %).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import attrs
import pytest
from command import orav
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orav.agents.prompt import element_line
from orav.codec.yaml import read_yaml
from orav.errors import InputError
from orav.model import Element, Frame
from orav.zoo import FAMILIES, MISTAKES, WILD, Mistake, Player, ZooServer, load_mistakes, tasks
from orav.zoo.__main__ import main as zoo_main
from orav.zoo.mistakes import Wire
from orav.zoo.policy import done
from orav.zoo.turn import read_element

TASKS = tasks()
GENERIC = [m for name, m in MISTAKES.items() if name not in FAMILIES]
# The kinds the agent on main gets through alone, in 100 % of answers, on all three tasks.
ALONE = [
    "prose",
    "fenced",
    "tool_calls",
    "seed_shape",
    "paraphrase",
    "stale_ref",
    "off_by_n",
    "early_done",
    "loop",
    "again",
    "done_twice",
    "slow",
    "notes",
    "qwen_pixels",
    "qwen_boxes",
    "ui_tars",
]
# Passed runs at each rate over SEEDS on the three tasks.
SEEDS = (0,)
FLOOR = {0.10: 0.95, 0.30: 0.90}  # issue 23's targets


# Behaviours of orav/zoo/wild.yaml, nobody wrote the agent for, that it reads on main (on the
# login: they are wordings, the bench plays them on all three tasks).
WILD_READ = [
    "think_tags",
    "python_dict",
    "minimal",
    "xml_answer",
    "json_then_prose",
    "gemini_box",
    "tool_call_tags",
    # written in the third round before the agent was taught them
    "claude_computer_use",
    "openai_computer_use",
    "gemini_computer_use",
    "browser_use",
    "appagent",
    "reasoning_content",
    "reasoning_field",
    "truncated",
    "refusal",
    "refusal_prose",
    "lenient_json",
    "plan_then_action",
    "verb_synonyms",
    "action_sentence",
    "unit_floats",
    "ref_forms",
    "string_numbers",
    "markdown_bullets",
    "other_language",
    "rate_limited",
    "overloaded",
    "dropped",
    # the hold-out set, written after those fixes (mobile_agent is not read)
    "capital_keys",
    "xml_attributes",
    "element_object",
    "extra_action_fields",
    "yaml_answer",
    "decision_wrapper",
]


def _wild(name: str) -> Mistake:
    """A behaviour of wild.yaml, its Retry-After kept short in CI (the path is the same)."""
    data = next(item for item in read_yaml(WILD.read_text(), str(WILD)) if item["name"] == name)
    if "retry_after" in data:
        data = {**data, "retry_after": 0.05}
    return Mistake.from_dict(data)


def _fast(mistake: Mistake) -> Mistake:
    """A slow answer kept short in CI: the path is the same, the minutes are not."""
    return attrs.evolve(mistake, delay=min(mistake.delay, 0.2))


@pytest.mark.parametrize("name", sorted(TASKS))
async def test_a_model_without_mistakes_passes_every_task_cleanly(name: str, tmp_path: Path):
    outcome = await TASKS[name].play(tmp_path / "run.cassette")
    assert outcome.report.status == "passed", outcome.report
    assert outcome.truth
    assert outcome.tally.reasks == 0 and outcome.tally.secrets_seen == 0
    assert outcome.tally.requests == outcome.report.total_steps + 1  # the last one is the done


# A secret orav never saw: mixed characters, one outside base64's alphabet (so a screenshot's
# bytes cannot hold it by chance), none JSON escapes.
unknown_secrets = st.text(
    st.sampled_from("abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"), min_size=6
).map(lambda s: s[:3] + "!" + s[3:] + "~")
names = st.from_regex(r"[A-Z][A-Z0-9_]{2,11}", fullmatch=True).filter(lambda n: n not in os.environ)


@settings(
    max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(token=unknown_secrets, name=names)
def test_no_known_secret_reaches_the_model_and_the_agent_still_types_the_password(
    token: str, name: str, tmp_path: Path
):
    """The test password and a ``${NAME}`` value in the goal (as a scenario written carelessly
    would) reach no request the model server receives: the model sees their stand-ins,
    ``{{password}}`` and ``{{NAME}}``, and the run still signs in with the real password."""
    task = TASKS["login"]
    password = task.scenario.credentials.password  # type: ignore[union-attr]
    goal = f"{task.scenario.goal} The password is {password}; the token is {token}."
    scenario = attrs.evolve(task.scenario, goal=goal, variables=(name,))
    leaky = attrs.evolve(task, scenario=scenario, secrets=(password, token))
    os.environ[name] = token
    try:
        outcome = asyncio.run(leaky.play(tmp_path / "run.cassette"))
    finally:
        del os.environ[name]
    assert outcome.passed and outcome.truth, outcome.report
    assert outcome.tally.requests > 1 and outcome.tally.secrets_seen == 0


@pytest.mark.parametrize("rate", sorted(FLOOR))
async def test_mixed_mistakes_never_pass_falsely_or_leak_and_mostly_pass(rate, tmp_path: Path):
    outcomes = [
        await task.play(tmp_path / f"{name}-{seed}.cassette", GENERIC, rate=rate, seed=seed)
        for name, task in TASKS.items()
        for seed in SEEDS
    ]
    assert not [o.report.scenario for o in outcomes if o.false_pass]
    assert sum(o.tally.secrets_seen for o in outcomes) == 0
    assert sum(o.tally.made.total() for o in outcomes) > 0  # mistakes were made
    assert sum(o.passed for o in outcomes) / len(outcomes) >= FLOOR[rate]


@pytest.mark.parametrize("kind", ALONE)
async def test_each_kind_the_agent_handles_passes_alone_on_every_task(kind: str, tmp_path: Path):
    mistake = _fast(MISTAKES[kind])
    for name, task in TASKS.items():
        outcome = await task.play(tmp_path / f"{name}.cassette", [mistake], rate=1.0)
        assert outcome.passed and outcome.truth, (name, outcome.report)
        assert outcome.tally.made[kind] > 0 and outcome.tally.secrets_seen == 0


@pytest.mark.parametrize("name", WILD_READ)
async def test_each_wild_behaviour_the_agent_reads_passes_alone(name: str, tmp_path: Path):
    """Read the first time; one corrected when told (once) is re-asked once per answer."""
    mistake = _wild(name)
    outcome = await TASKS["login"].play(tmp_path / "run.cassette", [mistake], rate=1.0)
    assert outcome.report.status == "passed" and outcome.truth, outcome.report
    made = outcome.tally.made[name]
    assert made > 0 and outcome.tally.reasks == (made if mistake.once else 0)
    assert outcome.tally.made[f"{name} (failed)"] == made * mistake.fails


# --- the zoo itself ---------------------------------------------------------------------------

LOGIN = {
    "model": "zoo-vision",
    "messages": [
        {"role": "system", "content": "You are a UI acceptance tester."},
        {
            "role": "user",
            "content": 'Goal: Sign in.\nTest account: username "a@b.cd", password {{password}}\n'
            "Step 1 of at most 12.\n"
            "Screen: app com.orav.demo running, 390x844 points. Elements (ref role ...):\n"
            'e3 TextField "Email" @195,222\ne4 TextField "Password" secure @195,282\n'
            'e5 Button "Sign in" @195,377',
        },
    ],
}


def _ask(zoo: Any, body: dict) -> dict:
    request = urllib.request.Request(
        f"{zoo.url}/chat/completions",
        json.dumps(body).encode(),
        {"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:  # loopback only
        assert response.status == 200
        return json.loads(response.read())["choices"][0]["message"]


def test_the_same_seed_gives_the_same_answers_and_another_seed_others():
    def answers(seed: int) -> list[str]:
        player = Player(TASKS["login"].policy, mistakes=GENERIC, rate=0.5, seed=seed)
        return [
            json.dumps(attrs.asdict(player.answer(json.dumps(LOGIN).encode())[0]))
            for _ in range(12)
        ]

    assert answers(7) == answers(7)
    assert answers(7) != answers(8)


def test_a_sensible_model_taps_the_empty_field_first_and_counts_secrets_it_is_sent():
    player = Player(TASKS["login"].policy, secrets=["Hunter-2!"])
    with ZooServer(player) as zoo:
        message = _ask(zoo, LOGIN)
        leaked = json.loads(json.dumps(LOGIN))
        leaked["messages"][1]["content"] += "\nValue typed: Hunter-2!"
        _ask(zoo, leaked)
    answer = json.loads(message["content"])
    assert answer["element"] == "e3" and answer["action"]["kind"] == "tap"
    assert player.tally.secrets_seen == 1 and player.tally.requests == 2


@pytest.mark.parametrize(
    ("kind", "check"),
    [
        ("tool_calls", lambda m: m["content"] is None and m["tool_calls"][0]["function"]["name"]),
        ("prose", lambda m: not m["content"].startswith("{") and '"element": "e3"' in m["content"]),
        ("seed_shape", lambda m: json.loads(m["content"])["coordinates"] == {"x": 195, "y": 222}),
        ("ui_tars", lambda m: "Action: click(start_box='(488," in m["content"]),
        ("qwen_boxes", lambda m: "bbox_2d" in m["content"]),
        ("paraphrase", lambda m: json.loads(m["content"])["element"] not in ("e3", None)),
    ],
)
def test_each_kind_answers_in_its_own_shape(kind: str, check):
    player = Player(TASKS["login"].policy, mistakes=[MISTAKES[kind]], rate=1.0)
    with ZooServer(player) as zoo:
        assert check(_ask(zoo, LOGIN))
    assert player.tally.made[kind] == 1


def test_a_behaviour_nobody_wrote_the_agent_for_is_data():
    mistake = Mistake.from_dict({"name": "xml", "template": "<answer>{json}</answer> ({label})"})
    player = Player(TASKS["login"].policy, mistakes=[mistake], rate=1.0)
    with ZooServer(player) as zoo:
        content = _ask(zoo, LOGIN)["content"]
    assert content.startswith("<answer>{") and content.endswith("</answer> (Email)")
    with pytest.raises(InputError, match="template"):
        Mistake.from_dict({"name": "bad", "template": "{nonsense}"})
    with pytest.raises(InputError, match="needs a 'name'"):
        Mistake.from_dict({"template": "{json}"})


def test_the_shipped_wild_behaviours_each_answer_in_their_own_words():
    wild = load_mistakes(WILD)
    assert len({m.name for m in wild}) == len(wild) >= 5
    plain = attrs.asdict(Wire(json.dumps(decision_of_login())))
    for mistake in wild:
        player = Player(TASKS["login"].policy, mistakes=[mistake], rate=1.0)
        wire, _, model = player.answer(json.dumps(LOGIN).encode())
        assert wire.content or wire.tool_calls or wire.status != 200 or wire.drop, mistake.name
        assert attrs.asdict(wire) != plain, mistake.name
        assert model == (mistake.model or "zoo-vision")


def test_a_busy_server_fails_the_same_request_as_often_as_told_then_answers():
    busy = Mistake.from_dict({"name": "busy", "template": "{json}", "status": 429, "fails": 2})
    player = Player(TASKS["login"].policy, mistakes=[busy], rate=1.0)
    body = json.dumps(LOGIN).encode()
    statuses = [player.answer(body)[0].status for _ in range(3)]
    assert statuses == [429, 429, 200]
    with pytest.raises(InputError, match="unknown key 'stauts'"):
        Mistake.from_dict({"name": "typo", "template": "{json}", "stauts": 429})


def decision_of_login() -> dict:
    player = Player(TASKS["login"].policy)
    return json.loads(player.answer(json.dumps(LOGIN).encode())[0].content or "")


def test_a_re_ask_is_answered_without_the_slip_but_with_the_habit():
    player = Player(TASKS["login"].policy, mistakes=[MISTAKES["stale_ref"]], rate=1.0)
    reask = json.loads(json.dumps(LOGIN))
    reask["messages"] += [
        {"role": "assistant", "content": "{}"},
        {"role": "user", "content": "That answer was rejected: unknown element reference."},
    ]
    with ZooServer(player) as zoo:
        first = json.loads(_ask(zoo, LOGIN)["content"])
        second = json.loads(_ask(zoo, reask)["content"])
    assert first["element"] not in ("e3", "e4", "e5") and second["element"] == "e3"
    assert player.tally.reasks == 1


texts = st.text(
    st.characters(blacklist_characters='"\n\r', blacklist_categories=["Cs"]), max_size=20
)
ids = st.text("abcdefxyz_0123", min_size=1, max_size=12).map(lambda s: "i" + s)


@given(label=texts, ident=ids, value=st.one_of(st.none(), texts), x=st.integers(0, 380))
def test_the_zoo_reads_every_element_line_the_prompt_writes(label, ident, value, x):
    """Labels, ids and values the zoo never saw, as the prompt writes them, read back."""
    element = Element("AXButton", label.strip() or None, ident, value, frame=Frame(x, 7, 10, 10))
    seen = read_element(element_line("e7", element))
    assert seen is not None and seen.ref == "e7" and (seen.x, seen.y) == (round(x + 5), 12)
    assert seen.label == " ".join((element.label or "").split())
    assert seen.id in (ident, "")
    if value and value.split():
        assert seen.value == " ".join(value.split())


def test_the_zoo_command_refuses_bad_arguments_in_one_line(capsys, tmp_path: Path):
    assert zoo_main(["login", "--mistakes", "prose,telepathy"]) == 2
    assert "unknown mistake 'telepathy'" in capsys.readouterr().err
    bad = tmp_path / "m.json"
    bad.write_text('{"name": "x"}')
    assert zoo_main(["login", "--mistakes-file", str(bad)]) == 2
    assert "expected a list of mistakes" in capsys.readouterr().err
    bad.write_text('- {name: x, template: "{json"}')
    assert zoo_main(["login", "--mistakes-file", str(bad)]) == 2
    assert f"{bad}[0]: x: template" in capsys.readouterr().err
    assert zoo_main(["login", "--rate", "2"]) == 2


# The answer shapes a candidate at the zoo may answer in and still decide as recorded.
REGRESSION = [
    None,
    "fenced",
    "prose",
    "tool_calls",
    "seed_shape",
    "qwen_pixels",
    "qwen_boxes",
    "ui_tars",
]


@pytest.mark.parametrize("habit", REGRESSION)
async def test_decision_regression_against_the_zoo_through_orav_replay(habit, tmp_path: Path):
    """A recorded run judged by a candidate at the zoo, through ``orav replay --agent``: the
    same model decides as recorded, in whatever shape (and family) it answers."""
    task = TASKS["login"]
    recorded = await task.play(tmp_path / "login.cassette")
    assert recorded.passed
    mistakes = [MISTAKES[habit]] if habit else []
    model = (mistakes[0].model if mistakes else None) or "zoo-vision"
    player = Player(task.policy, mistakes=mistakes, rate=1.0)
    with ZooServer(player) as zoo:
        done = orav(
            "replay", recorded.cassette, "--agent", f"openai:{model}", "--base-url", zoo.url
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert player.tally.requests == recorded.report.total_steps + 1


async def test_decision_regression_with_the_family_chosen_by_the_spec(tmp_path: Path):
    """A model whose name says nothing of its family, chosen by ``?family=`` in the spec."""
    task = TASKS["login"]
    recorded = await task.play(tmp_path / "login.cassette")
    player = Player(task.policy, mistakes=[attrs.evolve(MISTAKES["ui_tars"], model=None)], rate=1)
    with ZooServer(player) as zoo:
        agent = "openai:my-finetune?family=uitars"
        done = orav("replay", recorded.cassette, "--agent", agent, "--base-url", zoo.url)
    assert done.returncode == 0, done.stdout + done.stderr
    assert player.tally.requests == recorded.report.total_steps + 1 and player.tally.reasks == 0


def test_the_zoo_command_serves_until_terminated_and_says_what_it_saw():
    server = subprocess.Popen(
        [sys.executable, "-m", "orav.zoo", "login", "--mistakes", "fenced", "--rate", "1"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        first = server.stdout.readline()  # type: ignore[union-attr]
        url = re.search(r"at (http://127\.0\.0\.1:\d+/v1)", first).group(1)  # type: ignore[union-attr]
        zoo = SimpleNamespace(url=url)
        assert _ask(zoo, LOGIN)["content"].startswith("```json")
    finally:
        server.terminate()
        rest, _ = server.communicate(timeout=10)
    assert server.returncode == 0
    assert "1 requests, 0 re-asks, 0 secrets seen" in rest


@pytest.mark.parametrize("name", ["login", "triage"])
async def test_a_lazy_pass_is_caught_by_the_apps_own_state(name: str, tmp_path: Path):
    """Criteria that test nothing let a model's first ``done`` pass; the truth, read from the
    app (the simulator's stack, the planner's database), says the goal was not met."""
    task = TASKS[name]
    lazy = attrs.evolve(
        task,
        scenario=attrs.evolve(task.scenario, success_criteria=()),
        policy=lambda turn: done("Looks done to me."),
    )
    outcome = await lazy.play(tmp_path / "lazy.cassette")
    assert outcome.passed and not outcome.truth and outcome.false_pass


async def test_a_model_keeping_its_memory_in_notes_gets_them_back_live_and_in_replay(
    tmp_path: Path,
):
    """The zoo's notes-keeper has no memory but the notes the prompt shows it: each turn shows
    the notes it wrote the turn before, the cassette records them, and a candidate judged
    through ``orav replay --agent`` is shown the recorded notes as the live model was."""
    task = TASKS["login"]
    recorded = await task.play(tmp_path / "login.cassette", [MISTAKES["notes"]], rate=1.0)
    assert recorded.passed and recorded.tally.made["notes"] > 1
    assert recorded.tally.notes_lost == 0
    written = Path(recorded.cassette).read_text()
    assert written.count('"notes":"did: ') >= recorded.report.total_steps > 1
    player = Player(task.policy, mistakes=[MISTAKES["notes"]], rate=1.0)
    with ZooServer(player) as zoo:
        done = orav(
            "replay", recorded.cassette, "--agent", "openai:zoo-vision", "--base-url", zoo.url
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert player.tally.made["notes"] > 1 and player.tally.notes_lost == 0
