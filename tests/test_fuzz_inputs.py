"""Fuzzing the three untrusted inputs (scenario YAML, app model YAML, cassettes): every input is
either read or refused with one located InputError, quickly, never an internal error.

Two halves: hypothesis mutates real documents in-process (a few hundred examples, seconds), and
a small generated corpus of worst cases (tests/fuzz_corpus.py) goes through the real ``orav``
command, which must exit 2 naming each file with a line, within seconds and ~200 MB.
"""

from __future__ import annotations

import asyncio
import itertools
import subprocess
import time
from pathlib import Path

import pytest
from command import children_cpu, orav
from fuzz_corpus import CONFIG, cassettes, configs, documents, run_measured
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orav import session
from orav.agents import Agent
from orav.cassette import read_cassette
from orav.config import load_config
from orav.errors import AgentError, InputError, OravError
from orav.model import Decision, Done, Scenario
from orav.model.decision import MAX_TEXT_CHARACTERS
from orav.scenario_loader import load_scenario
from orav.sim import load_app_model
from orav.user_class import bounded

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = (ROOT / "orav" / "scenarios" / "login.yaml").read_text()
APP = (ROOT / "orav" / "sim" / "demo.yaml").read_text()
FUZZ = settings(
    max_examples=120,
    deadline=3000,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Pieces that YAML and orav's types give meaning to: what a mutation most likely breaks.
TOKENS = st.sampled_from(
    [":", "- ", "[", "]", "{", "}", ",", "&a ", "*a", "!!float ", "!!binary ", "!tag ", "? ",
     "\n", "  ", "#", "'", '"', "|\n", "~", "null", "true", "1e400", ".nan", "9" * 80,
     "\x00", "\x1b", "\ufeff", "é", "<<: *a\n", "--- ", "...", "%YAML 1.1\n", "\t"]
)  # fmt: skip


@st.composite
def mutated(draw, text: str) -> str:
    """``text`` with a few spans replaced, cut or repeated."""
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        end = min(len(text), at + draw(st.integers(0, 40)))
        kind = draw(st.sampled_from(["token", "text", "cut", "repeat"]))
        if kind == "token":
            text = text[:at] + draw(TOKENS) + text[end:]
        elif kind == "text":
            text = text[:at] + draw(st.text(max_size=20)) + text[end:]
        elif kind == "cut":
            text = text[:at]
        else:
            text = text[:at] + text[at:end] * draw(st.integers(2, 50)) + text[end:]
    return text


def located(error: InputError, source: str) -> None:
    """An InputError that names ``source`` (with a line, unless it is about the whole file)."""
    assert error.where is not None and error.where.startswith(source), str(error)


@FUZZ
@given(text=mutated(SCENARIO))
def test_mutated_scenarios_are_read_or_refused_where_they_break(tmp_path_factory, text: str):
    path = tmp_path_factory.mktemp("s") / "s.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        assert isinstance(load_scenario(path), Scenario)
    except InputError as exc:
        located(exc, str(path))


@FUZZ
@given(text=mutated(APP))
def test_mutated_app_models_are_read_or_refused_where_they_break(text: str):
    try:
        load_app_model(text, name="app.yaml")
    except InputError as exc:
        located(exc, "app.yaml")


@pytest.fixture(scope="module")
def cassette(tmp_path_factory) -> bytes:
    """A real cassette of the demo login, recorded on the simulator."""
    out = tmp_path_factory.mktemp("fuzz") / "login.cassette"
    scenario = load_scenario(ROOT / "orav" / "scenarios" / "login.yaml")
    asyncio.run(session.record(scenario, out))
    return out.read_bytes()


JSON_TOKENS = st.sampled_from(
    [b"NaN", b"Infinity", b"-0", b"9" * 5000, b"[" * 3000, b"{", b"}", b"\"", b"\\u0000",
     b"\xff", b"\n", b"null", b"1e999", b"\"type\":\"blob\"", b"\"sha256\":\"" + b"0" * 64 + b"\""]
)  # fmt: skip


@st.composite
def damaged(draw, data: bytes) -> bytes:
    lines = data.split(b"\n")
    for _ in range(draw(st.integers(1, 3))):
        if not lines:  # a cut at the first line or a drop left nothing to damage further
            break
        index = draw(st.integers(0, len(lines) - 1))
        line = lines[index]
        at = draw(st.integers(0, len(line)))
        end = min(len(line), at + draw(st.integers(0, 30)))
        kind = draw(st.sampled_from(["token", "bytes", "drop", "duplicate", "cut"]))
        if kind == "token":
            lines[index] = line[:at] + draw(JSON_TOKENS) + line[end:]
        elif kind == "bytes":
            lines[index] = line[:at] + draw(st.binary(max_size=12)) + line[end:]
        elif kind == "drop":
            del lines[index]
        elif kind == "duplicate":
            lines.insert(index, line)
        else:
            lines = lines[:index] + [line[:at]]
    return b"\n".join(lines)


@settings(FUZZ, max_examples=60)
@given(data=st.data())
def test_damaged_cassettes_are_read_and_replayed_or_refused(tmp_path_factory, cassette, data):
    path = tmp_path_factory.mktemp("c") / "c.cassette"
    path.write_bytes(data.draw(damaged(cassette)))
    try:
        read_cassette(path)
        asyncio.run(session.replay(path))  # faithful, or diverged: an OravError that says so
    except InputError as exc:
        located(exc, str(path))
    except OravError:
        pass


# --- the corpus, through the real command ---------------------------------------------------


def refused_each(done: subprocess.CompletedProcess, paths: list[Path]) -> None:
    """Exit 2, one located error line per file, and nothing internal."""
    assert done.returncode == 2, done.stderr[-2000:]
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("orav: error: ")]
    for path in paths:
        mine = [line for line in lines if line.startswith(f"orav: error: {path}:")]
        assert len(mine) == 1, (path.name, done.stderr[-2000:])


