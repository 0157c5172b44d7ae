"""Recording and replaying at the Device, Agent and Clock boundaries; divergence messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from orav.agents import AgentContext
from orav.cassette import (
    Cassette,
    CassetteWriter,
    Header,
    RecordingAgent,
    RecordingClock,
    RecordingDevice,
    RecoveryEndEvent,
    ReplayAgent,
    ReplayClock,
    ReplayDevice,
    ReplayDivergence,
    read_cassette,
)
from orav.errors import AgentError, DeviceError, OravError
from orav.model import (
    Assert,
    Credentials,
    Decision,
    DeviceInfo,
    Done,
    Element,
    Frame,
    Observation,
    Scenario,
    Tap,
    Target,
    TypeText,
    show_action,
)
from orav.perceive import target_element
from orav.session import record, replay
from orav.testing import FakeDevice, VirtualClock

APP = "com.orav.demo"
SCENARIO = Scenario(name="login", app=APP, goal="sign in")


def login_screen_device() -> FakeDevice:
    """Stands in for a real device here: a two-screen app (login, then home) held in memory.
    The engine's end-to-end tests record and replay against the real drivers."""
    login = Observation(
        (
            Element("AXTextField", "Email", "email", frame=Frame(20, 300, 350, 44)),
            Element("AXButton", "Sign in", "sign_in", frame=Frame(20, 398, 350, 44)),
        ),
        app=APP,
    )
    home = Observation((Element("AXStaticText", "Welcome"),), app=APP)
    return FakeDevice(
        {"login": login, "home": home},
        goes={"login": {"sign_in": "home"}},
        info=DeviceInfo("ios", "iPhone 15", width=390, height=844),
        running=False,
    )


class LoginAgent:
    """A deterministic agent: type the email, sign in, then report done."""

    name = "scripted:login"

    def __init__(self, fail_at: int | None = None) -> None:
        self.fail_at = fail_at

    async def decide(self, context: AgentContext) -> Decision:
        if context.step == self.fail_at:
            raise AgentError("step 2: no valid decision after 3 attempts")
        if target_element(context.observation, Target(id="sign_in")) is None:
            return Decision(Tap(20, 30), reasoning="done")
        if context.step == 1:
            return Decision(TypeText("alice@example.com"), expected_outcome="email filled")
        return Decision(Tap(195, 420, target=Target(id="sign_in")), expected_outcome="Welcome")


async def drive(device, agent, clock, writer: CassetteWriter | None = None, steps: int = 3):
    """A miniature engine loop: what it saw and got, in order."""
    seen: list = [await device.describe()]
    await device.launch(APP)
    started = clock.now()
    for step in range(1, steps + 1):
        if writer is not None:
            writer.begin_step(step)
        observation = await device.observe()
        decision = await agent.decide(
            AgentContext(scenario=SCENARIO, observation=observation, step=step)
        )
        result = await device.perform(decision.action)
        await clock.sleep(0.4)
        seen += [observation, decision, result, await device.is_running(APP)]
    seen.append(clock.now() - started)
    await device.terminate(APP)
    return seen


class StepClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def now(self) -> float:
        self.t += 0.125
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.t += seconds


@pytest.fixture
async def recorded(tmp_path: Path) -> tuple[list, Cassette]:
    path = tmp_path / "login.cassette"
    header = Header(scenario=SCENARIO, agent=LoginAgent.name, model="none")
    with CassetteWriter.create(path, header) as writer:
        device = RecordingDevice(login_screen_device(), writer)
        agent = RecordingAgent(LoginAgent(), writer)
        clock = RecordingClock(StepClock(), writer)
        seen = await drive(device, agent, clock, writer)
    return seen, read_cassette(path)


async def test_replay_serves_what_was_recorded_without_a_device(recorded):
    seen, cassette = recorded
    device, agent, clock = ReplayDevice(cassette), ReplayAgent(cassette), ReplayClock(cassette)
    assert agent.name == "scripted:login"
    assert await drive(device, agent, clock) == seen
    assert device.pending == agent.pending == clock.pending == 0
    assert seen[-1] == pytest.approx(1.2 + 0.125)  # three settle sleeps, recorded, not slept


