"""Every command a page shows is run by a test, as a user follows the page from a fresh clone,
in order (tests/guides.py says what a command is); a block that cannot run here says why on
the line before it. These tests follow the pages no other test follows."""

import json
import re
import subprocess
from pathlib import Path

import pytest
from guides import (
    PAGES,
    ROOT,
    Command,
    Shell,
    all_commands,
    clone,
    commands,
    environment,
    unprompted,
)

from orav.sandbox import network_namespace


def followed_pages() -> set[str]:
    """The pages a test follows: those it reads with ``commands(PAGE)`` or ``follow(PAGE)``."""
    said = re.compile(r"""(?:commands|follow)\(\s*["']((?:docs/)?[\w.-]+\.md)["']""")
    return {
        page for test in (ROOT / "tests").glob("*.py") for page in said.findall(test.read_text())
    }


@pytest.mark.parametrize("page", PAGES)
def test_every_command_a_page_shows_is_run_by_a_test_or_says_why_not(page):
    assert not unprompted(page), (
        "commands in an output block: put them in a ```bash block, or give each a `$ ` prompt",
        unprompted(page),
    )
    if commands(page):
        assert page in followed_pages(), (
            f"{page} shows commands no test runs: follow the page in a test "
            + "(guides.Shell(clone).follow(PAGE)), or mark each block that cannot run here "
            + "with <!-- not run here: REASON --> on the line before it",
            [f"{c.line}: {c.text}" for c in commands(page)],
        )


def test_a_page_that_says_why_not_says_it_in_words():
    marked = [c for page in PAGES for c in all_commands(page) if c.not_run]
    assert marked, "the Mac's and the model providers' commands are marked"
    assert all(len(c.not_run.split()) >= 3 for c in marked), marked


@pytest.mark.slow(reason="six recordings, the planner's among them")
def test_the_readme_runs_as_written(tmp_path: Path):
    here = clone(tmp_path)
    Shell(here).follow("README.md")
    for made in ("shop.cassette", "triage.cassette", "todo.cassette"):
        assert (here / made).exists(), made
    assert (here / "recordings" / "textual" / "sign_in.html").exists()


def test_the_maestro_pages_export_writes_a_flow(tmp_path: Path):
    here = clone(tmp_path)
    printed, _ = Shell(here).follow("docs/maestro.md")
    flow = (here / "login.yaml").read_text()
    assert "- launchApp" in flow and "assertVisible" in flow, flow
    assert printed.stdout == flow, "stdout and --out hold the same flow"


@pytest.mark.skipif(network_namespace() is None, reason="the page shows the network off")
def test_the_sandbox_pages_exploration_leaves_your_files_as_they_were(tmp_path: Path):
    here = clone(tmp_path)
    done = Shell(here).follow("docs/sandbox.md")
    assert "Exploration finished" in done[-2].stdout
    report = here / "scribe" / "recordings" / "explore-world_app-Scribe.report.json"
    files = json.loads(report.read_text())["side_effects"]["files"]
    assert {"path": "work/scratch.txt", "change": "deleted"} in files, files


@pytest.mark.slow(reason="two look-alike apps recorded, the planner started")
def test_the_scenarios_pages_commands_say_what_it_shows(tmp_path: Path):
    """The files the page shows by name (``# scenarios/broken.yaml``) made first, as a reader
    makes them; each command then exits and prints as the page shows."""
    here = clone(tmp_path)
    text = (ROOT / "docs" / "scenarios.md").read_text()
    for path, body in re.findall(r"```yaml\n# (\S+\.yaml)\n(.*?)```", text, re.DOTALL):
        (here / path).write_text(f"# {path}\n{body}")
    done = Shell(here).follow("docs/scenarios.md")
    assert [d.returncode for d in done] == [2, 0, 0, 0]
    assert (here / "recordings" / "lookalikes" / "bank_checkout_form.cassette").exists()


@pytest.mark.slow(reason="the bench: nine runs of three tasks")
def test_the_agents_pages_bench_on_a_zoo_model_runs(tmp_path: Path):
    (bench,) = [c for c in commands("docs/agents.md") if c.argv[:2] == ["orav", "bench"]]
    done = Shell(clone(tmp_path)).run(bench)
    assert "pass@1" in done.stdout and "pass@k" in done.stdout, done.stdout


def test_the_agents_pages_zoo_serves_the_llm_agent(tmp_path: Path):
    """The zoo's server started as the page starts it (it serves until stopped), the agent's
    record and replay against it with PORT its port."""
    here = clone(tmp_path)
    steps = [c for c in commands("docs/agents.md") if c.argv[:2] != ["orav", "bench"]]
    assert [c.argv[:2] for c in steps] == [["python", "-m"], ["orav", "record"], ["orav", "replay"]]
    shell = Shell(here)
    server = subprocess.Popen(
        ["bash", "-c", f"exec {steps[0].text}"],
        cwd=here,
        env=environment(),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        first = server.stdout.readline()  # type: ignore[union-attr]
        port = re.search(r"zoo: shop at http://127\.0\.0\.1:(\d+)/v1", first)
        assert port, first
        record = shell.run(steps[1], PORT=port.group(1))
        replay = shell.run(steps[2], PORT=port.group(1))
    finally:
        server.terminate()
        server.communicate(timeout=30)
    assert "passed" in record.stdout and "faithful" in replay.stdout, replay.stdout


def cli_sections() -> dict[str, list[Command]]:
    """docs/cli.md's examples by the command whose help shows them."""
    found: dict[str, list[Command]] = {}
    for command in commands("docs/cli.md"):
        found.setdefault(
            " ".join(command.argv[1:3] if command.argv[1] == "export" else command.argv[1:2]), []
        ).append(command)
    return found


@pytest.mark.parametrize("name", sorted(cli_sections()))
def test_the_cli_references_examples_run(name: str, tmp_path: Path):
    """docs/cli.md's examples (each command's --help ends with them), each command's in its
    order, from a fresh clone."""
    here = clone(tmp_path)
    shell = Shell(here)
    done = [shell.run(command) for command in cli_sections()[name]]
    made = {
        "audit": "step 2: loading -> resolved" in done[0].stdout,
        "explore": "Exploration finished" in done[0].stdout,
        "export maestro": (here / "login.yaml").exists(),
        "record": (here / "out" / "textual.xml").exists(),
        "replay": "faithful" in done[-1].stdout,
        "report": (here / "out" / "reports" / "index.html").exists(),
        "rerun": (here / "out" / "reruns").exists() and "pass@3 = 3/3" in done[-1].stdout,
        "validate": all(": ok" in d.stdout for d in done),
    }
    assert made[name], [d.stdout[-2000:] for d in done]


def test_every_everyday_command_shows_examples():
    assert set(cli_sections()) >= {"record", "replay", "rerun", "report", "validate", "explore"}