def test_the_scenario_corpus_is_refused_file_by_file(tmp_path: Path):
    paths = []
    for name, data in documents(SCENARIO).items():
        path = tmp_path / f"{name}.yaml"
        path.write_bytes(data)
        paths.append(path)
    done, peak_mb, cpu = run_measured("validate", *paths)
    assert cpu < 30  # all of them, each in well under a few seconds
    refused_each(done, paths)
    assert peak_mb < 200


def test_the_app_model_corpus_is_refused_with_a_location():
    for name, data in documents(APP).items():
        started = time.process_time()
        with pytest.raises(InputError) as caught:
            load_app_model(data.decode("utf-8", "replace"), name=name)
        assert time.process_time() - started < 5, name
        located(caught.value, name)


def test_the_cassette_corpus_is_refused_file_by_file(tmp_path: Path, cassette: bytes):
    paths = []
    for name, data in cassettes(cassette).items():
        path = tmp_path / f"{name}.cassette"
        path.write_bytes(data)
        paths.append(path)
    done, peak_mb, cpu = run_measured("replay", *paths)
    assert cpu < 30
    refused_each(done, paths)
    assert peak_mb < 200


# --- the workspace config (orav.toml, [tool.orav]) ----------------------------------------------

TOML_TOKENS = st.sampled_from(
    ["[", "]", "[[", "]]", "{", "}", "=", ",", '"', "'", "\n", "tool.orav", "[tool]\norav = ",
     "9" * 80, "inf", "nan", "1979-05-27", "0x", "\x00", "\\u", '"""', "#"]
)  # fmt: skip


@st.composite
def mutated_toml(draw) -> str:
    text = "[tool.orav]\n" + CONFIG
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        end = min(len(text), at + draw(st.integers(0, 20)))
        piece = draw(st.one_of(TOML_TOKENS, st.text(max_size=12)))
        text = text[:at] + piece * draw(st.integers(1, 3)) + text[end:]
    return text


