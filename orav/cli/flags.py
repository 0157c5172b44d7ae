"""The flags several commands share, and the one place a flag's value is checked.

A bad value is an ``InputError`` naming the flag (exit 2, one line), as a bad scenario names
its file, line and column. Heavy modules are imported only when a value needs them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from orav.errors import InputError

if TYPE_CHECKING:
    from orav.agents import Agent
    from orav.config import Config
    from orav.judges import Judge
    from orav.model import Credentials
    from orav.sandbox import WorldOptions

F = TypeVar("F", bound=Callable[..., Any])


def examples(*commands: str) -> str:
    """A command's examples, the end of its ``--help`` and of docs/cli.md: each runs as written
    from a fresh clone of orav, in the reference's order (tests/test_guides_followed.py)."""
    return "\b\nExamples:\n" + "\n".join(f"  $ {command}" for command in commands)


device_option = click.option(
    "--device",
    default="sim",
    show_default=True,
    help="'sim' (the simulator with the demo app), 'sim:APP.yaml' (with your app model), "
    "'idb:HOST:PORT' (an idb companion), 'textual:package.module:AppClass' (a Textual app, "
    "in a sandbox of its own; 'textual-in-process:...' in orav's process, in your own world) "
    "or 'class:package.module:Class[?name=value&...]' (a Device of your own, "
    "imported from the working folder; docs/guide-device.md).",
)
_world_options = [
    click.option(
        "--network/--no-network",
        default=None,
        help="Let a Textual app reach the network from its sandbox, or not (default: off, "
        "or the config's `network`).",
    ),
    click.option(
        "--keep-sandbox",
        is_flag=True,
        help="Keep a Textual app's sandbox folder after the run (its path is printed), to see "
        "what the app did there.",
    ),
    click.option(
        "--disposable",
        is_flag=True,
        help="Declare an idb: device orav's own to throw away (the explorer may then try "
        "destructive controls there); the config's `disposable`. The simulator always is.",
    ),
]
base_url_option = click.option(
    "--base-url", default=None, help="OpenAI-compatible API base URL (else OPENAI_BASE_URL)."
)
agent_options = click.option(
    "--agent-option",
    "agent_options",
    multiple=True,
    metavar="KEY=VALUE",
    help="An LLM agent setting, e.g. temperature=0.2, send_screenshot=false (docs/agents.md).",
)
judge_option = click.option(
    "--judge",
    "judge_spec",
    default=None,
    metavar="SPEC",
    help="Who decides the claims in words (criteria, preconditions, assert steps): "
    "'table:FILE' (answers or selector checks from a YAML table: free, deterministic), "
    "'openai:MODEL' (a model; with --base-url and --agent-option as an LLM agent's) or "
    "'class:package.module:Class[?name=value&...]'. Default: the openai agent's own model, "
    "else none (docs/scenarios.md).",
)
_verbosity_options = [
    click.option("-q", "--quiet", is_flag=True, help="Print nothing while the run goes."),
    click.option(
        "-v",
        "--verbose",
        count=True,
        help="Also print the run's phases and every device call while it goes.",
    ),
]


def regression_check_option(when: str, whose: str, default: str = "") -> Callable[[F], F]:
    """``--regression-check PATH`` (repeatable): the passing flows rerun live ``when``."""
    return click.option(
        "--regression-check",
        "regression_check",
        multiple=True,
        type=click.Path(path_type=Path),
        help=f"{when}, rerun live the previously passing flows of {whose} under this path "
        "(golden cassettes, or folders of them; repeatable) and report what no longer works "
        f"(exit 1).{default}",
    )


def world_options(function: F) -> F:
    """``--network``, ``--keep-sandbox`` and ``--disposable``: the app's world (docs/sandbox.md)."""
    for option in reversed(_world_options):
        function = option(function)
    return function


