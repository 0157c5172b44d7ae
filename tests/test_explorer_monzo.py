"""The explorer on an app model of a real bank not designed for it: Monzo for iOS
(``orav/sim/monzo.yaml``), through the simulator over real gRPC and the fb-idb client.

Monzo opens on its own PIN pad (ten digit buttons, no text field), asks to send notifications
and loads its feed once signed in, meets a network error on the statements, asks for the PIN
again before a payment is sent, and hides closing a pot, cancelling a standing order, deleting
a payee and logging out behind confirmations. Its test build's ``-UITests`` starts past the
PIN pad.
"""

from __future__ import annotations

from pathlib import Path

from explorer_runs import Noting, explore_model

from orav.model import Credentials, Tap

MONZO = Path(__file__).resolve().parent.parent / "orav" / "sim" / "monzo.yaml"
CREDENTIALS = Credentials("sam@monzo.example", "2580")
# What confirms a deed: never given
CONFIRMATIONS = {
    "confirm_close_pot",
    "confirm_cancel_payment",
    "confirm_delete_payee",
    "confirm_log_out",
}


async def _explore(tmp_path: Path, name: str, steps: int, *arguments: str) -> Noting:
    cassette = tmp_path / f"{name}.cassette"
    return await explore_model(MONZO, "co.uk.getmondo", cassette, steps, CREDENTIALS, arguments)


def _ids(explorer: Noting) -> list[str]:
    return [
        d.action.target.id
        for d in explorer.decisions
        if isinstance(d.action, Tap) and d.action.target is not None and d.action.target.id
    ]


async def test_the_pin_pad_at_launch_is_never_tapped(tmp_path):
    """Digits tapped on the app's own keypad would write the PIN to the cassette as the keys
    tapped (and wrong PINs lock the account): the explorer stops at the pad, saying so."""
    explorer = await _explore(tmp_path, "pin", 40)
    ids = _ids(explorer)
    assert not [i for i in ids if i.startswith("key_")], ids
    coverage = explorer.coverage()
    assert coverage.finished and {s.name for s in coverage.screens} >= {"Forgot your PIN?"}
    pad = coverage.screens[0]
    assert {f"#key_{d}" for d in "0123456789"} <= set(pad.skipped), pad


async def test_monzo_past_the_pin_is_explored_through_its_faults_without_a_deed(tmp_path):
    explorer = await _explore(tmp_path, "app", 120, "-UITests")
    coverage = explorer.coverage()
    names = {s.name for s in coverage.screens}
    # the tabs, a statement behind a network error, a wizard-like payment up to its PIN
    assert {"Home", "Savings", "Payments", "Card", "Help", "Statements", "Statement"} <= names
    assert {"Check your payment", "Spending controls"} <= names
    # the payment is an outward deed: "Pay £10" never tapped, its PIN screen never reached
    assert "Confirm with your PIN" not in names
    assert len(names) >= 30, sorted(names)
    ids = _ids(explorer)
    assert "retry" in ids  # the network error's Retry is the screen's way on
    # the payment's PIN is never entered; in the simulator's disposable world a destructive
    # confirmation may be given, each in the ledger; "Close pot" (its kind untold) never
    assert not [i for i in ids if i.startswith("confirm_key_")], ids
    assert "send_payment" not in ids and "confirm_close_pot" not in ids
    report = explorer.report
    assert report is not None
    ledger = report.side_effects.deeds if report.side_effects is not None else ()
    given = {d.action.split()[1].removeprefix("#") for d in ledger}
    assert CONFIRMATIONS & set(ids) <= given
    # the faults the app meets are recovered: a permission answered, the feed waited for,
    # the keyboard put away; nothing else
    kinds = {e.error.split(":")[0] for e in report.errors}
    assert kinds <= {"permission", "loading", "keyboard", "network"}, report.errors
    assert "permission" in kinds
