"""Where the tree is blind, the picture decides (issue 26, item 8): a terminal app that paints
cells changes nothing in its accessibility tree, and the change measure reads its screenshot.

Kritzel (``tests/unseen_apps/kritzel.py``) paints blank cells on a coloured ground: its ``s``
paints a stroke, its ``m`` changes nothing anyone sees.
"""

from __future__ import annotations

from orav.agents.function import FunctionAgent
from orav.cassette import VerificationEvent, read_cassette
from orav.drivers.textual import TextualDevice
from orav.model import Action, Done, PressKey, Scenario
from orav.perceive import measure
from orav.session import record, replay

KRITZEL = "unseen_apps.kritzel:Kritzel"


async def test_a_stroke_changes_the_picture_alone_and_counts_as_change():
    """The tree is the same before and after a stroke; the picture is not, all of it in the
    terminal's first rows, where an iOS screen has its status bar (it was masked there, so a
    terminal's picture never counted)."""
    async with TextualDevice.from_spec(KRITZEL, timeout=15) as device:
        await device.launch()
        before = await device.observe()
        await device.perform(PressKey("s"))
        await device.settle(2.0)
        stroke = await device.observe()
        await device.perform(PressKey("m"))
        await device.settle(2.0)
        silent = await device.observe()
    assert before.elements == stroke.elements == silent.elements  # the tree is blind
    change = measure(before, stroke)
    assert change.changed and not change.tree and change.cells > 0, change
    assert not measure(stroke, silent).changed


async def test_kritzels_stroke_is_an_effect_and_its_silent_key_none(tmp_path):
    """A run that paints a stroke and presses the silent key: the stroke changed the screen,
    the silent key changed nothing (no effect, retried, handed back), and the replay is
    faithful."""

    async def draw(context) -> Action:
        return {1: PressKey("s"), 2: PressKey("m")}.get(
            context.step, Done(success=True, summary="drawn")
        )

    scenario = Scenario(name="kritzel", app="kritzel", goal="draw a stroke", max_steps=4)
    run = await record(
        scenario,
        tmp_path / "kritzel.cassette",
        device=f"textual:{KRITZEL}",
        agent=FunctionAgent(draw),
    )
    assert run.report.goal_met, run.report
    verdicts = [
        e.verification.changed
        for e in read_cassette(run.cassette).events
        if isinstance(e, VerificationEvent)
    ]
    assert verdicts[:2] == [True, False], verdicts
    assert (await replay(run.cassette)).faithful
