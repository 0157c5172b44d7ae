"""Observe cost on the simulated companion through the real fb-idb client (screenshot + tree)."""

from __future__ import annotations

import asyncio
import logging
import time

from idb.common.types import AccessibilityInfoOptions, TCPAddress
from idb.grpc.client import Client

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


def main() -> None:
    for scale in (1.0, 2.0, 3.0):
        cached = asyncio.run(observe_ms(scale))
        print(
            f"scale {scale:g}: observe (screenshot + describe-all, unchanged) {cached:.2f} ms; "
            f"fresh render + PNG encode {fresh_render_ms(scale):.1f} ms"
        )


if __name__ == "__main__":
    main()
