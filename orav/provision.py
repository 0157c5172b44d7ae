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
    return needs_install(scenario) or bool(scenario.launch.arguments or scenario.launch.environment)


def needs_install(scenario: Scenario) -> bool:
    """Whether the scenario's run has an install step: install, reset or permission presets."""
    return bool(scenario.install or scenario.reset or scenario.grant)


async def install(device: Device, scenario: Scenario) -> None:
    """The run's install step: (re)install, clear the keychain, preset permissions. Nothing
    for a scenario that asks for none of it."""
    if not needs_install(scenario):
        return
    lifecycle = _lifecycle(device, scenario)
    app = scenario.app
    if scenario.install is not None:
        if "reinstall" in scenario.reset:
            try:
                await lifecycle.uninstall(app)
            except DeviceError:
                pass  # not installed yet: nothing to remove
        installed = await lifecycle.install(Path(scenario.install))
        if installed != app:
            raise InputError(
                f"{scenario.install} installs {installed!r}, not the scenario's {app!r}"
            )
    elif "reinstall" in scenario.reset:
        raise InputError(f"{scenario.name}: reset reinstall needs `install:` (the app bundle)")
    if "keychain" in scenario.reset:
        await lifecycle.clear_keychain()
    allowed = [name for name, answer in scenario.grant.items() if answer == "allow"]
    denied = [name for name, answer in scenario.grant.items() if answer == "deny"]
    if allowed:
        await lifecycle.approve(app, allowed)
    if denied:
        await lifecycle.revoke(app, denied)


async def launch(device: Device, scenario: Scenario) -> None:
    """Launch the scenario's app: with its arguments and environment (afresh, so they apply),
    or plainly. The run's launch and every relaunch of a recovery go through here."""
    given = scenario.launch
    if not (given.arguments or given.environment or needs_install(scenario)):
        await device.launch(scenario.app)
        return
    lifecycle = _lifecycle(device, scenario)
    await device.terminate(scenario.app)
    await lifecycle.launch(scenario.app, arguments=given.arguments, environment=given.environment)


async def provision(device: Device, scenario: Scenario) -> None:
    """The whole lifecycle before a run: the install step, then the launch."""
    await install(device, scenario)
    await launch(device, scenario)


def _lifecycle(device: Device, scenario: Scenario) -> Lifecycle:
    if not isinstance(device, Lifecycle):
        what = "install, reset, grant and launch arguments need an iOS device (idb or sim)"
        raise InputError(f"{scenario.name}: {what}")
    return device


async def crash_report(device: Device, bundle_id: str, since: float) -> CrashReport | None:
    """The newest crash report of ``bundle_id`` written at or after ``since`` (Unix time), for
    the crash error of a report; None when the device keeps none or has none."""
    if not isinstance(device, Lifecycle):
        return None
    try:
        reports = await device.crash_reports(bundle_id, since)
    except (DeviceError, InputError):
        return None  # the report is evidence, not a reason to fail the run differently
    return reports[-1] if reports else None
