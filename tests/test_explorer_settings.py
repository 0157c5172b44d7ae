"""The explorer on an app model of a real app not designed for it: iOS 17's Settings
(``orav/sim/settings.yaml``), through the simulator over real gRPC and the fb-idb client.

Settings labels its Back buttons with the previous screen's title, finds its rows by label,
hides the Wi-Fi networks when Wi-Fi is switched off and runs its root list off the screen.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from explorer_runs import explore_model

from orav.agents.explorer import ExplorerAgent
from orav.model import Credentials, Decision, Swipe, Tap

SETTINGS = Path(__file__).resolve().parent.parent / "orav" / "sim" / "settings.yaml"


async def _explore(tmp_path: Path, steps: int) -> tuple[ExplorerAgent, list[Decision]]:
    credentials = Credentials("sam.appleseed@icloud.com", "123456")
    explorer = await explore_model(
        SETTINGS, "com.apple.Preferences", tmp_path / "settings.cassette", steps, credentials
    )
    return explorer, explorer.decisions


@pytest.mark.slow(reason="260 explorer steps on the Settings app model")
async def test_settings_app_model_explored_as_a_real_app_demands(tmp_path):
    explorer, decisions = await _explore(tmp_path, 260)
    coverage = explorer.coverage()
    names = {s.name for s in coverage.screens}
    # Wi-Fi was switched off and on again, so its networks stayed to be tried
    assert {"Wi-Fi", "Home", "Other Network", "Security"} <= names, coverage.summary
    targets = [d.action.target for d in decisions if isinstance(d.action, Tap) and d.action.target]
    taps = [t.id or t.label for t in targets]
    # switches wait for the second round (the first goes for what opens screens), and each is
    # turned back at once
    switches = [i for i, t in enumerate(taps) if t in {"airplane_mode", "wifi_switch"}]
    assert len(switches) >= 2 and taps[switches[0] + 1] == taps[switches[0]]
    assert switches[0] > taps.index("com.apple.settings.reset")
    # Reset opens a page (its Back led back): walked through, though its name sounds risky;
    # the confirmation of Sign Out is a destructive deed: given in the simulator's disposable
    # world, last, and in the ledger
    assert "Reset" in names
    report = explorer.report
    assert report is not None
    ledger = report.side_effects.deeds if report.side_effects is not None else ()
    confirmed = [d for d in ledger if "'Sign Out'" in d.action]
    assert confirmed == [] or all(d.kind == "destructive" for d in confirmed)
    assert taps.count("Sign Out") == len(confirmed)
    # "Settings" at the top left is Wi-Fi's Back: tried after Wi-Fi's own rows
    wifi = next(s for s in coverage.screens if s.name == "Wi-Fi")
    assert wifi.tried.index("#BackButton") > wifi.tried.index("#com.apple.settings.other")
    # the root list runs off the screen: scrolled in the first round, before any other swipe
    swipes = [d.action for d in decisions if isinstance(d.action, Swipe)]
    vertical = [i for i, a in enumerate(swipes) if abs(a.end.y - a.start.y) > 100]
    sideways = [
        i for i, a in enumerate(swipes) if a.start.x > 10 and abs(a.end.x - a.start.x) > 100
    ]
    assert vertical and (not sideways or vertical[0] < sideways[0])
    assert {"Face ID & Passcode", "Battery", "Privacy & Security"} <= names
