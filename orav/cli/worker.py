"""A suite's worker process: ``orav`` commands run one after another in one process, so a
suite with ``--workers N`` pays orav's imports once a worker, not once a scenario.

Run as ``python -m orav.cli.worker`` by ``orav.suite.Worker``. Each request is one JSON line
on stdin, ``{"args": [...], "log": PATH}``: the command line after ``orav`` and the file its
output goes to (stdout and stderr, the worker's own descriptors 1 and 2 pointed at it, so a
child process's output goes there too). The answer is one line on the descriptor stdout was
when the worker started, ``{"status": N}``, the command's exit status. Each command is run as
``orav`` runs it (``orav.cli.main``): its scenario gets its own world, cassette and deadline;
what outlives a command is the imports and their caches. End of stdin ends the worker.
"""

from __future__ import annotations

import json
import os
import sys
from typing import IO


def main() -> None:
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w")  # not inherited by a child
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # nothing else ever writes on it
    try:
        for line in sys.stdin:
            request = json.loads(line)
            _answer(answers, _run(request["args"], request["log"]))
    except KeyboardInterrupt:  # Ctrl-C reaches the suite's whole process group
        sys.exit(130)


def _run(args: list[str], log: str) -> int:
    """``orav ARGS`` with its output in ``log``; its exit status."""
    from orav.cli import cli

    saved = [os.dup(fd) for fd in (1, 2)]
    into = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    _flush()
    for fd in (1, 2):
        os.dup2(into, fd)
    os.close(into)
    try:
        cli.main(args, prog_name="orav", standalone_mode=True)
        status = 0
    except SystemExit as exit:
        status = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
    finally:
        _flush()
        for fd, kept in zip((1, 2), saved, strict=True):
            os.dup2(kept, fd)
            os.close(kept)
    return status


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a command closed it, or the log's disk is full
            pass


def _answer(answers: IO[str], status: int) -> None:
    answers.write(json.dumps({"status": status}) + "\n")
    answers.flush()


if __name__ == "__main__":
    main()
