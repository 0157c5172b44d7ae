"""Cassette format: round trips of every event type, damage handling, secrets, the header."""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
from pathlib import Path

import pytest
from attrs import evolve, fields
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orav.agents import AgentContext
from orav.cassette import (
    REDACTED,
    VERSION,
    Cassette,
    CassetteWriter,
    DecideEvent,
    ErrorEvent,
    Header,
    ObserveEvent,
    RecordingAgent,
    RecordingClock,
    RecordingDevice,
    RecoveryBeginEvent,
    RecoveryEndEvent,
    ReplayAgent,
    ReplayClock,
    ReplayDevice,
    ReportEvent,
    StepEvent,
    TransitionEvent,
    VerificationEvent,
    read_cassette,
)
from orav.errors import DeviceError, InputError
from orav.model import (
    ActionResult,
    Credentials,
    Decision,
    DeviceInfo,
    Element,
    Frame,
    ModelCall,
    Observation,
    Point,
    Scenario,
    Screenshot,
    Step,
    Tap,
    Target,
    TypeText,
    Verification,
)
from orav.testing import FakeDevice

SCENARIO = Scenario(
    name="login",
    app="com.orav.demo",
    goal="sign in",
    credentials=Credentials("alice", "correct-horse-battery"),
)
INFO = DeviceInfo("ios", "iPhone 15", udid="SIM-1", width=390, height=844, scale=3)

from strategies import coordinate, decisions, positive, secret_digits, text

plain_elements = st.builds(
    Element,
    role=st.sampled_from(["AXButton", "AXStaticText", "AXTextField", "AXOther"]),
    label=st.none() | text,
    unique_id=st.none() | text,
    value=st.none() | text,
    frame=st.builds(Frame, coordinate, coordinate, positive, positive),
    enabled=st.booleans(),
    traits=st.lists(text, max_size=2).map(tuple),
    focused=st.booleans(),
    placeholder=st.none() | text,
)
secure_elements = st.builds(
    Element, role=st.just("AXSecureTextField"), value=secret_digits, secure=st.just(True)
)
screenshots = st.binary(min_size=1, max_size=64).map(lambda data: Screenshot.of(data, 3, 4))
observations = st.builds(
    Observation,
    elements=st.lists(plain_elements | secure_elements, max_size=4).map(tuple),
    screenshot=st.none() | screenshots,
    app=st.none() | text,
    app_running=st.booleans(),
    taken_at=positive,
    text=st.none() | text,
    error=st.none() | text,
)
results = st.builds(
    ActionResult,
    ok=st.booleans(),
    error=st.none() | text,
    point=st.none() | st.builds(Point, coordinate, coordinate),
    seconds=positive,
)


def redacted_action(action):
    return (
        evolve(action, text=REDACTED) if isinstance(action, TypeText) and action.secure else action
    )


def redacted_decision(decision: Decision) -> Decision:
    return evolve(decision, action=redacted_action(decision.action))


def redacted_observation(observation: Observation, held: set = frozenset()) -> Observation:
    """As the cassette stores it: a secure field's value, and that of a field a secret was
    typed into (``held``: its id, else its label), as one bullet per character. A field held
    by its label hides the value of every element with that label, with an id or not: the
    field may have gained one, and a secret is better hidden twice than shown once."""

    def hides(e: Element) -> bool:
        return e.secure or e.unique_id in held or ("label", e.label) in held

    elements = tuple(
        evolve(e, value="•" * len(e.value)) if e.value is not None and hides(e) else e
        for e in observation.elements
    )
    return evolve(observation, elements=elements)


def held_fields(recorded: list) -> list[set]:
    """Per recorded value, the fields holding a secret by then: the focused field of the last
    tree seen when a secure type_text is decided."""
    held: set = set()
    tree: tuple = ()
    out = []
    for value in recorded:
        out.append(set(held))
        if isinstance(value, Observation) and value.elements:
            tree = value.elements
        if isinstance(value, Decision) and isinstance(value.action, TypeText):
            focused = next((e for e in tree if e.focused), None)
            if value.action.secure and focused and (focused.unique_id or focused.label):
                held.add(focused.unique_id or ("label", focused.label))
    return out


