"""Issue 27 on inputs it was not designed for, through the real ``orav`` command: Textual apps
that reach for what orav's process shares with them (descriptors, working folder, environment,
signal handlers, an alarm, a thread that never ends), user classes that raise what no
``except Exception`` takes or answer with what never ran, a device whose looks are too large
to keep, and an accessibility dump nested past any bound. Each run ends with its report and the
documented exit status, never a traceback, a hang or orav's own streams lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest
from command import ORAV, orav

from orav.drivers.accessibility import AccessibilityError, parse_elements

# Textual apps with words no code of orav's knows, each reaching for the process it runs in.
UNRULY = """\
import os
import signal
import threading
import time

from textual.app import App
from textual.widgets import Button


class Quay(App):
    def compose(self):
        yield Button("Kindle", id="kindle")
        yield Button("Spare", id="spare")


class Hush(Quay):  # closes the standard descriptors
    def on_button_pressed(self, event):
        os.close(1)
        os.close(2)


class Swap(Quay):  # points them at a file of its own
    def on_button_pressed(self, event):
        fd = os.open("swap.log", os.O_WRONLY | os.O_CREAT, 0o600)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.write(1, b"SWAP-RAW\\n")


class Roam(Quay):  # moves its working folder and changes its environment
    def on_mount(self):
        os.chdir("/")
        os.environ["HOME"] = "/nowhere"
        os.environ["ORAV_DEBUG"] = "1"


class Trap(Quay):  # takes SIGTERM and SIGINT for itself, and sets an alarm
    def on_mount(self):
        signal.signal(signal.SIGTERM, lambda *a: None)
        signal.signal(signal.SIGINT, lambda *a: None)

    def on_button_pressed(self, event):
        signal.alarm(1)


class Linger(Quay):  # starts a thread that never ends, not a daemon
    def on_mount(self):
        threading.Thread(target=lambda: time.sleep(10_000), name="lingerer").start()
"""

SCRIPT = """\
name: s
app: unruly:Quay
goal: kindle it
script:
  - action: {kind: tap, target: {id: kindle}}
  - action: {kind: tap, target: {id: spare}}
  - action: {kind: done, success: true}
"""


def _record(folder: Path, app: str, driver: str) -> subprocess.Popen:
    (folder / "unruly.py").write_text(UNRULY)
    (folder / "s.yaml").write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if k != "ORAV_DEBUG"}
    return subprocess.Popen(
        [*ORAV, "record", "s.yaml", "--device", f"{driver}:unruly:{app}", "--out", "s.cassette"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=folder,
    )  # fmt: skip


# Each app on each driver, but the companion's Hush: an app that closes its own process's
# stderr there is that app's crash (the test after this one).
REACHING = [
    (app, driver)
    for driver in ("textual-in-process", "textual")
    for app in ("Hush", "Swap", "Roam", "Trap", "Linger")
    if (app, driver) != ("Hush", "textual")
]


@pytest.mark.parametrize(("app", "driver"), REACHING)
def test_an_app_that_reaches_for_the_process_leaves_orav_whole(tmp_path: Path, app, driver):
    run = _record(tmp_path, app, driver)
    stdout, stderr = run.communicate(timeout=120)  # Linger once held orav forever
    assert run.returncode == 0, (stdout, stderr)  # Trap's alarm once killed it after the run
    assert "Traceback" not in stderr and "SWAP-RAW" not in stdout + stderr
    assert "cassette: s.cassette" in stdout  # its console is its own: Hush closed it once
    report = json.loads((tmp_path / "s.report.json").read_text())  # Roam moved it once
    assert report["status"] == "passed"
    assert (tmp_path / "s.html").exists()
    if app == "Linger" and driver == "textual-in-process":
        assert stderr.splitlines()[-1] == "orav: note: ended without waiting for thread lingerer"


def test_an_app_in_the_companion_that_closes_its_stderr_is_its_failure(tmp_path: Path):
    run = _record(tmp_path, "Hush", "textual")
    stdout, stderr = run.communicate(timeout=120)
    assert run.returncode == 1, (stdout, stderr)
    assert stderr.splitlines()[-1].startswith("s.cassette: aborted: "), stderr
    assert json.loads((tmp_path / "s.report.json").read_text())["status"] == "aborted"


def test_an_app_that_takes_sigterm_for_itself_does_not_take_orav_s(tmp_path: Path):
    (tmp_path / "unruly.py").write_text(UNRULY)
    (tmp_path / "s.yaml").write_text(
        SCRIPT.replace("  - action: {kind: done", "  - action: {kind: wait, seconds: 60}\n"
                       "  - action: {kind: done")
    )  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "ORAV_DEBUG"}
    run = subprocess.Popen(
        [*ORAV, "record", "s.yaml", "--device", "textual-in-process:unruly:Trap",
         "--out", "s.cassette"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert run.stderr is not None
    lines = []
    for line in run.stderr:  # until the run waits: the app has taken SIGTERM by then
        lines.append(line)
        if line.split()[-2:] == ["wait", "60s"]:
            break
    else:
        pytest.fail("".join(lines))
    run.send_signal(signal.SIGTERM)
    _, rest = run.communicate(timeout=60)
    stderr = "".join(lines) + rest
    assert run.returncode == 143, stderr
    assert stderr.splitlines()[-1] == "orav: interrupted by SIGTERM", stderr
    assert json.loads((tmp_path / "s.report.json").read_text())["status"] == "interrupted"


# User classes that raise or answer what no ``except Exception`` or type check foresaw.
ODD = """\
from orav.model import (
    ActionResult, Decision, DeviceInfo, Done, Element, Frame, Observation, Screenshot,
)


