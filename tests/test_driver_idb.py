"""The idb driver end to end: the real fb-idb client over real gRPC to orav's simulated companion."""

from __future__ import annotations

import asyncio
import socket
import sys
import time
from collections.abc import AsyncIterator

import pytest
from grpclib.const import Status
from grpclib.exceptions import GRPCError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from idb.common.hid import KEY_MAP

from orav.device import Device
from orav.drivers.idb import IdbDevice, parse_address
from orav.errors import DeviceError, InputError
from orav.model import (
    Assert,
    Done,
    Launch,
    Observation,
    Point,
    PressKey,
    Swipe,
    Tap,
    Target,
    Terminate,
    TypeText,
    Wait,
)
from orav.perceive import target_element
from orav.sim import SimCompanion
from orav.sim.server import CompanionService

APP = "com.orav.demo"
EMAIL, PASSWORD = "demo@orav.dev", "Orav-Demo-1!"


@pytest.fixture
async def sim() -> AsyncIterator[SimCompanion]:
    async with SimCompanion(port=0) as companion:
        yield companion


@pytest.fixture
async def device(sim: SimCompanion) -> AsyncIterator[IdbDevice]:
    async with IdbDevice.connect(sim.address, bundle_id=APP, timeout=5.0) as connected:
        yield connected


async def tap(device: IdbDevice, element_id: str) -> None:
    result = await device.perform(Tap(target=Target(id=element_id)))
    assert result.ok, result.error


async def type_into(device: IdbDevice, element_id: str, text: str, secure: bool = False) -> None:
    await tap(device, element_id)
    result = await device.perform(TypeText(text, secure=secure))
    assert result.ok, result.error


async def log_in(device: IdbDevice) -> Observation:
    await type_into(device, "email", EMAIL)
    await type_into(device, "password", PASSWORD, secure=True)
    await tap(device, "sign_in")
    return await device.observe()


def ids(observation: Observation) -> set[str]:
    return {e.unique_id for e in observation.elements if e.unique_id}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- describe and observe ------------------------------------------------------------------


async def test_device_describes_the_simulated_iphone(device: IdbDevice, sim: SimCompanion) -> None:
    assert isinstance(device, Device)
    info = await device.describe()
    assert (info.platform, info.width, info.height, info.scale) == ("ios", 390, 844, 1.0)
    assert info.name and info.udid and info.os_version.startswith("iOS")
    assert info.address == sim.address


async def test_observe_sees_the_login_screen(device: IdbDevice) -> None:
    observation = await device.observe()
    assert observation.error is None and observation.app == APP and observation.app_running
    assert {"email", "password", "sign_in"} <= ids(observation)
    password = target_element(observation, Target(id="password"))
    assert password.secure and password.role == "AXTextField"
    assert target_element(observation, Target(id="email")).placeholder == "you@example.com"
    shot = observation.screenshot
    assert shot.data.startswith(b"\x89PNG") and (shot.width, shot.height) == (390, 844)
    assert shot.format == "png" and shot.scale == 1.0
    assert observation.taken_at == pytest.approx(time.time(), abs=5)


async def test_screenshot_is_in_pixels_and_taps_in_points_at_scale_three() -> None:
    async with (
        SimCompanion(port=0, scale=3.0) as sim,
        IdbDevice.connect(sim.address, bundle_id=APP) as device,
    ):
        assert (device.info.width, device.info.height, device.info.scale) == (390, 844, 3.0)
        observation = await device.observe()
        assert (observation.screenshot.width, observation.screenshot.height) == (1170, 2532)
        assert observation.screenshot.scale == 3.0
        result = await device.perform(Tap(target=Target(id="email")))
        assert result.ok and result.point == Point(195, 222)


# --- the demo app's journeys ------------------------------------------------------------------


async def test_log_in_with_shifted_characters_and_a_symbol(device: IdbDevice) -> None:
    await type_into(device, "email", EMAIL)
    await type_into(device, "password", PASSWORD, secure=True)
    typed = await device.observe()
    assert target_element(typed, Target(id="email")).value == EMAIL
    assert target_element(typed, Target(id="password")).value == "•" * len(PASSWORD)
    assert typed.focused.unique_id == "password"
    await tap(device, "sign_in")
    home = await device.observe()
    assert {"item_1", "item_2", "feedback"} <= ids(home) and "sign_in" not in ids(home)


