"""``class:package.module:Class``: an Agent or a Device of the user's own named by ``--agent`` and
``--device``, run through the real ``orav`` command (its console script, so that the working
folder is on the path because orav put it there, not ``python -m``), and every mistake one line
naming the flag, exit 2."""

import asyncio
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from command import SCRIPT, orav
from guides import commands
from hypothesis import given
from hypothesis import strategies as st

from orav.errors import DeviceTimeout, InputError
from orav.user_class import ClassSpec, parse_class_spec

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
MISTAKE_ROW = re.compile(r"^\| [^|]+ \| `(class:[^`]+)` \| `(--agent: [^`]+)` \|$", re.MULTILINE)

MYPKG_AGENTS = """
class MyAgent:
    name = "mine"

    async def decide(self, context):
        raise NotImplementedError


class Draft:
    name = "draft"

    def decide(self, context):  # not async: no Agent
        return None


def make():
    return MyAgent()
"""


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``orav ARGS`` as a user runs it in ``cwd``, by the console script."""
    assert Path(SCRIPT[0]).exists(), f"{SCRIPT[0]}: pip install -e . makes it"
    return orav(*args, cwd=cwd, command=SCRIPT)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A folder with the docs' examples, as the repository's root has them."""
    shutil.copytree(DOCS / "examples", tmp_path / "docs" / "examples")
    return tmp_path


def test_the_agent_guides_commands_record_and_judge_an_agent_class(workspace: Path):
    steps = [step.argv[1:] for step in commands("docs/guide-agent.md")]
    assert [step[0] for step in steps] == ["record", "replay"]
    assert all("class:docs.examples.tally_agent:CountTo?total=2" in step for step in steps)
    recorded = run(*steps[0], cwd=workspace)
    assert recorded.returncode == 0, recorded.stderr
    assert "decided  done" in recorded.stderr and "step 2/" in recorded.stderr  # CountTo's way
    judged = run(*steps[1], cwd=workspace)
    assert judged.returncode == 0, judged.stderr
    assert "3 of 3 decisions of count-to matched" in judged.stdout


def test_the_device_guides_commands_record_rerun_and_replay_a_device_class(workspace: Path):
    steps = [step.argv[1:] for step in commands("docs/guide-device.md")]
    assert [step[0] for step in steps] == ["record", "rerun", "replay"]
    said = []
    for step in steps:
        done = run(*step, cwd=workspace)
        assert done.returncode == 0, (step, done.stdout, done.stderr)
        said.append(done.stdout)
    assert (workspace / "recordings" / "todo" / "two_items.html").exists()
    assert "two_items.cassette: passed" in said[1] and "faithful" in said[2], said


def test_each_mistake_the_agent_guide_shows_is_what_orav_says(workspace: Path):
    (workspace / "mypkg").mkdir()
    (workspace / "mypkg" / "__init__.py").write_text("")
    (workspace / "mypkg" / "agents.py").write_text(MYPKG_AGENTS)
    (workspace / "mypkg" / "broken.py").write_text("import tallyho\n")
    rows = MISTAKE_ROW.findall((DOCS / "guide-agent.md").read_text())
    assert len(rows) == 7
    scenario = ["docs/examples/tally/count_to_two.yaml", "--out", "out.cassette"]
    for spec, message in rows:
        done = run("record", *scenario, "--agent", spec, cwd=workspace)
        said = message.replace("/src", str(workspace))
        assert (done.returncode, done.stderr) == (2, f"orav: error: {said}\n"), spec
    assert not (workspace / "out.cassette").exists()


def test_the_device_guides_mistake_is_what_orav_says_and_leaves_no_cassette(workspace: Path):
    shown = re.search(
        r"```text\n(orav: error: --device: .*)\n```", (DOCS / "guide-device.md").read_text()
    )
    assert shown is not None
    out = workspace / "recordings" / "todo.cassette"
    done = run(
        "record", "docs/examples/todo/two_items.yaml", "--out", str(out),
        "--device", "class:docs.examples.todo_device:TodoApp", cwd=workspace,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (2, shown.group(1) + "\n")
    assert not out.exists()


DEVICES = """
from docs.examples.todo_device import TodoDevice


class Picky(TodoDevice):
    def __init__(self, port: str) -> None:
        super().__init__()
        self.port = int(port)


class HalfDone(TodoDevice):
    def observe(self):  # not async
        return None
"""


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("class:mydevices:Picky", "cannot build mydevices:Picky(): missing a required argument: 'port'"),
        ("class:mydevices:Picky?port=x", "mydevices:Picky(port='x') raised ValueError: invalid literal"),
        ("class:mydevices:Picky?port=1,2", "mydevices:Picky(port='1,2') raised ValueError: invalid literal"),
        ("class:mydevices:HalfDone", "mydevices:HalfDone is no orav Device: it lacks async def observe (an orav Device has async def describe, observe, perform, launch, terminate, is_running, close)"),
        ("class:mydevices", "expected class:package.module:Class[?name=value&...], got 'class:mydevices'"),
        ("class:mydevices:Picky?port", "expected name=value&... after '?', got 'port'"),
        ("mydevices:Picky", "unknown device 'mydevices:Picky'; expected 'sim', 'sim:APP.yaml', 'idb:HOST:PORT', 'textual:package.module:AppClass' or 'class:package.module:Class[?name=value&...]'"),
    ],
)  # fmt: skip
def test_a_device_mistake_is_one_line_naming_the_flag(workspace: Path, spec: str, said: str):
    (workspace / "mydevices.py").write_text(DEVICES)
    done = run(
        "record", "docs/examples/todo/two_items.yaml", "--out", "o.cassette", "--device", spec,
        cwd=workspace,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"orav: error: --device: {said}"), done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_the_config_file_names_classes_and_workers_build_them(workspace: Path):
    import json

    config = workspace / "orav.toml"
    config.write_text(
        'device = "sim:docs/examples/tally/app.yaml"\n'
        'agent = "class:docs.examples.tally_agent:CountTo?total=2"\n'
    )
    done = run("record", "docs/examples/tally/count_to_two.yaml", "-q", cwd=workspace)
    assert done.returncode == 0, done.stderr
    header = (workspace / "recordings" / "count_to_two.cassette").read_text().split("\n", 1)[0]
    assert json.loads(header)["agent"] == "count-to"  # not the scenario's script
    config.write_text('device = "class:docs.examples.todo_device:TodoDevice"\n')
    for name in ("milk", "eggs"):
        shutil.copy(DOCS / "examples" / "todo" / "two_items.yaml", workspace / f"{name}.yaml")
    done = run("record", "milk.yaml", "eggs.yaml", "--workers", "2", cwd=workspace)
    assert done.returncode == 0, done.stderr  # each worker process builds its own TodoDevice
    assert {p.name for p in (workspace / "recordings").glob("*.cassette")} == {
        "count_to_two.cassette",
        "milk.cassette",
        "eggs.cassette",
    }


