"""A clock for tests against the simulator: real work, virtual waits."""

import asyncio
import time


class FastClock:
    """Monotonic time plus every sleep taken, without waiting."""

    def __init__(self) -> None:
        self.skipped = 0.0

    def now(self) -> float:
        return time.monotonic() + self.skipped

    async def sleep(self, seconds: float) -> None:
        self.skipped += seconds
        await asyncio.sleep(0)
