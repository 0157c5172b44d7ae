"""App-defined alerts and action sheets, and the tab bar, through the real fb-idb client."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from idb.common.types import AccessibilityInfoOptions, TCPAddress
from idb.grpc.client import Client

from orav.errors import InputError
from orav.model import Fault
from orav.sim import SimCompanion, load_app_model
from orav.sim.view import SPRINGBOARD_PID

# The shop with tabs, an alert and an action sheet (its own file: tests/apps/tabs.yaml).
APP = (Path(__file__).parent / "apps" / "tabs.yaml").read_text()


class Phone:
    def __init__(self, sim: SimCompanion, client: Client) -> None:
        self.sim, self.client = sim, client

    async def tree(self) -> list[dict]:
        info = await self.client.accessibility_info(None, AccessibilityInfoOptions(nested=False))
        return json.loads(info.json)

    async def find(self, unique_id: str | None = None, label: str | None = None) -> dict | None:
        for e in await self.tree():
            if (unique_id is None or e["AXUniqueId"] == unique_id) and (
                label is None or e["AXLabel"] == label
            ):
                return e
        return None

    async def tap(self, unique_id: str | None = None, label: str | None = None) -> None:
        e = await self.find(unique_id, label)
        assert e is not None, f"no element {unique_id or label!r}"
        f = e["frame"]
        await self.client.tap(f["x"] + f["width"] / 2, f["y"] + f["height"] / 2)


async def phone(text: str = APP, **kwargs) -> AsyncIterator[Phone]:
    async with SimCompanion(load_app_model(text, name="tabs.yaml"), **kwargs) as sim:
        host, port = sim.address.split(":")
        address = TCPAddress(host=host, port=int(port))
        async with Client.build(address=address, logger=logging.getLogger("test")) as client:
            yield Phone(sim, client)


@pytest.fixture
async def p() -> AsyncIterator[Phone]:
    async for one in phone():
        yield one


async def test_tab_bar_is_a_group_of_buttons_with_the_selected_one_marked(p: Phone) -> None:
    tree = await p.tree()
    bar = next(e for e in tree if e["AXLabel"] == "Tab Bar")
    assert bar["type"] == "Group" and bar["frame"]["y"] == 844 - 83
    home, cart = (await p.find("tab_home")), (await p.find("tab_cart"))
    assert "selected" in home["traits"] and "selected" not in cart["traits"]
    assert home["type"] == "Button" and home["pid"] == tree[0]["pid"]


async def test_each_tab_keeps_its_own_stack(p: Phone) -> None:
    await p.tap("item")
    assert p.sim.state.screen == "detail"
    await p.tap("tab_cart")
    assert p.sim.state.screen == "cart"
    assert "selected" in (await p.find("tab_cart"))["traits"]
    await p.tap("tab_home")
    assert p.sim.state.screen == "detail"  # where the home tab was left
    await p.tap("tab_home")  # the selected tab again: pops to its root
    assert p.sim.state.screen == "home"


async def test_tapping_the_selected_tab_at_its_root_changes_nothing(p: Phone) -> None:
    await p.tap("search")
    await p.client.text("shoes")
    before = await p.tree()
    await p.tap("tab_home")
    assert await p.tree() == before
    assert p.sim.state.focus == "search" and p.sim.state.values["search"] == "shoes"


async def test_a_transition_selects_a_tab(p: Phone) -> None:
    await p.tap("to_cart")
    assert p.sim.state.screen == "cart" and p.sim.state.tab == "tab_cart"


async def test_app_alert_is_in_the_apps_tree_with_its_own_id_and_buttons(p: Phone) -> None:
    await p.tap("tab_cart")
    await p.tap("clear")
    tree = await p.tree()
    alert = await p.find("confirm_delete")
    assert alert["type"] == "Alert" and alert["AXLabel"] == "Delete all items?"
    assert alert["pid"] == tree[0]["pid"]  # the app's own alert, not SpringBoard's
    labels = [e["AXLabel"] for e in tree[tree.index(alert) :]]
    assert labels[1:] == ["Delete all items?", "This cannot be undone.", "Delete", "Cancel"]
    assert (await p.find(label="Delete"))["AXUniqueId"] == "confirm"
    await p.tap("tab_home")  # behind the alert: swallowed
    assert p.sim.state.screen == "cart"
    await p.tap(label="Cancel")
    assert await p.find("confirm_delete") is None
    assert (await p.find("status")) is not None and await p.find("emptied") is None
    await p.tap("clear")
    await p.tap("confirm")
    assert await p.find("status") is None and await p.find("emptied") is not None


async def test_action_sheet_sits_at_the_bottom_and_its_action_runs(p: Phone) -> None:
    await p.tap("tab_cart")
    await p.tap("sign_out")
    sheet = next(e for e in await p.tree() if e["AXLabel"] == "Sign out?")
    assert sheet["type"] == "Sheet" and sheet["role_description"] == "sheet"
    assert sheet["frame"]["y"] + sheet["frame"]["height"] == 844 - 34
    tree = await p.tree()
    buttons = tree[tree.index(sheet) + 2 :]  # after the sheet and its title (no message)
    assert [b["AXLabel"] for b in buttons] == ["Sign out", "Keep shopping", "Cancel"]
    assert len({b["frame"]["y"] for b in buttons}) == 3  # stacked, one row each
    f = buttons[0]["frame"]
    await p.client.tap(f["x"] + f["width"] / 2, f["y"] + f["height"] / 2)
    assert p.sim.state.screen == "login" and await p.find(label="Tab Bar") is None
    await p.tap("sign_in")
    assert p.sim.state.screen == "home" and await p.find("tab_home") is not None


async def test_system_permission_alert_differs_from_the_apps_by_pid() -> None:
    async for one in phone(faults=[Fault("permission", at_step=1)]):
        await one.tap("tab_cart")
        dialog = next(e for e in await one.tree() if e["type"] == "Alert")
        assert dialog["pid"] == SPRINGBOARD_PID and dialog["AXUniqueId"] is None
        await one.tap(label="Allow")
        await one.tap("clear")
        mine = await one.find("confirm_delete")
        assert mine["pid"] != SPRINGBOARD_PID


async def test_a_fault_waits_behind_the_apps_alert() -> None:
    async for one in phone(faults=[Fault("alert", at_step=2, message="Update available")]):
        await one.tap("tab_cart")
        await one.tap("clear")  # input 2: the injected alert is due but the app's shows
        assert await one.find(label="Update available") is None
        await one.tap(label="Cancel")
        assert await one.find(label="Update available") is not None


@pytest.mark.parametrize(
    ("old", "new", "where", "what"),
    [
        ("screen: cart}", "screen: basket}", "11:41", "unknown screen 'basket'"),
        ("label: Cart, screen: cart}", "label: Cart, screen: home}", "11:41", "root of two tabs"),
        ("{tab: tab_cart}", "{tab: tab_basket}", "24:25", "unknown tab 'tab_basket'"),
        ("on_tap: [{hide: status,", "on_tap: [{hide: nope,", "47:36", "unknown element id"),
        ("style: action_sheet", "style: popover", "56:22", "got 'popover'"),
    ],
)
def test_tab_and_alert_errors_name_file_line_col(old: str, new: str, where: str, what: str):
    assert old in APP
    with pytest.raises(InputError) as caught:
        load_app_model(APP.replace(old, new, 1), name="tabs.yaml")
    assert caught.value.where == f"tabs.yaml:{where}", caught.value
    assert what in caught.value.what


def test_an_alert_needs_a_button() -> None:
    text = APP.replace(
        "              title: Sign out?\n",
        "              title: Sign out?\n              buttons: []\n",
    )
    text = text.replace(
        "              style: action_sheet\n              buttons:\n"
        "                - {label: Sign out, style: destructive, on_tap: [{to: login, reset: true}]}\n"
        "                - {label: Keep shopping}\n"
        "                - {label: Cancel, style: cancel}\n",
        "",
    )
    with pytest.raises(InputError, match="at least one button") as caught:
        load_app_model(text, name="tabs.yaml")
    assert caught.value.where.startswith("tabs.yaml:")
