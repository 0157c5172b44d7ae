"""The verdicts: after a remedy state's attempt, what the app says, as the next event's name.

Each answers an event its state takes (``cleared``, ``persists``, ``stalled``, ``running`` /
``not_running``), read from the recovery's ``Attempt``; which state asks which verdict is
declared with the state (``RecoveryMachine``), which sends the event.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from orav.machines.attempt import Attempt
from orav.perceive import changed, covering, keyboard_frame, shows

Verdict = Callable[[Attempt], Awaitable[str]]


async def app_state(attempt: Attempt) -> str:
    """Whether the app runs: a dump that came back empty is then a slow app, else a crash."""
    return "running" if await attempt.device.is_running() else "not_running"


async def app_back(attempt: Attempt) -> str:
    """The relaunched app shows its tree (re-dumped within the dump budget)."""
    observation = await attempt.device.observe_until_elements()
    ok = observation.app_running is not False and bool(observation.elements)
    return "cleared" if ok and not observation.error else "persists"


async def dump_back(attempt: Attempt) -> str:
    observation = await attempt.device.observe_until_elements()
    return "cleared" if observation.elements and not observation.error else "persists"


async def loading_over(attempt: Attempt) -> str:
    """The spinner is gone (``cleared``), still changing (``persists``), or unchanged for
    ``LOADING_STUCK`` seconds (``stalled``)."""
    observation = await attempt.device.observe()
    previous, attempt.loading_seen = attempt.loading_seen, observation
    if shows(observation, "loading") is None:
        return "cleared"
    if changed(previous, observation):
        attempt.unchanged_for = 0.0
    else:
        attempt.unchanged_for += attempt.LADDER["network"]
    return "stalled" if attempt.unchanged_for >= attempt.LOADING_STUCK else "persists"


async def screen_changed(attempt: Attempt) -> str:
    """The screen is no longer the one the action failed to change."""
    return (
        "cleared" if changed(attempt.before, await attempt.device.observe_settled()) else "persists"
    )


async def target_free(attempt: Attempt) -> str:
    """Nothing covers the decided action's target any more (the one occlusion rule); without
    an action, the keyboard is gone."""
    observation = await attempt.device.observe_settled()
    action = attempt.detection.action
    blocked = (
        covering(observation, action) is not None
        if action is not None
        else keyboard_frame(observation) is not None
    )
    return "persists" if blocked else "cleared"


async def loading_gone(attempt: Attempt) -> str:
    observation = await attempt.device.observe_settled()
    return "persists" if shows(observation, "loading") is not None else "cleared"


async def fault_gone(attempt: Attempt) -> str:
    """The detected fault no longer shows: every remedy state's verdict unless it has its own."""
    observation = await attempt.device.observe_settled()
    return "persists" if shows(observation, attempt.detection.kind) is not None else "cleared"