async def test_a_different_action_names_step_expected_and_actual(recorded):
    _, cassette = recorded
    device, agent = ReplayDevice(cassette), ReplayAgent(cassette)
    await device.describe()
    await device.launch(APP)
    for step in (1, 2):
        observation = await device.observe()
        context = AgentContext(scenario=SCENARIO, observation=observation, step=step)
        decision = await agent.decide(context)
        if step == 1:
            await device.perform(decision.action)
            await device.is_running(APP)
    with pytest.raises(ReplayDivergence) as caught:
        await device.perform(Tap(20, 30, target=Target(label="Cancel")))
    assert (
        str(caught.value) == "step 2: expected tap #sign_in (195, 420), got tap 'Cancel' (20, 30)"
    )
    assert (caught.value.step, caught.value.exit_code) == (2, 1)
    assert isinstance(caught.value, OravError)
    # An action that prints alike but differs says in what.
    with pytest.raises(ReplayDivergence, match=r"\(duration: 0\.0 vs 0\.5\)$"):
        await device.perform(Tap(195, 420, target=Target(id="sign_in"), duration=0.5))


async def test_a_call_of_another_kind_and_one_too_many_diverge(recorded):
    _, cassette = recorded
    device = ReplayDevice(cassette)
    with pytest.raises(ReplayDivergence, match=r"^before step 1: expected describe, got observe$"):
        await device.observe()
    await device.describe()
    with pytest.raises(ReplayDivergence, match=r"expected launch com.orav.demo, got launch com.x$"):
        await device.launch("com.x")
    await device.launch(APP)
    with pytest.raises(ReplayDivergence, match=r"^step 1: expected observe, got type 'a'$"):
        await device.perform(TypeText("a"))
    rest = ReplayDevice(cassette)
    agent = ReplayAgent(cassette)
    await drive(rest, agent, ReplayClock(cassette))
    with pytest.raises(ReplayDivergence) as caught:
        await rest.observe()
    assert str(caught.value) == (
        "the cassette ends after step 3: no recorded device call left for observe"
    )
    with pytest.raises(ReplayDivergence, match="the cassette ends after step 3"):
        await agent.decide(_context(4))


def _context(step: int) -> AgentContext:
    return AgentContext(scenario=SCENARIO, observation=Observation(), step=step)


async def test_agent_and_clock_divergences(recorded):
    _, cassette = recorded
    agent, clock = ReplayAgent(cassette), ReplayClock(cassette)
    with pytest.raises(ReplayDivergence, match=r"^step 1: expected decide \(step 1\), got decide"):
        await agent.decide(_context(2))
    assert (await agent.decide(_context(1))).action == TypeText("alice@example.com")
    clock.now()
    with pytest.raises(ReplayDivergence, match=r"^step 1: expected sleep 0.4s, got sleep 1s$"):
        await clock.sleep(1)
    await clock.sleep(0.4)
    with pytest.raises(ReplayDivergence, match=r"expected sleep 0.4s, got a clock reading$"):
        clock.now()


async def test_a_new_agent_replays_against_the_recorded_device(recorded):
    """Decision regression: the device track does not depend on the recorded agent's track."""
    seen, cassette = recorded
    replayed = await drive(ReplayDevice(cassette), LoginAgent(), ReplayClock(cassette))
    assert replayed == seen


