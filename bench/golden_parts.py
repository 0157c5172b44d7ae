"""Where a golden's CPU goes: COUNT goldens replayed in one process (no pytest), by part.

The demo app's four goldens (``recordings/*.cassette``) are replayed in turn, each as
``pytest --orav-cassettes`` replays it (``asyncio.run(orav.session.replay(path))``), after a
warm-up round. The parts are timed by wrapping the functions that do them (no profiler, whose
cost per call would inflate the Python-heavy parts): reading the cassette, building the run
machine, each phase of the run (``_Run.on_enter_*``: what orav does in a step), and the
transition listener. What is left of ``_Run.execute`` once the phases and the listener are
taken out is python-statemachine driving the events (its floor: ``bench/engine_floor.py``).
The garbage collector's time is counted apart (``gc.callbacks``), wherever it struck.

Run: python bench/golden_parts.py [COUNT]
"""

from __future__ import annotations

import asyncio
import functools
import gc
import inspect
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orav.engine
import orav.session
from orav.machines.run import RunMachine

ROOT = Path(__file__).resolve().parent.parent
spent: Counter[str] = Counter()


def timed(function: Callable[..., Any], part: str) -> Callable[..., Any]:
    """``function`` adding its CPU time to ``part`` (a coroutine function stays one)."""
    if inspect.iscoroutinefunction(function):

        @functools.wraps(function)
        async def waited(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return await function(*args, **kwargs)
            finally:
                spent[part] += time.process_time() - start

        return waited

    @functools.wraps(function)
    def called(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[part] += time.process_time() - start

    return called


def instrument() -> None:
    session, run = orav.session, orav.engine._Run
    session.read_cassette = timed(session.read_cassette, "reading the cassette")
    RunMachine.__init__ = timed(RunMachine.__init__, "building the run machine")
    for name, phase in list(vars(run).items()):
        if name.startswith("on_enter_"):
            setattr(run, name, timed(phase, "phases (orav's step)"))
    listener = orav.engine._Transitions
    listener.on_transition = timed(listener.on_transition, "transition listener")
    run.execute = timed(run.execute, "execute")


def collector() -> None:
    """Count the garbage collector's CPU time in ``spent``."""
    began = [0.0]

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = time.process_time()
        else:
            spent["garbage collector (anywhere)"] += time.process_time() - began[0]

    gc.callbacks.append(note)


def main(count: int) -> None:
    goldens = sorted((ROOT / "recordings").glob("*.cassette"))
    instrument()
    for path in goldens:  # warm: imports, caches, the library's signature caches
        asyncio.run(orav.session.replay(path))
    spent.clear()
    collector()
    start = time.process_time()
    for i in range(count):
        outcome = asyncio.run(orav.session.replay(goldens[i % len(goldens)]))
        if not outcome.faithful:
            sys.exit(f"replay diverged: {outcome.differences}")
    total = time.process_time() - start
    inside = spent["phases (orav's step)"] + spent["transition listener"]
    machine = spent.pop("execute") - inside
    rest = total - sum(v for k, v in spent.items() if "collector" not in k) - machine
    print(f"{count} goldens replayed in one process: {total / count * 1000:.2f} ms of CPU each")
    rows = [*spent.items(), ("python-statemachine driving the events", machine)]
    rows.append(("the rest (asyncio.run, the replay's tracks, the reports compared)", rest))
    for part, seconds in sorted(rows, key=lambda row: -row[1]):
        print(f"  {part:66s} {seconds / count * 1000:6.2f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 400)