def world(
    config: Config, network: bool | None, keep_sandbox: bool, disposable: bool
) -> WorldOptions:
    """The app's world as the flags and the config say (a flag wins); orav's cassettes are
    not copied into a sandbox."""
    from orav.sandbox import WorldOptions

    return WorldOptions(
        files=config.sandbox_files,
        skip=(config.recordings,),
        network=config.network if network is None else network,
        keep=keep_sandbox,
        disposable=config.disposable or disposable,
    )


def world_argv(options: WorldOptions) -> list[str]:
    """The flags that make ``options`` again in a worker (which reads the config itself)."""
    flags = [("--keep-sandbox", options.keep), ("--disposable", options.disposable)]
    return ["--network" if options.network else "--no-network"] + [f for f, on in flags if on]


def verbosity_options(function: F) -> F:
    """``-q`` and ``-v``, read back by ``verbosity``."""
    for option in reversed(_verbosity_options):
        function = option(function)
    return function


def verbosity(quiet: bool, verbose: int) -> int:
    """0 for ``-q``, 1 by default, one more for each ``-v``."""
    if quiet and verbose:
        raise click.UsageError("-q and -v contradict each other")
    return 0 if quiet else 1 + verbose


def needs_agent(agent_spec: str | None, given: Mapping[str, object]) -> None:
    """Flags that only tune an agent (``--base-url``, ``--agent-option``, …) mean nothing
    without ``--agent``: a usage error (exit 2) naming those of ``given`` that were set."""
    named = [flag for flag, value in given.items() if value]
    if agent_spec is None and named:
        verb = "needs" if len(named) == 1 else "need"
        raise click.UsageError(f"{', '.join(named)} {verb} --agent")


def make_agent(
    spec: str,
    base_url: str | None,
    options: Sequence[str] = (),
    config: Config | None = None,
) -> Agent:
    """The agent of ``--agent``; an LLM's settings start from the config file's
    ``agent_options`` and ``base_url``, which the flags override."""
    from orav.specs import make_agent

    settings = dict(config.agent_options) if config and spec.startswith("openai:") else {}
    if config is not None and not spec.startswith("openai:"):
        config.ignored(("agent_options", "base_url"), f"the agent {spec} is no openai: model")
    if config is not None and base_url == config.base_url and not spec.startswith("openai:"):
        base_url = None  # the file's LLM settings do not apply to the scripted agent
    settings.update(agent_setting(text) for text in options)
    if base_url:
        from orav.agents.openai_config import url_problem

        problem = url_problem(base_url)
        if problem:
            raise InputError(problem, "--base-url")
        settings["base_url"] = base_url
    if settings and spec in ("scripted", "explorer"):
        flag = "--agent-option" if options else "--base-url"
        raise InputError(f"the {spec} agent takes no options", flag)
    if settings and spec.startswith("class:"):
        flag = "--agent-option" if options else "--base-url"
        raise InputError(
            "an agent class takes its arguments in the spec: class:module:Class?name=value", flag
        )
    return make_agent(spec, **settings)


def agent_setting(text: str) -> tuple[str, object]:
    """``KEY=VALUE`` with VALUE read as a YAML scalar (0.2, false, 7, text)."""
    from orav.codec import parse_yaml

    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise InputError(f"expected KEY=VALUE, got {text!r}", "--agent-option")
    parsed = parse_yaml(value, "--agent-option") if value.strip() else ""
    return key.strip(), parsed if isinstance(parsed, (bool, int, float)) else value


def device_pool(given: Sequence[str], config: Config) -> list[str]:
    """The devices of ``--device`` (repeated, or comma-separated), else the config's
    ``devices``, else its ``device``, else ``sim`` (a scenario's ``device:`` wins over the
    config's: ``orav.cli.recording.Where``). Several are ``idb:`` companions, each listed once: a
    suite runs one scenario on each at a time."""
    specs = list(given) or list(config.devices) or [config.device or "sim"]
    found = []
    for spec in specs:
        one = spec.startswith(("class:", "textual:", "textual+"))  # a comma in their ?arguments
        found += [part.strip() for part in spec.split(",")] if not one else [spec]
    where = "--device" if given else config.source
    if len(found) > 1:
        if not all(d.startswith("idb:") and len(d) > 4 for d in found):
            raise InputError("several devices are idb:HOST:PORT companions only", where)
        twice = next((d for d in found if found.count(d) > 1), None)
        if twice is not None:
            raise InputError(f"{twice} is listed twice: one run at a time each", where)
    return found


