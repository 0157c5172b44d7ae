"""What ``orav record``'s command line turns into: the jobs of a suite (scenarios loaded,
filtered by tags, sharded, each with its cassette), the goldens record mode ``once`` keeps and
replays instead, and the command line of a job run in a worker process."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from orav.errors import InputError

if TYPE_CHECKING:
    from orav.config import Config
    from orav.model import Scenario
    from orav.suite import Job, Outcome


def jobs_of(
    paths: Sequence[str | Path],
    config: Config,
    out: Path | None,
    tags: Sequence[str],
    skip_tags: Sequence[str],
) -> list[Job]:
    """The scenarios a record command runs, loaded (a bad one stops it before any runs), with
    their cassettes; filtered by tags (the suite a shard is taken from)."""
    from orav import suite

    if paths == config.scenarios and not any(Path(p).exists() for p in paths):
        raise InputError(
            f"no scenario given, and no {' or '.join(config.scenarios)} folder here: name "
            "files, folders or globs, or set `scenarios` in orav.toml",
            "SCENARIO",
        )
    files, roots = suite.expand_with_roots(paths)
    names = suite.cassette_names(files, roots, config.scenarios)
    jobs = _selected(files, names, config, tags, skip_tags)
    if out is not None:
        if len(jobs) != 1:
            raise InputError(f"names one cassette, but {len(jobs)} scenarios are selected", "--out")
        jobs = [suite.Job(jobs[0].path, jobs[0].scenario, out)]
    outs = [job.out for job in jobs]
    twice = next((o for o in outs if outs.count(o) > 1), None)
    if twice is not None:
        raise InputError(f"two scenarios would both record {twice}; record them apart", "--out")
    return jobs


def _selected(
    files: Sequence[Path],
    names: Sequence[Path],
    config: Config,
    tags: Sequence[str],
    skip_tags: Sequence[str],
) -> list[Job]:
    """Every scenario file loaded (with the config's settle), those the tags select as jobs;
    tags that select none of them are an InputError."""
    from attrs import evolve

    from orav import suite
    from orav.scenario_loader import load_scenario

    folder = Path(config.recordings)
    jobs = []
    for file, name in zip(files, names, strict=True):
        scenario = load_scenario(file)
        if config.settle_seconds is not None and scenario.settle_seconds is None:
            scenario = evolve(scenario, settle_seconds=config.settle_seconds)
        if suite.wanted(scenario.tags, tags, skip_tags):
            jobs.append(suite.Job(file, scenario, folder / name))
    if not jobs and (tags or skip_tags):
        flags = " ".join([f"--tag {t}" for t in tags] + [f"--skip-tag {t}" for t in skip_tags])
        raise InputError(f"no scenario of {len(files)} is selected by {flags}", "--tag")
    return jobs


def kept_goldens(jobs: Sequence[Job]) -> dict[int, Job]:
    """The jobs whose cassette holds a run that passed: vcrpy's ``once`` replays them."""
    from orav.cassette.slot import passed

    return {id(job): job for job in jobs if job.out.exists() and passed(job.out)}


def replay_golden(job: Job) -> Outcome:
    import asyncio

    from orav import session, suite
    from orav.errors import ReplayDivergence

    started = time.monotonic()
    try:
        replayed = asyncio.run(session.replay(job.out))
    except ReplayDivergence as exc:
        diverged = session.Replay(None, None, False, (str(exc),))
        report = suite.recorded(job.out)
        return suite.Outcome(job, report, 0, time.monotonic() - started, replayed=diverged)
    report = replayed.report or replayed.recorded
    return suite.Outcome(job, report, 0, time.monotonic() - started, replayed=replayed)


def same_scenario(cassette: Path, scenario: Scenario) -> None:
    """``--record-mode none`` replays the cassette: it must be this scenario's."""
    from orav.cassette import read_cassette

    if not cassette.exists():
        raise InputError(
            "no cassette to replay (--record-mode none records nothing)", str(cassette)
        )
    recorded = read_cassette(cassette).header.scenario.name
    if recorded != scenario.name:
        raise InputError(
            f"the cassette holds scenario {recorded!r}, not {scenario.name!r}", str(cassette)
        )


WORKER = [sys.executable, "-m", "orav.cli.worker"]  # the command that starts a worker process


def worker_argv(
    agent_spec: str,
    base_url: str | None,
    agent_options: Sequence[str],
    mode: str,
    seed: int,
    judge_spec: str | None = None,
    world: Sequence[str] = (),
) -> Callable[[Job, int, str], list[str]]:
    """The ``orav record`` command line (after ``orav``) of one job in a worker process
    (``orav.cli.worker``); ``world``: the flags of the app's world (``orav.cli.flags.world_argv``)."""

    def argv(job: Job, attempt: int, device: str) -> list[str]:
        command = ["record", str(job.path), "--out", str(job.out)]
        command += ["--device", device, "--agent", agent_spec, "--seed", str(seed), "-q"]
        command += ["--record-mode", mode if attempt == 1 else "all", "--retries", "0"]
        command += ["--workers", "1"]  # the job is one run: a config's workers are the suite's
        command += ["--base-url", base_url] if base_url else []
        for option in agent_options:
            command += ["--agent-option", option]
        command += ["--judge", judge_spec] if judge_spec else []
        return command + list(world)

    return argv
