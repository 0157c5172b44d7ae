"""App-model features the shop does not lean on, through the real fb-idb client: key handlers,
modal screens, an element's own swipe, expression-enabled controls, several shows and hides at
once, `when` on state, a start chosen by the launch arguments."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator

import pytest
from idb.common.types import AccessibilityInfoOptions, TCPAddress
from idb.grpc.client import Client

from orav.sim import SimCompanion, load_app_model

APP = """\
name: Keys
bundle_id: com.example.keys
start: "{'onboarding' if '-onboarding' in args else 'list'}"
state: {count: 0, picked: []}
screens:
  onboarding:
    elements:
      - {role: AXStaticText, id: hello, label: Welcome, frame: [20, 100, 350, 40]}
  list:
    title: "Items ({count})"
    on_key:
      "/": [{to: search, modal: true}]
      escape: [{set: {count: 0}}]
    elements:
      - {role: AXButton, id: add, label: Add, enabled: "count < 2", frame: [20, 100, 350, 44],
         on_tap: [{set: {count: "{count + 1}"}, append: {picked: "item{count}"}}]}
      - role: AXCell
        id: row
        label: "Row: {picked}"
        frame: [0, 160, 390, 56]
        on_swipe: {right: [{remove: {picked: item0}, show: [a, b], hide: c}]}
      - {role: AXStaticText, id: a, label: A, hidden: true, frame: [20, 230, 100, 30]}
      - {role: AXStaticText, id: b, label: B, hidden: true, frame: [130, 230, 100, 30]}
      - {role: AXStaticText, id: c, label: C, frame: [240, 230, 100, 30]}
      - {role: AXStaticText, id: two, label: Two added, when: "count == 2",
         frame: [20, 280, 350, 30]}
      - {role: AXButton, id: only_at_two, label: Reset, frame: [20, 320, 350, 44],
         on_tap: [{when: {count: "2"}, set: {count: 0, picked: []}}]}
  search:
    title: Search
    elements:
      - role: AXTextField
        id: query
        label: Query
        frame: [20, 100, 350, 44]
        on_key:
          escape: [{to: back}]
          tab: [{set: {query: "{query}!"}}]
"""


class Phone:
    def __init__(self, sim: SimCompanion, client: Client) -> None:
        self.sim, self.client = sim, client

    async def tree(self) -> dict[str, dict]:
        info = await self.client.accessibility_info(None, AccessibilityInfoOptions(nested=False))
        return {e["AXUniqueId"] or e["AXLabel"]: e for e in json.loads(info.json)}

    async def tap(self, key: str) -> None:
        f = (await self.tree())[key]["frame"]
        await self.client.tap(f["x"] + f["width"] / 2, f["y"] + f["height"] / 2)


@pytest.fixture
async def phone() -> AsyncIterator[Phone]:
    async with SimCompanion(load_app_model(APP, name="keys.yaml")) as sim:
        host, port = sim.address.split(":")
        address = TCPAddress(host=host, port=int(port))
        async with Client.build(address=address, logger=logging.getLogger("test")) as client:
            yield Phone(sim, client)


async def test_enabled_expressions_and_conditions_on_state(phone: Phone) -> None:
    await phone.tap("add")
    await phone.tap("add")
    tree = await phone.tree()
    assert tree["add"]["enabled"] is False and "notEnabled" in tree["add"]["traits"]
    assert "Two added" in tree["two"]["AXLabel"] and tree["Items (2)"]["type"] == "Heading"
    assert tree["row"]["AXLabel"] == "Row: item0, item1"
    await phone.tap("add")  # disabled: nothing happens
    assert phone.sim.state.memory["count"] == 2
    await phone.tap("only_at_two")  # `when: {count: "2"}` on state
    assert phone.sim.state.memory == {"count": 0, "picked": ()}


async def test_an_elements_own_swipe_and_several_shows_and_hides(phone: Phone) -> None:
    await phone.tap("add")
    await phone.client.swipe((100, 188), (300, 188))  # starts on the row
    tree = await phone.tree()
    assert {"a", "b"} <= set(tree) and "c" not in tree
    assert tree["row"]["AXLabel"] == "Row: "


async def test_keys_without_focus_reach_the_screen_and_focused_keys_the_field(phone: Phone):
    await phone.tap("add")
    await phone.client.key(41)  # escape, nothing focused: the screen's handler
    assert phone.sim.state.memory["count"] == 0
    await phone.client.text("/")  # a character, nothing focused: opens search, modally
    assert phone.sim.state.screen == "search" and phone.sim.state.stack[-1].modal
    await phone.client.swipe((5, 400), (300, 400))  # no edge swipe back out of a modal
    assert phone.sim.state.screen == "search"
    await phone.tap("query")
    await phone.client.text("shoes")
    await phone.client.key(43)  # tab: the field's own handler
    assert (await phone.tree())["query"]["AXValue"] == "shoes!"
    await phone.client.key(41)  # escape: the field's handler dismisses the modal
    assert phone.sim.state.screen == "list" and phone.sim.state.focus is None


async def test_the_start_screen_follows_the_launch_arguments(phone: Phone) -> None:
    await phone.client.terminate("com.example.keys")
    await phone.client.launch("com.example.keys", args=["-onboarding"])
    assert phone.sim.state.screen == "onboarding"
    await phone.client.terminate("com.example.keys")
    await phone.client.launch("com.example.keys")
    assert phone.sim.state.screen == "list"
