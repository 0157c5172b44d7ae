"""The examples the docs teach with work: a guide's files are the files and its commands run;
README's snippets, agents.md's answer and scenarios.md's files do what their pages say."""

import importlib
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from command import orav
from guides import Shell, clone, commands

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GUIDES = sorted(path.name for path in DOCS.glob("guide-*.md"))
# A fenced block whose first line names its file: ``# docs/examples/...``.
FILE_BLOCK = re.compile(r"```(?:yaml|python)\n# (docs/examples/\S+)\n(.*?)```", re.DOTALL)
# One naming a file anywhere: ``# scenarios/broken.yaml``.
FILE_BLOCK_ANYWHERE = re.compile(r"```yaml\n# (\S+\.yaml)\n(.*?)```", re.DOTALL)


def example_files(page: str) -> list[tuple[str, str]]:
    return FILE_BLOCK.findall((DOCS / page).read_text())


@pytest.mark.parametrize("page", GUIDES)
def test_a_guide_shows_its_example_files_as_they_are(page):
    shown = example_files(page)
    assert shown, page
    for path, body in shown:
        assert (ROOT / path).read_text() == body, f"{page} shows {path} otherwise than it is"


def test_the_ios_guide_runs_on_the_simulator(tmp_path: Path):
    shutil.copytree(DOCS / "examples", tmp_path / "docs" / "examples")
    steps = commands("docs/guide-ios-app.md")
    assert [step.argv[1] for step in steps] == ["validate", "record", "replay", "rerun"]
    Shell(tmp_path).follow("docs/guide-ios-app.md")
    assert (tmp_path / "recordings" / "tally" / "count_to_two.html").exists()