async def test_wrong_password_shows_the_error(device: IdbDevice) -> None:
    await type_into(device, "email", EMAIL)
    await type_into(device, "password", "orav-demo-1!", secure=True)  # unshifted: wrong
    assert (await device.perform(PressKey("return"))).ok
    screen = await device.observe()
    assert target_element(screen, Target(id="login_error")).label == "Wrong email or password"


async def test_tap_by_label_prefers_the_button_over_a_title(device: IdbDevice) -> None:
    screen = await device.observe()
    button = target_element(screen, Target(id="sign_in"))
    title = next(e for e in screen.elements if e.label == "Sign in")
    assert title is not button  # the navigation title comes first in the tree
    result = await device.perform(Tap(target=Target(label="Sign in")))
    assert result.ok and result.point == button.frame.center


async def test_a_tap_with_coordinates_lands_there_even_with_a_target(device: IdbDevice) -> None:
    """A nudged retry keeps its target for the record but must land on its own coordinates."""
    email = target_element(await device.observe(), Target(id="email")).frame.center
    nudged = Tap(x=email.x + 10, y=email.y - 10, target=Target(id="email"))
    result = await device.perform(nudged)
    assert result.ok, result.error
    assert (result.point.x, result.point.y) == (email.x + 10, email.y - 10)


async def test_detail_and_back_by_button_and_by_swipe(device: IdbDevice) -> None:
    await log_in(device)
    await tap(device, "item_1")
    detail = await device.observe()
    assert target_element(detail, Target(id="detail_text")).label.startswith("Tap an item")
    await tap(device, "back")
    assert "item_1" in ids(await device.observe())

    await tap(device, "item_2")
    assert target_element(await device.observe(), Target(id="detail_text")).label.startswith(
        "Version"
    )
    swipe = await device.perform(Swipe(Point(5, 400), Point(300, 400)))
    assert swipe.ok, swipe.error
    assert "item_2" in ids(await device.observe())


async def test_submit_the_form_and_see_the_banner(device: IdbDevice) -> None:
    await log_in(device)
    await tap(device, "feedback")
    form = await device.observe()
    assert "success_banner" not in ids(form)
    await type_into(device, "form_name", "Ada Lovelace")
    await type_into(device, "form_message", "Great app, 10/10!")
    await tap(device, "submit")
    done = await device.observe()
    assert (
        target_element(done, Target(id="success_banner")).label == "Thanks! Your feedback was sent."
    )


async def test_keys_edit_and_move_focus(device: IdbDevice) -> None:
    await type_into(device, "email", "abc")
    assert (await device.perform(PressKey("backspace"))).ok
    assert (await device.perform(PressKey(42))).ok  # a raw HID keycode: backspace again
    assert target_element(await device.observe(), Target(id="email")).value == "a"
    assert (await device.perform(PressKey("space"))).ok
    assert target_element(await device.observe(), Target(id="email")).value == "a "
    assert (await device.perform(PressKey("tab"))).ok
    assert (await device.observe()).focused.unique_id == "password"


async def test_terminate_and_relaunch(device: IdbDevice) -> None:
    await log_in(device)
    assert (await device.perform(Terminate())).ok
    gone = await device.observe()
    assert not gone.app_running and gone.error is None
    assert not await device.is_running(APP)

    assert (await device.perform(Launch())).ok
    assert await device.is_running(APP)
    again = await device.observe()
    assert again.app_running and {"email", "sign_in"} <= ids(again)  # a fresh start

    await device.terminate(APP)
    assert not await device.is_running(APP)
    await device.launch(APP)
    assert await device.is_running(APP)


# --- what the driver refuses ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (Tap(target=Target(id="nope")), "no element #nope on screen"),
        (Tap(target=Target(label="Nope")), "no element 'Nope' on screen"),
        (Tap(x=390, y=10), "tap at (390, 10) is outside the 390x844 pt screen"),
        (Tap(x=10, y=-1), "outside"),
        (Swipe(Point(5, 400), Point(500, 400)), "swipe end at (500, 400) is outside"),
        (TypeText("naïve"), "cannot type 'ï'"),
        (TypeText("pässword", secure=True), "cannot type character 2:"),
        (Wait(3600), "wait of 3600 s is outside 0..30 s"),
        (Assert(Target(id="email")), "assert is not a device action"),
        (Done(), "done is not a device action"),
    ],
)
async def test_refused_actions_send_nothing(
    device: IdbDevice, sim: SimCompanion, action, message: str
) -> None:
    inputs = sim.state.inputs
    result = await device.perform(action)
    assert not result.ok and message in result.error
    assert "ä" not in result.error  # a secure value never shows up in an error
    assert sim.state.inputs == inputs


