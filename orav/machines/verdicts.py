"""The verdicts: after a remedy state's attempt, what the app says, as the next event's name.

Each answers an event its state takes (``cleared``, ``persists``, ``stalled``, ``running`` /
``not_running``); which state asks which verdict is the machine's ``VERDICT`` table.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from orav.perceive import changed, covering, keyboard_frame, shows

if TYPE_CHECKING:
    from orav.machines.recovery import RecoveryMachine

Verdict = Callable[["RecoveryMachine"], Awaitable[str]]


async def app_state(machine: RecoveryMachine) -> str:
    """Whether the app runs: a dump that came back empty is then a slow app, else a crash."""
    return "running" if await machine.device.is_running() else "not_running"


async def app_back(machine: RecoveryMachine) -> str:
    """The relaunched app shows its tree (re-dumped within the dump budget)."""
    observation = await machine.device.observe_until_elements()
    ok = observation.app_running is not False and bool(observation.elements)
    return "cleared" if ok and not observation.error else "persists"


async def dump_back(machine: RecoveryMachine) -> str:
    observation = await machine.device.observe_until_elements()
    return "cleared" if observation.elements and not observation.error else "persists"


async def loading_over(machine: RecoveryMachine) -> str:
    """The spinner is gone (``cleared``), still changing (``persists``), or unchanged for
    ``LOADING_STUCK`` seconds (``stalled``)."""
    observation = await machine.device.observe()
    previous, machine.loading_seen = machine.loading_seen, observation
    if shows(observation, "loading") is None:
        return "cleared"
    if changed(previous, observation):
        machine.unchanged_for = 0.0
    else:
        machine.unchanged_for += machine.LADDER["network"]
    return "stalled" if machine.unchanged_for >= machine.LOADING_STUCK else "persists"


async def screen_changed(machine: RecoveryMachine) -> str:
    """The screen is no longer the one the action failed to change."""
    return (
        "cleared" if changed(machine.before, await machine.device.observe_settled()) else "persists"
    )


async def target_free(machine: RecoveryMachine) -> str:
    """Nothing covers the decided action's target any more (the one occlusion rule); without
    an action, the keyboard is gone."""
    observation = await machine.device.observe_settled()
    action = machine.detection.action
    blocked = (
        covering(observation, action) is not None
        if action is not None
        else keyboard_frame(observation) is not None
    )
    return "persists" if blocked else "cleared"


async def loading_gone(machine: RecoveryMachine) -> str:
    observation = await machine.device.observe_settled()
    return "persists" if shows(observation, "loading") is not None else "cleared"


async def fault_gone(machine: RecoveryMachine) -> str:
    """The detected fault no longer shows: every remedy state's verdict unless it has its own."""
    observation = await machine.device.observe_settled()
    return "persists" if shows(observation, machine.detection.kind) is not None else "cleared"
