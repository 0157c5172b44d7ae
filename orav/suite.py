"""A suite: the scenarios one command runs, chosen by paths, folders, globs, tags and a shard.

``expand`` turns what the user typed into files (a folder means every ``*.yaml`` under it, a
glob its matches, in sorted order, each file once); ``select`` keeps those a tag filter and a
shard take. The split is by position in the sorted list, so ``--shard 1/3`` .. ``3/3`` on three
CI machines run every scenario exactly once, whatever order the shell gave.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import re
import select
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, TypeVar, cast

from attrs import evolve, frozen

from orav.errors import InputError

if TYPE_CHECKING:
    from orav.model import RunReport, Scenario
    from orav.session import Replay

_SHARD = re.compile(r"(\d+)/(\d+)")
T = TypeVar("T")


@frozen
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def takes(self, position: int) -> bool:
        return position % self.count == self.index - 1


def parse_shard(text: str, flag: str = "--shard") -> Shard:
    """``i/n`` with 1 <= i <= n; anything else is bad input naming the flag."""
    match = _SHARD.fullmatch(text.strip())
    if match is None:
        raise InputError(f"expected I/N (e.g. 2/4), got {text!r}", flag)
    index, count = int(match[1]), int(match[2])
    if not 1 <= index <= count or count > 1000:
        raise InputError(f"expected 1 <= I <= N <= 1000, got {text!r}", flag)
    return Shard(index, count)


def expand(
    paths: Iterable[str | Path], *, suffixes: Sequence[str] = (".yaml", ".yml")
) -> list[Path]:
    """Files named by ``paths``: a file as is, a folder's files with ``suffixes`` (recursively),
    a glob's matches. A path that names nothing is an InputError naming it."""
    found: dict[Path, None] = {}
    for item in paths:
        text = str(item)
        path = Path(text)
        if path.is_dir():
            matches = sorted(p for p in path.rglob("*") if p.suffix in suffixes and p.is_file())
            if not matches:
                raise InputError(f"no {' or '.join(suffixes)} file in this folder", text)
        elif glob.has_magic(text) and not path.exists():
            matches = sorted(Path(p) for p in glob.glob(text, recursive=True))
            matches = [p for p in matches if p.is_file()]
            if not matches:
                raise InputError("no file matches this pattern", text)
        else:
            matches = [path]  # the loader says what is wrong with a file that is not there
        found.update(dict.fromkeys(matches))
    return list(found)


def wanted(tags: Iterable[str], include: Sequence[str], exclude: Sequence[str]) -> bool:
    """Has one of ``include`` (when any is given) and none of ``exclude``."""
    tags = set(tags)
    return (not include or bool(tags & set(include))) and not tags & set(exclude)


def shard_of(items: Sequence[T], shard: Shard | None) -> list[T]:
    """The items of ``shard`` (all when None), by position."""
    return [item for n, item in enumerate(items) if shard is None or shard.takes(n)]


def cassette_names(
    files: Sequence[Path], roots: Sequence[Path | None], homes: Sequence[str | Path] = ()
) -> list[Path]:
    """Where each scenario's cassette goes, under the recordings folder: the file's path below
    the scenarios folder it lives in (``homes``, the config's ``scenarios``), else below the
    folder it was found in, else its name: ``shop/add_to_cart``. The scenario file names its
    cassette, not its ``name:``; and one file gets one cassette however it was chosen."""
    resolved = [Path(home).resolve() for home in homes if Path(home).is_dir()]
    names = []
    for file, root in zip(files, roots, strict=True):
        where = file.resolve()
        home = next((h for h in resolved if where.is_relative_to(h)), None)
        if home is not None:
            relative = where.relative_to(home)
        elif root is not None:
            relative = file.relative_to(root)
        else:
            relative = Path(file.name)
        names.append(relative.with_suffix(".cassette"))
    return names


def expand_with_roots(
    paths: Iterable[str | Path], *, suffixes: Sequence[str] = (".yaml", ".yml")
) -> tuple[list[Path], list[Path | None]]:
    """``expand``, with the folder each file was found under (None for a file named as is)."""
    files: list[Path] = []
    roots: list[Path | None] = []
    for item in paths:
        text = str(item)
        root: Path | None = None
        if Path(text).is_dir():
            root = Path(text)
        elif glob.has_magic(text) and not Path(text).exists():
            parts = Path(text).parts
            plain = [p for p in parts[: next(i for i, p in enumerate(parts) if glob.has_magic(p))]]
            root = Path(*plain) if plain else Path(".")
        for file in expand([text], suffixes=suffixes):
            if file not in files:
                files.append(file)
                roots.append(root)
    return files, roots


@frozen
class Job:
    """One scenario of a suite: its file, the loaded scenario, the cassette it records."""

    path: Path
    scenario: Scenario
    out: Path