async def test_recorded_errors_are_raised_again(tmp_path: Path):
    path = tmp_path / "errors.cassette"
    inner = login_screen_device()
    inner.queue("observe", DeviceError("127.0.0.1:10882: companion did not answer within 5 s"))
    with CassetteWriter.create(path, Header(scenario=SCENARIO), fsync=False) as writer:
        device = RecordingDevice(inner, writer)
        agent = RecordingAgent(LoginAgent(fail_at=2), writer)
        with pytest.raises(DeviceError) as device_error:
            await device.observe()
        await device.observe()
        await agent.decide(_context(1))
        with pytest.raises(AgentError) as agent_error:
            await agent.decide(_context(2))
    cassette = read_cassette(path)
    device, agent = ReplayDevice(cassette), ReplayAgent(cassette)
    with pytest.raises(DeviceError) as replayed:
        await device.observe()
    assert str(replayed.value) == str(device_error.value)
    assert target_element(await device.observe(), Target(id="sign_in")) is not None
    await agent.decide(_context(1))
    with pytest.raises(AgentError, match=str(agent_error.value)):
        await agent.decide(_context(2))


# --- a recovery in the cassette: what its choice depends on is recorded -------------------

WALL_APP = """\
name: Wall
bundle_id: com.example.wall
start: home
screens:
  home:
    title: Home
    elements:
      - {role: AXButton, id: account, label: Account, frame: [20, 100, 350, 44],
         on_tap: [{to: login}]}
      - {role: AXButton, id: orders, label: Orders, frame: [20, 160, 350, 44],
         on_tap: [{to: orders}]}
  orders:
    title: Orders
    elements:
      - {role: AXStaticText, id: none, label: No orders yet, frame: [20, 100, 350, 40]}
  login:
    title: Sign in
    elements:
      - {role: AXTextField, id: email, label: Email, value: old@example.com,
         frame: [20, 200, 350, 44]}
      - {role: AXTextField, id: password, label: Password, value: "0123456789", secure: true,
         frame: [20, 260, 350, 44]}
      - {role: AXButton, id: sign_in, label: Sign in, frame: [20, 352, 350, 50],
         on_tap: [{to: home}]}
"""


async def record_wall(tmp_path: Path) -> tuple[Path, object]:
    """A login form that replaces Home and hides the next target: the login remedy erases
    the e-mail (15 characters) and the password (10, shown as bullets), then signs in."""
    app = tmp_path / "wall.yaml"
    app.write_text(WALL_APP, encoding="utf-8")
    scenario = Scenario(
        "wall",
        "com.example.wall",
        "open the orders",
        settle_seconds=0.05,
        credentials=Credentials("ann@example.com", "Secret-1"),
        script=(
            Decision(Tap(target=Target(id="account"))),
            Decision(Tap(target=Target(id="orders"))),  # hidden by the form: blocked
            Decision(Done(summary="orders open")),
        ),
        success_criteria=(Assert(Target(id="none")),),
    )
    path = tmp_path / "wall.cassette"
    recording = await record(scenario, path, device=f"sim:{app}", clock=VirtualClock())
    return path, recording.report


async def test_a_recovery_that_erases_a_secure_value_replays_faithfully(tmp_path: Path):
    path, report = await record_wall(tmp_path)
    assert report.status == "completed_with_errors" and report.goal_met, (
        report
    )  # a recovered login wall
    (event,) = [e for e in read_cassette(path).events if isinstance(e, RecoveryEndEvent)]
    remedy = [show_action(action) for action in event.actions]
    at = remedy.index("tap #password")
    assert remedy[at + 1 : at + 11] == ["press backspace"] * 10  # the length shown, not 6
    assert remedy[at + 11] == "type a secret (secure)"
    assert b"0123456789" not in path.read_bytes() and b"Secret-1" not in path.read_bytes()
    replayed = await replay(path)
    assert replayed.faithful, replayed.differences


async def test_a_divergence_inside_a_recovery_is_reported_as_that_divergence(tmp_path: Path):
    path, _ = await record_wall(tmp_path)
    header, rest = path.read_text(encoding="utf-8").split("\n", 1)
    # the scenario the replay reads now has another account: the remedy types another name
    path.write_text(header.replace("ann@example.com", "bob@example.com") + "\n" + rest)
    with pytest.raises(ReplayDivergence) as diverged:
        await replay(path)
    assert "ann@example.com" in diverged.value.expected
    assert "bob@example.com" in diverged.value.actual
    assert diverged.value.step == 2  # the blocked step, not a later one on another track
