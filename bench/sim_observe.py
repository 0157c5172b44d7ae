"""Observe cost on the simulated companion through the real fb-idb client (screenshot + tree),
and ``IdbDevice.observe`` (screenshot + tree + app list, the driver's whole look) of an unchanged
1,000-element screen: wall time, and CPU time of the one process that holds both the simulator
and the client (a loaded machine stretches the wall time, not the CPU time)."""

from __future__ import annotations

import asyncio
import logging
import statistics
import tempfile
import time
from pathlib import Path

from idb.common.types import AccessibilityInfoOptions, TCPAddress
from idb.grpc.client import Client

from orav.drivers.idb import IdbDevice
from orav.sim import SimCompanion
from orav.sim.render import _encode, _render, encode


async def observe_ms(scale: float, rounds: int = 200) -> float:
    async with SimCompanion(scale=scale) as sim:
        host, port = sim.address.split(":")
        address = TCPAddress(host=host, port=int(port))
        async with Client.build(address=address, logger=logging.getLogger("bench")) as client:
            options = AccessibilityInfoOptions()
            await client.screenshot()
            start = time.perf_counter()
            for _ in range(rounds):
                await client.screenshot()
                await client.accessibility_info(None, options)
            return (time.perf_counter() - start) / rounds * 1000


def fresh_render_ms(scale: float, rounds: int = 10) -> float:
    from orav.sim import DEMO_APP, AppState, load_app_model

    view = AppState(load_app_model(DEMO_APP)).view()
    start = time.perf_counter()
    for _ in range(rounds):
        _render.cache_clear()
        _encode.cache_clear()
        encode(view, scale)
    return (time.perf_counter() - start) / rounds * 1000


def many_elements(n: int = 1000) -> str:
    """An app model whose one screen holds ``n`` buttons (and the application element)."""
    lines = ["name: Many", "bundle_id: com.example.many", "start: s", "screens:", "  s:"]
    lines += ["    title: Many", "    elements:"]
    lines += [
        f"      - {{role: AXButton, id: b{i}, label: Item {i}, "
        f"frame: [{(i % 4) * 97}, {100 + (i // 4) * 3}, 90, 3]}}"
        for i in range(n)
    ]
    return "\n".join(lines) + "\n"


async def big_observe(rounds: int = 50) -> tuple[int, float, float]:
    """(elements, median wall ms, CPU ms) of an unchanged observe of a 1,000-element screen."""
    with tempfile.TemporaryDirectory() as folder:
        app = Path(folder) / "many.yaml"
        app.write_text(many_elements())
        async with SimCompanion(app, scale=1.0) as sim:
            device = await IdbDevice.open(sim.address, bundle_id="com.example.many", timeout=60)
            try:
                await device.launch("com.example.many")
                seen = await device.observe()
                walls = []
                cpu = time.process_time()
                for _ in range(rounds):
                    began = time.perf_counter()
                    await device.observe()
                    walls.append((time.perf_counter() - began) * 1000)
                cpu = (time.process_time() - cpu) / rounds * 1000
            finally:
                await device.close()
    return len(seen.elements), statistics.median(walls), cpu


def main() -> None:
    elements, wall, cpu = asyncio.run(big_observe())
    print(
        f"IdbDevice.observe of an unchanged {elements}-element screen: median {wall:.1f} ms "
        f"wall, {cpu:.1f} ms CPU (simulator and client in one process)"
    )
    for scale in (1.0, 2.0, 3.0):
        cached = asyncio.run(observe_ms(scale))
        print(
            f"scale {scale:g}: observe (screenshot + describe-all, unchanged) {cached:.2f} ms; "
            f"fresh render + PNG encode {fresh_render_ms(scale):.1f} ms"
        )


if __name__ == "__main__":
    main()