async def test_a_companion_error_is_a_failed_result_or_a_device_error(device: IdbDevice) -> None:
    result = await device.perform(Launch("com.example.missing"))
    assert not result.ok and "no app 'com.example.missing' is installed" in result.error
    with pytest.raises(DeviceError, match="refused terminate of com.example.missing"):
        await device.terminate("com.example.missing")


async def test_wait_sleeps_within_its_bound(device: IdbDevice) -> None:
    result = await device.perform(Wait(0.05))
    assert result.ok and 0.05 <= result.seconds < 1


class _BrokenTree(CompanionService):
    async def accessibility_info(self, stream) -> None:
        await stream.recv_message()
        raise GRPCError(Status.INTERNAL, "AX service crashed")


async def test_a_failed_dump_is_the_observations_error_not_an_exception() -> None:
    sim = SimCompanion(port=0)
    sim.service = _BrokenTree(sim.state, 1.0)
    async with sim, IdbDevice.connect(sim.address, bundle_id=APP) as device:
        observation = await device.observe()
        assert observation.error == "accessibility_info: AX service crashed"
        assert observation.elements == () and observation.screenshot is not None
        assert observation.app_running
        result = await device.perform(Tap(target=Target(id="email")))
        assert not result.ok and "AX service crashed" in result.error


# --- an unreachable, silent or vanished companion ------------------------------------------


async def test_unreachable_address_is_a_device_error_quickly() -> None:
    address = f"127.0.0.1:{free_port()}"
    start = time.monotonic()
    with pytest.raises(DeviceError) as caught:
        await IdbDevice.open(address, bundle_id=APP, timeout=5.0)
    assert str(caught.value) == f"cannot reach idb companion at {address}: connection refused"
    assert time.monotonic() - start < 1.0


async def test_a_silent_companion_times_out() -> None:
    async def accept_and_ignore(reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        await reader.read()  # never answers; returns when the client hangs up
        writer.close()

    server = await asyncio.start_server(accept_and_ignore, "127.0.0.1", 0)
    address = f"127.0.0.1:{server.sockets[0].getsockname()[1]}"
    try:
        start = time.monotonic()
        with pytest.raises(
            DeviceError, match=f"cannot reach idb companion at {address}: no answer"
        ):
            await IdbDevice.open(address, bundle_id=APP, timeout=0.3)
        assert time.monotonic() - start < 2.0
    finally:
        server.close()
        await server.wait_closed()


# A companion in a process of its own, so that stopping it closes its sockets as a crash would.
SERVE = """
import asyncio
from orav.sim import SimCompanion

async def main():
    async with SimCompanion(port=0) as sim:
        print(sim.address, flush=True)
        await asyncio.Event().wait()

asyncio.run(main())
"""


async def test_companion_stopped_mid_run_is_a_device_error() -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", SERVE, stdout=asyncio.subprocess.PIPE
    )
    try:
        address = (await asyncio.wait_for(process.stdout.readline(), 30)).decode().strip()
        async with IdbDevice.connect(address, bundle_id=APP, timeout=2.0) as device:
            assert (await device.observe()).app_running
            process.kill()
            await asyncio.wait_for(process.wait(), 10)
            for call in (
                device.observe,
                lambda: device.perform(Tap(x=10, y=10)),
                lambda: device.is_running(APP),
            ):
                with pytest.raises(DeviceError, match=f"idb companion at {address}"):
                    await call()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


def test_addresses_must_be_host_and_port() -> None:
    assert parse_address("[::1]:10882").host == "::1"
    for bad in ("localhost", "127.0.0.1:", ":10882", "127.0.0.1:http", "127.0.0.1:70000"):
        with pytest.raises(InputError, match="companion address must be HOST:PORT"):
            parse_address(bad)


# --- typing, as a property ------------------------------------------------------------------

TYPABLE = "".join(sorted(set(KEY_MAP) - {"\n"}))  # "\n" is the return key, not text


# One companion and connection serve every example; each example relaunches the app instead.
@settings(
    deadline=None, max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(alphabet=TYPABLE, min_size=1, max_size=24))
async def test_any_keymap_text_arrives_intact(device: IdbDevice, text: str) -> None:
    await device.perform(Terminate())
    await device.perform(Launch())  # a fresh login screen with empty fields
    await type_into(device, "email", text)
    assert target_element(await device.observe(), Target(id="email")).value == (text or None)