def default_workers(
    pool: Sequence[str], jobs: int, *, cores: int | None = None, load: float | None = None
) -> tuple[int, str]:
    """How many runs at once when ``--workers`` is not given, and why: one per device of a
    pool; for a device each run starts for itself (``sim``, ``textual:``), whose work is the
    machine's CPU, one per core that is free (the cores this process may use, less the load
    average of the last minute: a simulator's runs are CPU-bound, so a second worker on a
    taken core only shares it); else one (a single device of the user's). Never more than the
    runs."""
    import math
    import os

    if len(pool) > 1:
        count, why = len(pool), f"one per device of the pool of {len(pool)}"
    elif pool[0].split(":")[0] in ("sim", "textual") or pool[0].startswith("textual+"):
        if cores is None:
            usable = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
            cores = len(usable) if usable else os.cpu_count() or 1
        load = os.getloadavg()[0] if load is None and hasattr(os, "getloadavg") else load or 0.0
        count = max(1, cores - math.ceil(load - 0.5))
        kind = "simulator" if pool[0].startswith("sim") else "Textual app"
        why = (
            f"{cores} core{'s' * (cores > 1)} at load {load:.1f}, "
            f"each worker with a {kind} of its own"
        )
    else:
        count, why = 1, f"one device, {pool[0]}"
    return max(1, min(count, jobs, 64)), why


def credentials(text: str) -> Credentials:
    """``USER:PASS`` of ``--credentials``."""
    from orav.model import Credentials

    user, sep, password = text.partition(":")
    if not sep or not user or not password:
        raise InputError("expected USER:PASS", "--credentials")
    return Credentials(user, password)


def expanded(paths: Iterable[Path], suffixes: tuple[str, ...]) -> list[Path | InputError]:
    """Each argument's files (a folder's, a glob's), or the InputError saying it names none,
    in order: a command reports a bad argument and goes on with the others."""
    from orav.suite import expand

    found: list[Path | InputError] = []
    for path in paths:
        try:
            found += [p for p in expand([path], suffixes=suffixes) if p not in found]
        except InputError as exc:
            found.append(exc)
    return found


@contextmanager
def file_errors(verb: str, path: Path) -> Iterator[None]:
    """A path orav cannot write (or read back) is bad input naming the path, exit 2."""
    try:
        yield
    except OSError as exc:
        raise InputError(f"cannot {verb}: {exc.strerror}", str(exc.filename or path)) from None


def make_judge(
    spec: str | None, base_url: str | None = None, options: Sequence[str] = ()
) -> Judge | None:
    """The judge of ``--judge`` (None when not given); a model judge takes ``--base-url`` and
    the ``--agent-option`` settings, as the LLM agent does."""
    if spec is None:
        return None
    from orav.specs import make_judge

    if not spec.startswith("openai:"):
        return make_judge(spec)
    settings = dict(agent_setting(text) for text in options)
    if base_url:
        settings["base_url"] = base_url
    return make_judge(spec, **settings)


def for_agent(
    agent_spec: str | None, judge_spec: str | None, base_url: str | None, options: Sequence[str]
) -> tuple[str | None, Sequence[str]]:
    """``--base-url`` and ``--agent-option`` as the agent takes them: when only the judge is a
    model (``--judge openai:MODEL`` beside a scripted agent), they are the judge's alone."""
    judges = judge_spec is not None and judge_spec.startswith("openai:")
    if judges and not (agent_spec or "").startswith(("openai:", "class:")):
        return None, ()
    return base_url, options