def test_tuning_flags_of_the_llm_agent_are_refused_for_a_class(workspace: Path):
    done = run(
        "record", "docs/examples/tally/count_to_two.yaml", "--agent-option", "total=2",
        "--agent", "class:docs.examples.tally_agent:CountTo", cwd=workspace,
    )  # fmt: skip
    said = "an agent class takes its arguments in the spec: class:module:Class?name=value"
    assert (done.returncode, done.stderr) == (2, f"orav: error: --agent-option: {said}\n")


def test_explore_asks_which_app_a_device_class_runs(workspace: Path):
    done = run("explore", "--device", "class:docs.examples.todo_device:TodoDevice", cwd=workspace)
    said = "name the app to explore on 'class:docs.examples.todo_device:TodoDevice'"
    assert (done.returncode, done.stderr) == (2, f"orav: error: --app: {said}\n")


# --- in-process: the device is closed, a close that hangs is bounded ---------------------------

CLOSING = """
from docs.examples.todo_device import TodoDevice

CLOSED = []


class Counted(TodoDevice):
    async def close(self) -> None:
        CLOSED.append(self)


class Stuck(TodoDevice):
    async def close(self) -> None:
        import asyncio

        await asyncio.sleep(3600)
"""


def test_a_device_class_is_built_for_the_run_and_closed_after_it(workspace, monkeypatch):
    import orav
    from orav.scenario_loader import load_scenario
    from orav.specs import open_device

    (workspace / "closing_devices.py").write_text(CLOSING)
    monkeypatch.chdir(workspace)
    monkeypatch.setattr(sys, "path", list(sys.path))  # orav puts the working folder on it
    scenario = load_scenario(DOCS / "examples" / "todo" / "two_items.yaml")
    spec = "class:closing_devices:Counted"
    recording = asyncio.run(orav.record(scenario, workspace / "c.cassette", device=spec))
    assert recording.report.status == "passed"
    from closing_devices import CLOSED  # imported from the working folder

    assert len(CLOSED) == 1

    async def stuck() -> None:
        async with open_device("class:closing_devices:Stuck", scenario, timeout=0.05):
            pass

    with pytest.raises(DeviceTimeout, match="close\\(\\) did not return in 0.05 s"):
        asyncio.run(stuck())
    monkeypatch.delitem(sys.modules, "closing_devices")


# --- the spec's grammar ----------------------------------------------------------------------

IDENTIFIER = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)


@given(
    st.lists(IDENTIFIER, min_size=1, max_size=3),
    IDENTIFIER,
    st.dictionaries(IDENTIFIER, st.text(max_size=10), max_size=3),
)
def test_a_class_spec_reads_back_its_module_class_and_arguments(parts, name, arguments):
    from urllib.parse import urlencode

    query = f"?{urlencode(arguments)}" if arguments else ""
    spec = f"class:{'.'.join(parts)}:{name}{query}"
    assert parse_class_spec(spec, "--agent") == ClassSpec(
        ".".join(parts), name, tuple(arguments.items())
    )


@given(st.text(max_size=30))
def test_anything_else_after_class_is_one_input_error_naming_the_flag(text):
    try:
        parse_class_spec(f"class:{text}", "--device")
    except InputError as exc:
        assert exc.where == "--device"


@pytest.mark.parametrize(
    "spec",
    ["openai:gpt-4o", "textual:orav.demo_tui:DemoApp", "sim:app.yaml", "mypkg.agents:MyAgent"],
)
def test_the_other_kinds_of_spec_are_not_classes(spec):
    """The word before the first colon says what a spec is: a module named ``openai`` or
    ``sim`` is still named ``class:openai:Agent``."""
    from orav.specs import make_agent

    if spec.startswith("openai:"):
        assert type(make_agent(spec, api_key="sk-test-0000")).__name__ == "OpenAIAgent"
    else:
        with pytest.raises(InputError, match="unknown agent"):
            make_agent(spec)