class Omen(BaseException):
    pass


class Doom:
    name = "doom"

    async def decide(self, context):
        raise Omen("the sky falls")


class Wane:
    name = "wane"

    async def decide(self, context):
        raise GeneratorExit


class Pledge:
    name = "pledge"

    async def decide(self, context):
        async def later():
            return Decision(Done(success=True), reasoning="never run")

        return later()


class Spring:
    name = "spring"

    async def decide(self, context):
        def later():
            yield Decision(Done(success=True), reasoning="never run")

        return later()


class Vast:
    # a device whose every look is a 40 MB screenshot, a new one each time
    looks = 0

    async def describe(self):
        return DeviceInfo(platform="ios", name="Vast", width=390, height=844)

    async def observe(self):
        self.looks += 1
        picture = self.looks.to_bytes(4, "big") * 10_000_000
        go = Element(role="AXButton", label="Onward", frame=Frame(10, 10, 100, 40))
        return Observation(elements=(go,), screenshot=Screenshot.of(picture, 390, 844))

    async def perform(self, action):
        return ActionResult(ok=True)

    async def launch(self, bundle_id):
        return None

    async def terminate(self, bundle_id):
        return None

    async def is_running(self, bundle_id):
        return True

    async def close(self):
        return None
"""


def _scenario(folder: Path) -> Path:
    (folder / "odd.py").write_text(ODD)
    path = folder / "s.yaml"
    path.write_text("name: s\napp: com.orav.demo\ngoal: look around\nmax_steps: 3\n")
    return path


@pytest.mark.parametrize(
    ("agent", "what"),
    [
        ("Doom", "odd:Doom.decide raised Omen: the sky falls"),
        ("Wane", "odd:Wane.decide raised GeneratorExit"),
        ("Pledge", "odd:Pledge.decide returned coroutine <coroutine object"),
        ("Spring", "odd:Spring.decide returned generator <generator object"),
    ],
)
def test_an_agent_class_that_raises_a_base_exception_or_answers_unrun_is_its_failure(
    tmp_path: Path, agent: str, what: str
):
    path = _scenario(tmp_path)
    done = orav(
        "record", path, "--agent", f"class:odd:{agent}", "--out", "s.cassette", cwd=tmp_path
    )
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "never awaited" not in done.stderr, done.stderr
    assert done.stderr.splitlines()[-1].startswith(f"s.cassette: aborted: {what}"), done.stderr
    assert json.loads((tmp_path / "s.report.json").read_text())["status"] == "aborted"


def test_a_device_whose_looks_are_too_large_is_kept_within_bounds(tmp_path: Path):
    path = _scenario(tmp_path)
    done = orav(
        "record", path, "--device", "class:odd:Vast", "--agent", "explorer", "--out", "s.cassette",
        cwd=tmp_path,
    )  # fmt: skip
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), done.stderr
    assert (tmp_path / "s.cassette").stat().st_size < 1024 * 1024  # 40 MB a look, kept once
    assert "screenshot of 38 MB was left out (at most 32 MB)" in done.stderr, done.stderr
    assert orav("replay", tmp_path / "s.cassette").returncode in (0, 1)


@pytest.mark.parametrize("depth", [40, 10_000])
def test_an_accessibility_dump_nested_past_the_bound_is_a_malformed_dump(depth: int):
    leaf = '{"AXLabel": "Tern", "frame": {"x": 0, "y": 0, "width": 9, "height": 9}}'
    node = '{"AXLabel": "Fold", "frame": {"x": 0, "y": 0, "width": 9, "height": 9}, "children": ['
    text = "[" + node * depth + leaf + "]}" * depth + "]"
    with pytest.raises(AccessibilityError, match="nested deeper than 64 levels"):
        parse_elements(text)  # it was a RecursionError: an internal error for the run
    assert len(parse_elements("[" + node * 20 + leaf + "]}" * 20 + "]")) == 21


# --- secrets no code of orav's was shown: short, a word of the screen, pressed key by key ------

TOKEN = "tokQuasar9f3a7c"


def _secret_run(folder: Path, *args: object, **env: str) -> tuple[subprocess.CompletedProcess, str]:
    """``orav record ARGS -v`` with ``env`` added; the run and everything it wrote or said."""
    full = {k: v for k, v in os.environ.items() if k != "ORAV_DEBUG"} | env
    done = subprocess.run(
        [*ORAV, "record", *map(str, args), "--out", "s.cassette", "-v"],
        capture_output=True, text=True, env=full, timeout=120, check=False, cwd=folder,
    )  # fmt: skip
    kept = [p.read_text(errors="replace") for p in folder.glob("s.*") if p.suffix != ".yaml"]
    return done, "\n".join([done.stdout, done.stderr, *kept])


def test_a_one_character_secret_typed_is_shown_and_stored_as_a_secret(tmp_path: Path):
    (tmp_path / "s.yaml").write_text(
        "name: s\napp: com.orav.demo\ngoal: enter the code\nscript:\n"
        "  - action: {kind: tap, target: {id: email}}\n"
        "  - action: {kind: type_text, text: '${ORAV_PIN}'}\n"
        "  - action: {kind: done, success: true}\n"
    )
    done, everything = _secret_run(tmp_path, "s.yaml", ORAV_PIN="5")
    assert done.returncode == 0, done.stderr
    assert "type a secret (secure)" in done.stderr
    typed = [line for line in everything.splitlines() if '"type_text"' in line]
    assert typed and not [line for line in typed if '"5"' in line], typed  # stored as a secret
    assert "'5'" not in done.stdout + done.stderr


def test_a_secret_that_is_a_word_on_the_screen_is_scrubbed_there_and_replays(tmp_path: Path):
    (tmp_path / "s.yaml").write_text(
        "name: s\napp: com.orav.demo\ngoal: sign in as ${ORAV_WHO}\nscript:\n"
        "  - action: {kind: tap, target: {id: email}}\n"
        "  - action: {kind: type_text, text: '${ORAV_WHO}'}\n"
        "  - action: {kind: done, success: true}\n"
    )
    done, everything = _secret_run(tmp_path, "s.yaml", ORAV_WHO="Password")  # a field's label
    assert done.returncode == 0, done.stderr
    assert "Password" not in everything
    replayed = orav("replay", tmp_path / "s.cassette")
    assert replayed.returncode == 0 and "faithful" in replayed.stdout, replayed.stdout


# An agent class that types the scenario's secret a key at a time, and one that types it in
# halves (the first reversed): the scrubber is told neither way.
KEYS = """\
import os

