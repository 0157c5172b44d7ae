"""The simulated companion driven in-process by fb-idb's real async Client over loopback gRPC."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import AsyncIterator
from datetime import datetime

import pytest
from grpclib import GRPCError, Status
from grpclib.client import Channel
from idb.common.types import (
    AccessibilityInfoOptions,
    AccessibilityPoint,
    IdbException,
    ScreenshotFormat,
    ScreenshotOptions,
    TCPAddress,
)
from idb.grpc import idb_pb2 as pb
from idb.grpc.client import Client
from idb.grpc.idb_grpc import CompanionServiceStub
from PIL import Image

from orav.model import Fault
from orav.sim import SimCompanion

EMAIL, PASSWORD = "demo@orav.dev", "Orav-Demo-1!"


class Driver:
    """A thin test helper over the real Client: tap by id, read the tree."""

    def __init__(self, sim: SimCompanion, client: Client) -> None:
        self.sim, self.client = sim, client

    async def tree(self, nested: bool = False) -> list[dict]:
        info = await self.client.accessibility_info(None, AccessibilityInfoOptions(nested=nested))
        return json.loads(info.json)

    async def find(self, unique_id: str | None = None, label: str | None = None) -> dict | None:
        for element in await self.tree():
            if (unique_id is None or element["AXUniqueId"] == unique_id) and (
                label is None or element["AXLabel"] == label
            ):
                return element
        return None

    async def tap(self, unique_id: str | None = None, label: str | None = None) -> None:
        element = await self.find(unique_id, label)
        assert element is not None, f"no element {unique_id or label!r}"
        frame = element["frame"]
        await self.client.tap(frame["x"] + frame["width"] / 2, frame["y"] + frame["height"] / 2)

    async def labels(self) -> list[str | None]:
        return [e["AXLabel"] for e in await self.tree()]

    async def log_in(self, email: str = EMAIL, password: str = PASSWORD) -> None:
        await self.tap("email")
        await self.client.text(email)
        await self.tap("password")
        await self.client.text(password)
        await self.tap("sign_in")


async def _driver(**kwargs) -> AsyncIterator[Driver]:
    async with SimCompanion(**kwargs) as sim:
        host, port = sim.address.split(":")
        address = TCPAddress(host=host, port=int(port))
        async with Client.build(address=address, logger=logging.getLogger("test")) as client:
            yield Driver(sim, client)


@pytest.fixture
async def driver() -> AsyncIterator[Driver]:
    async for d in _driver():
        yield d


def at(hour: int, minute: int):
    return lambda: datetime(2026, 1, 1, hour, minute)


async def test_login_validation_then_home(driver: Driver) -> None:
    await driver.tap("sign_in")
    error = await driver.find("login_error")
    assert error["AXLabel"] == "Enter your email and password"
    await driver.log_in(password="wrong")
    assert (await driver.find("login_error"))["AXLabel"] == "Wrong email or password"
    assert driver.sim.state.screen == "login"
    await driver.tap("password")
    for _ in range(len("wrong")):
        await driver.client.key(42)  # backspace
    await driver.client.text(PASSWORD)
    await driver.client.key(40)  # return submits
    assert driver.sim.state.screen == "home"
    assert "Home" in await driver.labels()


async def test_navigation_back_button_and_edge_swipe(driver: Driver) -> None:
    await driver.log_in()
    await driver.tap("item_2")
    assert "Release notes" in await driver.labels()
    await driver.tap("back")
    assert driver.sim.state.screen == "home"
    await driver.tap("item_1")
    await driver.client.swipe((5, 400), (300, 400))
    assert driver.sim.state.screen == "home"
    await driver.client.swipe((5, 400), (300, 400))  # home is the root: nothing to pop
    assert driver.sim.state.screen == "home"


async def test_switch_toggles_and_form_submit_shows_banner(driver: Driver) -> None:
    await driver.log_in()
    await driver.tap("settings")
    assert (await driver.find("notifications_switch"))["AXValue"] == "1"
    await driver.tap("notifications_switch")
    assert (await driver.find("notifications_switch"))["AXValue"] == "0"
    await driver.tap("back")
    await driver.tap("feedback")
    await driver.tap("submit")
    assert (await driver.find("form_error"))["AXLabel"] == "Enter your name"
    assert await driver.find("success_banner") is None
    await driver.tap("form_name")
    await driver.client.text("Ada Lovelace")
    await driver.tap("submit")
    assert (await driver.find("success_banner"))["AXLabel"] == "Thanks! Your feedback was sent."
    assert await driver.find("form_error") is None


async def test_keyboard_is_in_tree_and_pixels_and_its_keys_type(driver: Driver) -> None:
    before = await driver.client.screenshot()
    await driver.tap("email")
    tree = await driver.tree()
    keyboard = next(e for e in tree if e["type"] == "Keyboard")
    assert keyboard["frame"]["y"] == 844 - 291
    assert (await driver.find("email"))["focused"] is True
    after = await driver.client.screenshot()
    old, new = (Image.open(io.BytesIO(s)).convert("RGB") for s in (before, after))
    assert old.getpixel((5, 800)) == (255, 255, 255)
    assert new.getpixel((5, 800)) != (255, 255, 255)  # keyboard grey at the bottom
    await driver.tap(label="shift")
    await driver.tap(label="Q")
    await driver.tap(label="w")
    await driver.tap(label="delete")
    await driver.tap(label="e")
    assert (await driver.find("email"))["AXValue"] == "Qe"
    await driver.tap(label="return")
    assert not any(e["type"] == "Keyboard" for e in await driver.tree())


async def test_nested_form_and_point_query(driver: Driver) -> None:
    [root] = await driver.tree(nested=True)
    assert root["type"] == "Application"
    ids = [c["AXUniqueId"] for c in root["children"]]
    assert ids[2:4] == ["email", "password"] and root["children"][0]["AXLabel"] == "Sign in"
    assert all(c["children"] == [] for c in root["children"])
    point = AccessibilityPoint(x=100, y=377)
    info = await driver.client.accessibility_info(point, AccessibilityInfoOptions())
    assert json.loads(info.json)["AXUniqueId"] == "sign_in"


async def test_screenshot_formats_scale_and_clock_cache() -> None:
    now = [at(9, 41)]
    async for driver in _driver(scale=2.0, clock=lambda: now[0]()):
        png = await driver.client.screenshot()
        assert png.format == ScreenshotFormat.PNG and (png.width, png.height) == (780, 1688)
        jpeg = await driver.client.screenshot(ScreenshotOptions(format=ScreenshotFormat.JPEG))
        assert Image.open(io.BytesIO(jpeg)).format == "JPEG"
        half = await driver.client.screenshot(ScreenshotOptions(scale_factor=0.5))
        assert Image.open(io.BytesIO(half)).size == (390, 844)
        same = await driver.client.screenshot()
        assert bytes(same) == bytes(png)
        now[0] = at(9, 42)
        ticked = await driver.client.screenshot()
        assert bytes(ticked) != bytes(png)


async def test_unimplemented_rpc_says_so(driver: Driver) -> None:
    host, port = driver.sim.address.split(":")
    async with Channel(host, int(port)) as channel:
        with pytest.raises(GRPCError) as caught:
            await CompanionServiceStub(channel).focus(pb.FocusRequest())
    assert caught.value.status == Status.UNIMPLEMENTED
    assert caught.value.message == "orav sim does not implement focus"


async def test_unknown_bundle_is_not_found(driver: Driver) -> None:
    with pytest.raises(IdbException, match="no app"):
        await driver.client.launch("com.example.other")


# --- faults ---------------------------------------------------------------------------------


async def test_alert_at_step_blocks_until_dismissed() -> None:
    async for driver in _driver(faults=[Fault("alert", at_step=1, message="Update available")]):
        await driver.tap("email")  # input 1: the alert appears after it
        alert = await driver.find(label="Update available")
        assert alert["type"] == "Alert" and alert["role_description"] == "alert"
        await driver.client.tap(195, 222)  # behind the alert: swallowed
        assert (await driver.find("email"))["focused"] is False
        await driver.tap(label="OK")
        assert await driver.find(label="Update available") is None


async def test_permission_remembers_the_answer() -> None:
    fault = Fault("permission", on_screen="detail_1", times=2)
    async for driver in _driver(faults=[fault]):
        await driver.log_in()
        await driver.tap("item_1")
        title = "Allow \u201cDemo\u201d to use your location?"
        dialog = await driver.find(label=title)
        assert dialog is not None and dialog["pid"] != (await driver.tree())[0]["pid"]
        await driver.tap(label="Don't Allow")
        assert driver.sim.state.permissions == {title: False}
        await driver.tap("back")
        await driver.tap("item_1")  # fires again but iOS asks only once
        assert await driver.find(label=title) is None


async def test_crash_shows_springboard_and_launch_restarts() -> None:
    async for driver in _driver():
        await driver.log_in()
        driver.sim.schedule(Fault("crash", on_screen="settings"))
        await driver.tap("settings")
        assert (await driver.tree())[0]["AXLabel"] == "SpringBoard"
        [app] = await driver.client.list_apps()
        assert app.process_state.name == "NOT_RUNNING"
        await driver.client.launch("com.orav.demo")
        assert driver.sim.state.screen == "login"
        [app] = await driver.client.list_apps()
        assert app.process_state.name == "RUNNING"


async def test_loading_lasts_duration_observations_or_pull_to_refresh() -> None:
    async for driver in _driver(faults=[Fault("loading", on_screen="home", duration=2)]):
        await driver.log_in()
        for _ in range(2):
            tree = await driver.tree()
            assert any(e["role"] == "AXActivityIndicator" for e in tree)
            assert not any(e["AXUniqueId"] == "item_1" for e in tree)
        assert await driver.find("item_1") is not None
        driver.sim.schedule(Fault("loading", on_screen="home"))
        await driver.tap("item_1")
        await driver.tap("back")
        assert await driver.find(label="In progress") is not None
        await driver.client.swipe((195, 200), (195, 600))
        assert await driver.find("item_1") is not None


async def test_network_banner_retry_restores() -> None:
    async for driver in _driver(faults=[Fault("network", on_screen="home")]):
        await driver.log_in()
        assert await driver.find(label="No connection") is not None
        assert await driver.find("item_1") is None
        await driver.tap("retry")
        assert await driver.find("item_1") is not None


async def test_login_wall_needs_credentials_again() -> None:
    async for driver in _driver(faults=[Fault("login", on_screen="settings")]):
        await driver.log_in()
        await driver.tap("settings")
        assert "Session expired" in await driver.labels()
        await driver.log_in(password="nope")
        assert (await driver.find("wall_error"))["AXLabel"] == "Wrong email or password"
        await driver.tap("password")
        for _ in "nope":
            await driver.client.key(42)
        await driver.client.text(PASSWORD)
        await driver.tap("sign_in")
        assert driver.sim.state.screen == "settings"


async def test_empty_dump_and_frozen_last_their_duration() -> None:
    faults = [Fault("empty_dump", at_step=1, duration=2), Fault("frozen", at_step=2, duration=1)]
    async for driver in _driver(faults=faults):
        await driver.client.tap(195, 222)  # input 1: the email field, blindly
        assert await driver.tree() == []
        assert await driver.tree() == []
        assert (await driver.tree())[0]["type"] == "Application"
        await driver.client.text("a")  # input 2: accepted; frozen starts after it
        await driver.client.text("b")  # input 3: dropped
        await driver.client.text("c")
        assert (await driver.find("email"))["AXValue"] == "ac"


async def test_probability_under_a_seed_is_reproducible() -> None:
    def fired(seed: int) -> list[int]:
        from orav.sim import DEMO_APP, AppState, load_app_model

        state = AppState(
            load_app_model(DEMO_APP), seed=seed, faults=[Fault("alert", probability=0.3, times=50)]
        )
        steps = []
        for step in range(1, 40):
            state.begin_input()
            state.end_input()
            if state.overlay is not None:
                steps.append(step)
                state.overlay = None
        return steps

    assert fired(7) == fired(7)
    assert fired(7) != fired(8)
    assert 0 < len(fired(7)) < 39
