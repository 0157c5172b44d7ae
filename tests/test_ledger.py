"""The side-effect ledger: a world's changes folded per path, recorded in the cassette and
replayed from it, on the run's report."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from orav.agents import AgentContext
from orav.cassette import ChangesEvent, read_cassette
from orav.model import (
    Decision,
    Deed,
    DeviceInfo,
    Done,
    Element,
    FileChange,
    Frame,
    Observation,
    Scenario,
    Tap,
    Target,
    WorldChanges,
)
from orav.session import record, replay
from orav.tally import Tally
from orav.testing import FakeDevice, VirtualClock

APP = "notes"
SCENARIO = Scenario(name="ledger", app=APP, goal="tidy up", max_steps=5)


class FakeWorld(FakeDevice):
    """A FakeDevice whose every tap changes one file of its world: a test double for the
    engine's side of ``orav.device.World`` (the sandbox itself is tested on real apps in
    tests/test_sandbox.py)."""

    disposable = True

    def __init__(self, changes: list[WorldChanges]) -> None:
        screen = Observation(
            (Element("AXButton", "Tidy", "tidy", frame=Frame(10, 10, 100, 40)),), app=APP
        )
        info = DeviceInfo("textual", "FakeWorld", disposable=True, network="off")
        super().__init__(screen, info=info)
        self._changes = list(changes)

    async def changes(self) -> WorldChanges:
        self._called("changes")
        return self._changes.pop(0) if self._changes else WorldChanges()


class TapTwice:
    name = "tap-twice"

    async def decide(self, context: AgentContext) -> Decision:
        if context.step > 2:
            return Decision(Done(success=True, summary="tidied"))
        return Decision(Tap(target=Target(id="tidy")))


async def test_a_worlds_changes_are_recorded_replayed_and_on_the_report(tmp_path: Path) -> None:
    device = FakeWorld(
        [
            WorldChanges((FileChange("home/notes.md", "deleted"),)),
            WorldChanges((FileChange("work/sample.db", "changed"), FileChange("tmp/x", "created"))),
        ]
    )
    out = tmp_path / "ledger.jsonl"
    recorded = await record(SCENARIO, out, device=device, agent=TapTwice(), clock=VirtualClock())
    ledger = recorded.report.side_effects
    assert ledger is not None
    assert ledger.disposable and ledger.network == "off"
    assert ledger.files == (
        FileChange("home/notes.md", "deleted"),
        FileChange("tmp/x", "created"),
        FileChange("work/sample.db", "changed"),
    )
    assert device.calls.count("changes") == 2  # once after each settled action
    cassette = read_cassette(out)
    assert sum(isinstance(e, ChangesEvent) for e in cassette.events) == 2
    replayed = await replay(out)  # served from the cassette: no world needed
    assert replayed.faithful, replayed.differences
    assert replayed.report.side_effects == ledger


async def test_a_device_that_is_no_world_records_no_changes_and_no_ledger(tmp_path: Path) -> None:
    screen = Observation((Element("AXButton", "Tidy", "tidy", frame=Frame(10, 10, 100, 40)),))
    out = tmp_path / "plain.jsonl"
    recorded = await record(
        SCENARIO, out, device=FakeDevice(screen), agent=TapTwice(), clock=VirtualClock()
    )
    assert recorded.report.side_effects is None
    assert not any(isinstance(e, ChangesEvent) for e in read_cassette(out).events)
    assert (await replay(out)).faithful


def test_deeds_are_listed_in_order_with_who_did_them() -> None:
    tally = Tally(SCENARIO)
    tally.world(DeviceInfo("ios", "iPhone", disposable=False))
    assert tally.side_effects() is None  # not disposable, nothing done
    tally.did(Deed("destructive", 3, "tap #drop", by="agent", why="confirmation"))
    tally.did(Deed("outward", 4, "tap #send", by="remedy"))
    ledger = tally.side_effects()
    assert ledger is not None and not ledger.disposable
    assert [(d.step, d.by) for d in ledger.deeds] == [(3, "agent"), (4, "remedy")]


CHANGES = st.sampled_from(("created", "changed", "deleted"))


@given(st.lists(st.tuples(st.sampled_from(("a", "b", "c")), CHANGES), max_size=12))
def test_the_net_change_per_path_agrees_with_existence_before_and_after(
    steps: list[tuple[str, str]],
) -> None:
    """A path's net change follows from whether it existed before the run and after it:
    created (absent, then present), deleted (present, then absent), changed or none."""
    tally = Tally(SCENARIO)
    exists: dict[str, bool] = {}
    before: dict[str, bool] = {}
    for path, change in steps:
        # the world only reports what can happen: a file present is changed or deleted
        present = exists.get(path, change != "created")
        before.setdefault(path, present)
        if present and change == "created":
            change = "changed"
        if not present and change != "created":
            change = "created"
        tally.changed(WorldChanges((FileChange(path, change),)))  # type: ignore[arg-type]
        exists[path] = change != "deleted"
    net = {f.path: f.change for f in tally.files.values()}
    for path, was in before.items():
        now = exists[path]
        if not was and now:
            assert net.get(path) == "created"
        elif was and not now:
            assert net.get(path) == "deleted"
        elif not was and not now:
            assert path not in net
        else:
            assert net.get(path) in ("changed", None)


async def test_the_simulator_is_disposable_and_an_idb_device_only_when_declared(
    tmp_path: Path,
) -> None:
    """orav's simulator is its own world: its runs say so in the header and the ledger."""
    from orav.scenario_loader import load_scenario

    scenario = load_scenario(Path("orav/scenarios/shop/add_to_cart.yaml"))
    out = tmp_path / "cart.cassette"
    recorded = await record(scenario, out, device="sim")
    assert recorded.report.goal_met
    ledger = recorded.report.side_effects
    assert ledger is not None and ledger.disposable and not ledger.files
    assert read_cassette(out).header.device.disposable  # type: ignore[union-attr]
    replayed = await replay(out)
    assert replayed.faithful, replayed.differences
