"""Issue 27 item 1: a SIGINT or SIGTERM at any moment of ``orav record`` ends it as a signal
should, through the real command: from the first moment orav's code runs (its handler is on the
process, read from /proc) to the end of its report writing, the command ends with one line,
``orav: interrupted by SIGTERM``, and 130 or 143, never a traceback; every cassette left has its
JSON and HTML reports, which agree with it (``interrupted``, or the run's own status when the
run had ended), and no temp file is left. Before orav's code runs (the interpreter's own start)
SIGTERM ends the process with nothing written; after its output, by the signal."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from command import ORAV

SCENARIO = """\
name: brisk
app: com.orav.demo
goal: sign in
script:
  - action: {kind: tap, target: {id: email}}
  - action: {kind: type_text, text: 'gannet'}
  - action: {kind: done, success: true}
"""


class Run:
    """``orav record`` in its own process, its stderr read as it comes."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(exist_ok=True)
        (folder / "brisk.yaml").write_text(SCENARIO)
        self.folder = folder
        env = {k: v for k, v in os.environ.items() if k != "ORAV_DEBUG"}
        with (folder / "stdout").open("w") as stdout:
            self.process = subprocess.Popen(
                [*ORAV, "record", "brisk.yaml", "--out", "brisk.cassette", "--record-mode", "all"],
                stdout=stdout, stderr=subprocess.PIPE, text=True, env=env, cwd=folder,
            )  # fmt: skip
        self.lines: list[str] = []
        self.ended = threading.Event()  # the run's last progress line came: reports are next
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)
            if line.split()[1:2] == ["end"]:
                self.ended.set()

    def handles(self, signum: int) -> bool:
        """Whether a handler of the process's own catches ``signum`` (orav's code runs)."""
        try:
            status = Path(f"/proc/{self.process.pid}/status").read_text()
        except OSError:
            return False
        mask = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
        return bool(int(mask.split()[1], 16) >> (signum - 1) & 1)

    def finish(self) -> tuple[int, str]:
        try:
            self.process.wait(timeout=90)
        finally:
            self.process.kill()
        self._reader.join(timeout=10)
        return self.process.returncode, "".join(self.lines)


def check(run: Run, signum: signal.Signals, ours: bool) -> str:
    """The outcome of ``run`` after ``signum`` came: what it found (for the test's id)."""
    code, stderr = run.finish()
    folder = run.folder
    assert not list(folder.glob(".*.tmp")), stderr
    cassette, report = folder / "brisk.cassette", folder / "brisk.report.json"
    status = json.loads(report.read_text())["status"] if report.exists() else None
    assert cassette.exists() == (status is not None), (code, stderr)  # a cassette has its report
    assert status is None or (folder / "brisk.html").exists()
    if code == 128 + signum:  # orav's handler ended it
        assert ours, stderr
        assert stderr.splitlines()[-1] == f"orav: interrupted by {signum.name}", stderr
        assert "Traceback" not in stderr
        assert status in (None, "interrupted", "passed"), status
        return f"interrupted ({status})"
    if code == 0:  # it had ended when the signal came
        assert status == "passed", stderr
        return "passed"
    assert code == -signum, (code, stderr)  # before orav's code ran, or once its output was out
    assert status in (None, "passed"), status
    assert "Traceback" not in stderr or not ours, stderr
    return "ended by the signal"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_at_the_first_moment_orav_handles_it(tmp_path: Path, signum):
    run = Run(tmp_path)
    while not run.handles(signal.SIGTERM) and run.process.poll() is None:
        time.sleep(0.001)
    run.process.send_signal(signum)
    assert check(run, signum, True) == "interrupted (None)"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_the_reports_are_written_waits_for_them(tmp_path: Path, signum):
    run = Run(tmp_path)
    assert run.ended.wait(90), run.lines
    run.process.send_signal(signum)
    assert check(run, signum, True) in ("interrupted (passed)", "passed", "ended by the signal")


def test_a_signal_at_random_moments_of_a_recording(tmp_path: Path):
    # The moments are drawn over one undisturbed run's own length, measured here first.
    began = time.monotonic()
    first = Run(tmp_path / "whole")
    assert check(first, signal.SIGTERM, True) == "passed"
    length = time.monotonic() - began
    chance = random.Random(27)
    seen = []
    for n in range(8):
        signum = chance.choice([signal.SIGTERM, signal.SIGINT])
        run = Run(tmp_path / str(n))
        moment = time.monotonic() + chance.uniform(0, length)
        while time.monotonic() < moment and run.process.poll() is None:
            time.sleep(0.005)
        ours = run.handles(signal.SIGTERM)
        if signum == signal.SIGINT and not ours:
            signum = signal.SIGTERM  # Python's start turns SIGINT into its KeyboardInterrupt
        run.process.send_signal(signum)
        seen.append(check(run, signum, ours))
    assert any(s.startswith("interrupted") for s in seen), seen