class TableAgent:
    name = "table"

    def __init__(self, decisions: list) -> None:
        self.decisions = list(decisions)

    async def decide(self, context: AgentContext) -> Decision:
        return self.decisions.pop(0)


class TableClock:
    def __init__(self) -> None:
        self.t = 100.0

    def now(self) -> float:
        self.t += 0.25
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.t += seconds


def context(step: int, observation: Observation | None = None) -> AgentContext:
    return AgentContext(scenario=SCENARIO, observation=observation or Observation(), step=step)


verifications = st.builds(
    Verification, changed=st.booleans(), expected_seen=st.none() | st.booleans(), note=text
)
step_plans = st.lists(
    st.tuples(observations, decisions, results, st.booleans(), verifications),
    min_size=1,
    max_size=4,
)


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(plan=step_plans, info=st.builds(DeviceInfo, platform=st.just("ios"), name=text))
def test_every_event_type_round_trips_through_write_and_read(plan, info):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.cassette"
        device = FakeDevice(info=info)
        for observation, _, result, running, _ in plan:
            device.queue("observe", observation)
            device.queue("perform", result)
            device.queue("is_running", running)
        agent = TableAgent([decision for _, decision, _, _, _ in plan])
        header = Header(scenario=SCENARIO, device=info, agent="table", model="m")
        with CassetteWriter.create(path, header, fsync=False) as writer:
            rec_device, rec_agent = RecordingDevice(device, writer), RecordingAgent(agent, writer)
            clock = RecordingClock(TableClock(), writer)

            async def record():
                seen = [await rec_device.describe(), await rec_device.launch("com.orav.demo")]
                for n, (_, _, _, _, verification) in enumerate(plan, start=1):
                    writer.begin_step(n)
                    seen.append(clock.now())
                    observation = await rec_device.observe()
                    decision = await rec_agent.decide(context(n, observation))
                    seen += [observation, decision, await rec_device.perform(decision.action)]
                    seen.append(await rec_device.is_running("com.orav.demo"))
                    await clock.sleep(0.4)
                    writer.write(VerificationEvent(verification))
                    writer.write(TransitionEvent("run", "acting", "acted", "reasoning", n))
                writer.write(RecoveryBeginEvent(len(plan), "alert", "an alert", set_aside=True))
                ok = Tap(target=Target(label="OK"))
                writer.write(RecoveryEndEvent(len(plan), "alert", (ok,), resolved=True))
                writer.write(ErrorEvent("companion went away", "DeviceError"))
                await rec_device.terminate("com.orav.demo")
                writer.write(ReportEvent.of(Step(1, "home", plan[0][1], plan[0][2])))
                return seen

            recorded = asyncio.run(record())

        cassette = read_cassette(path)
        assert cassette.truncated is None
        redacted = evolve(SCENARIO, credentials=Credentials("alice", REDACTED))
        assert cassette.header == evolve(header, scenario=redacted)
        assert cassette.last_step == len(plan)
        replay_device, replay_agent = ReplayDevice(cassette), ReplayAgent(cassette)
        replay_clock = ReplayClock(cassette)

        async def replay():
            seen = [await replay_device.describe(), await replay_device.launch("com.orav.demo")]
            for n in range(1, len(plan) + 1):
                seen.append(replay_clock.now())
                observation = await replay_device.observe()
                decision = await replay_agent.decide(context(n, observation))
                seen += [observation, decision, await replay_device.perform(decision.action)]
                seen.append(await replay_device.is_running("com.orav.demo"))
                await replay_clock.sleep(0.4)
            await replay_device.terminate("com.orav.demo")
            return seen

        replayed = asyncio.run(replay())
        expected = [
            redacted_observation(v, held)
            if isinstance(v, Observation)
            else redacted_decision(v)
            if isinstance(v, Decision)
            else v
            for v, held in zip(recorded, held_fields(recorded), strict=True)
        ]
        assert replayed == expected
        for got, want in zip(replayed, recorded, strict=True):
            if isinstance(got, Observation) and got.screenshot is not None:
                assert got.screenshot.data == want.screenshot.data
        assert replay_device.pending == replay_agent.pending == replay_clock.pending == 0
        informational = [
            e
            for e in cassette.events
            if isinstance(
                e,
                VerificationEvent
                | TransitionEvent
                | RecoveryBeginEvent
                | RecoveryEndEvent
                | ErrorEvent,
            )
        ]
        assert [e.verification for e in informational[: 2 * len(plan) : 2]] == [p[4] for p in plan]
        assert [t.step for t in informational[1 : 2 * len(plan) : 2]] == list(
            range(1, len(plan) + 1)
        )
        begin, end = informational[2 * len(plan) : 2 * len(plan) + 2]
        assert (begin.fault, begin.set_aside, end.resolved, end.reason) == (
            "alert",
            True,
            True,
            None,
        )
        assert (end.shown_remedy, end.outcome) == ("tap 'OK'", "resolved")
        report = cassette.events[-1]  # the report ends a cassette
        assert isinstance(report, ReportEvent) and report.report_type == "Step"


