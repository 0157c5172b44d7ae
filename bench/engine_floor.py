"""The floor under a replayed step and a golden: python-statemachine's own cost, on this machine.

Three figures, CPU time (``time.process_time``), median of ROUNDS, in one sitting:

1. **The library's own benchmarks** (python-statemachine's ``tests/test_profiling.py``, whose
   medians its 3.1.1 release notes publish): the same machine shapes, sync engine: a flat
   machine's self-transition with a model and its ``before``/``on``/``after`` callbacks, two
   guarded transitions, a five-state ring without callbacks, and building a flat machine
   with a model. Set against the published figures they say how fast this machine runs the
   library, so the floors below can be read against the library rather than against orav.
2. **The run machine alone, two events a step**: ``RunMachine`` (the async engine, as the
   engine drives it) through STEPS steps by a model whose phases only send the next event
   with the engine's arguments, with a transition listener as the engine's.
3. **The run machine alone, caches cold**: as 2, with 16 MB of memory written between two
   events (what a live step does there: the simulator draws and encodes a screenshot, the
   gRPC stack copies it, the driver reads the tree), so the library's code and data are no
   longer in the CPU's caches when the next event comes: its cost in a live run.
4. **A golden's floor**: a ``RunMachine`` built with the engine's model and listener (per run,
   as every replay builds one) and driven through start, install, launch, prepare, a look,
   and 2–6 steps (the demo goldens' lengths): what no change to orav can remove from a
   golden while its run is driven by this machine.

Run: python bench/engine_floor.py [STEPS] [ROUNDS]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Callable

from statemachine import State, StateChart

from orav.machines.run import RunMachine

# python-statemachine 3.1.1's release notes, pytest-benchmark medians on macOS / Python 3.14
# (µs per call of the benchmarked function; the event count per call in brackets)
PUBLISHED = {
    "flat self-transition, model + callbacks [1 event]": 39.1,
    "guarded transitions [2 events]": 75.7,
    "five-state ring [5 events]": 162.1,
}


class _Order(StateChart):
    """The library's flat benchmark machine: a self-transition with callbacks on a model."""

    allow_event_without_transition = False
    catch_errors_as_events = False

    waiting = State(initial=True)
    processing = State()
    done = State(final=True)

    add_to_order = waiting.to(waiting)
    pay = waiting.to(processing, cond="enough") | waiting.to(waiting, unless="enough")
    ship = processing.to(done)


class _OrderModel:
    def __init__(self) -> None:
        self.total = 0
        self.machine = _Order(model=self)

    def enough(self, amount: int = 0) -> bool:
        return amount >= self.total

    def before_add_to_order(self, amount: int) -> int:
        self.total += amount
        return self.total

    def on_add_to_order(self) -> None:
        pass

    def after_add_to_order(self) -> None:
        pass


class _Guarded(StateChart):
    """The library's guard benchmark: the first of two guarded transitions taken."""

    one = State(initial=True)
    two = State()
    three = State(final=True)

    go = one.to(two, cond="yes") | one.to(three, cond="no")
    back = two.to(one)

    def yes(self) -> bool:
        return True

    def no(self) -> bool:
        return False


class _Ring(StateChart):
    """The library's ring benchmark: five states in a loop, no callbacks."""

    s1 = State(initial=True)
    s2 = State()
    s3 = State()
    s4 = State()
    s5 = State()

    go_12 = s1.to(s2)
    go_23 = s2.to(s3)
    go_34 = s3.to(s4)
    go_45 = s4.to(s5)
    go_51 = s5.to(s1)


