"""The device as one recovery uses it: every action kept and handed to the engine, every look
kept as the latest observation, waits and re-dumps bounded by the recovery's ladder.

Remedies and verdicts act through it only, so what a recovery did (``actions``) and what it
saw last (``observation``) cannot drift from what reached the device.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from orav.device import Device
from orav.errors import DeviceTimeout
from orav.model import Action, ActionResult, Launch, Observation, Scenario, Terminate
from orav.provision import launch

Sleep = Callable[[float], Awaitable[Any]]
OnAction = Callable[[Action, ActionResult], Any]


class RecoveryDevice:
    """``device`` for one recovery of ``scenario``'s app, starting on ``observation``.

    ``settle`` is the wait before a settled look; a re-dump tries ``dump_tries`` times,
    ``dump_pause`` apart.
    """

    def __init__(
        self,
        device: Device,
        scenario: Scenario,
        observation: Observation,
        *,
        sleep: Sleep,
        on_action: OnAction | None,
        settle: float,
        dump_tries: int,
        dump_pause: float,
    ) -> None:
        self.device = device
        self.scenario = scenario
        self.observation = observation  # the latest look
        self.sleep = sleep
        self.on_action = on_action
        self.settle = settle
        self.dump_tries = dump_tries
        self.dump_pause = dump_pause
        self.actions: list[Action] = []

    async def perform(self, action: Action) -> ActionResult:
        result = await self.device.perform(action)
        await self._record(action, result)
        return result

    async def _record(self, action: Action, result: ActionResult) -> None:
        self.actions.append(action)
        if self.on_action is not None:
            returned = self.on_action(action, result)
            if asyncio.iscoroutine(returned):
                await returned

    async def observe(self) -> Observation:
        self.observation = await self.device.observe()
        return self.observation

    async def observe_settled(self) -> Observation:
        """A look after the settle wait: what a remedy's action led to."""
        await self.sleep(self.settle)
        return await self.observe()

    async def observe_until_elements(self) -> Observation:
        """Re-dump while the tree is empty: ``dump_tries`` tries, ``dump_pause`` between. A
        dump that times out counts as an empty one: one slow call is a rung, not the end."""
        for attempt in range(self.dump_tries):
            if attempt:
                await self.sleep(self.dump_pause)
            try:
                observation = await self.observe()
            except DeviceTimeout:
                continue
            if observation.elements and not observation.error:
                break
        return self.observation

    async def is_running(self) -> bool:
        return await self.device.is_running(self.scenario.app)

    async def launch(self) -> None:
        """Relaunch the app as the run launched it (with the scenario's arguments)."""
        await launch(self.device, self.scenario)
        await self._record(Launch(self.scenario.app), ActionResult())

    async def terminate(self) -> None:
        app = self.scenario.app
        await self.device.terminate(app)
        await self._record(Terminate(app), ActionResult())
