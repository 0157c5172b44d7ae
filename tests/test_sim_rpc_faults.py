"""Faults of the companion's RPCs (list_apps_error, slow_describe, slow_launch), driven through
the real fb-idb client and orav's idb driver over loopback gRPC."""

from __future__ import annotations

import time

import pytest
from idb.common.types import IdbException

from orav.drivers.idb import IdbDevice
from orav.errors import DeviceError, InputError
from orav.model import Fault, Tap, Target
from orav.sim import DEMO_APP, SimCompanion, load_app_model

APP = "com.orav.demo"


async def test_list_apps_error_fails_the_rpc_while_the_tree_stays_intact() -> None:
    async with (
        SimCompanion(faults=[Fault("list_apps_error", at_step=1, duration=2)]) as sim,
        IdbDevice.connect(sim.address, bundle_id=APP) as device,
    ):
        assert (await device.observe()).app_running  # before the first input
        assert (await device.perform(Tap(target=Target(id="email")))).ok
        for _ in range(2):
            seen = await device.observe()  # its list_apps fails: the app's state is unknown
            assert not seen.app_running
            assert {"email", "password", "sign_in"} <= {e.unique_id for e in seen.elements}
            assert seen.screenshot is not None
        seen = await device.observe()
        assert seen.error is None and seen.app_running
        assert sim.state.running and sim.state.screen == "login"
        sim.schedule(Fault("list_apps_error"))
        await device.perform(Tap(target=Target(id="email")))
        with pytest.raises(IdbException, match="list_apps failed"):
            await device.client.list_apps()


async def test_list_apps_error_without_duration_lasts_until_relaunch() -> None:
    async with (
        SimCompanion(faults=[Fault("list_apps_error", at_step=1)]) as sim,
        IdbDevice.connect(sim.address, bundle_id=APP) as device,
    ):
        await device.perform(Tap(target=Target(id="email")))
        for _ in range(3):
            with pytest.raises(IdbException):
                await device.client.list_apps()
        await device.terminate(APP)
        await device.launch(APP)
        assert await device.is_running(APP)


async def test_slow_describe_stalls_one_read_per_fire() -> None:
    fault = Fault("slow_describe", seconds=0.4, times=2)  # after each input, at most twice
    async with (
        SimCompanion(faults=[fault]) as sim,
        IdbDevice.connect(sim.address, bundle_id=APP, timeout=5.0) as device,
    ):
        await device.client.tap(5, 500)  # input 1: blank space
        start = time.monotonic()
        first = await device.observe()
        assert time.monotonic() - start >= 0.4 and first.error is None and first.elements
        start = time.monotonic()
        await device.observe()
        assert time.monotonic() - start < 0.3  # one read per fire
        await device.client.tap(5, 500)  # input 2: the second fire
        device.timeout = 0.1
        with pytest.raises(DeviceError, match="did not answer accessibility_info within"):
            await device.observe()
        device.timeout = 5.0
        await device.client.tap(5, 500)  # input 3: times is spent
        start = time.monotonic()
        await device.observe()
        assert time.monotonic() - start < 0.3
        assert sim.state.screen == "login"


async def test_slow_launch_holds_the_launch_rpc() -> None:
    async with (
        SimCompanion(
            faults=[Fault("crash", at_step=1), Fault("slow_launch", at_step=1, seconds=0.4)]
        ) as sim,
        IdbDevice.connect(sim.address, bundle_id=APP) as device,
    ):
        await device.perform(Tap(target=Target(id="email")))
        assert not await device.is_running(APP)  # the crash did not drop the armed stall
        start = time.monotonic()
        await device.launch(APP)
        assert time.monotonic() - start >= 0.4
        assert await device.is_running(APP)
        await device.terminate(APP)
        start = time.monotonic()
        await device.launch(APP)
        assert time.monotonic() - start < 0.3


async def test_rpc_faults_follow_seeded_probability() -> None:
    def fired(seed: int) -> list[int]:
        from orav.sim import AppState

        fault = Fault("slow_describe", probability=0.3, times=50, seconds=1)
        state = AppState(load_app_model(DEMO_APP), seed=seed, faults=[fault])
        steps = []
        for step in range(1, 40):
            state.begin_input()
            state.end_input()
            if state.faults.describe_stall():
                steps.append(step)
        return steps

    assert fired(3) == fired(3) and fired(3) != fired(4)
    assert 0 < len(fired(3)) < 39


@pytest.mark.parametrize(
    ("value", "what"),
    [("-1", "must be between 0 and 300"), ("301", "must be between 0 and 300")],
)
def test_stall_seconds_are_bounded_with_a_location(value: str, what: str) -> None:
    text = DEMO_APP.read_text().replace(
        "screens:\n", f"faults: [{{type: slow_describe, seconds: {value}}}]\nscreens:\n", 1
    )
    with pytest.raises(InputError, match=what) as caught:
        load_app_model(text, name="app.yaml")
    assert caught.value.where.startswith("app.yaml:")
