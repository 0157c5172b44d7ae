"""A test without a target: orav.testing's FakeDevice and VirtualClock (docs/guide-device.md).

Run it with pytest: ``pytest docs/examples/test_fake_device.py``.
"""

import asyncio
from pathlib import Path

import orav
from orav.model import Frame
from orav.perceive import target_element
from orav.testing import FakeDevice, VirtualClock

SIGN_IN = orav.Observation(
    elements=(orav.Element("AXButton", "Sign in", "sign_in", frame=Frame(20, 300, 350, 50)),)
)
HOME = orav.Observation(
    elements=(
        orav.Element("AXStaticText", "Welcome back", "welcome", frame=Frame(20, 120, 350, 40)),
    )
)


def sign_in(context: orav.AgentContext) -> orav.Tap | orav.Done:
    """The agent under test: tap Sign in when it shows, else say done."""
    if target_element(context.observation, orav.Target("Sign in")) is not None:
        return orav.Tap(target=orav.Target("Sign in"))
    return orav.Done(success=True)


def test_the_agent_signs_in_and_stops(tmp_path: Path) -> None:
    device = FakeDevice({"sign_in": SIGN_IN, "home": HOME}, goes={"sign_in": {"sign_in": "home"}})
    scenario = orav.Scenario(
        name="sign_in",
        app="com.example.app",
        goal="Sign in.",
        success_criteria=(orav.Assert(orav.Target(id="welcome")),),
    )
    clock = VirtualClock()  # every wait is taken at once
    run = orav.record(
        scenario,
        tmp_path / "sign_in.cassette",
        device=device,
        agent=orav.FunctionAgent(sign_in),
        clock=clock,
    )
    recording = asyncio.run(run)
    assert recording.report.status == "passed"
    assert [action.kind for action in device.performed] == ["tap"]
    assert device.screen == "home"