@frozen
class Outcome:
    """How a job ended: its report (None when it could not run: ``error`` says why), the
    attempts it took (``--retries``) and the wall time of all of them."""

    job: Job
    report: RunReport | None
    attempts: int = 1
    seconds: float = 0.0
    error: str = ""
    replayed: Replay | None = None  # a golden cassette kept and replayed instead (record once)
    device: str = ""  # the device it ran on last (empty: replayed, or not run)
    lost: tuple[str, ...] = ()  # the devices that stopped answering under it, before ``device``

    @property
    def ok(self) -> bool:
        faithful = self.replayed is None or self.replayed.ok
        return self.report is not None and self.report.goal_met and faithful

    @property
    def flaky(self) -> bool:
        """It passed, but only on a retry."""
        return self.ok and self.attempts > 1


def run_serial(
    jobs: Sequence[Job],
    attempt: Callable[[Job, int], RunReport],
    *,
    retries: int = 0,
    done: Callable[[Outcome], None] = lambda _: None,
) -> list[Outcome]:
    """Run each job in this process: ``attempt(job, n)`` returns its report (n from 1); a run
    that did not pass runs again, up to ``retries`` more times."""
    outcomes = []
    for job in jobs:
        started = time.monotonic()
        for n in range(1, retries + 2):
            report = attempt(job, n)
            if report.goal_met:
                break
        outcome = Outcome(job, report, n, time.monotonic() - started)
        done(outcome)
        outcomes.append(outcome)
    return outcomes


def run_parallel(
    jobs: Sequence[Job],
    argv: Callable[[Job, int, str], list[str]],
    *,
    worker: Sequence[str],
    devices: Sequence[str],
    workers: int | None = None,
    retries: int = 0,
    done: Callable[[Outcome], None] = lambda _: None,
    answers: Callable[[str], str] | None = None,
) -> list[Outcome]:
    """Run ``workers`` jobs at once (default: one per device), each ``orav`` command line
    ``argv(job, attempt, device)`` in a long-lived worker process (``worker``, the command that
    starts one: ``orav.cli.worker``) that runs job after job, within a time limit of twice the
    scenario's timeout plus a minute. A worker that dies or outlives the limit is killed and
    replaced; its job is reported so. ``devices`` may repeat a spec that starts a device of
    its own (``sim``: each run its own simulator companion); an ``idb:`` companion is listed
    once, so no two runs share it. Outcomes come back in the jobs' order.

    ``answers(device)`` (empty: it does; else why not) is asked of a device after a run on it
    did not pass: one that no longer answers is taken out of the pool and the run goes again
    on another, on each device of the pool at most once."""
    from concurrent.futures import ThreadPoolExecutor, as_completed

    pool = Pool(devices)
    idle: list[Worker] = []  # the workers between jobs (each job's thread takes one)
    lock = threading.Lock()

    def one(job: Job) -> Outcome:
        started = time.monotonic()
        tried: set[int] = set()
        lost: list[str] = []
        while (slot := pool.take(tried)) is not None:
            tried.add(slot)
            device = devices[slot]
            outcome = attempts(job, device)
            why = "" if outcome.ok or answers is None else answers(device)
            if not why:
                pool.give(slot)
                return evolve(outcome, seconds=time.monotonic() - started, lost=tuple(lost))
            lost.append(f"{device} ({why})")
            pool.drop(slot, lost[-1])
        seconds = time.monotonic() - started
        error = f"no device of the pool left to run it on: {'; '.join(pool.lost)}"
        return Outcome(job, None, 0, seconds, error, lost=tuple(lost))

    def attempts(job: Job, device: str) -> Outcome:
        with lock:
            mine = idle.pop() if idle else Worker(worker)
        try:
            return attempts_in(mine, job, device)
        finally:
            with lock:
                idle.append(mine)

    def attempts_in(mine: Worker, job: Job, device: str) -> Outcome:
        started = time.monotonic()
        limit = 2 * job.scenario.timeout_seconds + 60
        for n in range(1, retries + 2):
            status, said = mine.run(argv(job, n, device), limit)
            report = recorded(job.out)
            if status is None or status == 2 or report is None:
                seconds = time.monotonic() - started
                return Outcome(job, None, n, seconds, said, device=device)
            if report.goal_met:
                break
        return Outcome(job, report, n, time.monotonic() - started, device=device)

    # The longest first (as last recorded), so no long run starts last and runs alone.
    order = sorted(range(len(jobs)), key=lambda index: -_last_duration(jobs[index].out))
    outcomes: dict[int, Outcome] = {}
    try:
        with ThreadPoolExecutor(max_workers=min(workers or len(devices), len(devices))) as threads:
            futures = {threads.submit(one, jobs[index]): index for index in order}
            for future in as_completed(futures):
                outcome = future.result()
                done(outcome)
                outcomes[futures[future]] = outcome
    finally:
        for each in idle:
            each.stop()
    return [outcomes[index] for index in range(len(jobs))]


