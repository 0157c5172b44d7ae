"""Record at the boundaries: a Device and an Agent that write every call to a cassette.

API::

    device = RecordingDevice(device, writer)   # wraps any orav.device.Device
    agent = RecordingAgent(agent, writer)      # wraps any orav.agents.Agent; same ``name``

Each call is written after it returns, with its result, or with the OravError it raised (which
is then raised on). The caller gets the real values; the cassette gets the redacted ones.
Screenshots and element lists become blobs, stored once: an unchanged tree costs one reference.
"""

from __future__ import annotations

from orav.agents import Agent, AgentContext
from orav.cassette.events import (
    DecideEvent,
    DescribeEvent,
    IsRunningEvent,
    LaunchEvent,
    ObserveEvent,
    PerformEvent,
    Raised,
    StoredObservation,
    TerminateEvent,
)
from orav.cassette.writer import CassetteWriter
from orav.codec import unstructure
from orav.device import Device
from orav.errors import OravError
from orav.model import Action, ActionResult, Decision, DeviceInfo, Element, Observation


class RecordingDevice:
    """A Device that passes every call to ``device`` and records it in order."""

    def __init__(self, device: Device, writer: CassetteWriter) -> None:
        self._device = device
        self._writer = writer
        self._last_elements: tuple[Element, ...] | None = None
        self._last_sha = ""

    async def describe(self) -> DeviceInfo:
        try:
            info = await self._device.describe()
        except OravError as exc:
            self._writer.write(DescribeEvent(raised=Raised.of(exc)))
            raise
        self._writer.write(DescribeEvent(info))
        return info

    async def observe(self) -> Observation:
        try:
            observation = await self._device.observe()
        except OravError as exc:
            self._writer.write(ObserveEvent(raised=Raised.of(exc)))
            raise
        self._writer.write(ObserveEvent(self._store(observation)))
        return observation

    async def perform(self, action: Action) -> ActionResult:
        try:
            result = await self._device.perform(action)
        except OravError as exc:
            self._writer.write(PerformEvent(action, raised=Raised.of(exc)))
            raise
        self._writer.write(PerformEvent(action, result))
        return result

    async def launch(self, bundle_id: str) -> None:
        try:
            await self._device.launch(bundle_id)
        except OravError as exc:
            self._writer.write(LaunchEvent(bundle_id, raised=Raised.of(exc)))
            raise
        self._writer.write(LaunchEvent(bundle_id))

    async def terminate(self, bundle_id: str) -> None:
        try:
            await self._device.terminate(bundle_id)
        except OravError as exc:
            self._writer.write(TerminateEvent(bundle_id, raised=Raised.of(exc)))
            raise
        self._writer.write(TerminateEvent(bundle_id))

    async def is_running(self, bundle_id: str) -> bool:
        try:
            running = await self._device.is_running(bundle_id)
        except OravError as exc:
            self._writer.write(IsRunningEvent(bundle_id, raised=Raised.of(exc)))
            raise
        self._writer.write(IsRunningEvent(bundle_id, running))
        return running

    async def close(self) -> None:
        await self._device.close()

    def _store(self, observation: Observation) -> StoredObservation:
        elements = None
        if observation.elements:
            if observation.elements != self._last_elements:
                self._last_sha = self._writer.put_json_blob(unstructure(observation.elements))
                self._last_elements = observation.elements
            elements = self._last_sha
        screenshot = observation.screenshot
        if screenshot is not None and screenshot.data:
            self._writer.put_blob(screenshot.data, f"image/{screenshot.format}")
        return StoredObservation(
            elements=elements,
            screenshot=screenshot,
            app=observation.app,
            app_running=observation.app_running,
            taken_at=observation.taken_at,
            text=observation.text,
            error=observation.error,
        )


class RecordingAgent:
    """An Agent that passes every decision request to ``agent`` and records the decision."""

    def __init__(self, agent: Agent, writer: CassetteWriter) -> None:
        self._agent = agent
        self._writer = writer
        self.name = agent.name

    async def decide(self, context: AgentContext) -> Decision:
        try:
            decision = await self._agent.decide(context)
        except OravError as exc:
            self._writer.write(DecideEvent(context.step, raised=Raised.of(exc)))
            raise
        self._writer.write(DecideEvent(context.step, decision))
        return decision