@pytest.mark.parametrize("example", ["count_agent.py", "sign_in_agent.py", "todo_device.py"])
def test_the_guides_python_examples_run(example):
    env = {**os.environ, "DEMO_PASSWORD": "Orav-Demo-1!"}
    done = subprocess.run(
        [sys.executable, str(DOCS / "examples" / example)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("passed"), done.stdout


def test_the_answer_agents_md_shows_is_one_the_llm_agent_accepts():
    from orav.agents.answer import parse_answer
    from orav.model import Element, Frame, Tap, Target

    answer = re.search(r"```json\n(.*?)```", (DOCS / "agents.md").read_text(), re.DOTALL)
    assert answer is not None
    password = Element("AXTextField", "Password", "password", frame=Frame(20, 260, 350, 44))
    decision = parse_answer(answer.group(1), {"e4": password})
    assert decision.action == Tap(195, 282, Target("Password", "password"))
    assert decision.expected_outcome == "The password field has focus."


def test_the_bad_scenario_scenarios_md_shows_fails_as_it_says(tmp_path: Path):
    text = (DOCS / "scenarios.md").read_text()
    path, body = FILE_BLOCK_ANYWHERE.search(text).groups()
    shown = re.search(r"\$ orav validate (\S+)\n(.*)\n```", text)
    assert shown is not None and shown.group(1) == path
    (tmp_path / path).parent.mkdir(parents=True)
    (tmp_path / path).write_text(f"# {path}\n{body}")
    done = orav("validate", path, cwd=tmp_path)
    assert (done.returncode, done.stderr) == (2, shown.group(2) + "\n")


def test_the_scenario_scenarios_md_opens_with_is_valid(tmp_path: Path):
    first = re.search(r"```yaml\n(.*?)```", (DOCS / "scenarios.md").read_text(), re.DOTALL)
    assert first is not None
    (tmp_path / "submit_form.yaml").write_text(first.group(1))
    done = orav("validate", "submit_form.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def readme_python() -> list[str]:
    return re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.DOTALL)


def run_python(script: str, cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_readme_library_example_runs(tmp_path: Path):
    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    assert run_python(readme_python()[0], tmp_path) == "passed\n"


def test_the_readme_custom_device_example_runs(tmp_path: Path):
    """The README's few lines, with the device guide's TodoDevice as MyDevice."""
    lines = "".join(f"    {line}\n" for line in readme_python()[1].splitlines())
    script = (
        f"import asyncio, sys\nsys.path.insert(0, {str(DOCS / 'examples')!r})\n"
        "import orav\nfrom todo_device import TodoDevice as MyDevice, scenario\n"
        f"async def main():\n{lines}    print(recording.report.status)\nasyncio.run(main())\n"
    )
    assert run_python(script, tmp_path) == "passed\n"


def test_the_capabilities_the_agent_guide_names_are_the_llm_agents():
    from orav.agents import Closable, HoldsSecrets, UsesModel
    from orav.agents.openai import OpenAIAgent

    agent = OpenAIAgent.from_spec("openai:gpt-4o", api_key="sk-not-a-real-key-0000")
    guide = (DOCS / "guide-agent.md").read_text()
    for capability in (UsesModel, HoldsSecrets, Closable):
        assert f"`{capability.__name__}`" in guide
        assert isinstance(agent, capability), capability
    assert agent.model == "gpt-4o" and "sk-not-a-real-key-0000" in agent.secrets


def test_the_device_guides_test_passes(tmp_path: Path):
    spec = importlib.util.spec_from_file_location("fake", DOCS / "examples" / "test_fake_device.py")
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    example.test_the_agent_signs_in_and_stops(tmp_path)


def test_the_ios_guides_mac_lines_make_a_valid_scenario(tmp_path: Path):
    guide = (DOCS / "guide-ios-app.md").read_text()
    mac = next(b for b in re.findall(r"```yaml\n(.*?)```", guide, re.DOTALL) if "install:" in b)
    scenario = (DOCS / "examples" / "tally" / "count_to_two.yaml").read_text() + mac
    (tmp_path / "count_to_two.yaml").write_text(scenario)
    done = orav("validate", "count_to_two.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def test_many_machines_two_shards_then_the_merge(tmp_path: Path):
    """docs/many-machines.md: each shard's command on a machine of its own (a folder), the
    recordings moved as CI moves artifacts, then the page's merge; the CI files run the
    same commands."""
    page = (DOCS / "many-machines.md").read_text()
    steps = [step.argv[1:] for step in commands("docs/many-machines.md")]
    assert [step[0] for step in steps] == ["record", "report"]
    record, merge = steps
    assert record[record.index("--shard") + 1] == "1/2"
    for shard in (1, 2):
        machine = tmp_path / f"machine-{shard}"
        for name in ("login", "open_detail", "submit_form"):  # words the merge never saw
            text = (ROOT / "scenarios" / f"{name}.yaml").read_text()
            (machine / "scenarios").mkdir(parents=True, exist_ok=True)
            (machine / "scenarios" / f"{name}.yaml").write_text(text)
        argv = [arg.replace("1/2", f"{shard}/2") for arg in record]
        done = orav(*argv, cwd=machine)
        assert done.returncode == 0, (argv, done.stdout, done.stderr)
        artifact = tmp_path / "artifacts" / f"shard-{shard}"
        shutil.copytree(machine / "recordings", artifact)
    done = orav(*merge, cwd=tmp_path)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert "3 of 3 met their goal" in (tmp_path / "merged" / "summary.md").read_text()
    junit = (tmp_path / "merged" / "junit.xml").read_text()
    assert junit.count("<testcase") == 3 and 'name="shard" value="2/2"' in junit
    index = (tmp_path / "merged" / "index.html").read_text()
    assert index.count('class="run"') == 3 and ">1/2<" in index and ">2/2<" in index
    # The CI files run the page's commands (GitHub's matrix and GitLab's parallel filled in).
    from orav.codec import parse_yaml

    blocks = re.findall(r"```yaml\n# (\S+)\n(.*?)```", page, re.DOTALL)
    ci = {name: parse_yaml(body, name) for name, body in blocks}
    github = ci[".github/workflows/suite.yml"]["jobs"]
    runs = [step["run"] for job in github.values() for step in job["steps"] if "run" in step]
    assert shlex.join(["orav", *record]).replace("1/2", "${{ matrix.shard }}/2") in runs
    assert shlex.join(["orav", *merge]) in runs
    gitlab = ci[".gitlab-ci.yml"]
    shard_line = shlex.join(["orav", *record]).replace("1/2", "$CI_NODE_INDEX/$CI_NODE_TOTAL")
    assert shard_line in gitlab["suite"]["script"] and gitlab["suite"]["parallel"] == 2
    assert "orav report --merge recordings" in " ".join(gitlab["report"]["script"])


def test_the_reports_pages_commands_write_what_it_says(tmp_path: Path):
    """docs/reports.md's first block, in order, from a fresh clone (its recordings hold
    login.cassette), SCENARIO that of the login and CASSETTE its cassette; each writes the
    files its comment names."""
    here = clone(tmp_path)
    cassette = "recordings/login.cassette"
    html = cassette.replace(".cassette", ".html")
    wanted = [  # in the page's order
        [html],
        ["out/reports/index.html", "out/reports/login.html", "out/junit.xml"],
        [cassette, html],
        ["out/demo/index.html", "out/demo/junit.xml"],
        ["out/reruns/login.rerun.html"],
    ]
    steps = commands("docs/reports.md")
    assert [step.argv[1] for step in steps] == ["report", "report", "record", "demo", "rerun"]
    shell = Shell(here)
    for step, paths in zip(steps, wanted, strict=True):
        for path in paths:
            (here / path).unlink(missing_ok=True)
        shell.run(step, SCENARIO="scenarios/login.yaml", **{"CASSETTE...": cassette})
        for path in paths:
            assert (here / path).exists(), (step.text, path)


def test_the_explorer_pages_exploration_ends_as_it_shows(tmp_path: Path):
    """docs/explorer.md's command prints what the page shows and leaves the files it names."""
    (done,) = Shell(tmp_path).follow("docs/explorer.md")
    assert "Exploration finished" in done.stdout
    for kind in ("cassette", "report.json", "html", "coverage.json", "coverage.md"):
        path = tmp_path / "recordings" / f"explore-com-orav-demo.{kind}"
        assert path.exists(), path
