"""The LLM agent against the zoo: simulated models with real models' mistakes, on three tasks.

Every run is the real agent (the real ``openai`` client over HTTP) against orav's loopback zoo
server (``orav/zoo/``), on the demo login (simulator), the shop's cart flow with its tab bar
(simulator) and the planner's triage (Textual). Two sets:

- mixed: every generic mistake and every wild behaviour without a model of its own (old and
  new kinds together) at 10 % and at 30 % of answers, N seeded runs per task;
- alone: each mistake kind (model families included) in 100 % of answers, one run per task;
- wild: each behaviour of ``orav/zoo/wild.yaml`` (nobody wrote the agent for them) the same way.

Per set: passed (the run's report is ok), clean (status ``passed``: no errors on the way),
false passes (ok, but the app's own state says the goal was not met), secrets the model was
sent, re-asks per run and tokens per step. Failed runs are listed with their last error.
Last, the login with its password written into the goal (as a ``${VAR}`` there expands):
the secrets the model is sent.

    /work/venv/bin/python bench/agent_zoo.py [RUNS] [TASKS]   # RUNS per task and rate (10);
                                                              # TASKS: e.g. triage,shop (all)
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attrs

from orav.zoo import FAMILIES, MISTAKES, WILD, Outcome, load_mistakes, tasks

RATES = (0.10, 0.30)
GENERIC = [m for name, m in MISTAKES.items() if name not in FAMILIES]
MIXED = GENERIC + [m for m in load_mistakes(WILD) if m.model is None]


def _commit() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or "unknown"


def _why(outcome: Outcome) -> str:
    report = outcome.report
    if report.errors:
        return report.errors[-1].error[:160]
    if report.goals_missed:
        return "missed: " + "; ".join(report.goals_missed)[:160]
    return report.summary[:160]


def _line(label: str, outcomes: list[Outcome]) -> str:
    n = len(outcomes)
    passed = sum(o.passed for o in outcomes)
    clean = sum(o.report.status == "passed" for o in outcomes)
    false = sum(o.false_pass for o in outcomes)
    secrets = sum(o.tally.secrets_seen for o in outcomes)
    reasks = sum(o.tally.reasks for o in outcomes) / n
    steps = sum(max(o.report.total_steps, 1) for o in outcomes)
    tokens = sum(o.tally.prompt_tokens + o.tally.completion_tokens for o in outcomes) / steps
    return (
        f"{label:<24}{n:>5}{passed / n:>9.0%}{clean / n:>8.0%}{false:>7}{secrets:>9}"
        f"{reasks:>9.2f}{tokens:>10.0f}"
    )


HEADER = f"{'':<24}{'runs':>5}{'passed':>9}{'clean':>8}{'false':>7}{'secrets':>9}{'re-asks':>9}{'tok/step':>10}"


async def main(runs: int, only: str = "") -> int:
    everyone = tasks()
    zoo = {name: task for name, task in everyone.items() if not only or name in only.split(",")}
    failures: list[str] = []
    started = time.perf_counter()
    print(f"agent zoo at {_commit()}: {runs} runs per task and rate; each kind alone once per task")
    with tempfile.TemporaryDirectory(prefix="orav-zoo-bench-") as folder:
        out = Path(folder)
        print("\nmixed (" + ", ".join(m.name for m in MIXED) + ")")
        print(HEADER)
        for rate in RATES:
            everything: list[Outcome] = []
            for name, task in zoo.items():
                outcomes = []
                for seed in range(runs):
                    outcome = await task.play(out / "run.cassette", MIXED, rate=rate, seed=seed)
                    outcomes.append(outcome)
                    if not outcome.passed or outcome.false_pass:
                        failures.append(
                            f"{rate:.0%} {name} seed {seed}: {outcome.report.status}: {_why(outcome)}"
                        )
                print(_line(f"{rate:.0%} {name}", outcomes))
                everything += outcomes
            print(_line(f"{rate:.0%} all", everything))
        print("\neach kind alone, 100 % of answers (login, shop, triage)")
        print(HEADER)
        for kind, mistake in MISTAKES.items():
            outcomes = []
            for name, task in zoo.items():
                outcome = await task.play(out / "run.cassette", [mistake], rate=1.0, seed=0)
                outcomes.append(outcome)
                if not outcome.passed or outcome.false_pass:
                    failures.append(f"{kind} {name}: {outcome.report.status}: {_why(outcome)}")
            marks = "".join("P" if o.passed and not o.false_pass else "F" for o in outcomes)
            print(_line(f"{kind} [{marks}]", outcomes))
        print(
            "\nwild: behaviours nobody wrote the agent for (orav/zoo/wild.yaml), alone, no target"
        )
        print(HEADER)
        for mistake in load_mistakes(WILD):
            outcomes = []
            for name, task in zoo.items():
                outcome = await task.play(out / "run.cassette", [mistake], rate=1.0, seed=0)
                outcomes.append(outcome)
                if not outcome.passed or outcome.false_pass:
                    failures.append(
                        f"{mistake.name} {name}: {outcome.report.status}: {_why(outcome)}"
                    )
            marks = "".join("P" if o.passed and not o.false_pass else "F" for o in outcomes)
            print(_line(f"{mistake.name} [{marks}]", outcomes))
        task = everyone["login"]
        password = task.scenario.credentials.password  # type: ignore[union-attr]
        goal = f"{task.scenario.goal} The password is {password}."
        leaky = attrs.evolve(task, scenario=attrs.evolve(task.scenario, goal=goal))
        outcome = await leaky.play(out / "run.cassette")
        print(f"\npassword in the goal (login): {outcome.tally.secrets_seen} secrets sent")
    print(f"\nfailed runs ({len(failures)}):")
    for failure in failures:
        print("  " + failure)
    print(f"\nagent zoo: {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    sys.exit(asyncio.run(main(runs, sys.argv[2] if len(sys.argv) > 2 else "")))
