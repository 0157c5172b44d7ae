"""Latency of the idb driver against orav's simulated companion (scale 1, unchanged screen).

Prints median and p95 of observe (screenshot + tree + app state), of a tap at a point and of a
tap by target (one extra tree fetch), plus each RPC of observe alone and the parsing, so a miss
of the 10 ms observe target says where the time goes. Two set-ups: the simulator in this
process (as in the tests) and in a process of its own (as a real companion would be).

Run: /work/venv/bin/python bench/driver_idb.py [ROUNDS]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable

from idb.common.types import AccessibilityInfoOptions

from orav.drivers.accessibility import parse_elements
from orav.drivers.idb import IdbDevice
from orav.model import Observation, Tap, Target
from orav.sim import SimCompanion

APP = "com.orav.demo"
OBSERVE_TARGET_MS = 10.0
FLAT = AccessibilityInfoOptions(nested=False)
SERVE = """
import asyncio
from orav.sim import SimCompanion

async def main():
    async with SimCompanion(port=0, scale=1.0) as sim:
        print(sim.address, flush=True)
        await asyncio.Event().wait()

asyncio.run(main())
"""


async def timed(rounds: int, call: Callable[[], Awaitable[object]]) -> list[float]:
    for _ in range(min(20, rounds)):  # warm caches on both sides
        await call()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def line(name: str, samples: list[float]) -> str:
    samples = sorted(samples)
    p95 = samples[min(len(samples) - 1, round(0.95 * len(samples)) - 1)]
    return f"  {name:<28} median {statistics.median(samples):6.2f} ms   p95 {p95:6.2f} ms"


async def measure(device: IdbDevice, rounds: int) -> list[str]:
    client = device.client  # the one connection, to time each RPC of observe alone
    tree_json = (await client.accessibility_info(None, FLAT)).json
    out = [
        line("observe", await timed(rounds, device.observe)),
        line("tap at a point", await timed(rounds, lambda: device.perform(Tap(x=195, y=500)))),
        line(
            "tap by target",
            await timed(
                rounds, lambda: device.perform(Tap(target=Target(label="Welcome to Demo")))
            ),
        ),
        line("  screenshot RPC alone", await timed(rounds, client.screenshot)),
        line(
            "  accessibility_info alone",
            await timed(rounds, lambda: client.accessibility_info(None, FLAT)),
        ),
        line("  list_apps alone", await timed(rounds, client.list_apps)),
        line("  parse tree (no I/O)", await timed(rounds, _async(parse_elements, tree_json))),
    ]
    out.append(_screen(await device.observe()))
    await device.perform(Tap(target=Target(id="email")))  # the software keyboard comes up
    out.append(line("observe, keyboard shown", await timed(rounds, device.observe)))
    out.append(_screen(await device.observe()))
    return out


def _screen(observation: Observation) -> str:
    shot = observation.screenshot
    return (
        f"  (screen: {len(observation.elements)} elements, "
        f"{len(shot.data) / 1024:.0f} KiB PNG {shot.width}x{shot.height})"
    )


def _async(function, *args) -> Callable[[], Awaitable[object]]:
    async def call() -> object:
        return function(*args)

    return call


async def in_process(rounds: int) -> list[str]:
    async with (
        SimCompanion(port=0, scale=1.0) as sim,
        IdbDevice.connect(sim.address, bundle_id=APP) as device,
    ):
        return await measure(device, rounds)


async def out_of_process(rounds: int) -> list[str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", SERVE, stdout=asyncio.subprocess.PIPE
    )
    try:
        address = (await asyncio.wait_for(process.stdout.readline(), 30)).decode().strip()
        async with IdbDevice.connect(address, bundle_id=APP) as device:
            return await measure(device, rounds)
    finally:
        process.kill()
        await process.wait()


async def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    print(f"idb driver against the simulator, scale 1, login screen unchanged, {rounds} rounds")
    print(f"(target: observe median <= {OBSERVE_TARGET_MS:g} ms)")
    print("simulator in this process:")
    print("\n".join(await in_process(rounds)))
    print("simulator in its own process:")
    print("\n".join(await out_of_process(rounds)))


if __name__ == "__main__":
    asyncio.run(main())
