"""A benchmark of agents: a task set run k times each by one agent, with its criteria judged.

    result = await bench(task_set(), "scripted", k=3, out=Path("bench-runs"))
    result.table_rows(), result.data()   # a table and JSON, comparable across runs

A task is a scenario (goal and criteria in words, ``orav/scenarios/bench/`` by default), run on
the device its app names (``orav.specs.device_for``). The agent is any spec ``orav
record`` takes, or ``zoo[:MISTAKE,...][@RATE]``: a simulated model of orav's zoo
(``orav.zoo``) playing the task over a loopback server, for the tasks tagged ``zoo:POLICY`` (a
zoo model plays only what it knows; the others are left out, and said so). The judge is the one
given, by default the task set's free table (``judge.table``), so every agent is judged alike.

Per task: pass@1 (the share of runs that passed), pass@k (any of the k did), mean steps, mean
tokens, total cost (None when a model call was unpriced), mean wall time, and the failures by
reason (the status, and for a failed run the first goal missed). ``tasks_digest`` names the task
set, so two results are comparable when it is the same.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

from orav.__version__ import __version__
from orav.errors import InputError
from orav.judges import Judge
from orav.model import RunReport, Scenario

TASKS = Path(__file__).resolve().parent / "scenarios" / "bench"
TABLE = TASKS / "judge.table"
_AGENT_PREFIX = re.compile(r"^(?:step \d+: )?[\w.+-]+:[\w.:/@-]+: ")
_CLAUSE = re.compile(r";| \(")
_ZOO = re.compile(r"zoo(?::(?P<mistakes>[a-z0-9_,]+))?(?:@(?P<rate>[0-9.]+))?")


@frozen
class Task:
    """One task: its scenario file, the scenario, the device it runs on, the zoo policy that
    plays it (None: no zoo model knows it)."""

    path: Path
    scenario: Scenario
    device: str
    zoo: str | None = None

    @property
    def name(self) -> str:
        return self.scenario.name


def task_set(paths: Sequence[str | Path] = ()) -> list[Task]:
    """The tasks under ``paths`` (files, folders, globs; default: the shipped task set)."""
    from orav.scenario_loader import load_scenario
    from orav.specs import device_for
    from orav.suite import expand

    found = []
    for path in expand([str(p) for p in paths] or [str(TASKS)]):
        scenario = load_scenario(path)
        zoo = next((t.removeprefix("zoo:") for t in scenario.tags if t.startswith("zoo:")), None)
        found.append(Task(path, scenario, device_for(scenario), zoo))
    return found


def digest(tasks: Sequence[Task]) -> str:
    """What the task set is, as 12 hex digits: its files' names and contents."""
    h = hashlib.sha256()
    for task in sorted(tasks, key=lambda t: t.name):
        h.update(task.name.encode() + b"\0" + task.path.read_bytes() + b"\0")
    return h.hexdigest()[:12]


@frozen
class Run:
    """One run of a task: its report, its wall time, its cassette."""

    attempt: int
    report: RunReport
    seconds: float
    cassette: Path

    @property
    def reason(self) -> str:
        """Why it did not pass ("" when it did): its status, and the first goal it missed or
        the headline of what ended it (``aborted: no valid decision: unknown key 'bbox_2d'``)."""
        report = self.report
        if report.goal_met:
            return ""
        if report.status == "failed" and report.goals_missed:
            return f"failed: missed {report.goals_missed[0]}"
        if report.status == "aborted" and report.summary:
            return f"aborted: {_headline(report.summary)}"
        return report.status


@frozen
class TaskResult:
    task: str
    runs: tuple[Run, ...]

    @property
    def passed(self) -> int:
        return sum(run.report.goal_met for run in self.runs)

    @property
    def pass_at_1(self) -> float:
        return self.passed / len(self.runs)

    @property
    def pass_at_k(self) -> float:
        return 1.0 if self.passed else 0.0

    def mean(self, values: Sequence[float]) -> float:
        return sum(values) / len(values) if values else 0.0

    def data(self) -> dict[str, Any]:
        usages = [run.report.usage for run in self.runs]
        costs = [u.cost if u is not None else 0.0 for u in usages]
        priced = all(u is None or u.cost is not None for u in usages)
        return {
            "task": self.task,
            "runs": len(self.runs),
            "passed": self.passed,
            "pass@1": round(self.pass_at_1, 3),
            "pass@k": self.pass_at_k,
            "steps": round(self.mean([r.report.total_steps for r in self.runs]), 2),
            "tokens": round(
                self.mean([u.prompt_tokens + u.completion_tokens if u else 0 for u in usages]), 1
            ),
            "cost": round(sum(c or 0.0 for c in costs), 6) if priced else None,
            "seconds": round(self.mean([r.seconds for r in self.runs]), 3),
            "failures": dict(Counter(r.reason for r in self.runs if r.reason)),
        }


