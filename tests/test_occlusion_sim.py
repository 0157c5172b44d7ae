"""What a user cannot touch, orav does not tap: a news app's consent banner over a story's heart
(``tests/apps/paper.yaml``), run through the whole engine over the real fb-idb client and
gRPC to the simulator.

The banner is drawn over the heart, as such apps pin it at first launch. A tap on the heart's
centre would hit the banner; before the occlusion rule the engine saw only "no effect" and the
±10 pt retry landed on the banner's answer. Now the covered heart is reported as the cover,
the banner gets its least-consent answer when it has one, and nothing else is pressed.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from orav.agents.scripted import ScriptedAgent
from orav.codec import load_yaml
from orav.drivers.idb import IdbDevice
from orav.engine import Engine
from orav.machines.recovery import recover
from orav.model import Decision, Done, Scenario, Tap, Target
from orav.perceive import cover_fault, fault, on_top, target_element
from orav.sim import SimCompanion
from orav.sim.appmodel import AppModel
from orav.testing import VirtualClock

PAPER = (Path(__file__).parent / "apps" / "paper.yaml").read_text()
BUNDLE = "com.example.morningpaper"
HEART = Target(id="save_s5")


@asynccontextmanager
async def paper(accept: str, decline: str):
    """The app with its banner's answers worded ``accept`` and ``decline``."""
    text = PAPER.replace(
        'answers: {accept: "Yes, I\'m happy", decline: Manage my cookies}',
        f"answers: {{accept: {accept!r}, decline: {decline!r}}}",
    )
    model = load_yaml(text, AppModel)
    async with (
        SimCompanion(model) as sim,
        IdbDevice.connect(sim.address, bundle_id=BUNDLE) as device,
    ):
        yield sim, device


def scenario(*actions) -> Scenario:
    script = tuple(Decision(action=a) for a in (*actions, Done(success=True, summary="saved")))
    return Scenario("save", BUNDLE, "save the last story", script=script, max_steps=8)


async def run(device, *actions):
    return await Engine(device, ScriptedAgent(), clock=VirtualClock()).run(scenario(*actions))


async def test_the_banner_covers_the_heart_by_the_tree_alone():
    async with paper("Yes, I'm happy", "Manage my cookies") as (_sim, device):
        await device.launch(BUNDLE)
        seen = await device.observe()
        heart = target_element(seen, Target(id="save_s5"))
        found = cover_fault(seen, Tap(target=HEART))
        assert found is not None and found.kind == "covered"
        assert "Your privacy" in found.note
        labels = {e.label for e in found.evidence}
        assert {"Yes, I'm happy", "Manage my cookies"} <= labels
        assert on_top(seen, heart.frame.center) in found.evidence  # what a tap there hits
        assert cover_fault(seen, Tap(target=Target(id="save_s1"))) is None  # a heart in the open


@pytest.mark.parametrize(
    "accept, decline",
    [("Yes, I'm happy", "Manage my cookies"), ("Sounds good", "Show me the choices")],
)
async def test_a_banner_without_a_declining_answer_is_never_answered(accept, decline):
    """Words no list of orav's holds: nothing tells the answers apart, so nothing is pressed."""
    async with paper(accept, decline) as (sim, device):
        report = await run(device, Tap(target=HEART))
        assert report.status == "aborted"
        said = " ".join(e.error for e in report.errors)
        assert "covered" in said and "no declining answer" in said, said
        assert sim.state.memory["consent"] == ""  # neither answer pressed
        assert sim.state.memory["saved"] in ([], ())  # and nothing tapped under the banner
        assert sim.state.inputs == 0


async def test_a_banner_with_a_least_consent_answer_gets_it_then_the_heart_is_tapped():
    async with paper("Accept all", "Reject all") as (sim, device):
        report = await run(device, Tap(target=HEART))
        assert report.goal_met, report
        assert [e.error.split(":")[0] for e in report.errors] == ["covered"]
        assert sim.state.memory["consent"] == "necessary"  # the least consent, never "all"
        assert sim.state.memory["saved"] in (["s5"], ("s5",))


