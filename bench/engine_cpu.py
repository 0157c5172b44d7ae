"""The engine's own CPU per step, and what the run machine's events cost in it.

Against the simulator (``bench/engine_overhead.py``) the engine's share is a difference of
wall times; on a shared machine that is noisy. Here every figure is CPU time in one process:

1. the engine walking a list and back (open an item, go back) against ``orav.testing``'s
   in-memory device, with the scripted agent and a virtual clock: the engine's CPU per step
   (the device and the agent cost next to nothing);
2. the RunMachine alone, driven through the usual step (decided, acted: acting verifies, and
   its settled screen is the next observation) by phases that do nothing, with a transition
   listener as the engine has one: the machine's CPU per step;
3. python-statemachine's floor: a cycle of k states, one event each (a guard, an entry
   callback, a listener), for k = 1..4: the cost of one event;
4. one listener callback per event, by the group it joins: ``before_transition`` and
   ``after_transition`` are gathered as asyncio tasks, ``on_transition`` runs in turn.

Run: python bench/engine_cpu.py [STEPS]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from typing import Any

from statemachine import State, StateChart

from orav.agents.scripted import ScriptedAgent
from orav.engine import Engine
from orav.machines.run import RunMachine
from orav.model import Decision, Done, Element, Frame, Observation, Scenario, Tap, Target
from orav.testing import SettlingFakeDevice, VirtualClock

ROUNDS = 5


def _element(role: str, label: str, uid: str | None, y: float) -> Element:
    return Element(role=role, label=label, unique_id=uid, frame=Frame(0, y, 390, 44))


LIST = Observation(
    app="com.orav.bench",
    elements=(
        _element("AXApplication", "Bench", None, 0),
        _element("AXHeading", "Items", None, 50),
        *(_element("AXButton", f"Item {i}", f"item_{i}", 100 + 50 * i) for i in range(1, 12)),
    ),
)
DETAIL = Observation(
    app="com.orav.bench",
    elements=(
        _element("AXApplication", "Bench", None, 0),
        _element("AXHeading", "Detail", None, 50),
        _element("AXButton", "Back", "back", 100),
        _element("AXStaticText", "What the item says", None, 200),
    ),
)


def walk(steps: int) -> Scenario:
    script = []
    for n in range(steps // 2):
        script += [
            Decision(Tap(target=Target(id=f"item_{n % 3 + 1}")), expected_outcome='"Back"'),
            Decision(Tap(target=Target(id="back")), expected_outcome='"Items"'),
        ]
    script.append(Decision(Done(success=True, summary="walked")))
    return Scenario(
        name="walk",
        app="com.orav.bench",
        goal="Open each item and go back.",
        script=tuple(script),
        max_steps=len(script) + 1,
        settle_seconds=0.0,
        timeout_seconds=3600.0,
    )


async def engine_step(steps: int) -> float:
    """The engine's CPU seconds per step against the in-memory device."""
    goes = {"list": {f"item_{i}": "detail" for i in range(1, 12)}, "detail": {"back": "list"}}
    device = SettlingFakeDevice({"list": LIST, "detail": DETAIL}, goes=goes)
    engine = Engine(device, ScriptedAgent(), clock=VirtualClock())
    start = time.process_time()
    report = await engine.run(walk(steps))
    spent = time.process_time() - start
    assert report.status == "passed", report.status
    return spent / report.total_steps


class _Listener:
    def on_transition(self, event: str, source: State, target: State) -> None:
        pass


class _Phases:
    """The run's phases as the engine's are, minus their work: each sends its event."""

    def __init__(self, steps: int) -> None:
        self.steps = steps
        self.taken = 0
        self.machine: Any = None

    async def on_enter_installing(self) -> None:
        await self.machine.send("installed")

    async def on_enter_launching(self) -> None:
        await self.machine.send("launched")

    async def on_enter_preparing(self) -> None:
        await self.machine.send("prepared")

    async def on_enter_observing(self) -> None:
        await self.machine.send("observed", fault=None, elapsed=0.0)

    async def on_enter_reasoning(self) -> None:
        self.taken += 1
        await self.machine.send("decided", done=self.taken >= self.steps, fault=None)

    async def on_enter_acting(self) -> None:
        await self.machine.send("acted", elapsed=0.0, fault=None)

    async def on_enter_goal_complete(self) -> None:
        await self.machine.send("checked", met=True)


