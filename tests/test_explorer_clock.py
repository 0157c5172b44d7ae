"""The explorer on an app model of a real app not designed for it: Apple's Clock for iOS 17
(``orav/sim/clock.yaml``), through the simulator over real gRPC and the fb-idb client.

Clock deletes without asking: an Edit mode whose minus reveals a red Delete on the row, rows
whose Delete swipe action removes them at once, an Edit Alarm sheet's "Delete Alarm". Its
stopwatch has no title and its label changes at every look while it runs; its Add Alarm
sheet pushes pages inside the sheet; its sleep set-up is a wizard of six pages; choosing a
song asks for the media library (a system dialog).
"""

from __future__ import annotations

from pathlib import Path

from explorer_runs import Noting, explore_model

from orav.model import Element, Frame, Observation, Tap
from orav.perceive.deeds import control_deed

CLOCK = Path(__file__).resolve().parent.parent / "orav" / "sim" / "clock.yaml"
# Screens that lie behind an Add, an Edit or a wizard: what opens the app up
OPENED = {"Add Alarm", "Edit Alarm", "Choose a City.", "Sound", "Repeat", "When Timer Ends"}
WIZARD = {"Sleep", "Sleep Goal", "Set Your First Schedule", "Wind Down", "Sleep Screen"}


async def _explore(tmp_path: Path, name: str, steps: int) -> Noting:
    return await explore_model(CLOCK, "com.apple.mobiletimer", tmp_path / f"{name}.cassette", steps)


def _taps(explorer: Noting) -> list[str]:
    return [
        str(d.action.target)
        for d in explorer.decisions
        if isinstance(d.action, Tap) and d.action.target is not None
    ]


async def test_clock_is_explored_before_anything_is_deleted_and_the_same_twice(tmp_path):
    explorer = await _explore(tmp_path, "first", 110)
    coverage = explorer.coverage()
    names = {s.name for s in coverage.screens}
    assert OPENED | WIZARD | {"World Clock", "Alarms", "Timers"} <= names, sorted(names)
    # Edit mode's minus, its red Delete, a row's Delete swipe action and "Delete Alarm" delete
    # at once: they wait for the second round, after every screen the first round found
    # (never right after the Edit or the swipe that revealed them, as other revealed controls)
    taps = _taps(explorer)
    deleting = [i for i, t in enumerate(taps) if "delete" in t.casefold() or "minus" in t]
    assert not deleting, [taps[i] for i in deleting]
    assert "#edit" in taps and "#swipe_delete_cupertino" not in taps
    # the running stopwatch's label changed at every look: nothing took it for a fault
    report = explorer.report
    assert report is not None
    kinds = {e.error.split(":")[0] for e in report.errors}
    assert kinds <= {"permission"}, report.errors
    # the same app: the same exploration (a shorter run is the longer one's beginning)
    again = await _explore(tmp_path, "again", 50)
    assert again.decisions == explorer.decisions[: len(again.decisions)]


def test_a_delete_is_a_destructive_deed_however_it_is_worded():
    def button(label: str, uid: str) -> Element:
        return Element("AXButton", label, unique_id=uid, frame=Frame(0, 0, 44, 44))

    def kind(element: Element) -> str | None:
        deed = control_deed(element, Observation((element,)))
        return deed.kind if deed is not None else None

    assert kind(button("Delete London", "minus_london")) == "destructive"
    assert kind(button("Delete", "confirm_delete_london")) == "destructive"
    assert kind(button("Delete Alarm", "delete_alarm")) == "destructive"
    assert kind(button("Edit", "edit")) is None
