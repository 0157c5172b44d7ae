"""Issue 27, hostile conditions (third round), item by item, through the real ``orav`` command:
each case ends with one located line and the documented exit code, never a hang past the run's
deadline, an internal error, a zero exit for a failure or a process left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from command import ORAV, orav
from hypothesis import given, settings
from hypothesis import strategies as st

from orav.cassette import read_cassette
from orav.cassette.events import Header
from orav.cassette.writer import CassetteWriter
from orav.errors import InputError
from orav.scenario_loader import load_scenario
from orav.sim.render import _font, _wrap

WORDS = ["amber", "Quill", "dune", "Ørsted", "oxbow", "Tally", "nimbus", "zest", "Pyre"]


def huge_title_model(path: Path, size: int = 100_000) -> Path:
    """An app model whose first screen's title is ``size`` characters of words no code knows."""
    title = " ".join(WORDS[(i * 7 + i // 3) % len(WORDS)] for i in range(size // 4))[:size]
    path.write_text(
        "name: Sprawl\nbundle_id: com.example.sprawl\nstart: home\nscreens:\n"
        f"  home:\n    title: {json.dumps(title)}\n    elements:\n"
        "      - {role: AXButton, id: onward, label: Onward, frame: [20, 100, 120, 44],"
        " on_tap: [{to: far}]}\n"
        "  far:\n    title: Far\n    elements:\n"
        "      - {role: AXButton, id: home, label: Home, frame: [8, 47, 70, 44],"
        " on_tap: [{to: back}]}\n"
    )
    return path


# User classes with words and shapes orav does not know: each misbehaves its own way.
HOSTILE_CLASSES = """\
import time


class Whirl:
    name = "whirl"

    async def decide(self, context):
        turns = 0
        while True:  # computes, never awaits: the loop gets no turn
            turns += 1


class Doze:
    name = "doze"

    async def decide(self, context):
        time.sleep(10_000)  # blocks the thread the loop runs on


class Bolt:
    name = "bolt"

    async def decide(self, context):
        raise SystemExit(0)


class Sulk:
    name = "sulk"

    async def decide(self, context):
        raise KeyboardInterrupt


class Mumble:
    name = "mumble"

    async def decide(self, context):
        return "tap the blue one"


class Blank:
    name = "blank"

    async def decide(self, context):
        return None


class Gush:
    name = "gush"

    async def decide(self, context):
        from orav.model import Decision, Done

        return Decision(action=Done(success=True), reasoning="on and on " * 2_000_000)


class Vanish:
    name = "vanish"

    def __init__(self):
        raise SystemExit(0)

    async def decide(self, context):
        raise AssertionError("never built")


class Fib:
    # a device whose describe() answers in words

    async def describe(self):
        return "a phone, probably"

    async def observe(self):
        raise AssertionError("never reached")

    async def perform(self, action):
        raise AssertionError("never reached")

    async def launch(self, bundle_id):
        return None

    async def terminate(self, bundle_id):
        return None

    async def is_running(self, bundle_id):
        return True

    async def close(self):
        return None


class Stall(Fib):
    # a device whose describe() awaits what never comes

    async def describe(self):
        import asyncio

        await asyncio.Event().wait()


class Snooze(Fib):
    # a device whose describe() blocks the thread the loop runs on

    async def describe(self):
        time.sleep(10_000)
"""


def scenario(folder: Path, timeout: float) -> Path:
    (folder / "hostile_classes.py").write_text(HOSTILE_CLASSES)
    path = folder / "s.yaml"
    path.write_text(f"name: s\napp: com.orav.demo\ngoal: g\ntimeout_seconds: {timeout}\n")
    return path


def started(args: list[object], cwd: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "ORAV_DEBUG"}
    return subprocess.Popen(
        [*ORAV, *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=cwd,
    )


def when_reasoning(cassette: Path, within: float = 40) -> None:
    """Wait until the run has observed its first screen (the agent is deciding)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if any(b'"observation"' in p.read_bytes() for p in cassette.parent.glob("*.cassette*")):
            return
        time.sleep(0.1)
    raise AssertionError("the run did not reach its first decision")


# --- 1. every run ends by its deadline --------------------------------------------------------


@pytest.mark.parametrize("agent", ["Whirl", "Doze"])
def test_1_a_run_ends_by_its_deadline_while_user_code_holds_the_loop(tmp_path: Path, agent):
    path = scenario(tmp_path, timeout=4)
    began = time.monotonic()
    done = orav(
        "record", path, "--agent", f"class:hostile_classes:{agent}", "--out", "s.cassette",
        cwd=tmp_path,
    )  # fmt: skip
    assert time.monotonic() - began < 40  # it never ended
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    report = json.loads((tmp_path / "s.report.json").read_text())
    assert report["status"] == "timed_out", report
    assert report["duration_seconds"] < 4 + 5  # the deadline, the watchdog's grace, a margin
    held = "held the thread: the watchdog cut it"  # Whirl computes, Doze sleeps: neither awaits
    cut = f"hostile_classes:{agent}.decide was cut off (it {held})"
    assert [e["error"] for e in report["errors"]] == [cut], report["errors"]
    assert f"step 1: {cut}" in done.stderr  # what the deadline cut, in the run's reasons
    assert orav("replay", tmp_path / "s.cassette").returncode == 0


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize("agent", ["Whirl", "Doze"])
def test_1_a_signal_ends_a_run_whose_loop_is_held(tmp_path: Path, agent, signum):
    path = scenario(tmp_path, timeout=300)
    run = started(
        ["record", path, "--agent", f"class:hostile_classes:{agent}", "--out", "s.cassette"],
        tmp_path,
    )
    when_reasoning(tmp_path / "s.cassette")
    time.sleep(0.5)
    run.send_signal(signum)
    _, stderr = run.communicate(timeout=30)
    assert run.returncode == 128 + signum, stderr
    assert stderr.splitlines()[-1] == f"orav: interrupted by {signum.name}", stderr
    assert "Traceback" not in stderr
    report = json.loads((tmp_path / "s.report.json").read_text())
    assert report["status"] == "interrupted", report


def test_1_a_100_kb_title_is_explored_within_the_deadline(tmp_path: Path):
    # It once drew the title's last line a character at a time: 3,046 s at 100 % CPU.
    model = huge_title_model(tmp_path / "sprawl.yaml")
    done = orav(
        "explore",
        "--device",
        f"sim:{model}",
        "--max-steps",
        15,
        "--timeout",
        20,
        "--out",
        tmp_path / "sprawl.cassette",
    )  # fmt: skip (orav() gives up after 60 s: it spun for 3,046)
    assert done.returncode in (0, 1), done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    report = json.loads((tmp_path / "sprawl.report.json").read_text())
    assert report["status"] in ("passed", "step_limit", "timed_out"), report["status"]
    # The run's own clock (from its start, not the interpreter's): ended by its deadline.
    assert report["duration_seconds"] < 20 + 5, report["duration_seconds"]


def _wrap_a_character_at_a_time(text: str, font, width: float, lines: int) -> list[str]:
    """The old, quadratic wrap: what the linear one must still draw."""
    out: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}".strip()
        if font.getlength(candidate) <= width or not current:
            current = candidate
        else:
            out.append(current)
            current = word
    out.append(current)
    if len(out) > lines:
        out = [*out[: lines - 1], " ".join(out[lines - 1 :])]
    last = out[-1]
    if font.getlength(last) > width:
        while last and font.getlength(last + "...") > width:
            last = last[:-1]
        out[-1] = last.rstrip() + "..."
    return out


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("ab Wé漢 \n-."), max_size=120),
    st.integers(1, 300),
    st.integers(1, 4),
)
def test_1_the_linear_wrap_draws_what_the_quadratic_one_did(text: str, width: int, lines: int):
    font = _font(17)
    assert _wrap(text, font, width, lines) == _wrap_a_character_at_a_time(text, font, width, lines)


# --- 2. user code runs inside bounds ----------------------------------------------------------


@pytest.mark.parametrize(
    ("agent", "what"),
    [
        ("Bolt", "hostile_classes:Bolt.decide raised SystemExit: 0"),
        ("Sulk", "hostile_classes:Sulk.decide raised KeyboardInterrupt"),
        ("Mumble", "hostile_classes:Mumble.decide returned str 'tap the blue one', not Decision"),
        ("Blank", "hostile_classes:Blank.decide returned NoneType None, not Decision"),
    ],
)
def test_2_an_agent_class_that_exits_or_answers_otherwise_is_its_failure(tmp_path, agent, what):
    path = scenario(tmp_path, timeout=60)
    done = orav(
        "record", path, "--agent", f"class:hostile_classes:{agent}", "--out", "s.cassette",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, (done.stdout, done.stderr)  # it was 0, printing nothing
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert done.stderr.splitlines()[-1] == f"s.cassette: aborted: {what}", done.stderr
    report = json.loads((tmp_path / "s.report.json").read_text())
    assert report["status"] == "aborted"


def test_2_an_agent_class_whose_constructor_exits_is_bad_input(tmp_path: Path):
    path = scenario(tmp_path, timeout=60)
    done = orav("record", path, "--agent", "class:hostile_classes:Vanish", cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.splitlines() == [
        "orav: error: --agent: hostile_classes:Vanish() raised SystemExit: 0"
    ]


def test_2_a_decision_s_text_is_bounded_as_a_model_s(tmp_path: Path):
    path = scenario(tmp_path, timeout=60)
    done = orav(
        "record", path, "--agent", "class:hostile_classes:Gush", "--out", "s.cassette",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "s.cassette").stat().st_size < 1024 * 1024  # it was 60 MB
    assert (tmp_path / "s.html").stat().st_size < 2 * 1024 * 1024  # it was 80 MB


@pytest.mark.parametrize(
    ("device", "what", "bound"),
    [
        (
            "Fib",
            "hostile_classes:Fib.describe returned str 'a phone, probably', not DeviceInfo",
            60,
        ),
        ("Stall", "Stall.describe did not return within 5 s (it was awaiting)", 4),
        ("Snooze", "Snooze.describe did not return within 5 s (it held the thread: the", 4),
    ],
)
def test_2_a_device_class_that_answers_otherwise_or_never_is_its_failure(
    tmp_path, device, what, bound
):
    path = scenario(tmp_path, timeout=bound)
    began = time.monotonic()
    done = orav(
        "record", path, "--device", f"class:hostile_classes:{device}", "--out", "s.cassette",
        cwd=tmp_path,
    )  # fmt: skip
    assert time.monotonic() - began < 40
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert what in done.stderr.splitlines()[-1], done.stderr


# --- 3. only cassettes orav can read -----------------------------------------------------------

NUMBERS = st.one_of(
    st.integers(-(10**80), 10**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e308, 1e-300, 10**64, 10**65, 0.5, 1, 3]),
)


@settings(max_examples=150, deadline=None)
@given(
    timeout=NUMBERS,
    duration=NUMBERS,
    times=NUMBERS,
    steps=NUMBERS,
    fault=st.sampled_from(["frozen", "crash", "loading", "slow_observe", "network_error"]),
)
def test_3_a_scenario_validate_passes_makes_a_cassette_orav_reads(
    tmp_path_factory, timeout, duration, times, steps, fault
):
    folder = tmp_path_factory.mktemp("bounds")
    path = folder / "s.yaml"
    path.write_text(
        f"name: s\napp: com.example.any\ngoal: g\ntimeout_seconds: {timeout!r}\n"
        f"max_steps: {steps!r}\nfaults: [{{type: {fault}, duration: {duration!r}, "
        f"times: {times!r}}}]\n"
    )
    try:
        scenario = load_scenario(path)
    except InputError as refused:
        assert str(path) in str(refused.where) or str(path) in str(refused)
        return
    cassette = folder / "s.cassette"
    with CassetteWriter.create(cassette, Header(scenario=scenario), fsync=False):
        pass
    assert read_cassette(cassette).header.scenario == scenario


@pytest.mark.parametrize(
    ("line", "what"),
    [
        ("faults: [{type: frozen, duration: 1e308}]", "duration: expected a whole number of at"),
        ("timeout_seconds: 1e-300", "timeout_seconds: must be at least 1.0"),
    ],
)
def test_3_validate_refuses_what_a_cassette_could_not_hold(tmp_path: Path, line: str, what: str):
    path = tmp_path / "s.yaml"
    path.write_text(f"name: s\napp: com.orav.demo\ngoal: g\n{line}\n")
    done = orav("validate", path)
    assert done.returncode == 2, done.stdout
    assert done.stderr.startswith(f"orav: error: {path}:4:"), done.stderr
    assert what in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr


# --- 5. config is untrusted input --------------------------------------------------------------


def _plant(folder: Path, case: str) -> Path:
    """A hostile orav.toml or pyproject.toml in ``folder``; the file an error must name."""
    config, pyproject = folder / "orav.toml", folder / "pyproject.toml"
    if case == "deep":
        config.write_text("rows = " + "[" * 3000 + "]" * 3000 + "\n")
    elif case == "digits":
        config.write_text("workers = " + "7" * 5000 + "\n")
    elif case == "array_of_tables":
        pyproject.write_text('[project]\nname = "p"\n[[tool.orav]]\ndevice = "sim"\n')
    elif case == "not_a_table":
        pyproject.write_text('[project]\nname = "p"\n[tool]\norav = 5\n')
    elif case == "folder":
        config.mkdir()
    elif case == "fifo":
        os.mkfifo(config)
    elif case == "link_loop":
        config.symlink_to(config)
    return pyproject if case in ("array_of_tables", "not_a_table") else config


@pytest.mark.parametrize(
    ("case", "what"),
    [
        ("deep", "nested more than 64 levels deep"),
        ("digits", "a number of more than 64 digits"),
        ("array_of_tables", "3: tool.orav: expected a table ([tool.orav]), got an array of"),
        ("not_a_table", "4: tool.orav: expected a table ([tool.orav]), got int 5"),
        ("folder", "not a regular file"),
        ("fifo", "not a regular file"),
        ("link_loop", "cannot read: Too many levels of symbolic links"),
    ],
)
def test_5_a_hostile_config_is_a_located_error(tmp_path: Path, case: str, what: str):
    named = _plant(tmp_path, case)
    done = orav("record", "absent.yaml", cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)  # it crashed or passed it over
    (line,) = done.stderr.splitlines()
    separator = ":" if what[0].isdigit() else ": "
    assert line.startswith(f"orav: error: {named}{separator}{what}"), line


def test_5_a_setting_the_run_does_not_use_says_so_once_with_its_line(tmp_path: Path):
    (tmp_path / "orav.toml").write_text(
        'recordings = "tapes"\nnetwork = true\n\n[agent_options]\ntemperature = 0.4\n'
    )
    for name in ("first", "second"):
        (tmp_path / f"{name}.yaml").write_text(
            f"name: {name}\napp: com.orav.demo\ngoal: g\nscript:\n"
            "  - action: {kind: done, success: true}\n"
        )
    done = orav("record", "first.yaml", "second.yaml", "--workers", 1, cwd=tmp_path)
    assert done.returncode == 0, done.stderr  # a note, not an error
    notes = [line for line in done.stderr.splitlines() if line.startswith("orav: note:")]
    config = tmp_path / "orav.toml"
    assert notes == [
        f"orav: note: {config}:4: agent_options is not used: the agent scripted is no openai: model",
        f"orav: note: {config}:2: network is not used: only a textual: app runs in a sandbox",
    ], done.stderr


# --- 6. secrets off the console ---------------------------------------------------------------

TOKEN = "tok-Quasar-9f3a7c"


def test_6_a_var_secret_is_on_no_console_line(tmp_path: Path):
    # typed in a step (the progress line), a device call (-v), and quoted by the goal that a
    # failing run's reason repeats
    path = tmp_path / "s.yaml"
    path.write_text(
        "name: s\napp: com.orav.demo\ngoal: sign in with ${ORAV_TOKEN} and see Nowhere\n"
        "success_criteria:\n  - {target: {label: Nowhere}, condition: visible}\n"
        "script:\n"
        "  - action: {kind: tap, target: {id: email}}\n"
        "  - action: {kind: type_text, text: '${ORAV_TOKEN}'}\n"
        "  - action: {kind: done, success: true}\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "ORAV_DEBUG"}
    env["ORAV_TOKEN"] = TOKEN
    done = subprocess.run(
        [*ORAV, "record", path, "--out", tmp_path / "s.cassette", "-v"],
        capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "type" in done.stderr  # the lines that once showed it are there
    assert TOKEN not in done.stdout and TOKEN not in done.stderr, done.stderr
    assert "tok-Quasar" not in done.stdout + done.stderr


# Agent classes that type the scenario's ${ORAV_TOKEN} in pieces no scrubber knows as secrets
# (a character a step, two halves, the first reversed) and log what they do, as a user's code
# logs: through the logging module, to orav's stderr.
PIECEMEAL = """\
import logging
import os

from orav.model import Decision, Done, Tap, Target, TypeText

log = logging.getLogger("piecemeal")


class Piecemeal:
    name = "piecemeal"

    def __init__(self, split="chars"):
        token = os.environ["ORAV_TOKEN"]
        if split == "chars":
            self.pieces = list(token)
        else:
            self.pieces = [token[:7][::-1], token[7:]]
        self.left = list(self.pieces)

    async def decide(self, context):
        if context.step == 1:
            return Decision(Tap(target=Target(id="email")), reasoning="the field first")
        if self.left:
            piece = self.left.pop(0)
            log.warning("typing a piece of %s", os.environ["ORAV_TOKEN"])
            return Decision(TypeText(text=piece), reasoning=f"next comes {piece}")
        raise RuntimeError("typed " + os.environ["ORAV_TOKEN"] + ", now what?")
"""


@pytest.mark.parametrize("split", ["chars", "halves"])
def test_6_a_secret_typed_in_pieces_is_on_no_console_line(tmp_path: Path, split: str):
    (tmp_path / "piecemeal.py").write_text(PIECEMEAL)
    path = tmp_path / "s.yaml"
    path.write_text(
        "name: s\napp: com.orav.demo\ngoal: sign in with ${ORAV_TOKEN}\nmax_steps: 30\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "ORAV_DEBUG"}
    env["ORAV_TOKEN"] = TOKEN
    done = subprocess.run(
        [*ORAV, "record", path, "--out", "s.cassette", "-v",
         "--agent", f"class:piecemeal:Piecemeal?split={split}"],
        capture_output=True, text=True, env=env, timeout=120, check=False, cwd=tmp_path,
    )  # fmt: skip
    shown = done.stdout + done.stderr
    assert done.returncode == 1, shown  # the agent's failure ends it, quoting what it typed
    assert "typing" in shown and "now what?" in shown  # the log records and the failure
    assert TOKEN not in shown and TOKEN[::-1] not in shown, shown
    pieces = [TOKEN[:7][::-1], TOKEN[7:]] if split == "halves" else list(TOKEN)
    typed = [line for line in shown.splitlines() if " type " in line]
    assert len(typed) == 2 * len(pieces), shown  # each typing, its step and device call
    assert not [line for line in typed if "'" in line], shown  # in bullets, never quoted
    assert shown.count("typing a piece of ••••••") == len(pieces), shown  # the log records


# --- 4. reap what the app started ---------------------------------------------------------------

# A Textual app that leaves three sleepers behind when it starts: a child, a grandchild whose
# parent exits (double fork), and one that starts a session of its own. Each writes its pid.
BREEDER = """\
import os
import time

from textual.app import App
from textual.widgets import Button


def sleeper(name, detach):
    pid = os.fork()
    if pid:
        if detach:
            os.waitpid(pid, 0)
        return
    if detach:
        os.setsid()
        if os.fork():
            os._exit(0)
    with open(os.environ["BREEDER_PIDS"] + "/" + name, "w") as out:
        out.write(str(os.getpid()))
    time.sleep(600)
    os._exit(0)


class Breeder(App):
    def compose(self):
        yield Button("Hatch", id="hatch")

    def on_mount(self):
        sleeper("child", False)
        sleeper("detached", True)
"""


# --- 6. an in-process app cannot take orav down -----------------------------------------------

# A Textual app that talks on every stream it can reach from Python, with words orav never saw.
GABBLE = """\
import sys

from textual.app import App
from textual.widgets import Button


class Gabble(App):
    def compose(self):
        yield Button("Natter", id="natter")

    def on_button_pressed(self, event):
        print("GABBLE-OUT " * 40)
        sys.stderr.write("GABBLE-ERR\\n")
        sys.__stdout__.write("GABBLE-DUNDER\\n")
"""


def test_6_an_in_process_app_prints_into_its_log_not_on_orav_s_streams(tmp_path: Path):
    (tmp_path / "gabble.py").write_text(GABBLE)
    path = tmp_path / "s.yaml"
    path.write_text(
        "name: s\napp: gabble:Gabble\ngoal: g\nscript:\n"
        "  - action: {kind: tap, target: {id: natter}}\n"
        "  - action: {kind: done, success: true}\n"
    )
    done = orav(
        "record", path, "--device", "textual-in-process:gabble:Gabble", "--out", "s.cassette",
        "-v", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert "tap #natter" in done.stderr  # orav's own lines still reach its streams
    assert "GABBLE" not in done.stdout + done.stderr, done.stdout + done.stderr


def test_6_what_an_in_process_app_prints_is_kept_bounded(tmp_path: Path, monkeypatch, capfd):
    import asyncio
    import sys

    from orav.drivers.textual import TextualDevice
    from orav.drivers.textual.companion.session import KEPT
    from orav.model import Tap, Target

    (tmp_path / "gabble.py").write_text(GABBLE.replace('" * 40', '" * 40_000'))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))

    async def natter() -> str:
        async with TextualDevice.from_spec("gabble:Gabble") as device:
            await device.launch()
            print("orav's own words")
            result = await device.perform(Tap(target=Target(id="natter")))
            assert result.ok, result.error
            return device.stderr

    streams = sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__
    kept = asyncio.run(natter())
    assert (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__) == streams  # put back
    shown = capfd.readouterr()
    assert "orav's own words" in shown.out
    assert "GABBLE" not in shown.out + shown.err
    assert kept.endswith("GABBLE-ERR\nGABBLE-DUNDER\n"), kept[-200:]
    assert "GABBLE-OUT" in kept and len(kept) <= KEPT  # 440,000 characters printed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    return state != "Z"


@pytest.mark.parametrize("driver", ["textual", "textual-in-process"])
def test_4_what_the_app_started_ends_with_the_run(tmp_path: Path, driver: str):
    (tmp_path / "breeder.py").write_text(BREEDER)
    pids = tmp_path / "pids"
    pids.mkdir()
    path = tmp_path / "s.yaml"
    path.write_text(
        "name: s\napp: breeder:Breeder\ngoal: g\nscript:\n"
        "  - action: {kind: tap, target: {id: hatch}}\n"
        "  - action: {kind: done, success: true}\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "ORAV_DEBUG"}
    env["BREEDER_PIDS"] = str(pids)
    done = subprocess.run(
        [*ORAV, "record", path, "--device", f"{driver}:breeder:Breeder", "--out", "s.cassette",
         "--network"],
        capture_output=True, text=True, env=env, timeout=60, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, (done.stdout, done.stderr)
    started = {p.name: int(p.read_text()) for p in pids.iterdir() if p.read_text()}
    assert started.keys() == {"child", "detached"}, started
    time.sleep(0.5)
    assert not [name for name, pid in started.items() if _alive(pid)]