async def machine_step(steps: int) -> float:
    """The RunMachine's CPU seconds per step on the usual path."""
    phases = _Phases(steps)
    machine = RunMachine(phases, max_steps=steps + 1, timeout_seconds=1e9, listeners=[_Listener()])
    phases.machine = machine
    await machine.activate_initial_state()
    start = time.process_time()
    await machine.send("start")
    spent = time.process_time() - start
    assert machine.state == "passed", machine.state
    return spent / steps


def _cycle(states: int) -> type[StateChart]:
    """A cycle of ``states`` states, each left by its own guarded event (or to ``done``)."""
    names = [f"s{i}" for i in range(states)]
    body: dict[str, Any] = {"idle": State(initial=True), "done": State(final=True)}
    body.update({name: State() for name in names})
    body["start"] = body["idle"].to(body[names[0]])
    for index, name in enumerate(names):
        following = body[names[(index + 1) % states]]
        body[f"leave_{name}"] = body[name].to(body["done"], cond="finished") | body[name].to(
            following
        )
    body["finished"] = lambda self, finished=False: finished
    return type(f"Cycle{states}", (StateChart,), body)


async def cycle_step(states: int, steps: int) -> float:
    """CPU seconds per step of a cycle of ``states`` events (one per state entered)."""
    cls = _cycle(states)
    left = steps * states
    machine: Any = None

    class Model:
        pass

    model = Model()

    def phase(name: str) -> Any:
        async def enter() -> None:
            nonlocal left
            left -= 1
            await machine.send(f"leave_{name}", finished=left <= 0)

        return enter

    for index in range(states):
        setattr(model, f"on_enter_s{index}", phase(f"s{index}"))
    machine = cls(model, listeners=[_Listener()])
    await machine.activate_initial_state()
    start = time.process_time()
    await machine.send("start")
    return (time.process_time() - start) / steps


async def listener_event(group: str | None, events: int) -> float:
    """CPU seconds per event of a two-state toggle with one listener callback in ``group``."""

    class Toggle(StateChart):
        a = State(initial=True)
        b = State()
        go = a.to(b) | b.to(a)

        async def on_enter_b(self) -> None:  # async, as the run's phases: the async engine
            pass

    listeners = []
    if group is not None:
        listener = type("Listener", (), {group: lambda self, event, source, target: None})
        listeners.append(listener())
    machine = Toggle(listeners=listeners)
    await machine.activate_initial_state()
    start = time.process_time()
    for _ in range(events):
        await machine.send("go")
    return (time.process_time() - start) / events


def median_us(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1e6:6.0f} µs (range {min(samples) * 1e6:.0f}–{max(samples) * 1e6:.0f})"


async def main(steps: int) -> None:
    print(f"CPU time, median of {ROUNDS} rounds")
    engine = [await engine_step(steps) for _ in range(ROUNDS)]
    print(f"  engine per step, in-memory device, {steps} steps: {median_us(engine)}")
    machine = [await machine_step(steps) for _ in range(ROUNDS)]
    print(f"  RunMachine alone per step (2 events):       {median_us(machine)}")
    for states in (1, 2, 3, 4):
        cycle = [await cycle_step(states, steps) for _ in range(ROUNDS)]
        print(f"  python-statemachine, {states} event(s) a step:      {median_us(cycle)}")
    for group in (None, "on_transition", "before_transition", "after_transition"):
        event = [await listener_event(group, steps * 4) for _ in range(ROUNDS)]
        print(f"  one event, listener {group!s:<18}: {median_us(event)}")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 400))
