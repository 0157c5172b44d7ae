"""The companion: one Textual app served over JSON lines on stdin and stdout, in the app's own
Python environment (3.9 or later, the app's Textual, nothing of orav's).

orav starts it as ``PYTHON -c BOOTSTRAP PACKAGE_DIR CONFIG`` (``orav.drivers.textual.remote``):
the bootstrap loads this package by path under a name of its own, ``CONFIG`` is JSON
``{"app": "module:Class", "arguments": {...}, "size": [w, h]}``. Why JSON lines over stdio: the
companion is a child of orav (no port to find or secure, it dies with its pipes), JSON needs
nothing the app's environment lacks, and one line per message is easy to bound and to read.

Protocol (version ``PROTOCOL``): the companion first writes a hello,
``{"protocol": 1, "textual": "0.58.1", "python": "3.11.7"}`` (with ``"failed": reason`` when
the app class cannot be loaded, after which it exits). Then each request line
``{"id": N, "call": NAME, "args": {...}}`` gets one answer line, in order:
``{"id": N, "result": ...}``, ``{"id": N, "refused": reason}`` (the app cannot take it),
``{"id": N, "failed": reason}`` (the app cannot start) or ``{"id": N, "error": reason}`` (a
request this companion does not understand). ``quit`` (or the end of stdin) stops the app and
the companion. The calls are ``host.Host``'s.

Whatever the app prints goes to stderr (file descriptor 1 is pointed there; the protocol has a
descriptor of its own), so orav captures it with Textual's crash report, and so does the
Python stack of a crash in native code (``faulthandler``).
"""

from __future__ import annotations

import asyncio
import faulthandler
import json
import os
import platform
import sys
import threading
from typing import IO, Any

from . import PROTOCOL, compat
from .host import Failed, Host, load_app
from .session import Refused, describe_exception


def main(argv: list[str]) -> int:
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    os.dup2(2, 1)  # the app's prints (and anything else on stdout) go to stderr
    faulthandler.enable()  # a crash in native code leaves its Python stack on stderr
    config = json.loads(argv[0])
    hello: dict[str, Any] = {
        "protocol": PROTOCOL,
        "textual": compat.version(),
        "python": platform.python_version(),
    }
    try:
        factory = _factory(config["app"], config.get("arguments") or {})
    except Failed as exc:
        hello["failed"] = str(exc)
        _send(channel, hello)
        return 0
    _send(channel, hello)
    width, height = config.get("size") or (80, 24)
    host = Host(factory, (int(width), int(height)), echo=sys.stderr)
    asyncio.run(_serve(host, channel))
    return 0


def _factory(spec: str, arguments: dict[str, str]) -> Any:
    module_name, _, class_name = spec.partition(":")
    app_class = load_app(module_name, class_name)
    if not arguments:
        return app_class
    return lambda: app_class(**arguments)


async def _serve(host: Host, channel: IO[str]) -> None:
    loop = asyncio.get_running_loop()
    requests: asyncio.Queue[bytes] = asyncio.Queue()

    def read() -> None:  # a thread: blocking reads of stdin, handed to the loop
        for line in sys.stdin.buffer:
            loop.call_soon_threadsafe(requests.put_nowait, line)
        loop.call_soon_threadsafe(requests.put_nowait, b"")

    threading.Thread(target=read, name="orav companion stdin", daemon=True).start()
    try:
        while line := await requests.get():
            try:
                request = json.loads(line)
                number, name = request["id"], request["call"]
                args = request.get("args") or {}
            except (ValueError, KeyError, TypeError) as exc:
                _send(channel, {"id": None, "error": f"bad request: {exc}"})
                continue
            if name == "quit":
                await host.stop()
                _send(channel, {"id": number, "result": None})
                return
            _send(channel, await _answer(host, number, name, args))
    finally:
        await host.stop()


async def _answer(host: Host, number: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
    try:
        return {"id": number, "result": await host.call(name, args)}
    except Refused as exc:
        return {"id": number, "refused": str(exc)}
    except Failed as exc:
        return {"id": number, "failed": str(exc)}
    except TypeError as exc:  # arguments the call does not take
        return {"id": number, "error": f"bad arguments for {name}: {describe_exception(exc)}"}


def _send(channel: IO[str], message: dict[str, Any]) -> None:
    channel.write(json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n")
    channel.flush()
