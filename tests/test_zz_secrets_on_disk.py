"""No secret on disk: every cassette the test suite wrote, every blob decoded, holds no registered
secret and no 4-character-or-longer prefix of one (what is left of a secret after backspaces).

The file's name makes it run last (pytest runs test files in name order), so it sees the
cassettes of the whole session under pytest's base temp folder (with pytest-xdist, every
worker's: its tests are handed out last, and those of the other worker may still be writing),
plus the repository's golden recordings; run alone, it records the hostile cases itself first. The app's own texts (labels,
placeholders, ids) are allowed a secret's first characters (the demo app is called "Orav Demo"
and its password is "Orav-Demo-1!"), never the whole secret; element values, typed text and
everything else are not. Screenshots are PNG: their pixels are the simulator's to mask.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from orav import session
from orav.model import Scenario, TypeText
from orav.scenario_loader import load_scenario

ROOT = Path(__file__).resolve().parents[1]
# Every secret the suite registers: the demo password, the tests' API keys and passwords.
SECRETS = (
    "Orav-Demo-1!",
    "sk-test-SECRET-0123456789abcdef",
    "sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2",
    "hunter2-typed",
)
APP_TEXT = frozenset({"label", "placeholder", "unique_id", "role", "traits", "title", "name"})
PREFIX = 4

EDITED = """\
name: edited
app: com.orav.demo
goal: type the password into a field that does not mask it, then edit it
script:
  - action: {kind: tap, target: {id: email}}
  - action: {kind: type_text, text: "Orav-Demo-1!", secure: true}
  - action: {kind: press_key, key: backspace}
  - action: {kind: press_key, key: backspace}
  - action: {kind: done, success: true}
"""


def strings(node, key: str | None = None) -> Iterator[tuple[str | None, str]]:
    """Every string in plain JSON data, with the key it is under."""
    if isinstance(node, str):
        yield key, node
    elif isinstance(node, dict):
        for k, value in node.items():
            yield from strings(value, k)
    elif isinstance(node, list):
        for value in node:
            yield from strings(value, key)


def leaks(path: Path) -> list[str]:
    """What of a secret ``path`` holds, each as ``line N: what``."""
    found = []
    for number, line in enumerate(path.read_bytes().splitlines(), 1):
        found += [f"line {number}: {s!r}" for s in SECRETS if s.encode() in line]
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):
            continue  # a cassette cut or damaged on purpose by a test
        if not isinstance(event, dict) or event.get("type") != "blob":
            continue
        media = str(event.get("media_type", ""))
        if not media.startswith(("application/json", "text/")):
            continue
        try:
            text = base64.b64decode(event["data"]).decode("utf-8")
            data = json.loads(text) if media.startswith("application/json") else text
        except (ValueError, KeyError, TypeError, RecursionError):
            continue  # damaged on purpose: nothing orav would read
        for key, value in strings(data):
            for secret in SECRETS:
                if secret in value or (key not in APP_TEXT and secret[:PREFIX] in value):
                    found.append(f"line {number}: blob {key}={value[:40]!r} holds {secret!r}")
    return found


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    """Record the runs most likely to leak, so the test means something when run alone."""
    folder = tmp_path_factory.mktemp("secrets")
    scenario = folder / "edited.yaml"
    scenario.write_text(EDITED)
    asyncio.run(session.record(load_scenario(scenario), folder / "edited.cassette"))
    login = load_scenario(ROOT / "orav" / "scenarios" / "login.yaml")
    asyncio.run(session.record(login, folder / "login.cassette"))
    return folder


def test_the_hostile_runs_register_the_secrets_this_test_looks_for(hostile: Path):
    login: Scenario = load_scenario(ROOT / "orav" / "scenarios" / "login.yaml")
    typed = [s.action.text for s in login.script if isinstance(s.action, TypeText)]
    assert SECRETS[0] in typed  # the demo password is what the scenarios type


def test_no_cassette_the_suite_wrote_holds_a_secret_or_its_prefix(hostile: Path, tmp_path_factory):
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # each worker writes under its own base/../gwN
        base = base.parent
    roots = [base, ROOT / "recordings"]
    cassettes = sorted({p for root in roots for p in root.rglob("*.cassette") if p.is_file()})
    assert len(cassettes) >= 2
    found = {str(path): leaks(path) for path in cassettes}
    assert not {path: what for path, what in found.items() if what}, f"of {len(cassettes)}"
