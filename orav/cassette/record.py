"""Record at the boundaries: a Device and an Agent that write every call to a cassette.

API::

    device = RecordingDevice(device, writer)   # wraps any orav.device.Device
    agent = RecordingAgent(agent, writer)      # wraps any orav.agents.Agent; same ``name``

Each call is written after it returns, with its result, or with the OravError it raised (which
is then raised on). The caller gets the real values; the cassette gets the redacted ones.
Screenshots and element lists become blobs, stored once (``orav.cassette.observation``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from orav.agents import Agent, AgentContext, reconsiders
from orav.cassette.events import (
    MAX_DECIDE_SECONDS,
    ChangesEvent,
    DecideEvent,
    DescribeEvent,
    Event,
    IsRunningEvent,
    LaunchEvent,
    LifecycleEvent,
    ObserveEvent,
    PerformEvent,
    Raised,
    SettleEvent,
    TerminateEvent,
)
from orav.cassette.lifecycle import LifecycleCalls
from orav.cassette.writer import CassetteWriter
from orav.codec import unstructure
from orav.device import Device, Lifecycle, Settling, World
from orav.errors import AgentError, InputError, OravError
from orav.model import (
    Action,
    ActionResult,
    Decision,
    DeviceInfo,
    Observation,
    Settled,
    TypeText,
    WorldChanges,
    cut_observation,
)
from orav.watchdog import cut_of


def _cut(writer: CassetteWriter, error: BaseException) -> Raised:
    """A call cut off: by SIGINT/SIGTERM when the writer was told so, else by a deadline
    (naming the call it cut, when the cancellation does: ``watchdog.Cut``)."""
    if writer.interrupted:
        return Raised.interrupted(writer.interrupted)
    cut = cut_of(error)
    return Raised.deadline(str(cut) if cut is not None else None)


@contextmanager
def _failures(writer: CassetteWriter, event: Callable[[Raised], Event]) -> Iterator[None]:
    """Record a call that failed (an OravError) or was cut off by a deadline or a signal,
    then re-raise."""
    try:
        yield
    except OravError as exc:
        writer.write(event(Raised.of(exc)))
        raise
    except (asyncio.CancelledError, TimeoutError) as cut:
        writer.write(event(_cut(writer, cut)))
        raise
    except Exception as exc:  # a callee's bug: recorded too, so the cassette still replays
        writer.write(event(Raised.unexpected(exc)))
        raise


class RecordingDevice(LifecycleCalls):
    """A Device that passes every call to ``device`` and records it in order."""

    def __init__(self, device: Device, writer: CassetteWriter) -> None:
        self._device = device
        self._writer = writer
        # what the device can do, asked once: a protocol check costs ~0.1 ms on Python 3.11
        self._settling = device if isinstance(device, Settling) else None
        self._world = device if isinstance(device, World) else None

    async def describe(self) -> DeviceInfo:
        with _failures(self._writer, lambda raised: DescribeEvent(raised=raised)):
            info = await self._device.describe()
        self._writer.write(DescribeEvent(info))
        return info

    async def observe(self) -> Observation:
        with _failures(self._writer, lambda raised: ObserveEvent(raised=raised)):
            observation = cut_observation(await self._device.observe())
        self._writer.write(ObserveEvent(observation))
        return observation

    async def perform(self, action: Action) -> ActionResult:
        if isinstance(action, TypeText) and (
            action.secure or self._writer.scrubber.piece(action.text)
        ):
            # The field that takes a secret (or a piece of one) keeps it: its value is stored
            # as bullets from now on, through every edit, whether or not it masks what is typed.
            focused = next((e for e in self._writer.last_elements if e.focused), None)
            if focused is not None:
                self._writer.hold(focused.label, focused.unique_id)
        with _failures(self._writer, lambda raised: PerformEvent(action, raised=raised)):
            result = await self._device.perform(action)
        self._writer.write(PerformEvent(action, result))
        return result

    async def launch(
        self,
        bundle_id: str,
        *,
        arguments: Sequence[str] = (),
        environment: Mapping[str, str] | None = None,
    ) -> None:
        if arguments or environment:  # a launch of the lifecycle, with what it was given
            given = {"arguments": list(arguments), "environment": dict(environment or {})}
            await self._lifecycle("launch", {"bundle_id": bundle_id, **given})
            return
        with _failures(self._writer, lambda raised: LaunchEvent(bundle_id, raised=raised)):
            await self._device.launch(bundle_id)
        self._writer.write(LaunchEvent(bundle_id))

    async def _lifecycle(self, call: str, arguments: dict[str, Any]) -> Any:
        """Call the wrapped device's lifecycle method ``call`` and record it; a device without
        the lifecycle (a Textual app) refuses it as bad input, as ``orav.provision`` does."""
        given = dict(arguments)
        if call == "install":
            given["bundle"] = Path(given["bundle"])
        with _failures(self._writer, lambda raised: LifecycleEvent(call, arguments, raised=raised)):
            if not isinstance(self._device, Lifecycle):
                raise InputError(f"{call} needs an iOS device (idb or sim), not this one")
            method = getattr(self._device, call)
            if call == "launch":
                bundle_id = given.pop("bundle_id")
                result = await method(bundle_id, **given)
            else:
                result = await method(**given)
        recorded = unstructure(result) if result is not None else None
        self._writer.write(LifecycleEvent(call, arguments, recorded))
        return recorded

    async def terminate(self, bundle_id: str) -> None:
        with _failures(self._writer, lambda raised: TerminateEvent(bundle_id, raised=raised)):
            await self._device.terminate(bundle_id)
        self._writer.write(TerminateEvent(bundle_id))

    async def is_running(self, bundle_id: str) -> bool:
        with _failures(self._writer, lambda raised: IsRunningEvent(bundle_id, raised=raised)):
            running = await self._device.is_running(bundle_id)
        self._writer.write(IsRunningEvent(bundle_id, running))
        return running

    async def settle(self, limit: float) -> Settled | None:
        """The wrapped device's settle when it can tell (``orav.device.Settling``), else None;
        recorded either way, so a replay waits the same."""
        with _failures(self._writer, lambda raised: SettleEvent(limit, raised=raised)):
            settled = await self._settling.settle(limit) if self._settling is not None else None
        self._writer.write(SettleEvent(limit, settled))
        return settled

    @property
    def disposable(self) -> bool:
        return self._world is not None and self._world.disposable

    async def changes(self) -> WorldChanges:
        """The wrapped world's changes (``orav.device.World``), recorded; a device that is no
        world changed nothing orav can see, and nothing is recorded, so its cassettes stay as
        they were."""
        if self._world is None:
            return WorldChanges()
        with _failures(self._writer, lambda raised: ChangesEvent(raised=raised)):
            changes = await self._world.changes()
        self._writer.write(ChangesEvent(changes))
        return changes

    async def close(self) -> None:
        await self._device.close()


class RecordingAgent:
    """An Agent that passes every decision request to ``agent`` and records the decision."""

    def __init__(self, agent: Agent, writer: CassetteWriter) -> None:
        self._agent = agent
        self._writer = writer
        self.name = agent.name
        self.reconsiders = reconsiders(agent)

    async def decide(self, context: AgentContext) -> Decision:
        step = context.step
        began = time.perf_counter()
        try:
            decision = await self._agent.decide(context)
        except OravError as exc:  # an AgentError keeps what the failed decision cost
            call = getattr(exc, "call", None)
            self._writer.write(DecideEvent(step, raised=Raised.of(exc), call=call))
            raise
        except (asyncio.CancelledError, TimeoutError) as cut:
            self._writer.write(DecideEvent(step, raised=_cut(self._writer, cut)))
            raise
        except Exception as exc:  # an agent's bug: recorded too, so the cassette still replays
            self._writer.write(DecideEvent(step, raised=Raised.unexpected(exc)))
            raise
        action = decision.action
        # A secret typed where the scenario did not ask for it (a secure type_text) would reach
        # the app under test, its screenshots and this cassette.
        if isinstance(action, TypeText) and self._types_a_secret(action, context):
            refused = AgentError(
                f"{self.name} decided to type a secret (an API key or a password) as plain "
                "text; orav types a secret only where the scenario asks, as secure text"
            )
            self._writer.write(DecideEvent(step, raised=Raised.of(refused)))
            raise refused
        took = min(time.perf_counter() - began, MAX_DECIDE_SECONDS)
        self._writer.write(DecideEvent(step, decision, seconds=round(took, 6)))
        return decision

    def _types_a_secret(self, action: TypeText, context: AgentContext) -> bool:
        """Plain text holding a registered secret, which the scenario's own steps do not type."""
        if action.secure:
            return False
        self._writer.sync()  # every secret met so far known to the scrubber (its disk thread's)
        if not self._writer.scrubber.holds_secret(action.text):
            return False
        steps = [d.action for d in context.scenario.script] + list(context.scenario.preconditions)
        return all(getattr(step, "text", None) != action.text for step in steps)
