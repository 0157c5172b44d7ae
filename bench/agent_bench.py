"""The agents' benchmark (issue 24): `orav bench` over the shipped task set for each built-in
agent, and what a model judge is sent per claim.

Agents: the scripted agent, the explorer (one run: it explores, it does not pursue a goal), and
the zoo's simulated models (a clean one, every generic mistake at 10 % and at 30 %, each model
family's answer shape in every answer) on the tasks tagged zoo:POLICY. The judge is the task
set's table for all of them. Then, for every claim the task set judges, the model judge's
request as it would be sent: its text in characters and tokens (4 characters a token, as the
zoo estimates) and whether a screenshot goes with it.

    /work/venv/bin/python bench/agent_bench.py [K]     # K runs per task, default 5
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from orav.bench import bench, task_set

GENERIC = "early_done,fenced,loop,off_by_n,paraphrase,prose,seed_shape,stale_ref,tool_calls"
AGENTS = [
    ("scripted", None),
    ("explorer", 1),
    ("zoo", None),
    (f"zoo:{GENERIC}@0.1", None),
    (f"zoo:{GENERIC}@0.3", None),
    ("zoo:qwen_pixels@1.0", None),  # a model family answers in its own shape, every answer
    ("zoo:qwen_boxes@1.0", None),
    ("zoo:ui_tars@1.0", None),
]


async def agents(k: int) -> None:
    tasks = task_set()
    print("| agent | k | task | pass@1 | pass@k | steps | tokens | s/run | failures |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory(prefix="orav-bench-") as folder:
        for spec, runs in AGENTS:
            started = time.perf_counter()
            result = await bench(tasks, spec, k=runs or k, out=Path(folder))
            data = result.data()
            shown = spec.replace(GENERIC, "generic")
            for row in data["tasks"]:
                failures = ", ".join(f"{why} ×{n}" for why, n in row["failures"].items())
                print(
                    f"| {shown} | {data['k']} | {row['task'].removeprefix('bench_')} | "
                    f"{row['pass@1']:.2f} | {row['pass@k']:.0f} | {row['steps']:g} | "
                    f"{row['tokens']:.0f} | {row['seconds']:.2f} | {failures} |"
                )
            overall = data["overall"]
            print(
                f"| **{shown}** | {data['k']} | **all {overall['tasks']}** | "
                f"**{overall['pass@1']:.2f}** | **{overall['pass@k']:.2f}** | | | "
                f"{time.perf_counter() - started:.0f} s in all | |"
            )
    print(
        f"\ntask set {data['tasks_digest']}; left out of the zoo's runs: "
        + ", ".join(left["task"] for left in data["left_out"])
    )


def judge_requests() -> None:
    """The model judge's request for each claim, on the screen the scripted run judged it."""
    from orav.cassette import read_cassette
    from orav.cassette.events import JudgeEvent
    from orav.judges import Question
    from orav.judges.model import ModelJudge
    from orav.perceive.change import screen_digest
    from orav.session import record

    judge = ModelJudge.from_spec("openai:judge", base_url="http://127.0.0.1:9/v1")
    sizes = []
    with tempfile.TemporaryDirectory(prefix="orav-judge-") as folder:
        for task in task_set():
            from orav.bench import TABLE
            from orav.judges.table import TableJudge

            path = Path(folder) / f"{task.name}.cassette"
            asyncio.run(
                record(task.scenario, path, device=task.device, judge=TableJudge.load(TABLE))
            )
            cassette = read_cassette(path)
            shots = {}
            for index, event in enumerate(cassette.events):
                if type(event).__name__ == "ObserveEvent" and event.observation is not None:
                    seen = cassette.observation(index)
                    shots[screen_digest(seen)] = seen
            for event in cassette.events:
                if isinstance(event, JudgeEvent):
                    seen = shots[event.screen]
                    text = judge.messages(Question(event.claim, seen, task.scenario), None)
                    chars = sum(len(m["content"]) for m in text)
                    sizes.append((task.name, event.claim, chars, seen.screenshot is not None))
    print("\n| task | claim | request text (chars) | ~tokens | + screenshot |")
    print("| --- | --- | --- | --- | --- |")
    for name, claim, chars, shot in sizes:
        print(
            f"| {name.removeprefix('bench_')} | {claim} | {chars} | {chars // 4} | {'yes' if shot else 'no'} |"
        )


if __name__ == "__main__":
    asyncio.run(agents(int(sys.argv[1]) if len(sys.argv) > 1 else 5))
    judge_requests()