@frozen
class BenchResult:
    agent: str
    judge: str
    k: int
    tasks_digest: str
    results: tuple[TaskResult, ...]
    left_out: tuple[tuple[str, str], ...] = ()  # (task, why)

    def data(self) -> dict[str, Any]:
        """The JSON of the result: what ran, each task's figures, the totals."""
        rows = [r.data() for r in self.results]
        runs = sum(r["runs"] for r in rows)
        failures: Counter[str] = Counter()
        for row in rows:
            failures.update(row["failures"])
        costs = [row["cost"] for row in rows]
        return {
            "orav_version": __version__,
            "agent": self.agent,
            "judge": self.judge,
            "k": self.k,
            "tasks_digest": self.tasks_digest,
            "tasks": rows,
            "left_out": [{"task": t, "why": why} for t, why in self.left_out],
            "overall": {
                "tasks": len(rows),
                "runs": runs,
                "pass@1": round(sum(r["pass@1"] for r in rows) / len(rows), 3) if rows else 0.0,
                "pass@k": round(sum(r["pass@k"] for r in rows) / len(rows), 3) if rows else 0.0,
                "cost": round(sum(costs), 6) if rows and None not in costs else None,
                "failures": dict(failures),
            },
        }


def _headline(error: str) -> str:
    """An error's gist, the same for every run it ended: without the agent's name, the last
    problem's first clause (``no valid decision: not valid JSON``)."""
    error = _AGENT_PREFIX.sub("", error)
    head, _, problem = error.partition("; last problem: ")
    head = re.sub(r" after \d+ answers$", "", head)
    if problem:
        clause = _CLAUSE.split(problem, maxsplit=1)[0]
        head = f"{head}: {clause}"
    return head[:80]


def parse_zoo(spec: str) -> tuple[list[Any], float]:
    """``zoo[:MISTAKE,...][@RATE]``: the zoo's mistakes by name and their rate (default: none;
    1.0 when mistakes are named without a rate)."""
    from orav.zoo import MISTAKES

    match = _ZOO.fullmatch(spec)
    if match is None:
        raise InputError(f"expected zoo[:MISTAKE,...][@RATE], got {spec!r}", "--agent")
    names = [n for n in (match["mistakes"] or "").split(",") if n]
    unknown = [n for n in names if n not in MISTAKES]
    if unknown:
        what = f"unknown zoo mistake {unknown[0]!r}; known are {sorted(MISTAKES)}"
        raise InputError(what, "--agent")
    rate = float(match["rate"]) if match["rate"] else (1.0 if names else 0.0)
    if not 0.0 <= rate <= 1.0:
        raise InputError(f"a zoo rate is 0 to 1, got {rate:g}", "--agent")
    return [MISTAKES[n] for n in names], rate


async def bench(
    tasks: Sequence[Task],
    agent: str,
    *,
    k: int = 1,
    out: Path,
    judge: Judge | None = None,
    agent_options: dict[str, Any] | None = None,
) -> BenchResult:
    """Run every task ``k`` times with ``agent`` (a spec), its claims decided by ``judge``
    (default: the shipped table); each run's cassette under ``out/TASK/``."""
    if k < 1:
        raise InputError(f"a benchmark runs each task at least once, not {k}", "--repeat")
    from orav.judges.table import TableJudge

    zoo = parse_zoo(agent) if agent == "zoo" or agent.startswith(("zoo:", "zoo@")) else None
    judge = judge or TableJudge.load(TABLE, name="table:bench")
    results, left_out = [], []
    for task in tasks:
        if zoo is not None and task.zoo is None:
            left_out.append((task.name, "no zoo model plays it (tag it zoo:POLICY)"))
            continue
        runs = []
        for attempt in range(1, k + 1):
            cassette = out / task.name / f"{_slug(agent)}-{attempt}.cassette"
            cassette.parent.mkdir(parents=True, exist_ok=True)
            started = time.monotonic()
            report = await _run(task, agent, zoo, judge, cassette, attempt, agent_options or {})
            runs.append(Run(attempt, report, round(time.monotonic() - started, 3), cassette))
        results.append(TaskResult(task.name, tuple(runs)))
    return BenchResult(agent, judge.name, k, digest(tasks), tuple(results), tuple(left_out))


def _slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", spec).strip("_") or "agent"


async def _run(
    task: Task,
    spec: str,
    zoo: tuple[list[Any], float] | None,
    judge: Judge,
    cassette: Path,
    attempt: int,
    options: dict[str, Any],
) -> RunReport:
    from orav.session import record
    from orav.specs import make_agent

    seed = attempt - 1
    if zoo is None:
        agent = make_agent(spec, **options)
        done = await record(
            task.scenario, cassette, device=task.device, agent=agent, judge=judge, mode="all",
            seed=seed,
        )  # fmt: skip
        return _report(done)
    from orav.agents.openai import OpenAIAgent
    from orav.zoo import Player, ZooServer
    from orav.zoo.policy import POLICIES

    mistakes, rate = zoo
    policy = POLICIES.get(task.zoo or "")
    if policy is None:
        raise InputError(f"{task.path}: no zoo model plays {task.zoo!r}; known: {sorted(POLICIES)}")
    player = Player(policy, mistakes=mistakes, rate=rate, seed=f"{task.name}:{seed}")
    with ZooServer(player) as server:
        model = next((m.model for m in mistakes if m.model), "zoo-vision")
        agent = OpenAIAgent.from_spec(f"openai:{model}", base_url=server.url, **options)
        done = await record(
            task.scenario, cassette, device=task.device, agent=agent, judge=judge, mode="all",
            seed=seed,
        )  # fmt: skip
    return _report(done)


def _report(done: Any) -> RunReport:
    """The report of a recording (mode ``all`` always records: never None)."""
    if done.report is None:
        raise RuntimeError("a recording ended without its report")
    report: RunReport = done.report
    return report
