"""A suite over a pool of devices: simulated idb companions (``orav sim``: real gRPC on loopback
ports each picks free), one scenario on each at a time; a companion killed mid-suite is taken
out of the pool and its run moved to another; the workers a suite gets when none are asked."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
from command import ORAV, orav

from orav.cli.flags import default_workers, device_pool
from orav.config import Config, load_config
from orav.errors import InputError
from orav.scenario_loader import example_scenarios

EXAMPLES = {path.stem: path for path in example_scenarios()}
# Scenarios a companion can run one after another: each signs out first (a companion keeps
# the app's state from one run to the next).
PLAYS = ("login", "open_detail", "submit_form", "change_setting")


def suite(folder: Path, copies: int) -> int:
    """``copies`` of each play, under names the code never saw."""
    folder.mkdir(parents=True)
    for n in range(copies):
        for play in PLAYS:
            text = EXAMPLES[play].read_text().replace(f"name: {play}", f"name: {play}_{n}")
            (folder / f"{play}_{n}.yaml").write_text(text + "reset: [keychain]\n")
    return copies * len(PLAYS)


def companion() -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([*ORAV, "sim"], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    return process, f"idb:{process.stdout.readline().strip()}"


def a_dead_address() -> str:
    """A loopback port nothing listens on: bound, then let go."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        return f"idb:127.0.0.1:{held.getsockname()[1]}"


def test_a_companion_killed_mid_suite_is_taken_out_and_its_run_moved(tmp_path: Path):
    count = suite(tmp_path / "scenarios", 1)  # 4 runs: each companion is handed one at once
    companions = [companion() for _ in range(3)]
    victim, victim_address = companions[1]
    flags = [arg for _, address in companions for arg in ("--device", address)]
    try:
        run = subprocess.Popen(
            [*ORAV, "record", *flags, "--record-mode", "all"],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        recordings = tmp_path / "recordings"
        deadline = time.monotonic() + 120  # a bound on a wait for the suite, not a measure
        while not any(recordings.glob(".*.tmp")) and time.monotonic() < deadline:  # a run began
            assert run.poll() is None, run.communicate()
            time.sleep(0.02)
        victim.send_signal(signal.SIGKILL)  # a Mac unplugged: no goodbye
        out, err = run.communicate(timeout=100)
    finally:
        for process, _ in companions:
            process.kill()
            process.wait(timeout=10)
    assert run.returncode == 0, (out, err)
    assert f"{count} of {count} met their goal: {count} passed" in out
    assert "orav: 3 workers (one per device of the pool of 3; --workers N to choose)" in err
    lost = re.findall(r"device lost (\S+) \((.*)\): taken out of the pool", err)
    assert [address for address, _ in lost] == [victim_address], out + err
    assert "cannot reach idb companion" in lost[0][1]
    ran_on = re.findall(r"passed \S+ on (\S+)", err)
    assert len(ran_on) == count and victim_address not in ran_on


def test_a_pool_with_no_device_left_says_so_for_each_run(tmp_path: Path):
    count = suite(tmp_path / "scenarios", 1)
    dead = [a_dead_address(), a_dead_address()]
    done = orav("record", "--device", dead[0], "--device", dead[1], cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    left = re.findall(r"error \S+: no device of the pool left to run it on: (.*)", done.stderr)
    assert len(left) == count and all(dead[0] in why and dead[1] in why for why in left)
    assert f"0 of {count} met their goal" in done.stdout
    # each device taken out once, by the first run it failed
    assert sorted(re.findall(r"device lost (\S+) ", done.stderr)) == sorted(dead)


def test_the_pool_comes_from_flags_or_the_config_file(tmp_path: Path):
    (tmp_path / "orav.toml").write_text('devices = ["idb:mac1:10882", "idb:mac2:10882"]\n')
    config = load_config(tmp_path / "orav.toml")
    assert device_pool([], config) == ["idb:mac1:10882", "idb:mac2:10882"]
    assert device_pool(["idb:a:1", "idb:b:2,idb:c:3"], config) == ["idb:a:1", "idb:b:2", "idb:c:3"]
    assert device_pool([], Config()) == ["sim"]
    with pytest.raises(InputError, match="idb:a:1 is listed twice"):
        device_pool(["idb:a:1", "idb:a:1"], config)
    with pytest.raises(InputError, match="idb:HOST:PORT companions only"):
        device_pool(["sim", "idb:a:1"], config)
    (tmp_path / "orav.toml").write_text('device = "sim"\ndevices = ["idb:a:1"]\n')
    with pytest.raises(InputError, match="set device or devices, not both") as both:
        load_config(tmp_path / "orav.toml")
    assert both.value.where.endswith("orav.toml:2")
    (tmp_path / "orav.toml").write_text("devices = [1, 2]\n")
    with pytest.raises(InputError, match="devices: expected device specs"):
        load_config(tmp_path / "orav.toml")


def test_workers_default_to_what_the_machine_or_the_pool_can_run():
    idle = default_workers(["sim"], 100, cores=8, load=0.2)
    assert idle == (8, "8 cores at load 0.2, each worker with a simulator of its own")
    assert default_workers(["sim"], 100, cores=8, load=5.4)[0] == 3  # the cores others leave
    assert default_workers(["sim"], 100, cores=2, load=14.0)[0] == 1
    assert default_workers(["sim"], 3, cores=8, load=0.0)[0] == 3  # never more than the runs
    assert default_workers(["textual:app:App"], 100, cores=4, load=0.0)[0] == 4
    assert default_workers(["idb:a:1", "idb:b:2", "idb:c:3"], 100) == (
        3,
        "one per device of the pool of 3",
    )
    assert default_workers(["idb:a:1"], 100) == (1, "one device, idb:a:1")
    assert default_workers(["class:mine:Device"], 100)[0] == 1


async def test_the_app_a_run_launched_on_an_idb_companion_is_ended_with_the_run(tmp_path: Path):
    """The app under test is ended when its run ends, as a Textual app's processes are reaped:
    a companion that outlives the run holds no app of it running."""
    from orav.drivers.idb import IdbDevice

    process, address = companion()
    try:
        done = orav("record", EXAMPLES["login"], "--device", address, "--out", tmp_path / "l")
        assert done.returncode == 0, done.stderr
        device = await IdbDevice.open(address.removeprefix("idb:"), bundle_id="", timeout=30)
        try:
            assert not await device.is_running("com.orav.demo")
        finally:
            await device.close()
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
