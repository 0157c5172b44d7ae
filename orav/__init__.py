"""orav: AI-driven UI acceptance testing through an Observe, Reason, Act, Verify loop.

The public API is here, one import away (``orav.__all__``); the submodules it comes from are
where each thing is explained. Every name is imported when first used, so ``import orav``
(and ``orav --help``) costs nothing until then.

Run a scenario and record it::

    import asyncio
    import orav

    scenario = orav.load_scenario("scenarios/login.yaml")
    recording = asyncio.run(orav.record(scenario, "login.cassette", device="sim"))
    replayed = asyncio.run(orav.replay("login.cassette"))
    assert replayed.faithful

Test your own app through a Device of your own (``orav.Device``: seven async calls) and record
it in one call: ``orav.record(scenario, "mine.cassette", device=MyDevice())``. Or take the
recording wrappers and write the loop yourself::

    async with orav.use_cassette("mine.cassette", scenario, MyDevice()) as recorder:
        report = await recorder.run()

The seams
    ``Device`` (with the optional ``Settling`` and ``Lifecycle``), ``Agent`` and its
    ``AgentContext`` (with the optional ``UsesModel``, ``HoldsSecrets``, ``Closable``),
    ``Clock`` and ``SystemClock``. ``Engine(device, agent, clock=...).run(scenario)`` is the
    loop over them; it returns a ``RunReport``.
Agents
    ``ScriptedAgent`` (the scenario's own script) and ``FunctionAgent`` (a function decides).
    ``make_agent("openai:gpt-4o")`` builds one from a spec, as the command line does.
Scenarios and what a run sees and does
    ``load_scenario``, ``Scenario``; ``Observation``, ``Element`` and its ``Frame``, ``DeviceInfo``; the
    actions ``Tap``, ``TypeText``, ``Swipe``, ``PressKey``, ``Wait``, ``Launch``,
    ``Terminate``, ``Assert``, ``Done``, ``Recover`` (together ``Action``) aimed by a
    ``Target``; a ``Decision``
    and its ``Verification``; ``ActionResult``.
Sessions and cassettes
    ``record`` (a Device or a device spec) returns a ``Recording``; ``replay`` a ``Replay``.
    ``use_cassette`` and its ``CassetteRecorder``; ``RecordMode`` (once, new_episodes, all,
    none); ``Match``, how a replayed action is matched; ``read_cassette`` and ``Cassette``.
Results and errors
    ``RunReport``, ``Recording``, ``Replay``; ``OravError`` and its kinds: ``InputError``
    (bad input, located), ``DeviceError`` and ``DeviceTimeout``, ``AgentError``,
    ``ReplayDivergence``; ``Interrupted`` (SIGINT or SIGTERM ended a run).

Test doubles for your own tests are in ``orav.testing`` (``FakeDevice``, ``VirtualClock``).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from orav.__version__ import __version__ as __version__
from orav.moved import install

install()  # the modules a release made public that have moved since (orav.moved)

# Where each public name lives: imported on first use (PEP 562), so the command line and
# ``import orav`` load no driver, model client or cassette code they do not use. The imports
# under TYPE_CHECKING say the same for type checkers; tests/test_public_api.py keeps the
# three lists (this one, ``__all__`` and those imports) equal.
_HOMES = {
    "orav.agents": ("Agent", "AgentContext", "Closable", "HoldsSecrets", "UsesModel"),
    "orav.agents.function": ("FunctionAgent",),
    "orav.agents.scripted": ("ScriptedAgent",),
    "orav.cassette": ("Cassette", "Match", "RecordMode", "read_cassette"),
    "orav.clock": ("Clock", "SystemClock"),
    "orav.device": ("CrashReport", "Device", "Lifecycle", "Settling"),
    "orav.engine": ("Engine",),
    "orav.errors": (
        "AgentError",
        "DeviceError",
        "DeviceTimeout",
        "InputError",
        "Interrupted",
        "OravError",
        "ReplayDivergence",
    ),
    "orav.model": (
        "Action",
        "ActionResult",
        "Assert",
        "Decision",
        "DeviceInfo",
        "Done",
        "Element",
        "Frame",
        "Launch",
        "Observation",
        "PressKey",
        "Recover",
        "RunReport",
        "Scenario",
        "Swipe",
        "Tap",
        "Target",
        "Terminate",
        "TypeText",
        "Verification",
        "Wait",
    ),
    "orav.recorder": ("CassetteRecorder", "use_cassette"),
    "orav.scenario_loader": ("load_scenario",),
    "orav.session": ("Recording", "Replay", "record", "replay"),
    "orav.specs": ("make_agent",),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "Action",
    "ActionResult",
    "Agent",
    "AgentContext",
    "AgentError",
    "Assert",
    "Cassette",
    "CassetteRecorder",
    "Clock",
    "Closable",
    "CrashReport",
    "Decision",
    "Device",
    "DeviceError",
    "DeviceInfo",
    "DeviceTimeout",
    "Done",
    "Element",
    "Engine",
    "Frame",
    "FunctionAgent",
    "HoldsSecrets",
    "InputError",
    "Interrupted",
    "Launch",
    "Lifecycle",
    "Match",
    "Observation",
    "OravError",
    "PressKey",
    "RecordMode",
    "Recording",
    "Recover",
    "Replay",
    "ReplayDivergence",
    "RunReport",
    "Scenario",
    "ScriptedAgent",
    "Settling",
    "Swipe",
    "SystemClock",
    "Tap",
    "Target",
    "Terminate",
    "TypeText",
    "UsesModel",
    "Verification",
    "Wait",
    "load_scenario",
    "make_agent",
    "read_cassette",
    "record",
    "replay",
    "use_cassette",
]


def __getattr__(name: str) -> Any:
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'orav' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # once: later lookups do not come here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:
    from orav.agents import Agent, AgentContext, Closable, HoldsSecrets, UsesModel
    from orav.agents.function import FunctionAgent
    from orav.agents.scripted import ScriptedAgent
    from orav.cassette import Cassette, Match, RecordMode, read_cassette
    from orav.clock import Clock, SystemClock
    from orav.device import CrashReport, Device, Lifecycle, Settling
    from orav.engine import Engine
    from orav.errors import (
        AgentError,
        DeviceError,
        DeviceTimeout,
        InputError,
        Interrupted,
        OravError,
        ReplayDivergence,
    )
    from orav.model import (
        Action,
        ActionResult,
        Assert,
        Decision,
        DeviceInfo,
        Done,
        Element,
        Frame,
        Launch,
        Observation,
        PressKey,
        Recover,
        RunReport,
        Scenario,
        Swipe,
        Tap,
        Target,
        Terminate,
        TypeText,
        Verification,
        Wait,
    )
    from orav.recorder import CassetteRecorder, use_cassette
    from orav.scenario_loader import load_scenario
    from orav.session import Recording, Replay, record, replay
    from orav.specs import make_agent
