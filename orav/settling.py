"""Wait for the app, not for a clock: how the engine settles after an action.

Until the device says the app is quiet (``orav.device.Settling``), else until two looks in a
row are the same; at least the ladder's floor, at most its settle rung (its network rung
while a spinner or a network error is up). A scenario's ``settle_seconds`` makes it a fixed
wait. Every wait and look goes through the device and clock the engine was given, so a
recorded run's replay waits the same.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from orav.clock import Clock
from orav.device import Settling
from orav.machines.attempt import Attempt
from orav.model import Observation, Settled
from orav.perceive import measure


async def settle(
    quiet: Settling | None,
    clock: Clock,
    look: Callable[[], Awaitable[Observation]],
    *,
    fixed: float | None = None,
    slow: bool = False,
) -> tuple[Observation, Settled]:
    """The settled screen (seen through ``look``) and how it settled; ``quiet``: the device,
    when it can tell the app is quiet; ``slow``: a spinner or a network error is up, so the
    network rung bounds the wait."""
    if fixed is not None:
        await clock.sleep(fixed)
        return await look(), Settled(True, fixed, "fixed")
    ladder = Attempt.LADDER
    cap = ladder["network"] if slow else ladder["settle"]
    if quiet is not None:
        settled = await quiet.settle(cap)
        if settled is not None:
            return await look(), settled
    step = ladder["floor"]
    await clock.sleep(step)
    last = await look()
    looks = max(1, round(cap / step))
    for count in range(2, looks + 1):
        await clock.sleep(step)
        now = await look()
        if not measure(last, now).changed:
            return now, Settled(True, round(count * step, 3), "looks")
        last = now
    waited = looks * step
    return last, Settled(False, round(waited, 3), "looks")
