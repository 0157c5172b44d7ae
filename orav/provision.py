"""The lifecycle steps before a run: install, reset, permission presets, launch with arguments.

The ORAV lifecycle starts with "Build & Install App"; a scenario says what its run needs
(``install``, ``reset: [keychain, reinstall]``, ``grant``, ``launch: {arguments,
environment}``) and ``provision`` does it on a device that offers ``orav.device.Lifecycle``.
A device without it (Textual) can only launch: asking it for more is bad input, not a skip.
"""

from __future__ import annotations

from pathlib import Path

from orav.device import CrashReport, Device, Lifecycle
from orav.errors import DeviceError, InputError
from orav.model import Scenario


def needs_lifecycle(scenario: Scenario) -> bool:
    """Whether the scenario asks for more than a plain launch."""
    launch = scenario.launch
    return bool(
        scenario.install
        or scenario.reset
        or scenario.grant
        or launch.arguments
        or launch.environment
    )


async def provision(device: Device, scenario: Scenario) -> None:
    """Bring the scenario's app to a clean launch: (re)install, clear the keychain, preset
    permissions, terminate, then launch with the scenario's arguments and environment."""
    if not needs_lifecycle(scenario):
        await device.launch(scenario.app)
        return
    if not isinstance(device, Lifecycle):
        what = "install, reset, grant and launch arguments need an iOS device (idb or sim)"
        raise InputError(f"{scenario.name}: {what}")
    app = scenario.app
    if scenario.install is not None:
        if "reinstall" in scenario.reset:
            try:
                await device.uninstall(app)
            except DeviceError:
                pass  # not installed yet: nothing to remove
        installed = await device.install(Path(scenario.install))
        if installed != app:
            raise InputError(
                f"{scenario.install} installs {installed!r}, not the scenario's {app!r}"
            )
    elif "reinstall" in scenario.reset:
        raise InputError(f"{scenario.name}: reset reinstall needs `install:` (the app bundle)")
    if "keychain" in scenario.reset:
        await device.clear_keychain()
    allowed = [name for name, answer in scenario.grant.items() if answer == "allow"]
    denied = [name for name, answer in scenario.grant.items() if answer == "deny"]
    if allowed:
        await device.approve(app, allowed)
    if denied:
        await device.revoke(app, denied)
    await device.terminate(app)  # the launch below starts it afresh, with its arguments
    await device.launch(
        app, arguments=scenario.launch.arguments, environment=scenario.launch.environment
    )


async def crash_report(device: Device, bundle_id: str, since: float) -> CrashReport | None:
    """The newest crash report of ``bundle_id`` written at or after ``since`` (Unix time), for
    the crash error of a report; None when the device keeps none or has none."""
    if not isinstance(device, Lifecycle):
        return None
    try:
        reports = await device.crash_reports(bundle_id, since)
    except DeviceError:
        return None  # the report is evidence, not a reason to fail the run differently
    return reports[-1] if reports else None