def test_unchanged_tree_and_screenshot_are_stored_once(tmp_path: Path):
    shot = Screenshot.of(b"\x89PNG fake pixels", 390, 844)
    screen = Observation(elements=(Element("AXButton", "Sign in", "sign_in"),), screenshot=shot)
    device = FakeDevice()
    device.queue("observe", screen, screen, evolve(screen, taken_at=2.0))
    path = tmp_path / "run.cassette"
    with CassetteWriter.create(path, Header(scenario=SCENARIO), fsync=False) as writer:
        recording = RecordingDevice(device, writer)
        for _ in range(3):
            asyncio.run(recording.observe())
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [line["type"] for line in lines] == ["header", "blob", "blob"] + ["observe"] * 3
    cassette = read_cassette(path)
    assert cassette.observation(2) == evolve(screen, taken_at=2.0)
    assert cassette.observation(0).screenshot.data == shot.data


# --- damage ------------------------------------------------------------------------------------


def _sample_cassette(path: Path) -> None:
    shot = Screenshot.of(bytes(range(40)), 4, 4)
    with CassetteWriter.create(path, Header(scenario=SCENARIO, device=INFO), fsync=False) as w:
        inner = FakeDevice(Observation((Element("AXButton", "OK", "ok"),), shot))
        inner.queue("perform", ActionResult(), ActionResult(), ActionResult())
        gone = DeviceError("companion at 127.0.0.1:1 went away")
        inner.queue("observe", *[inner.observation] * 3, gone)
        device = RecordingDevice(inner, w)

        async def run():
            for n in range(1, 4):
                w.begin_step(n)
                await device.observe()
                w.write(DecideEvent(n, Decision(Tap(target=Target(id="ok")))))
                await device.perform(Tap(target=Target(id="ok")))
            with pytest.raises(DeviceError):
                await device.observe()

        asyncio.run(run())


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> tuple[bytes, Cassette]:
    path = tmp_path_factory.mktemp("sample") / "sample.cassette"
    _sample_cassette(path)
    return path.read_bytes(), read_cassette(path)


def _read_bytes(data: bytes) -> Cassette:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "damaged.cassette"
        path.write_bytes(data)
        cassette = read_cassette(path)
        for index, event in enumerate(cassette.events):
            if isinstance(event, ObserveEvent) and event.observation is not None:
                cassette.observation(index)
        return cassette


def test_truncation_at_every_offset_reads_the_whole_events_before_it(sample):
    data, full = sample
    header_end = data.index(b"\n") + 1
    boundaries = {i + 1 for i, byte in enumerate(data) if byte == ord("\n")}
    for cut in range(len(data) + 1):
        if cut < header_end - 1:
            with pytest.raises(InputError, match=r"damaged.cassette:1: "):
                _read_bytes(data[:cut])
            continue
        cassette = _read_bytes(data[:cut])
        assert cassette.events == full.events[: len(cassette.events)]
        whole = max(0, data[:cut].count(b"\n") - 1)  # event and blob lines before the cut
        if cut < len(data) and data[cut] == ord("\n") and cut >= header_end:
            whole += 1  # a line that lacks only its newline is whole
            assert cassette.truncated is None
        elif cut in boundaries or cut == header_end - 1:
            assert cassette.truncated is None
        else:
            start = data.rindex(b"\n", 0, cut) + 1
            assert cassette.truncated == (
                f"line {whole + 2} (byte {start}): an incomplete event (no newline at the end)"
            )
        assert len(cassette.events) + len(cassette.blobs) == whole


