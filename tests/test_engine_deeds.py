"""The engine's ledger of deeds: every deed the agent performs, by what it was on the screen
it was decided on (a confirmation's affirmative answer, words), through the whole engine on
the simulator (real gRPC, the fb-idb client), and the same deeds when the cassette replays."""

from __future__ import annotations

from orav.model import Decision, Done, Scenario, Tap, Target
from orav.session import record, replay
from orav.testing import VirtualClock

# A screen whose words no list knows ("Zap", "Yes") asks before its deed; "Trash" asks
# nothing: its word is the last resort.
APP = """\
name: Tables
bundle_id: com.example.tables
start: home
screens:
  home:
    title: Tables
    elements:
      - {role: AXButton, id: zap, label: Zap table, frame: [20, 100, 350, 44],
         on_tap: [{alert: {title: Really?, message: It cannot be undone., buttons: [
           {label: Cancel, style: cancel}, {label: "Yes", id: "yes", on_tap: [{log: zapped}]}]}}]}
      - {role: AXButton, id: trash, label: Trash, frame: [20, 160, 350, 44],
         on_tap: [{log: trashed}]}
      - {role: AXButton, id: info, label: Info, frame: [20, 220, 350, 44]}
"""


def tap(uid: str) -> Decision:
    return Decision(Tap(target=Target(id=uid)), f"tap {uid}")


async def test_each_deed_the_agent_performs_is_in_the_ledger_and_replays(tmp_path) -> None:
    model = tmp_path / "tables.yaml"
    model.write_text(APP, encoding="utf-8")
    script = (
        tap("info"),
        tap("zap"),
        tap("yes"),
        tap("trash"),
        Decision(Done(success=True, summary="done"), "done"),
    )
    scenario = Scenario("deeds", "com.example.tables", "zap and trash", script=script)
    cassette = tmp_path / "deeds.cassette"
    recorded = await record(scenario, cassette, device=f"sim:{model}", clock=VirtualClock())
    ledger = recorded.report.side_effects
    assert ledger is not None
    deeds = [(d.kind, d.step, d.action.split()[1], d.by, d.why) for d in ledger.deeds]
    assert deeds == [
        ("outward", 3, "#yes", "agent", "confirms 'Really? It cannot be undone.'"),
        ("destructive", 4, "#trash", "agent", "words: trash"),
    ]
    replayed = await replay(cassette)
    assert replayed.faithful
    assert replayed.report.side_effects is not None
    assert replayed.report.side_effects.deeds == ledger.deeds
