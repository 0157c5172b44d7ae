"""Device and agent specs, the strings a command line names them by: ``sim``,
``sim:APP.yaml``, ``idb:HOST:PORT``, ``textual:package.module:AppClass`` (and
``textual+PYTHON:``, ``textual-in-process:``); ``scripted``,
``explorer``, ``openai:MODEL``; and, for either, ``class:package.module:Class`` (a class of
your own, ``orav.user_class``). One rule reads them all: the word before the first colon says
what the rest is. Each is turned into the thing it names here, importing a driver or a model
client only when asked for it.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from attrs import evolve

from orav.agents import Agent
from orav.device import Device
from orav.errors import DeviceError, DeviceTimeout, InputError
from orav.judges import Judge
from orav.model import Scenario
from orav.sandbox import WorldOptions
from orav.user_class import FORM, PREFIX, build
from orav.watchdog import Deadline

if TYPE_CHECKING:
    from orav.sim import AppModel

DEFAULT_DEVICE = "sim"
IN_PROCESS = "textual-in-process:"  # a Textual app in orav's process: no sandbox


def make_agent(spec: str, **options: object) -> Agent:
    """``scripted``, ``explorer``, ``openai:MODEL`` or ``class:package.module:Class[?name=value]``
    (an Agent of your own); imports the LLM client only when asked."""
    if spec == "scripted":
        from orav.agents.scripted import ScriptedAgent

        return ScriptedAgent()
    if spec == "explorer":
        from orav.agents.explorer import ExplorerAgent

        return ExplorerAgent()
    if spec.startswith("openai:"):
        from orav.agents.openai import OpenAIAgent

        agent = OpenAIAgent.from_spec(spec, **options)
        if agent.missing_key:  # say so before a device is started, as bad input
            raise InputError(agent.missing_key, "--agent")
        return agent
    if spec.startswith(PREFIX):
        built: Agent = build(spec, Agent, "--agent")
        return built
    raise InputError(
        f"unknown agent {spec!r}; expected 'scripted', 'explorer', 'openai:MODEL' or '{FORM}'",
        "--agent",
    )


def make_judge(spec: str, **options: object) -> Judge:
    """``table:FILE`` (free, deterministic), ``openai:MODEL`` (options as the LLM agent's) or
    ``class:package.module:Class[?name=value]`` (a Judge of your own)."""
    if spec.startswith("table:"):
        from orav.judges.table import TableJudge

        return TableJudge.load(spec.removeprefix("table:"))
    if spec.startswith("openai:"):
        from orav.judges.model import ModelJudge

        judge = ModelJudge.from_spec(spec, **options)
        if judge.missing_key:
            raise InputError(judge.missing_key, "--judge")
        return judge
    if spec.startswith(PREFIX):
        built: Judge = build(spec, Judge, "--judge")
        return built
    raise InputError(
        f"unknown judge {spec!r}; expected 'table:FILE', 'openai:MODEL' or '{FORM}'", "--judge"
    )


def default_judge(agent: Agent) -> Judge | None:
    """The judge when none is named: the LLM agent's own model, else none (a scenario whose
    claims are in words then needs ``--judge``)."""
    from orav.agents.openai import OpenAIAgent

    if isinstance(agent, OpenAIAgent):
        from orav.judges.model import ModelJudge

        return ModelJudge(agent)
    return None


def judge_for(scenario: Scenario, judge: Judge | None, agent: Agent | None) -> Judge | None:
    """Who judges ``scenario``'s claims: ``judge`` (``--judge``), else the scenario's
    ``judge:``, else the LLM agent's model (``default_judge``), else none."""
    if judge is not None:
        return judge
    if scenario.judge is not None:
        return make_judge(scenario.judge)
    return default_judge(agent) if agent is not None else None