from orav.model import Decision, Done, PressKey, Tap, Target, TypeText


class Keys:
    name = "keys"

    def __init__(self):
        self.left = list(os.environ["ORAV_TOKEN"])

    async def decide(self, context):
        if context.step == 1:
            return Decision(Tap(target=Target(id="lock")), reasoning="the field first")
        if self.left:
            return Decision(PressKey(key=self.left.pop(0)), reasoning="a key")
        return Decision(Done(success=True), reasoning="typed")


class Halves(Keys):
    name = "halves"

    def __init__(self):
        token = os.environ["ORAV_TOKEN"]
        self.left = [token[:7][::-1], token[7:]]

    async def decide(self, context):
        if context.step > 1 and self.left:
            return Decision(TypeText(text=self.left.pop(0)), reasoning="a half")
        return await super().decide(context)
"""

VAULT = """\
from textual.app import App
from textual.widgets import Input


class Vault(App):
    def compose(self):
        yield Input(id="lock", placeholder="Cipher")
"""


@pytest.mark.parametrize("agent", ["Keys", "Halves"])
def test_a_secret_typed_a_key_or_a_half_at_a_time_is_on_no_console_line(tmp_path: Path, agent):
    (tmp_path / "keys.py").write_text(KEYS)
    (tmp_path / "vault.py").write_text(VAULT)
    (tmp_path / "s.yaml").write_text("name: s\napp: vault:Vault\ngoal: open with ${ORAV_TOKEN}\n")
    done, everything = _secret_run(
        tmp_path, "s.yaml", "--device", "textual:vault:Vault", "--agent", f"class:keys:{agent}",
        ORAV_TOKEN=TOKEN,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    typed = [line for line in done.stderr.splitlines() if "type a secret (secure)" in line]
    assert len(typed) >= 2 * (2 if agent == "Halves" else len(TOKEN)), done.stderr
    assert not [line for line in done.stderr.splitlines() if " press " in line], done.stderr
    assert TOKEN not in everything
    shown = done.stdout + done.stderr
    assert not [piece for piece in (TOKEN[:7][::-1], TOKEN[7:]) if piece in shown], shown
    if agent == "Halves":  # on disk the halves typed are stored as secure text is
        typed = [
            event["action"]["text"]
            for event in map(json.loads, (tmp_path / "s.cassette").read_text().splitlines())
            if event.get("type") == "perform" and event["action"]["kind"] == "type_text"
        ]
        assert typed == ["••••••", "••••••"], typed


LEAKY = """\
import os