@FUZZ
@given(text=mutated_toml(), name=st.sampled_from(["orav.toml", "pyproject.toml"]))
def test_mutated_configs_are_read_or_refused_naming_the_file(tmp_path_factory, text, name):
    path = tmp_path_factory.mktemp("config") / name
    path.write_text(text if name == "pyproject.toml" else text.removeprefix("[tool.orav]\n"))
    try:
        load_config(path)
    except InputError as refused:
        assert str(refused.where).startswith(str(path)), refused.where


def test_the_config_corpus_is_refused_naming_the_file(tmp_path: Path):
    for name, (file, data) in configs().items():
        folder = tmp_path / name
        folder.mkdir()
        (folder / file).write_bytes(data)
        started = children_cpu()
        done = orav("record", "absent.yaml", cwd=folder)
        assert children_cpu() - started < 30, name
        assert done.returncode == 2, (name, done.stderr)
        (line,) = done.stderr.splitlines()
        assert line.startswith(f"orav: error: {folder / file}"), (name, line)


# --- a user's agent class (class:...) -------------------------------------------------------------

ANSWERS = st.one_of(
    st.none(),
    st.text(max_size=30),
    st.integers(),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.lists(st.integers(), max_size=3),
    st.builds(
        lambda reasoning, label: Decision(Done(success=True), reasoning, label),
        st.text(max_size=50).map(lambda t: t * 1000),
        st.one_of(st.none(), st.text(max_size=10).map(lambda t: t * 500)),
    ),
)
RAISES = st.sampled_from([None, SystemExit(0), SystemExit(3), KeyboardInterrupt(), ValueError("x")])


@FUZZ
@given(answer=ANSWERS, raised=RAISES)
def test_whatever_a_user_agent_does_is_a_decision_or_its_located_failure(answer, raised):
    class Anything:
        name = "anything"

        async def decide(self, context):
            if raised is not None:
                raise raised
            return answer

    agent = bounded(Anything(), Agent, "mine:Anything")
    try:
        decision = asyncio.run(agent.decide(None))
    except AgentError as failure:
        assert str(failure).startswith("mine:Anything.decide "), failure
        return
    except ValueError:
        assert isinstance(raised, ValueError)  # an ordinary error is the engine's to report
        return
    assert isinstance(decision, Decision)
    assert len(decision.reasoning) <= MAX_TEXT_CHARACTERS + 10
    assert len(decision.element_label or "") <= MAX_TEXT_CHARACTERS + 10


# --- an idb companion's accessibility dump, and a secret typed in generated pieces ----------

_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**70), 10**70), st.floats(), st.text(max_size=8)
)
_NODES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(["AXLabel", "AXUniqueId", "role", "frame", "children", "x", "hidden"]),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=40,
)


@FUZZ
@given(_NODES, st.integers(0, 200))
def test_any_accessibility_dump_is_elements_or_a_malformed_dump(node, nesting: int):
    import json

    from orav.drivers.accessibility import AccessibilityError, parse_elements

    text = json.dumps(node, allow_nan=True)
    text = '{"children": [' * nesting + text + "]}" * nesting  # as deep as a companion likes
    try:
        elements = parse_elements(text)
    except AccessibilityError:
        return
    assert isinstance(elements, tuple)


@FUZZ
@given(st.text(min_size=1, max_size=30).filter(str.strip), st.data())
def test_no_piece_of_a_secret_typed_is_shown_or_stored(secret: str, data):
    from orav.model import TypeText
    from orav.secrets import MIN_SECRET_LENGTH, Scrubber

    scrubber = Scrubber(named={secret: "{{CODE}}"})
    if len(secret) < MIN_SECRET_LENGTH:
        pieces = [secret]  # too short to find inside text: known whole
    else:
        cuts = sorted(data.draw(st.sets(st.integers(1, len(secret) - 1), max_size=4)))
        bounds = [0, *cuts, len(secret)]
        pieces = [secret[a:b] for a, b in itertools.pairwise(bounds)]
        pieces = [p[::-1] if data.draw(st.booleans()) else p for p in pieces]
    for piece in pieces:
        assert scrubber.shown(TypeText(piece)).secure, piece
        stored = scrubber.data({"kind": "type_text", "text": piece})["text"]
        assert stored != piece or not piece.strip("•"), stored
