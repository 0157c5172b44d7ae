"""``RemoteTextualDevice``: a Textual app driven in its own Python environment, through the
companion (``companion.serve``) running under that environment's interpreter.

The companion is a child process speaking JSON lines over its stdin and stdout; its stderr
(what the app printed, Textual's crash report) is read all along and kept, its end becoming the
crash report of a failed app. Every call is bounded by ``timeout``: an app whose handler blocks
its event loop does not hold orav up; the companion is killed, the call is a DeviceError and
the app is no longer running (a relaunch starts a new companion). A companion that exits is
an app that is not running, with its exit status and last words as the reason.

Given a ``Sandbox`` (``orav.sandbox``), the companion runs in it: its working folder the copy,
its home, XDG folders and temporary folder inside, the network off where a namespace can be
made; the device is then an ``orav.device.World`` that is disposable, whose ``changes`` are
the sandbox's. ``sandboxed`` opens the device a ``textual:`` or ``textual+PYTHON:`` spec
names this way (under orav's own interpreter when no other is named) and removes the sandbox
after it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Self

import attrs

from orav.codec import JSONRefused, parse_json
from orav.drivers.textual.answers import Misshapen, check
from orav.drivers.textual.calls import STALLED_START, START_SECONDS, TextualCalls, progressing
from orav.drivers.textual.companion import HERE, PROTOCOL
from orav.drivers.textual.companion.session import Refused
from orav.drivers.textual.spec import parse_spec
from orav.errors import DeviceError, InputError
from orav.model import DeviceInfo, WorldChanges
from orav.sandbox import MARK, Sandbox, WorldOptions, kill_marked, new_mark

# Loads the companion package by path under a name of its own (no clash with the app's
# modules, no orav needed), then serves: ``python -c BOOTSTRAP PACKAGE_DIR CONFIG``.
BOOTSTRAP = (
    "import importlib.util as u, sys\n"
    "s = u.spec_from_file_location('orav_textual_companion', sys.argv[1] + '/__init__.py',"
    " submodule_search_locations=[sys.argv[1]])\n"
    "m = u.module_from_spec(s); sys.modules[s.name] = m; s.loader.exec_module(m)\n"
    "from orav_textual_companion.serve import main\n"
    "sys.exit(main(sys.argv[2:]))\n"
)
STDERR_KEPT = 256 * 1024  # bytes of the companion's stderr kept (its end)
LINE_LIMIT = 64 * 1024 * 1024  # the longest answer read (a huge screen's look)


class RemoteTextualDevice(TextualCalls):
    """The app ``module:Class`` under ``python`` (the app's environment's interpreter).

    Use it as ``async with RemoteTextualDevice("toolong.ui:UI", ".venv-app/bin/python")``
    (which starts the companion and checks that it loads the app) or call ``start()`` and
    ``close()``.
    """

    def __init__(
        self,
        app: str,
        python: str | Path,
        *,
        arguments: Mapping[str, Any] | None = None,
        name: str | None = None,
        size: tuple[int, int] = (80, 24),
        timeout: float = 5.0,
        max_wait: float = 30.0,
        cwd: str | Path | None = None,
        sandbox: Sandbox | None = None,
        paths: Sequence[str] = (),
    ) -> None:
        """``paths`` are put before the interpreter's own import path (orav's own, when the
        app runs under orav's interpreter, so it imports as it would in orav's process)."""
        super().__init__()
        self.app_ref = app
        # A path is taken from orav's folder, not the app's (``cwd``); a bare name from PATH.
        self.python = os.path.abspath(python) if os.sep in str(python) else str(python)
        self.arguments = dict(arguments or {})
        self.name = name or app.rpartition(":")[2]
        self.size = size
        self.timeout = timeout
        self.max_wait = max_wait
        self.sandbox = sandbox
        self.cwd = sandbox.work if sandbox is not None and cwd is None else cwd
        self.paths = tuple(paths)
        self.textual_version: str | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._drain: asyncio.Task | None = None
        self._stderr = bytearray()
        self._lock = asyncio.Lock()
        self._number = 0
        self._failure: str | None = None
        self._mark = new_mark()  # on every process the app starts: all ended at close

    @classmethod
    @contextlib.asynccontextmanager
    async def sandboxed(
        cls, spec: str, options: WorldOptions, *, timeout: float = 5.0
    ) -> AsyncIterator[RemoteTextualDevice]:
        """The app ``spec`` names (``textual:`` or ``textual+PYTHON:``) started in a new
        sandbox made as ``options`` say; closed, and the sandbox thrown away, after."""
        parsed = parse_spec(spec)
        sandbox = await asyncio.to_thread(Sandbox.make, options=options)
        try:
            python, paths = parsed.python, tuple[str, ...]()
            if python is None:  # orav's interpreter: the app imports as it would in-process
                python, paths = sys.executable, _import_path(sandbox)
            device = cls(
                parsed.app,
                python,
                arguments=dict(parsed.arguments),
                size=parsed.size or (80, 24),
                timeout=timeout,
                sandbox=sandbox,
                paths=paths,
            )
            async with device:
                yield device
        finally:
            await asyncio.to_thread(sandbox.remove)

    @classmethod
    def from_spec(cls, spec: str, **options: Any) -> RemoteTextualDevice:
        """``textual+PYTHON:package.module:AppClass[@WIDTHxHEIGHT][?name=value&...]``."""
        parsed = parse_spec(spec)
        if parsed.python is None:
            raise InputError(f"expected textual+PYTHON:module:AppClass, got {spec!r}", "--device")
        if parsed.size is not None:
            options.setdefault("size", parsed.size)
        return cls(parsed.app, parsed.python, arguments=dict(parsed.arguments), **options)

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def stderr(self) -> str:
        """The end of what the companions (the app, over every launch) printed on stderr."""
        return self._stderr.decode("utf-8", "replace")

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    # --- the companion process -----------------------------------------------------------------

    async def start(self) -> None:
        """Start the companion unless it runs: InputError (``--device``) when the interpreter
        or the app cannot be loaded, DeviceError when it does not greet in time."""
        if self._alive():
            return
        await self._kill()
        config = {"app": self.app_ref, "arguments": self.arguments, "size": list(self.size)}
        command = [self.python, "-c", BOOTSTRAP, str(HERE), json.dumps(config)]
        env = dict(os.environ)
        env[MARK] = self._mark  # inherited by whatever the app starts, however it detaches
        if self.paths:
            env["PYTHONPATH"] = os.pathsep.join(self.paths)
        if self.sandbox is not None:
            command, env = self.sandbox.command(command), self.sandbox.environment(env)
        try:
            process = await asyncio.create_subprocess_exec(
                *command,
                env=env,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=self.cwd,
                limit=LINE_LIMIT,
                start_new_session=True,  # its own process group: killed whole
            )
        except OSError as exc:
            raise InputError(f"cannot run {self.python}: {exc.strerror}", "--device") from None
        self._process, self._failure = process, None
        assert process.stderr is not None
        self._drain = asyncio.create_task(self._keep_stderr(process.stderr))
        try:
            hello = await self._read(max(START_SECONDS, self.timeout), "start", starting=True)
        except Refused as exc:
            raise InputError(
                f"{self.python} could not start the companion: {exc}", "--device"
            ) from None
        if hello.get("protocol") != PROTOCOL:
            await self._kill()
            raise DeviceError(
                f"the companion under {self.python} speaks protocol {hello.get('protocol')!r}, "
                f"not {PROTOCOL}"
            )
        if "failed" in hello:
            await self._kill()
            raise InputError(f"{hello['failed']} (under {self.python})", "--device")
        self.textual_version = hello.get("textual")

    def _alive(self) -> bool:
        return self._process is not None and self._process.returncode is None

    async def _keep_stderr(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(65536):
            self._stderr += chunk
            del self._stderr[:-STDERR_KEPT]

    async def _kill(self, reason: str | None = None) -> None:
        """Kill the companion's process group (bounded waits) and say why it is gone."""
        process, self._process = self._process, None
        if process is None:
            return
        if reason is not None:
            self._failure = reason
        try:  # even when the companion is gone: what it started may not be
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        kill_marked(self._mark)
        await self._reap(process)

    async def _reap(self, process: asyncio.subprocess.Process) -> None:
        """Wait, bounded, for the process to end and its stderr to be read to the end."""
        try:
            await asyncio.wait_for(process.wait(), self.timeout)
            if self._drain is not None:
                await asyncio.wait_for(self._drain, 1.0)
        except TimeoutError:
            pass

    def _exited(self, process: asyncio.subprocess.Process) -> str:
        said_lines = [line for line in self.stderr.splitlines() if line.strip()]
        fatal = [line for line in said_lines if line.startswith("Fatal Python error")]
        last = (fatal or said_lines or [""])[-1]
        said = f": {last.strip()}" if last else ""
        return f"the app's companion exited with status {process.returncode}{said}"

    async def _read(self, limit: float, what: str, starting: bool = False) -> dict[str, Any]:
        """The companion's next line, within ``limit`` seconds, or, ``starting`` (the app's
        start), within ``limit`` seconds of the companion's CPU time (``calls.progressing``)."""
        process = self._process
        assert process is not None and process.stdout is not None
        reading = asyncio.ensure_future(process.stdout.readline())
        try:
            if starting:
                line = await progressing(reading, limit, STALLED_START, _cpu_of(process.pid))
            else:
                line = await asyncio.wait_for(reading, limit)
        except TimeoutError:
            within = f"{limit:g} s" + (" of CPU time" if starting else "")
            await self._kill(
                f"the app did not answer {what} within {within}; its companion was killed"
            )
            raise DeviceError(
                f"textual app {self.name} did not finish {what} within {within} "
                "(the companion was killed)"
            ) from None
        except asyncio.CancelledError:
            await self._kill(f"{what} was cut off; the companion was killed")
            raise
        if not line:
            await self._reap(process)
            failure = self._exited(process)
            await self._kill(failure)
            raise Refused(failure)
        try:
            message = parse_json(line, max_bytes=LINE_LIMIT)
        except JSONRefused:
            await self._kill(f"the companion wrote {line[:80]!r}, not JSON")
            raise DeviceError(f"textual app {self.name}: {self._failure}") from None
        if not isinstance(message, dict):
            raise DeviceError(f"textual app {self.name}: the companion wrote {line[:80]!r}")
        return message

    async def _call(self, name: str, args: dict[str, Any], takes: float = 0.0) -> Any:
        async with self._lock:
            if not self._alive():
                return self._gone(name)
            process = self._process
            assert process is not None and process.stdin is not None
            self._number += 1
            request = {"id": self._number, "call": name, "args": args}
            try:
                process.stdin.write(json.dumps(request).encode() + b"\n")
                await asyncio.wait_for(process.stdin.drain(), self.timeout)
                answer = await self._read(self.timeout + takes, name, starting=name == "launch")
            except (BrokenPipeError, ConnectionResetError):
                await self._kill(self._exited(process))
                return self._gone(name)
            except Refused:
                return self._gone(name)
        if answer.get("id") != self._number:
            await self._kill("the companion answered out of turn")
            raise DeviceError(f"textual app {self.name}: the companion answered out of turn")
        if "result" in answer:
            try:
                return check(name, answer["result"])
            except Misshapen as exc:
                await self._kill(f"the companion answered {exc}")
                raise DeviceError(
                    f"textual app {self.name}: the companion answered {exc}"
                ) from None
        if "refused" in answer:
            raise Refused(answer["refused"])
        if "failed" in answer:
            raise DeviceError(f"textual app {self.name} failed to start: {answer['failed']}")
        raise DeviceError(f"textual app {self.name}: {answer.get('error', answer)}")

    def _gone(self, name: str) -> Any:
        """What a call answers when the companion is not running: the app is not running."""
        if name in ("state", "look"):
            return {"running": False, "failure": self._failure}
        if name in ("terminate", "settle"):
            return None
        why = f"; {self._failure}" if self._failure else ""
        raise Refused(f"the app is not running ({name}){why}")

    # --- lifecycle -------------------------------------------------------------------------

    async def launch(
        self,
        bundle_id: str = "",
        *,
        arguments: Sequence[str] = (),
        environment: Mapping[str, str] | None = None,
    ) -> None:
        """Start a fresh app unless one is running (a new companion when the last one is gone).
        The app may take ``START_SECONDS`` of the companion's CPU time to be ready."""
        if arguments or environment:
            raise self._ios_only("launch with arguments or an environment")
        await self.start()
        try:
            await self._call("launch", {}, takes=max(START_SECONDS - self.timeout, 0.0))
        except Refused as exc:
            raise DeviceError(f"textual app {self.name} failed to start: {exc}") from None

    async def terminate(self, bundle_id: str = "") -> None:
        await self._call("terminate", {"timeout": self.timeout})

    # --- the app's world ---------------------------------------------------------------------

    @property
    def disposable(self) -> bool:
        """The app runs in a sandbox orav made and throws away."""
        return self.sandbox is not None

    async def describe(self) -> DeviceInfo:
        info = await super().describe()
        if self.sandbox is None:
            return info
        return attrs.evolve(info, disposable=True, network=self.sandbox.network)

    async def changes(self) -> WorldChanges:
        """What changed in the sandbox since the last call; none without one."""
        if self.sandbox is None:
            return WorldChanges()
        return await asyncio.to_thread(self.sandbox.changes)

    async def close(self) -> None:
        """Stop the app and the companion: ``quit``, then a kill when it does not go in time."""
        process = self._process
        if process is not None and process.returncode is None and process.stdin is not None:
            try:
                process.stdin.write(b'{"id": 0, "call": "quit"}\n')
                await asyncio.wait_for(process.stdin.drain(), self.timeout)
                process.stdin.close()
                await asyncio.wait_for(process.wait(), self.timeout)
            except (TimeoutError, BrokenPipeError, ConnectionResetError):
                pass
        await self._kill()


def _import_path(sandbox: Sandbox) -> tuple[str, ...]:
    """orav's import path beyond its interpreter's own (the working folder, a test's folder,
    ``PYTHONPATH``), each folder of the working folder taken from its copy in the sandbox."""
    own = (sys.prefix, sys.base_prefix)
    return tuple(
        str(sandbox.inside(entry))
        for entry in sys.path
        if entry and not entry.startswith(own) and os.path.isdir(entry)
    )


def _cpu_of(pid: int) -> Callable[[], float]:
    """The CPU time (seconds) the process ``pid`` has spent so far, read from /proc; where
    there is none (or the process is gone), the last time read: no progress."""
    ticks = os.sysconf("SC_CLK_TCK")
    last = [0.0]

    def spent() -> float:
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[-1].split()
            last[0] = (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
        except (OSError, IndexError, ValueError):
            pass
        return last[0]

    return spent
