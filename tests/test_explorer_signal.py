"""The explorer on an app model of a real app not designed for it: Signal for iOS
(``orav/sim/signal.yaml``), through the simulator over real gRPC and the fb-idb client.

Signal presents New Chat and Settings as sheets closed by Cancel and Done, labels its Back
buttons with the previous screen's title, hides destructive deeds behind confirmations (Delete
chat, Block, Clear Chat History, Unlink, Delete Account) and titles its Settings > Chats page
"Chats", as its chat list is titled.
"""

from __future__ import annotations

from pathlib import Path

from explorer_runs import Noting, explore_model

from orav.model import Tap

SIGNAL = Path(__file__).resolve().parent.parent / "orav" / "sim" / "signal.yaml"
# The buttons that confirm a destructive deed, on the alerts and action sheets that ask.
CONFIRMATIONS = {
    "confirm_delete_chat",
    "confirm_block",
    "confirm_clear_history",
    "really_delete_account",
    "confirm_unlink",
    "confirm_delete_call",
}
# The buttons that ask for those confirmations.
DEEDS = {"block", "delete_alice", "delete_bob", "clear_history", "unlink_mac", "delete_call"}


async def _explore(tmp_path: Path, name: str, steps: int) -> Noting:
    return await explore_model(
        SIGNAL, "org.whispersystems.signal", tmp_path / f"{name}.cassette", steps
    )


async def test_signal_is_explored_without_confirming_a_destructive_deed_and_the_same_twice(
    tmp_path,
):
    explorer = await _explore(tmp_path, "first", 170)
    coverage = explorer.coverage()
    names = {s.name for s in coverage.screens}
    # the Settings sheet and its pages, the chat, its settings and the other tabs
    assert {"Settings", "Profile", "Account", "Create Your PIN", "Linked Devices"} <= names
    assert {"Appearance", "Theme", "Notifications", "Privacy", "Select Members"} <= names
    assert {"Conversation Settings", "Disappearing Messages", "Calls", "Stories"} <= names
    assert len(names) >= 35, sorted(names)
    # a form's fields are filled before its Save, and "Done" closes the sheet after its rows
    taps = [d.action.target for d in explorer.decisions if isinstance(d.action, Tap)]
    ids = [t.id for t in taps if t is not None]
    assert ids.index("given_name") < ids.index("family_name") < ids.index("save_name")
    assert ids[ids.index("settings_avatar") + 1] == "profile_row"  # not "Done"
    assert "settings_done" not in ids or ids.index("privacy") < ids.index("settings_done")
    # destructive confirmations are never given; the buttons that ask for them (Block, a
    # chat's Delete swipe action, Clear Chat History, Unlink) wait for the second round: the
    # first explores the app as it was found (tests/test_explorer.py declines on the alert)
    assert not CONFIRMATIONS & set(ids), CONFIRMATIONS & set(ids)
    assert not DEEDS & set(ids), DEEDS & set(ids)
    # the same app and seed: the same exploration (the explorer never looks at its budget, so
    # a shorter run is the longer one's beginning)
    again = await _explore(tmp_path, "again", 80)
    assert len(again.decisions) >= 80
    assert again.decisions == explorer.decisions[: len(again.decisions)]
