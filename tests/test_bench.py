"""`orav bench`: the shipped task set (goals and criteria in words) run k times by an agent,
its figures a table and JSON; a zoo model plays the tasks it knows over the loopback server."""

from __future__ import annotations

import json
from pathlib import Path

from command import orav

BENCH = Path(__file__).resolve().parents[1] / "orav" / "scenarios" / "bench"


def test_the_scripted_agent_on_two_tasks_twice_with_a_task_that_cannot_pass(
    tmp_path: Path,
) -> None:
    # the sign-in, and a copy whose criterion the app never shows: pass@1 0 with its reason
    impossible = tmp_path / "impossible.yaml"
    text = (BENCH / "demo_sign_in.yaml").read_text()
    impossible.write_text(
        text.replace("name: bench_demo_sign_in", "name: bench_impossible").replace(
            "  - no sign-in button is visible", "  - the notifications are switched on"
        )
    )
    out = tmp_path / "result.json"
    done = orav(
        "bench", BENCH / "demo_sign_in.yaml", impossible, "-k", "2",
        "--out", tmp_path / "runs", "--json", out,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    assert (data["agent"], data["judge"], data["k"]) == ("scripted", "table:bench", 2)
    rows = {row["task"]: row for row in data["tasks"]}
    sign_in, never = rows["bench_demo_sign_in"], rows["bench_impossible"]
    assert (sign_in["runs"], sign_in["passed"], sign_in["pass@1"], sign_in["pass@k"]) == (
        2, 2, 1.0, 1.0,
    )  # fmt: skip
    assert sign_in["steps"] == 5 and sign_in["tokens"] == 0 and sign_in["failures"] == {}
    assert (never["passed"], never["pass@1"], never["pass@k"]) == (0, 0.0, 0.0)
    assert never["failures"] == {"failed: missed the notifications are switched on": 2}
    assert data["overall"] == {
        "tasks": 2,
        "runs": 4,
        "pass@1": 0.5,
        "pass@k": 0.5,
        "cost": 0.0,
        "failures": {"failed: missed the notifications are switched on": 2},
    }
    assert len(data["tasks_digest"]) == 12
    assert len(list((tmp_path / "runs" / "bench_impossible").glob("*.cassette"))) == 2
    assert "pass@1 0.50, pass@k 0.50 over 2 tasks, 4 runs" in done.stdout


def test_a_zoo_model_plays_the_tasks_it_knows_and_the_others_are_left_out(tmp_path: Path):
    out = tmp_path / "zoo.json"
    done = orav(
        "bench", BENCH / "demo_sign_in.yaml", BENCH / "demo_notifications_off.yaml",
        "--agent", "zoo", "--out", tmp_path / "runs", "--json", out,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    (row,) = data["tasks"]
    assert row["task"] == "bench_demo_sign_in" and row["pass@1"] == 1.0
    assert row["tokens"] > 0  # the zoo's model calls, counted as a real model's
    assert data["left_out"] == [
        {"task": "bench_demo_notifications_off", "why": "no zoo model plays it (tag it zoo:POLICY)"}
    ]


def test_a_zoo_mistake_orav_does_not_know_is_bad_input(tmp_path: Path) -> None:
    done = orav("bench", "--agent", "zoo:sneeze@0.5", "--out", tmp_path)
    assert done.returncode == 2
    assert "unknown zoo mistake 'sneeze'" in done.stderr


def test_a_failure_is_named_by_its_gist_the_same_for_every_run_it_ends() -> None:
    from orav.bench import Run
    from orav.model import RunReport

    def reason(status: str, summary: str = "", missed: tuple[str, ...] = ()) -> str:
        report = RunReport("r", "t", status, summary=summary, goals_missed=missed)  # type: ignore[arg-type]
        return Run(1, report, 0.1, Path("x")).reason

    for model, key in (("openai:qwen2.5-vl-7b-instruct", "bbox_2d"), ("openai:m:7b", "box")):
        said = f"{model}: no valid decision after 3 answers; last problem: unknown key {key!r}; x"
        assert reason("aborted", said) == f"aborted: no valid decision: unknown key {key!r}"
    assert reason("failed", missed=("the cart holds two mugs",)) == (
        "failed: missed the cart holds two mugs"
    )
    assert reason("step_limit") == "step_limit"
    assert reason("passed") == ""