class Worker:
    """A process that runs ``orav`` command lines one after another (``orav.cli.worker``),
    started on its first job; one job at a time. One that dies, or runs a job past its time
    limit, is killed and a fresh one started for the next job."""

    def __init__(self, command: Sequence[str]) -> None:
        self._command = list(command)
        self._process: subprocess.Popen[bytes] | None = None

    def run(self, args: Sequence[str], limit: float) -> tuple[int | None, str]:
        """``orav ARGS`` run in the worker: its exit status (None: it did not end, within
        ``limit`` seconds or at all) and the last line it printed, else why it did not end."""
        fd, name = tempfile.mkstemp(prefix="orav-worker-", suffix=".log")
        os.close(fd)
        log = Path(name)
        try:
            status, why = self._ask(list(args), log, limit)
            said = _last_line(log)
            if status is None:
                return None, f"{why}: {said}" if said else why
            return status, said
        finally:
            log.unlink(missing_ok=True)

    def _ask(self, args: list[str], log: Path, limit: float) -> tuple[int | None, str]:
        process = self._process or self._start()
        into, answers = cast(IO[bytes], process.stdin), cast(IO[bytes], process.stdout)
        try:
            into.write(json.dumps({"args": args, "log": str(log)}).encode() + b"\n")
            into.flush()
            ready, _, _ = select.select([answers], [], [], limit)
            line = answers.readline() if ready else None
        except OSError:  # it died between two jobs: its pipe is closed
            line = b""
        if line:
            return int(json.loads(line)["status"]), ""
        self.stop(kill=True)
        if line is None:
            return None, f"no end after {limit:.0f} s"
        return None, f"its worker process died (exit {process.returncode})"

    def _start(self) -> subprocess.Popen[bytes]:
        self._process = subprocess.Popen(
            self._command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None
        )
        return self._process

    def stop(self, *, kill: bool = False) -> None:
        """End the worker: its stdin closed (it ends between jobs), or killed; then waited for."""
        process, self._process = self._process, None
        if process is None:
            return
        try:
            if not kill:
                with contextlib.suppress(OSError):
                    cast(IO[bytes], process.stdin).close()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=10)
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)
        finally:
            for pipe in (process.stdin, process.stdout):
                with contextlib.suppress(OSError):
                    cast(IO[bytes], pipe).close()


def _last_line(log: Path) -> str:
    """The last line of a job's output that says something (its error, when it failed)."""
    try:
        with log.open("rb") as file:
            file.seek(max(0, file.seek(0, os.SEEK_END) - 4096))
            tail = file.read().decode("utf-8", "replace")
    except OSError:
        return ""
    said = [line for line in tail.strip().splitlines() if line.strip()]
    return said[-1].strip() if said else ""


class Pool:
    """The devices a suite's runs share, by position (a spec may repeat: ``sim`` starts a
    simulator per run), one run on each at a time; a device taken out is never handed out
    again."""

    def __init__(self, devices: Sequence[str]) -> None:
        self._free = list(range(len(devices)))
        self._live = set(self._free)
        self._changed = threading.Condition()
        self.lost: list[str] = []  # each device taken out, with why

    def take(self, tried: set[int]) -> int | None:
        """A free device not in ``tried``, once one is; None when every device left is in
        ``tried`` (the run has been on each). Waits only while another run holds a device,
        and every run has a time limit."""
        with self._changed:
            while self._live - tried:
                free = next((slot for slot in self._free if slot not in tried), None)
                if free is not None:
                    self._free.remove(free)
                    return free
                self._changed.wait(timeout=1.0)
            return None

    def give(self, slot: int) -> None:
        with self._changed:
            self._free.append(slot)
            self._changed.notify_all()

    def drop(self, slot: int, why: str) -> None:
        with self._changed:
            self._live.discard(slot)
            self.lost.append(why)
            self._changed.notify_all()


def _last_duration(cassette: Path) -> float:
    """How long the cassette's run took when it was recorded, from the JSON report beside
    it (0: none yet, or unreadable)."""
    from orav.codec import parse_json  # lazily, as the suite's other heavy imports

    try:
        report = parse_json(cassette.with_suffix(".report.json").read_bytes())
        seconds = report["duration_seconds"]
    except (OSError, ValueError, KeyError, TypeError):  # JSONRefused is a ValueError
        return 0.0
    return float(seconds) if isinstance(seconds, (int, float)) else 0.0


def recorded(cassette: Path) -> RunReport | None:
    """The report a cassette ends with, or None (no report, or unreadable)."""
    from orav.cassette import read_cassette

    try:
        return read_cassette(cassette).report()
    except (InputError, OSError):
        return None