@settings(deadline=None, max_examples=200)
@given(data=st.data())
def test_random_byte_damage_reads_cleanly_or_raises_input_error(sample, data):
    raw = bytearray(sample[0])
    for _ in range(data.draw(st.integers(1, 4))):
        position = data.draw(st.integers(0, len(raw) - 1))
        raw[position] ^= data.draw(st.integers(1, 255))
    try:
        _read_bytes(bytes(raw))
    except InputError as exc:
        assert exc.where and exc.where.split(":")[0].endswith("damaged.cassette")


@settings(deadline=None, max_examples=100)
@given(data=st.data())
def test_garbage_lines_are_a_cut_at_the_end_and_damage_in_the_middle(sample, data):
    raw, full = sample
    lines = raw.split(b"\n")[:-1]
    at = data.draw(st.integers(1, len(lines)))
    garbage = data.draw(st.binary(max_size=30).filter(lambda b: b"\n" not in b))
    garbage += data.draw(st.sampled_from([b"", b"{", b'{"type": "step"}', b"\xff\xfe", b"[1,"]))
    damaged = b"\n".join([*lines[:at], garbage, *lines[at:]]) + b"\n"
    if at == len(lines):
        cassette = _read_bytes(damaged)
        assert cassette.events == full.events
        assert cassette.truncated.startswith(f"line {at + 1} (byte {len(raw)}): ")
    else:
        with pytest.raises(InputError) as caught:
            _read_bytes(damaged)
        assert caught.value.where.endswith(f"damaged.cassette:{at + 1}"), caught.value
        assert "the cassette is damaged here" in caught.value.what


@pytest.mark.parametrize(
    ("content", "what"),
    [
        (b"", "empty first line"),
        (b"\x89PNG\r\n\x1a\n", "line 1 is not JSON"),
        (b'{"type": "header", "format": "orav-cassette", "ver', "the header line is cut off"),
        (b'{"hello": 1}\n', "line 1 is not a header"),
        (b'{"type": "header", "format": "vcr"}\n', "unknown format 'vcr'"),
        (
            b'{"type": "header", "format": "orav-cassette", "version": 3, "orav_version": "9.0"}\n',
            (
                "cassette format version 3 is not supported; this orav reads version 2 "
                "(written by orav 9.0): read it with a newer orav"
            ),
        ),
        (
            b'{"type": "header", "format": "orav-cassette", "version": 1, "orav_version": "0.1"}\n',
            (
                "cassette format version 1 is not supported; this orav reads version 2 "
                "(written by orav 0.1): record it again with this orav"
            ),
        ),
        (
            b'{"type": "header", "format": "orav-cassette", "version": 2}\n',
            "scenario: required field is missing",
        ),
    ],
)
def test_not_a_cassette_or_another_version_says_so(tmp_path: Path, content: bytes, what: str):
    path = tmp_path / "x.cassette"
    path.write_bytes(content)
    with pytest.raises(InputError) as caught:
        read_cassette(path)
    assert caught.value.where == f"{path}:1"
    assert what in caught.value.what


OLD_HEADER = (
    b'{"type": "header", "format": "orav-cassette", "version": 1, "orav_version": "0.1.0"}\n'
)


