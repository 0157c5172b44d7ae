"""Keys and selectors an iOS device cannot take are refused with a clear error, through the real
fb-idb client to the simulator; the keys it can take still reach the app."""

from __future__ import annotations

import pytest

from orav.drivers.idb import KEYCODES, IdbDevice
from orav.model import PressKey, Tap, Target
from orav.sim import SimCompanion

TEXTUAL_ONLY = ["down", "ctrl+s", "shift+tab", "f5", "pageup", "end", "a"]


@pytest.mark.parametrize("key", TEXTUAL_ONLY)
async def test_a_key_ios_has_no_keycode_for_is_refused(key: str):
    async with (
        SimCompanion(port=0) as sim,
        IdbDevice.connect(sim.address, bundle_id="com.orav.demo", timeout=5.0) as device,
    ):
        await device.launch("com.orav.demo")
        result = await device.perform(PressKey(key))
        assert not result.ok
        assert f"key {key!r} has no iOS keycode" in result.error
        assert all(name in result.error for name in KEYCODES)
        assert (await device.perform(PressKey("tab"))).ok  # a key it has still works


async def test_enter_is_the_return_key_on_ios():
    """The scenario format's key names are Textual's: ``enter`` must reach an iOS app as
    Return, with the same effect as orav's older name ``return``."""
    seen = []
    async with (
        SimCompanion(port=0) as sim,
        IdbDevice.connect(sim.address, bundle_id="com.orav.demo", timeout=5.0) as device,
    ):
        for key in ("return", "enter"):
            await device.terminate("com.orav.demo")
            await device.launch("com.orav.demo")
            assert (await device.perform(Tap(target=Target(id="email")))).ok
            assert (await device.perform(PressKey(key))).ok, key
            tree = (await device.observe()).elements
            seen.append(
                sorted((e.unique_id, e.label or "", e.focused) for e in tree if e.unique_id)
            )
    assert seen[0] == seen[1]
    # the key reached the app: the field let go
    assert not any(focused for unique_id, _, focused in seen[1] if unique_id == "email")


async def test_a_selector_target_is_refused_on_ios():
    async with (
        SimCompanion(port=0) as sim,
        IdbDevice.connect(sim.address, bundle_id="com.orav.demo", timeout=5.0) as device,
    ):
        await device.launch("com.orav.demo")
        result = await device.perform(Tap(target=Target(selector="Button#sign_in")))
        assert not result.ok and "Textual CSS selector; iOS taps a label or an id" in result.error