@asynccontextmanager
async def open_device(
    spec: str,
    scenario: Scenario,
    *,
    timeout: float = 5.0,
    seed: int = 0,
    world: WorldOptions | None = None,
) -> AsyncIterator[Device]:
    """``sim`` (the embedded simulator with the demo app), ``sim:APP.yaml`` (the simulator
    with your app model), ``idb:HOST:PORT`` (an idb companion, e.g. on a Mac) or
    ``textual:package.module:AppClass`` (a Textual app, run by orav's interpreter in a
    sandbox of its own, ``orav.sandbox``) or ``textual+PYTHON:package.module:AppClass`` (one
    run by that interpreter, in its own venv, in a sandbox too) or
    ``textual-in-process:package.module:AppClass`` (in orav's process under Pilot, in the
    user's own world) or ``class:package.module:Class[?name=value]`` (a Device of your own,
    built for the run and closed after it).

    ``world`` says how a Textual app's sandbox is made (the scenario's ``files`` are added to
    it) and whether an ``idb:`` device is declared orav's own to throw away."""
    if spec.startswith(PREFIX):
        device: Device = build(spec, Device, "--device")
        try:
            yield device
        finally:
            try:
                async with Deadline(timeout):  # cut even where close() blocks the thread
                    await device.close()
            except TimeoutError:
                raise DeviceTimeout(f"{spec}: close() did not return in {timeout:g} s") from None
        return
    if spec.startswith(IN_PROCESS):
        from orav.drivers.textual import TextualDevice

        async with TextualDevice.from_spec(spec.removeprefix(IN_PROCESS), timeout=timeout) as d:
            yield d
        return
    if spec.startswith(("textual:", "textual+")):  # in a child process, in a sandbox
        from orav.drivers.textual import RemoteTextualDevice

        options = world or WorldOptions()
        options = evolve(options, files=(*options.files, *scenario.files))
        async with RemoteTextualDevice.sandboxed(spec, options, timeout=timeout) as remote:
            yield remote
        return
    from orav.drivers.idb import IdbDevice, parse_address

    if spec == "sim" or spec.startswith("sim:"):
        from orav.sim import SimCompanion, bundled_app

        # plain `sim` serves the shipped app of the scenario's bundle id (the demo or the shop)
        path = Path(spec.removeprefix("sim:")) if spec != "sim" else bundled_app(scenario.app)
        app = app_model(path)
        async with (
            SimCompanion(app, faults=scenario.faults, seed=seed) as sim,
            IdbDevice.connect(
                sim.address, bundle_id=scenario.app, timeout=timeout, disposable=True
            ) as d,
        ):
            yield d
    elif spec.startswith("idb:"):
        address = spec.removeprefix("idb:")
        try:
            parse_address(address)
        except InputError as exc:
            raise InputError(str(exc), "--device") from None
        async with IdbDevice.connect(
            address,
            bundle_id=scenario.app,
            timeout=timeout,
            disposable=world is not None and world.disposable,
        ) as d:
            try:
                yield d
            finally:
                await _end_app(d, scenario.app, timeout)
    else:
        raise InputError(
            f"unknown device {spec!r}; expected 'sim', 'sim:APP.yaml', 'idb:HOST:PORT', "
            f"'textual:package.module:AppClass' or '{FORM}'",
            "--device",
        )


async def _end_app(device: Device, bundle_id: str, timeout: float) -> None:
    """End the app a run left running on a companion that outlives it (as a Textual app's
    processes are reaped), after the cassette is closed: no recorded call. One that will
    not end within ``timeout`` is left: the run is over either way."""
    with contextlib.suppress(Exception):
        async with Deadline(timeout):
            if await device.is_running(bundle_id):
                await device.terminate(bundle_id)