from textual.app import App
from textual.widgets import Button


class Leaky(App):
    def compose(self):
        yield Button("Reveal", id="reveal")

    def on_button_pressed(self, event):
        raise RuntimeError("refused the key " + os.environ["ORAV_TOKEN"])
"""


@pytest.mark.parametrize("driver", ["textual", "textual-in-process"])
def test_a_secret_in_the_app_s_own_exception_is_scrubbed_everywhere(tmp_path: Path, driver):
    (tmp_path / "leaky.py").write_text(LEAKY)
    (tmp_path / "s.yaml").write_text(
        "name: s\napp: leaky:Leaky\ngoal: reveal with ${ORAV_TOKEN}\nscript:\n"
        "  - action: {kind: tap, target: {id: reveal}}\n"
        "  - action: {kind: done, success: true}\n"
    )
    done, everything = _secret_run(
        tmp_path, "s.yaml", "--device", f"{driver}:leaky:Leaky", ORAV_TOKEN=TOKEN
    )
    assert done.returncode == 1, done.stderr  # the app crashed: its exception is the reason
    assert "refused the key" in everything  # the crash report is there, the secret is not
    assert TOKEN not in everything, [line for line in everything.splitlines() if TOKEN in line]


# --- config --------------------------------------------------------------------------------


def test_a_10_mb_config_is_refused_by_its_size_not_read_in_part(tmp_path: Path):
    # It was read up to 1 MB and parsed: 'Unterminated string' for a string that ends; a
    # [tool.orav] past the first MB would have been passed over in silence.
    (tmp_path / "orav.toml").write_text('recordings = "' + "Ø" * 5_000_000 + '"\n')
    done = orav("record", "absent.yaml", cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    config = tmp_path / "orav.toml"
    assert done.stderr.splitlines() == [
        f"orav: error: {config}: more than 1 MB: too large for a config file"
    ]


def test_a_config_s_workers_run_one_scenario_once(tmp_path: Path):
    # The config's workers reached the worker's own command line: a job in a worker ran a suite
    # of workers of its own, each another, until the 300 s bound (76 processes in 5 minutes).
    (tmp_path / "orav.toml").write_text("workers = 3\n")
    (tmp_path / "a.yaml").write_text(
        "name: a\napp: com.orav.demo\ngoal: g\nscript:\n  - action: {kind: done, success: true}\n"
    )
    done = orav("record", "a.yaml", "--out", "a.cassette", cwd=tmp_path)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert json.loads((tmp_path / "a.report.json").read_text())["status"] == "passed"