def _cpu(work: Callable[[int], object], calls: int, rounds: int) -> float:
    """Median CPU seconds of one call of ``work``, over ``rounds`` rounds of ``calls``."""
    work(calls // 10)  # warm-up
    samples = []
    for _ in range(rounds):
        start = time.process_time()
        work(calls)
        samples.append((time.process_time() - start) / calls)
    return statistics.median(samples)


def library_figures(rounds: int) -> dict[str, float]:
    """µs per benchmarked call of the library's own benchmark shapes, on this machine."""

    def flat(n: int) -> None:
        machine = _OrderModel().machine
        for _ in range(n):
            machine.add_to_order(1)

    def guarded(n: int) -> None:
        machine = _Guarded()
        for _ in range(n):
            machine.go()
            machine.back()

    def ring(n: int) -> None:
        machine = _Ring()
        for _ in range(n):
            machine.go_12()
            machine.go_23()
            machine.go_34()
            machine.go_45()
            machine.go_51()

    def build(n: int) -> None:
        for _ in range(n):
            _OrderModel()

    names = list(PUBLISHED)
    return {
        names[0]: _cpu(flat, 1000, rounds) * 1e6,
        names[1]: _cpu(guarded, 500, rounds) * 1e6,
        names[2]: _cpu(ring, 200, rounds) * 1e6,
        "building a flat machine with a model": _cpu(build, 500, rounds) * 1e6,
    }


class _Phases:
    """The engine's phases with nothing in them: each sends the event that ends it; with
    ``cold``, each first writes 16 MB of memory (not counted), as a live step's device work
    does between two events."""

    def __init__(self, steps: int, cold: bool = False) -> None:
        self.machine = RunMachine(
            self, max_steps=steps, timeout_seconds=1e9, listeners=[_Listener()]
        )
        self.cold = _Cold() if cold else None

    async def on_enter_installing(self) -> None:
        await self.machine.send("installed")

    async def on_enter_launching(self) -> None:
        await self.machine.send("launched")

    async def on_enter_preparing(self) -> None:
        await self.machine.send("prepared")

    async def on_enter_observing(self) -> None:
        await self.machine.send("observed", fault=None, elapsed=0.0)

    async def on_enter_reasoning(self) -> None:
        if self.cold is not None:
            self.cold()
        await self.machine.send("decided", fault=None, done=False, repeats=0)

    async def on_enter_acting(self) -> None:
        if self.cold is not None:
            self.cold()
        await self.machine.send("acted", fault=None, elapsed=0.0, changed=True)

    # The engine's other phases, so that building the machine resolves as many callbacks.
    async def on_enter_recovering(self) -> None:
        raise AssertionError("no recovery in the floor")

    async def on_enter_goal_complete(self) -> None:
        raise AssertionError("no goal in the floor")


class _Cold:
    """Writes 16 MB (a cache line in each 64 bytes): what is in the CPU's caches is gone; its
    own CPU time is kept apart, in ``seconds``."""

    SIZE = 16 * 1024 * 1024

    def __init__(self) -> None:
        self.memory = bytearray(self.SIZE)
        self.zeros = bytes(self.SIZE // 64)
        self.seconds = 0.0

    def __call__(self) -> None:
        start = time.process_time()
        self.memory[::64] = self.zeros
        self.seconds += time.process_time() - start


class _Listener:
    """As the engine's ``_Transitions``: told of every transition."""

    def __init__(self) -> None:
        self.count = 0

    def on_transition(self, event: str, source: object, target: object) -> None:
        self.count += 1


async def one_run(steps: int, cold: bool = False) -> tuple[float, float]:
    """CPU seconds to build the machine, and to drive it ``steps`` steps to the step limit
    (with ``cold``, the caches emptied before each event, that work not counted)."""
    start = time.process_time()
    phases = _Phases(steps, cold)
    built = time.process_time()
    await phases.machine.activate_initial_state()
    await phases.machine.send("start")
    ran = time.process_time() - (phases.cold.seconds if phases.cold is not None else 0.0)
    final = phases.machine.configuration_values
    if "step_limit" not in final or phases.machine.ledger.steps != steps:
        sys.exit(f"the machine did not take {steps} steps: {final}")
    return built - start, ran - built


async def machine_per_step(steps: int, rounds: int, cold: bool = False) -> list[float]:
    """CPU seconds a step of the run machine alone, one sample a round (after a warm-up)."""
    await one_run(steps // 10, cold)
    return [(await one_run(steps, cold))[1] / steps for _ in range(rounds)]


async def main(steps: int, rounds: int) -> None:
    print(f"python-statemachine's own benchmarks, sync engine (CPU, median of {rounds})")
    for name, here in library_figures(rounds).items():
        published = PUBLISHED.get(name)
        versus = f"   published {published:5.1f} µs: {here / published:4.1f}x" if published else ""
        print(f"  {name:52s} {here:7.1f} µs{versus}")

    samples = await machine_per_step(steps, rounds)
    per_step = statistics.median(samples)
    print(f"run machine alone, two events a step ({steps} steps, {rounds} rounds, CPU time)")
    print(f"  per step        median {per_step * 1e6:6.0f} µs   best {min(samples) * 1e6:6.0f} µs")
    print(f"  ceiling         {1 / per_step:7,.0f} steps/s (no orav code in the step)")
    cold = await machine_per_step(steps // 2, rounds, cold=True)
    print(
        f"  caches cold     median {statistics.median(cold) * 1e6:6.0f} µs   best"
        f" {min(cold) * 1e6:6.0f} µs (16 MB written before each event: a live step)"
    )

    print("a golden's floor: the machine built and driven through a run of N steps")
    for n in (2, 4, 6):
        runs = [await one_run(n) for _ in range(max(rounds, 20))]
        build = statistics.median(b for b, _ in runs)
        drive = statistics.median(d for _, d in runs)
        print(
            f"  {n} steps   build {build * 1e3:5.2f} ms + run {drive * 1e3:5.2f} ms"
            f" = {(build + drive) * 1e3:5.2f} ms a golden, {(build + drive) * 1e3:5.1f} s a thousand"
        )


if __name__ == "__main__":
    asyncio.run(
        main(
            int(sys.argv[1]) if len(sys.argv) > 1 else 1000,
            int(sys.argv[2]) if len(sys.argv) > 2 else 7,
        )
    )