def answers(spec: str, timeout: float = 5.0) -> str:
    """Whether a pooled ``idb:`` companion still answers (empty) or why not: it connects and
    describes its target within ``timeout``. A device orav starts for each run (``sim``) or
    that orav cannot ask apart from a run (``class:``, ``textual:``) is taken to answer."""
    import asyncio

    from orav.drivers.idb import IdbDevice

    if not spec.startswith("idb:"):
        return ""

    async def describe() -> None:
        device = await IdbDevice.open(spec.removeprefix("idb:"), bundle_id="", timeout=timeout)
        await device.close()

    try:
        asyncio.run(describe())
    except (DeviceError, InputError, OSError) as exc:
        return str(exc) or type(exc).__name__
    return ""


def device_for(scenario: Scenario, flag: str | None = None, configured: str | None = None) -> str:
    """Where ``scenario`` runs: the command line's ``--device`` (``flag``), else the
    scenario's ``device:``, else the config file's (``configured``), else its Textual app
    when its app is ``module:App``, else the simulator (which serves the shipped app of its
    bundle id)."""
    chosen = flag or scenario.device or configured
    if chosen:
        return chosen
    return f"textual:{scenario.app}" if ":" in scenario.app else DEFAULT_DEVICE


def check_app(spec: str, scenario: Scenario) -> None:
    """Before anything starts: an InputError when the simulator of ``spec`` does not serve
    the scenario's app (one it installs, ``install:``, aside), naming the app, the device and
    how to name the one it needs; other devices say so when they launch it."""
    if scenario.install is not None or not scenario.app:
        return
    if spec == "sim":
        from orav.sim.apps import BUNDLED

        if scenario.app in BUNDLED:
            return
        has = f"`sim` serves {', '.join(sorted(BUNDLED))}"
    elif spec.startswith("sim:"):
        served = app_model(Path(spec.removeprefix("sim:"))).bundle_id
        if served == scenario.app:
            return
        has = f"{spec} is the app model of {served}"
    else:
        return
    needs = (
        f"it is a Textual app: `device: textual:{scenario.app}`"
        if ":" in scenario.app
        else "name the device it is on: `device:` in the scenario (sim:APP.yaml, idb:HOST:PORT)"
    )
    what = f"scenario {scenario.name!r} runs app {scenario.app!r}, which is not on {spec} ({has}): "
    raise InputError(what + f"{needs}, or --device", "--device")


def resolve_app(spec: str, scenario: Scenario) -> Scenario:
    """``scenario`` with its app: as written, else the device's only app (the app model of
    ``sim:APP.yaml``, the Textual app of ``textual:module:Class``); where the device has
    several, InputError naming them."""
    if scenario.app:
        return scenario
    if spec.startswith("sim:"):
        app = app_model(Path(spec.removeprefix("sim:"))).bundle_id
    elif spec.startswith(("textual:", "textual+", IN_PROCESS)):
        from orav.drivers.textual.spec import parse_spec

        app = parse_spec(spec.removeprefix(IN_PROCESS)).app
    elif spec == "sim":
        from orav.sim.apps import BUNDLED

        choices = ", ".join(sorted(BUNDLED))
        what = (
            f"scenario {scenario.name!r} names no app, and `sim` serves several ({choices}): "
            "name one with `app:`, or give --device sim:APP.yaml"
        )
        raise InputError(what, "app")
    else:
        what = f"scenario {scenario.name!r} names no app: name the app to run on {spec} with `app:`"
        raise InputError(what, "app")
    return evolve(scenario, app=app)


def app_model(path: Path) -> AppModel:
    """The app model at ``path``, loaded once per version of the file (``orav explore`` needs
    it before the run as well as for it: parsing a large one twice doubled its start-up)."""
    try:
        stat = path.stat()
        version = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    except OSError:
        version = None  # let the loader say what is wrong with the path
    if version is None or version not in _APP_MODELS:
        from orav.sim import load_app_model

        model = load_app_model(path)
        if version is None:
            return model
        _APP_MODELS.clear()  # one at a time: a process runs one app
        _APP_MODELS[version] = model
    return _APP_MODELS[version]


_APP_MODELS: dict[tuple[str, int, int], AppModel] = {}
