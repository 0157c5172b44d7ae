"""`orav sim` as a subprocess, driven by the real `idb` CLI (each call costs a few hundred ms)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image

ORAV = [sys.executable, "-m", "orav"]
IDB = str(Path(sys.executable).with_name("idb"))


@pytest.fixture(scope="module")
def companion():
    proc = subprocess.Popen(
        [*ORAV, "sim", "--port", "0", "--scale", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    address = proc.stdout.readline().strip()
    assert address.startswith("127.0.0.1:"), proc.stderr.read()
    yield address
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=10)


def idb(address: str, *args: str) -> str:
    done = subprocess.run(
        [IDB, "--companion", address, "--no-prune-dead-companion", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "IDB_COMPANION": ""},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def follow(command: list[str], until: tuple[str, ...], seconds: float = 60.0) -> str:
    """What a command that never ends by itself printed, read until every text of ``until``
    is in it (or ``seconds`` went by); the command is stopped then."""
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, env={**os.environ, "IDB_COMPANION": ""}
    )
    assert proc.stdout is not None
    out = proc.stdout.fileno()  # read as it comes: a buffered reader would hide what select saw
    printed = b""
    end = time.monotonic() + seconds
    try:
        while not all(text.encode() in printed for text in until) and time.monotonic() < end:
            ready, _, _ = select.select([out], [], [], max(0.0, end - time.monotonic()))
            chunk = os.read(out, 65536) if ready else b""
            if ready and not chunk:
                raise AssertionError(f"{command[-1]} ended by itself: {printed!r}")
            printed += chunk
    finally:
        proc.kill()
        proc.communicate(timeout=10)
    return printed.decode()


def labels(address: str) -> list[str | None]:
    return [e["AXLabel"] for e in json.loads(idb(address, "ui", "describe-all"))]


def test_log_in_through_the_idb_cli(companion: str) -> None:
    tree = json.loads(idb(companion, "ui", "describe-all"))
    assert tree[0]["type"] == "Application" and tree[0]["AXLabel"] == "Demo"
    email = next(e for e in tree if e["AXUniqueId"] == "email")
    assert email["AXFrame"] == "{{20, 200}, {350, 44}}"
    assert email["frame"] == {"x": 20, "y": 200, "width": 350, "height": 44}
    assert email["role"] == "AXTextField" and email["type"] == "TextField"

    point = json.loads(idb(companion, "ui", "describe-point", "195", "282"))
    assert point["AXUniqueId"] == "password" and point["subrole"] == "AXSecureTextField"

    idb(companion, "ui", "tap", "195", "222")
    idb(companion, "ui", "text", "demo@orav.dev")
    idb(companion, "ui", "tap", "195", "282")
    idb(companion, "ui", "text", "Orav-Demo-1!")
    tree = json.loads(idb(companion, "ui", "describe-all"))
    assert any(e["type"] == "Keyboard" for e in tree)
    password = next(e for e in tree if e["AXUniqueId"] == "password")
    assert password["AXValue"] == "\u2022" * len("Orav-Demo-1!")

    idb(companion, "ui", "key", "40")  # return submits
    assert "Home" in labels(companion)
    assert "Sign in" not in labels(companion)


def test_screenshot_list_terminate_launch_and_swipe(companion: str, tmp_path: Path) -> None:
    shot = tmp_path / "screen.png"
    idb(companion, "screenshot", str(shot))
    with Image.open(shot) as image:
        assert image.format == "PNG" and image.size == (780, 1688)

    apps = [json.loads(line) for line in idb(companion, "list-apps", "--json").splitlines()]
    demo = next(a for a in apps if a["bundle_id"] == "com.orav.demo")
    assert demo["process_state"] == "Running"

    idb(companion, "terminate", "com.orav.demo")
    apps = [json.loads(line) for line in idb(companion, "list-apps", "--json").splitlines()]
    assert apps[0]["process_state"] == "Not running"
    assert labels(companion)[0] == "SpringBoard"

    idb(companion, "launch", "com.orav.demo")
    assert "Welcome to Demo" in labels(companion)
    # a swipe on a screen without swipe transitions changes nothing
    idb(companion, "ui", "swipe", "300", "400", "100", "400")
    assert "Welcome to Demo" in labels(companion)


def test_bad_app_model_exits_2_with_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "app.yaml"
    bad.write_text("name: x\nbundle_id: a.b\nstart: nowhere\nscreens:\n  one: {}\n")
    done = subprocess.run(
        [*ORAV, "sim", str(bad)], check=False, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"orav: error: {bad}:3:8: unknown start screen 'nowhere'; screens are ['one']"
    ]
    assert "Traceback" not in done.stderr


def test_a_screen_too_big_to_draw_is_refused_at_its_width(tmp_path: Path) -> None:
    huge = tmp_path / "huge.yaml"
    huge.write_text(
        "name: x\nbundle_id: a.b\nstart: one\nwidth: 10000\nheight: 10000\n"
        "screens:\n  one: {elements: [{label: hi, frame: [0, 0, 9000, 9000]}]}\n"
    )
    done = subprocess.run(
        [*ORAV, "sim", str(huge), "--scale", "4"],
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"orav: error: {huge}:4:8: a 10000 x 10000 pt screen at scale 4 is ")
    assert "1,600 megapixels" in line and "at most 40" in line


def test_the_idb_cli_drives_the_app_lifecycle(companion: str, tmp_path: Path) -> None:
    """install, launch with arguments and IDB_ environment, approve, open, HOME, clear-keychain,
    crash list, log and uninstall, each through the real `idb` CLI."""
    from orav.sim import SHOP_APP

    bundle = tmp_path / "Shop.app"
    bundle.mkdir()
    (bundle / "app.yaml").write_text(
        SHOP_APP.read_text().replace(
            "      - {role: AXStaticText, label: Welcome to Shop,",
            "      - {role: AXStaticText, id: flags, label: \"{args} {env['API']}\",\n"
            "         frame: [20, 700, 350, 30]}\n"
            "      - {role: AXStaticText, label: Welcome to Shop,",
        )
    )
    assert "com.orav.shop" in idb(companion, "install", str(bundle))
    apps = {
        json.loads(line)["bundle_id"] for line in idb(companion, "list-apps", "--json").splitlines()
    }
    assert apps == {"com.orav.demo", "com.orav.shop"}
    done = subprocess.run(
        [
            IDB,
            "--companion",
            companion,
            "--no-prune-dead-companion",
            "launch",
            "com.orav.shop",
            "-UITests",
            "1",
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "IDB_COMPANION": "", "IDB_API": "http://127.0.0.1:9"},
    )
    assert done.returncode == 0, done.stderr
    assert "-UITests, 1 http://127.0.0.1:9" in labels(companion)
    idb(companion, "approve", "com.orav.shop", "location")
    idb(companion, "revoke", "com.orav.shop", "camera")
    idb(companion, "set-location", "48.85", "2.35")
    idb(companion, "ui", "button", "HOME")
    assert labels(companion)[0] == "SpringBoard"
    idb(companion, "clear-keychain")
    idb(companion, "open", "shop://cart")  # not signed in: the route's condition fails
    assert "Welcome to Shop" in labels(companion)
    assert idb(companion, "crash", "list").strip() == ""
    # `idb log` follows until stopped: read until both lines came (or 60 s went by)
    log = follow(
        [IDB, "--companion", companion, "--no-prune-dead-companion", "log"],
        until=("com.orav.shop: installed", "com.orav.shop: entered the background"),
    )
    assert "com.orav.shop: installed" in log and "com.orav.shop: entered the background" in log
    idb(companion, "uninstall", "com.orav.shop")
    apps = {
        json.loads(line)["bundle_id"] for line in idb(companion, "list-apps", "--json").splitlines()
    }
    assert apps == {"com.orav.demo"}
    idb(companion, "launch", "com.orav.demo")
    assert "Welcome to Demo" in labels(companion)


def test_the_idb_cli_lists_shows_and_deletes_crash_reports(tmp_path: Path) -> None:
    app = tmp_path / "crashy.yaml"
    app.write_text(
        "name: Crashy\nbundle_id: com.example.crashy\nstart: one\n"
        "faults: [{type: crash, at_step: 1, message: nil token}]\n"
        "screens:\n  one: {elements: [{role: AXButton, id: go, label: Go, "
        "frame: [20, 100, 350, 44]}]}\n"
    )
    proc = subprocess.Popen(
        [*ORAV, "sim", str(app), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        address = proc.stdout.readline().strip()
        assert address.startswith("127.0.0.1:"), proc.stderr.read()
        idb(address, "ui", "tap", "195", "122")  # input 1: the crash
        [line] = idb(address, "crash", "list", "--json").splitlines()
        listed = json.loads(line)
        assert listed["bundle_id"] == "com.example.crashy" and listed["name"].endswith(".ips")
        shown = idb(address, "crash", "show", listed["name"])
        assert "EXC_BAD_ACCESS" in shown and "Reason:              nil token" in shown
        idb(address, "crash", "delete", listed["name"])
        assert idb(address, "crash", "list").strip() == ""
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=10)


def test_idb_ui_quiet_waits_for_the_animation_orav_sim_is_told_to_play() -> None:
    proc = subprocess.Popen(
        [*ORAV, "sim", "--port", "0", "--animation-ms", "10000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        address = proc.stdout.readline().strip()
        assert address.startswith("127.0.0.1:"), proc.stderr.read()
        idb(address, "ui", "tap", "195", "222")  # the email field: the keyboard slides up
        now = subprocess.run(
            [IDB, "--companion", address, "--no-prune-dead-companion", "ui", "quiet", "--json"],
            check=False,
            capture_output=True,
            text=True,
            timeout=30,
            env={**os.environ, "IDB_COMPANION": ""},
        )
        assert now.returncode == 1, now.stderr  # busy now (10 s: an idb start on a loaded machine)
        assert '"busy"' in now.stdout and "animations_inactive" in now.stdout
        assert '"quiet"' in idb(address, "ui", "quiet", "25", "--json")  # exits 0 once quiet
        assert "AXKeyboard" in idb(address, "ui", "describe-all")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=10)


def test_an_animation_time_out_of_range_is_a_bad_flag() -> None:
    done = subprocess.run(
        [*ORAV, "sim", "--animation-ms", "-1"],
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2 and "--animation-ms" in done.stderr
