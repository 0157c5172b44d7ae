"""The floor under a replayed step: the run machine alone, two events a step.

``RunMachine`` (python-statemachine's async engine) is driven through STEPS steps by a model
whose phases do nothing but send the next event with the same keyword arguments the engine
sends (``decided``, ``acted``), with a transition listener as the engine's. What this costs
a step is what no change to orav's own code can remove while a step is two events; the
engine's replay (``bench/engine_replay.py``) is compared against it. CPU time
(``time.process_time``), median of ROUNDS.

Run: python bench/engine_floor.py [STEPS] [ROUNDS]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time

from orav.machines.run import RunMachine


class _Phases:
    """The engine's phases with nothing in them: each sends the event that ends it."""

    def __init__(self, steps: int) -> None:
        self.machine = RunMachine(
            self, max_steps=steps, timeout_seconds=1e9, listeners=[_Listener()]
        )

    async def on_enter_installing(self) -> None:
        await self.machine.send("installed")

    async def on_enter_launching(self) -> None:
        await self.machine.send("launched")

    async def on_enter_preparing(self) -> None:
        await self.machine.send("prepared")

    async def on_enter_observing(self) -> None:
        await self.machine.send("observed", fault=None, elapsed=0.0)

    async def on_enter_reasoning(self) -> None:
        await self.machine.send("decided", fault=None, done=False, repeats=0)

    async def on_enter_acting(self) -> None:
        await self.machine.send("acted", fault=None, elapsed=0.0, changed=True)


class _Listener:
    """As the engine's ``_Transitions``: told of every transition."""

    def __init__(self) -> None:
        self.count = 0

    def on_transition(self, event: str, source: object, target: object) -> None:
        self.count += 1


async def one_run(steps: int) -> float:
    """CPU seconds for ``steps`` steps through the machine; it must end at the step limit."""
    phases = _Phases(steps)
    start = time.process_time()
    await phases.machine.activate_initial_state()
    await phases.machine.send("start")
    elapsed = time.process_time() - start
    final = phases.machine.configuration_values
    if "step_limit" not in final or phases.machine.ledger.steps != steps:
        sys.exit(f"the machine did not take {steps} steps: {final}")
    return elapsed


async def main(steps: int, rounds: int) -> None:
    await one_run(steps)  # warm-up
    samples = [await one_run(steps) for _ in range(rounds)]
    per_step = statistics.median(samples) / steps
    print(f"run machine alone, two events a step ({steps} steps, {rounds} rounds, CPU time)")
    print(
        f"  per step        median {per_step * 1e6:6.0f} µs   best {min(samples) / steps * 1e6:6.0f} µs"
    )
    print(f"  ceiling         {1 / per_step:7,.0f} steps/s (no orav code in the step)")


if __name__ == "__main__":
    asyncio.run(
        main(
            int(sys.argv[1]) if len(sys.argv) > 1 else 1000,
            int(sys.argv[2]) if len(sys.argv) > 2 else 7,
        )
    )
