"""A writer killed with SIGKILL at a random point leaves a cassette that reads to its last step."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from orav.cassette import ObserveEvent, StepEvent, read_cassette

# The child records steps as fast as it can: a large fresh blob every step (so a kill often lands
# inside a write), and prints each step number once ``begin_step`` has returned.
CHILD = r"""
import sys
from orav.cassette import CassetteWriter, DecideEvent, Header, ObserveEvent
from orav.model import Decision, Observation, Scenario, Screenshot, Tap

writer = CassetteWriter.create(sys.argv[1], Header(scenario=Scenario("s", "com.x", "g")))
print("ready", flush=True)
step = 0
while True:
    step += 1
    writer.begin_step(step)
    print(step, flush=True)
    data = step.to_bytes(4, "big") * 60_000
    shot = Screenshot.of(data, 390, 844)
    writer.write(ObserveEvent(Observation(screenshot=shot)))
    writer.write(DecideEvent(step, Decision(Tap(step, step))))
"""


def test_sigkill_at_random_points_leaves_a_readable_cassette(tmp_path: Path):
    rng = random.Random()
    for trial in range(4):
        path = tmp_path / f"killed-{trial}.cassette"
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, text=True
        )
        try:
            assert child.stdout.readline() == "ready\n"
            time.sleep(rng.uniform(0.02, 0.25))
            child.send_signal(signal.SIGKILL)
            reported = [int(line) for line in child.stdout.read().split()]
        finally:
            child.kill()
            child.wait(timeout=10)
        assert child.returncode == -signal.SIGKILL

        cassette = read_cassette(path)
        steps = [e.step for e in cassette.events if isinstance(e, StepEvent)]
        assert steps == list(range(1, len(steps) + 1))
        # Every step the child saw begun is in the file but the last two (handed to the disk
        # thread, not yet written), and nothing of later steps.
        last_reported = reported[-1] if reported else 0
        assert len(steps) >= last_reported - 2  # the disk thread may be two steps behind
        assert cassette.last_step == len(steps)
        for index, event in enumerate(cassette.events):
            if isinstance(event, ObserveEvent):
                observation = cassette.observation(index)
                step = cassette.steps[index]
                assert observation.screenshot.data == step.to_bytes(4, "big") * 60_000
        if cassette.truncated is not None:
            assert cassette.truncated.startswith("line ")