async def test_a_tap_at_the_hearts_point_hits_the_banner_and_the_retry_stays_on_it():
    """A tap at coordinates (no target to check) lands on the banner: no effect, retried ±10 pt
    and handed back; no retry lands on the banner's answers."""
    async with paper("Accept all", "Reject all") as (sim, device):
        await device.launch(BUNDLE)
        heart = target_element(await device.observe(), Target(id="save_s5"))
        centre = heart.frame.center
        report = await run(device, Tap(centre.x, centre.y))
        assert sim.state.memory["consent"] == ""
        assert sim.state.memory["saved"] in ([], ())
        assert report.goal_met  # handed back: the agent went on to its done


async def test_faraways_tracking_is_refused_and_its_banner_answered_least():
    """Faraway (``tests/unseen_apps/faraway.yaml``, a travel app written by another hand): App
    Tracking's prompt with nothing said is refused; its cookie banner over the stay page's
    heart gets "Essentials only", never "Sounds good", and the "Book & pay" it also covers is
    no answer of it."""
    text = (Path(__file__).parent / "unseen_apps" / "faraway.yaml").read_text()
    model = load_yaml(text, AppModel)
    scenario = Scenario("f", model.bundle_id, "favourite a stay")

    async def no_wait(seconds: float) -> None:
        return None

    async with (
        SimCompanion(model) as sim,
        IdbDevice.connect(sim.address, bundle_id=model.bundle_id) as device,
    ):
        await device.launch(model.bundle_id)
        first = next(
            e for e in (await device.observe()).elements if (e.unique_id or "").startswith("stay_")
        )
        await device.perform(Tap(target=Target(id=first.unique_id)))
        seen = await device.observe()
        asked = fault(seen)
        assert asked is not None and asked.kind == "permission"
        out = await recover(
            asked, device=device, observation=seen, scenario=scenario, sleep=no_wait
        )
        assert out.resolved and list(sim.state.permissions.values()) == [False]
        covered = cover_fault(out.observation, Tap(target=Target(id="fav")))
        assert covered is not None and covered.kind == "covered"
        assert "Book & pay" not in {e.label for e in covered.evidence}
        out = await recover(
            covered, device=device, observation=out.observation, scenario=scenario, sleep=no_wait
        )
        assert out.resolved
        assert out.actions == (Tap(target=Target(label="Essentials only", id="cookie_min")),)
        assert sim.state.keychain["consent"] == "essentials"


@pytest.mark.slow(reason="80 explorer steps on the paper model over fb-idb")
async def test_the_explorer_skips_a_control_under_a_cover_that_only_consents_and_goes_on(tmp_path):
    """A banner whose every answer consents ("Sounds good", "Tell me everything") over the
    last story's heart: the explorer never answers it and never taps beside it; it skips that
    heart, names the banner in its summary, and explores the rest (the run passes)."""
    from orav.agents.explorer import ExplorerAgent
    from orav.cli.exploring import exploration
    from orav.session import record

    text = PAPER.replace(
        "'Saved' if s in saved else 'Save'", "'Gemerkt' if s in saved else 'Merken'"
    )
    text = text.replace(
        'answers: {accept: "Yes, I\'m happy", decline: Manage my cookies}',
        'answers: {accept: "Sounds good", decline: "Tell me everything"}',
    )
    async with SimCompanion(load_yaml(text, AppModel)) as sim:
        explorer = ExplorerAgent()
        recording = await record(
            exploration(BUNDLE, 80, 3600, None),
            tmp_path / "paper.cassette",
            device=f"idb:{sim.address}",
            agent=explorer,
            clock=VirtualClock(),
        )
        state = sim.app(BUNDLE).memory
    assert recording.report.status == "passed", recording.report.errors
    assert state["consent"] == ""  # never answered for the test
    assert list(state["saved"]) == ["s1", "s2", "s3", "s4"]  # every heart a tap reaches, not s5's
    today = next(s for s in explorer.coverage().screens if s.name == "Today")
    assert "#save_s5" in today.skipped and "#save_s5" not in today.tried
    assert "under a cover it never answers" in recording.report.summary
    assert "Your privacy" in recording.report.summary