def test_an_old_cassette_is_refused_by_the_cli_naming_both_versions(tmp_path: Path):
    """Exit 2 and one located line, as docs/cassette-format.md shows it; no traceback."""
    from click.testing import CliRunner

    from orav.cli import cli

    path = tmp_path / "old.cassette"
    path.write_bytes(OLD_HEADER)
    result = CliRunner().invoke(cli, ["replay", str(path)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    refusal = (
        f"{path}:1: cassette format version 1 is not supported; this orav reads version "
        f"{VERSION} (written by orav 0.1.0): record it again with this orav"
    )
    assert refusal in result.output
    docs = (Path(__file__).resolve().parent.parent / "docs" / "cassette-format.md").read_text()
    assert refusal.replace(str(path), "old.cassette") in " ".join(docs.split())


def test_unknown_event_type_and_bad_fields_name_the_line(tmp_path: Path, sample):
    raw = sample[0]
    header, rest = raw.split(b"\n", 1)
    for bad, what in [
        (b'{"type": "teleport"}', "unknown event type 'teleport'; expected one of ["),
        (b'{"type": "step", "step": "two"}', "step: expected a whole number"),
        (b'{"type": "clock"}', "now: required field is missing"),
        (b'{"type": "decide", "step": 1, "seconds": -0.5}', "seconds"),
        (b'{"type": "decide", "step": 1, "seconds": 1e300}', "seconds"),
    ]:
        path = tmp_path / "bad.cassette"
        path.write_bytes(header + b"\n" + bad + b"\n" + rest)
        with pytest.raises(InputError) as caught:
            read_cassette(path)
        assert caught.value.where == f"{path}:2"
        assert what in caught.value.what


def test_a_blob_that_does_not_match_its_hash_is_named(tmp_path: Path, sample):
    lines = sample[0].split(b"\n")
    blob_line = next(i for i, line in enumerate(lines) if b'"type":"blob"' in line)
    blob = json.loads(lines[blob_line])
    blob["data"] = "AAAA"
    lines[blob_line] = json.dumps(blob).encode()
    path = tmp_path / "bad.cassette"
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(InputError, match=rf"bad.cassette:{blob_line + 1}: blob .* does not match"):
        read_cassette(path)  # found when read, not when a replay reaches it


def test_an_existing_file_is_refused_unless_overwrite(tmp_path: Path):
    path = tmp_path / "run.cassette"
    path.write_text("keep me")
    with pytest.raises(InputError, match="already exists; use --overwrite"):
        CassetteWriter.create(path, Header(scenario=SCENARIO))
    assert path.read_text() == "keep me"
    with CassetteWriter.create(path, Header(scenario=SCENARIO), overwrite=True) as writer:
        writer.begin_step(1)
    assert read_cassette(path).events == (StepEvent(1),)
    with pytest.raises(ValueError, match="closed"):
        writer.write(StepEvent(2))
    with pytest.raises(InputError, match="cannot create cassette"):
        CassetteWriter.create(tmp_path / "missing" / "run.cassette", Header(scenario=SCENARIO))


def test_header_keeps_every_key_in_the_documented_order(tmp_path: Path):
    path = tmp_path / "run.cassette"
    CassetteWriter.create(path, Header(scenario=SCENARIO), fsync=False).close()
    header = json.loads(path.read_bytes().split(b"\n")[0])
    assert list(header) == [
        "type", "format", "version", "orav_version", "run_id", "created_at",
        "scenario", "device", "agent", "model", "record_mode", "reconsiders",
    ]  # fmt: skip
    assert header["format"] == "orav-cassette" and header["version"] == VERSION


# --- secrets -----------------------------------------------------------------------------------

API_KEY = "sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2"
BEARER = "eyJhbGciOiJIUzI1NiJ9.payload.signature"
REGISTERED = "s3cr3t-registered-value"
PIN = "4931"


def test_secrets_never_reach_the_file_and_replay_still_matches(tmp_path: Path):
    secure_field = Element(
        "AXSecureTextField", "Password", "password", value="hunter2-typed", secure=True
    )
    observation = Observation(
        elements=(
            Element("AXStaticText", f"token {REGISTERED}"),
            secure_field,
            Element("AXStaticText", "echo: hunter2-typed"),
        ),
        text=f"Authorization: Bearer {BEARER}",
        error=f"HTTP 401 for key {API_KEY}",
    )
    typed = TypeText("hunter2-typed", secure=True)
    decision = Decision(
        typed,
        reasoning=f"the password of alice is correct-horse-battery; key {API_KEY}",
        call=ModelCall("gpt", raw_response=f'{{"text": "hunter2-typed", "pin": "{PIN}"}}'),
    )
    device = FakeDevice()
    device.queue("observe", observation)
    device.queue("perform", ActionResult(error=f"Bearer {BEARER} refused"))
    path = tmp_path / "secret.cassette"
    with CassetteWriter.create(
        path, Header(scenario=SCENARIO), secrets=[REGISTERED, PIN], fsync=False
    ) as writer:
        recording, agent = (
            RecordingDevice(device, writer),
            RecordingAgent(TableAgent([decision]), writer),
        )

        async def run():
            writer.begin_step(1)
            await recording.observe()
            await recording.perform((await agent.decide(context(1))).action)
            writer.write(ErrorEvent(f"headers were {{'authorization': 'Basic {BEARER}'}}"))
            writer.put_blob(f"log: api_key={API_KEY} {REGISTERED}".encode(), "text/plain")

        asyncio.run(run())

    raw = path.read_bytes()
    for secret in [API_KEY, BEARER, REGISTERED, PIN, "hunter2-typed", "correct-horse-battery"]:
        assert secret.encode() not in raw, secret
    assert REDACTED.encode() in raw

    cassette = read_cassette(path)
    assert cassette.header.scenario.credentials.password == REDACTED
    replay_device, replay_agent = ReplayDevice(cassette), ReplayAgent(cassette)

    async def replay():
        seen = await replay_device.observe()
        assert seen.elements[1].value == "•" * len("hunter2-typed")  # as many as shown
        assert seen.text == f"Authorization: {REDACTED}"
        replayed = await replay_agent.decide(context(1))
        assert replayed.action == TypeText(REDACTED, secure=True)
        # The live run typed the real secret: its redacted form matches the recording.
        return await replay_device.perform(typed)

    assert asyncio.run(replay()).error == f"Bearer {REDACTED} refused"
    text_blob = next(
        sha for sha in cassette.blobs if cassette.blobs.media_type(sha) == "text/plain"
    )
    assert cassette.blobs[text_blob] == f"log: api_key={REDACTED} {REDACTED}".encode()


def test_anything_after_the_report_is_damage(tmp_path: Path):
    golden = Path(__file__).resolve().parent.parent / "recordings" / "login.cassette"
    damaged = tmp_path / "twice.cassette"
    lines = golden.read_bytes().splitlines(keepends=True)
    damaged.write_bytes(b"".join(lines) + lines[-1])
    with pytest.raises(InputError, match=r"twice.cassette:\d+: a 'report' event after the run"):
        read_cassette(damaged)


def test_the_format_docs_examples_are_events_this_orav_reads():
    """Every example line of docs/cassette-format.md is an event of this format: its type is
    known, and a line that elides nothing (no …) reads through the one converter."""
    from orav.cassette.events import EVENT_TYPES, event_from_data

    docs = (Path(__file__).resolve().parent.parent / "docs" / "cassette-format.md").read_text()
    blocks = re.findall(r"```json\n(.*?)```", docs, re.DOTALL)
    lines = [line for block in blocks[1:] for line in block.splitlines() if line.strip()]
    assert len(lines) >= 15
    assert f'"version": {VERSION},' in blocks[0]
    for line in lines:
        data = json.loads(line)
        assert data["type"] in EVENT_TYPES, line
        if "…" not in line:
            event_from_data(data, "docs")
        elif data["type"] == "observe":
            assert set(data["observation"]) <= {f.name for f in fields(Observation)}, line


def test_a_tree_read_from_another_cassette_does_not_stand_in_for_a_missing_blob(
    tmp_path: Path, sample
):
    """Trees are kept across cassettes by their blob's sha256; a cassette that refers to a
    tree it does not hold is still damaged, whoever read that tree before."""
    data, whole = sample
    lines = data.split(b"\n")
    tree = next(i for i, line in enumerate(lines) if b'"application/json"' in line)
    path = tmp_path / "missing.cassette"
    path.write_bytes(b"\n".join(lines[:tree] + lines[tree + 1 :]))
    read_cassette(whole.path)  # its trees are now known to the reader
    with pytest.raises(InputError, match="not in the cassette"):
        read_cassette(path)
