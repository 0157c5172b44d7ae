"""The shopping demo app (orav/sim/shop.yaml): its scenarios pass live and replay faithfully,
its golden cassettes replay, and its app-wide state behaves through the real fb-idb client."""

from __future__ import annotations

from pathlib import Path

import pytest

from orav.drivers.idb import IdbDevice
from orav.model import Point, PressKey, Swipe, Tap, Target, TypeText
from orav.scenario_loader import load_scenario, shop_scenarios
from orav.session import record, replay
from orav.sim import SHOP_APP, SimCompanion, load_app_model
from orav.sim.lint import lint
from orav.testing import VirtualClock

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = sorted((ROOT / "recordings" / "shop").glob("*.cassette"))
SHOP = "com.orav.shop"


def test_every_shop_scenario_has_a_golden_cassette() -> None:
    assert {p.stem for p in GOLDEN} == {p.stem for p in shop_scenarios()}
    assert len(GOLDEN) >= 5


@pytest.mark.parametrize("path", shop_scenarios(), ids=lambda p: p.stem)
async def test_shop_scenario_passes_live_and_replays_faithfully(path: Path, tmp_path: Path):
    scenario = load_scenario(path)
    recording = await record(scenario, tmp_path / "run.cassette", clock=VirtualClock())
    report = recording.report
    assert report.status == "passed", report
    assert report.goals_achieved and not report.goals_missed
    outcome = await replay(recording.cassette)
    assert outcome.faithful, outcome.differences


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
async def test_shop_golden_replays_faithfully(path: Path) -> None:
    outcome = await replay(path)
    assert outcome.faithful, outcome.differences
    assert outcome.report.goal_met


async def _tap(device: IdbDevice, element_id: str) -> None:
    result = await device.perform(Tap(target=Target(id=element_id)))
    assert result.ok, result.error


async def _type(device: IdbDevice, element_id: str, text: str) -> None:
    await _tap(device, element_id)
    assert (await device.perform(TypeText(text))).ok


def _values(seen) -> dict[str, tuple[str | None, str | None]]:
    return {e.unique_id: (e.label, e.value) for e in seen.elements if e.unique_id}


async def test_cart_state_is_app_wide_with_totals_badges_and_validation() -> None:
    async with (
        SimCompanion(SHOP_APP) as sim,
        IdbDevice.connect(sim.address, bundle_id=SHOP) as device,
    ):
        await _type(device, "email", "not-an-email")
        await _type(device, "password", "x")
        await _tap(device, "sign_in")
        seen = _values(await device.observe())
        assert seen["sign_in_error"][0] == "Enter a valid email address"  # a pattern
        await device.perform(PressKey("escape"))
        sim.state.stack[-1].values.update(email="shopper@orav.dev", password="Shop-Demo-2!")
        await _tap(device, "sign_in")
        for product in ("tee", "mug", "tee"):
            await _tap(device, f"product_{product}")
            await _tap(device, "add_to_cart")
            await _tap(device, "back")
        seen = _values(await device.observe())
        assert seen["tab_cart"][0] == "Cart (3)"  # a label templated from state
        await _tap(device, "tab_cart")
        seen = _values(await device.observe())
        assert seen["line_tee"] == ("Cotton tee", "2 x $18.00")
        assert seen["subtotal_label"][0] == "Subtotal: $48.00"
        assert "empty_cart" not in seen
        await _tap(device, "less_tee")
        await _type(device, "promo_code", "NOPE")
        await _tap(device, "apply_promo")
        seen = _values(await device.observe())
        assert seen["promo_error"][0] == "Code NOPE is not valid"
        assert seen["total_label"][0] == "Total: $30.00"
        await _tap(device, "checkout")  # hides the tab bar
        seen = _values(await device.observe())
        assert "tab_cart" not in seen and seen["pay"][0] == "Pay $30.00"
        await _tap(device, "pay")
        seen = _values(await device.observe())
        assert seen["checkout_error"][0] == "Enter your name and address"


async def test_scrolling_keeps_off_screen_rows_out_of_the_tree() -> None:
    async with (
        SimCompanion(SHOP_APP) as sim,
        IdbDevice.connect(sim.address, bundle_id=SHOP) as device,
    ):
        sim.state.keychain["session"] = "shopper@orav.dev"
        await device.terminate(SHOP)
        await device.launch(SHOP)  # a session in the keychain: straight to the catalogue
        seen = _values(await device.observe())
        assert "product_tee" in seen and "product_lamp" not in seen
        result = await device.perform(Tap(target=Target(id="product_lamp")))
        assert not result.ok  # not in the tree: nothing to tap
        await device.perform(Swipe(Point(195, 650), Point(195, 250)))
        seen = await device.observe()
        ids = {e.unique_id for e in seen.elements}
        assert "product_lamp" in ids and "product_tee" not in ids
        lamp = next(e for e in seen.elements if e.unique_id == "product_lamp")
        assert lamp.frame.y + lamp.frame.height <= 844 - 83  # above the tab bar
        await device.perform(Swipe(Point(195, 150), Point(195, 750)))
        await device.perform(Swipe(Point(195, 150), Point(195, 750)))
        assert "product_tee" in _values(await device.observe())
        assert sim.state.stack[-1].offset == 0


async def test_swipe_actions_reveal_then_a_tap_elsewhere_hides_them() -> None:
    async with (
        SimCompanion(SHOP_APP) as sim,
        IdbDevice.connect(sim.address, bundle_id=SHOP) as device,
    ):
        sim.state.memory["cart"] = ("tee", "mug")
        sim.state.keychain["session"] = "x@y.z"
        await device.terminate(SHOP)
        await device.launch(SHOP)
        sim.state.memory["cart"] = ("tee", "mug")
        await _tap(device, "tab_cart")
        await device.perform(Swipe(Point(220, 130), Point(40, 130)))
        seen = _values(await device.observe())
        assert seen["delete_tee"][0] == "Delete"
        await device.perform(Tap(x=195, y=300))  # elsewhere: closes, does nothing else
        seen = _values(await device.observe())
        assert "delete_tee" not in seen and "line_tee" in seen


def test_the_shop_loads_and_every_screen_is_reachable() -> None:
    model = load_app_model(SHOP_APP)
    assert (
        len(model.screens) >= 9
        and not lint(model)
        and {t.id for t in model.tabs}
        == {
            "tab_shop",
            "tab_cart",
            "tab_profile",
        }
    )


async def test_the_explorer_reaches_the_shops_screens_and_replays(tmp_path: Path) -> None:
    from orav.agents.explorer import ExplorerAgent
    from orav.model import Credentials, Scenario

    explorer = ExplorerAgent()
    scenario = Scenario(
        "explore-shop",
        SHOP,
        "explore",
        max_steps=200,
        timeout_seconds=3600,  # virtual time: the step budget ends it
        settle_seconds=0.05,
        credentials=Credentials("shopper@orav.dev", "Shop-Demo-2!"),
    )
    cassette = tmp_path / "explore.cassette"
    recorded = await record(scenario, cassette, agent=explorer, clock=VirtualClock())
    seen = set(recorded.report.screens_visited)
    assert {"Sign in", "Shop", "Cart", "Profile", "Orders", "Help"} <= seen  # every tab and more
    products = {p["title"] for p in load_app_model(SHOP_APP).data["products"].values()}
    assert len(seen & products) >= 8  # the product pages shown without scrolling
    # the budget may end it; a keyboard over a tab is recovered on the way (a passing run)
    assert recorded.report.goal_met or recorded.report.status == "step_limit"
    assert (await replay(cassette)).faithful
