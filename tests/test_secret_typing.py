"""A secret is typed only into a field that hides it: never into one that shows its text (and
so every later screenshot), whoever asked for it."""

from __future__ import annotations

from pathlib import Path

from orav.model import Decision, Done, Scenario, Tap, Target, TypeText
from orav.session import record
from orav.testing import VirtualClock

SECRET = "Orav-Demo-1!"


async def test_a_secret_for_a_plain_field_is_refused_and_never_typed(tmp_path: Path):
    script = (
        Decision(Tap(target=Target(id="email"))),
        Decision(TypeText(SECRET, secure=True)),
        Decision(Done()),
    )
    scenario = Scenario("secret", "com.orav.demo", "g", script=script)
    recording = await record(scenario, tmp_path / "s.cassette", clock=VirtualClock())
    report = recording.report
    step = next(e for e in report.errors if e.action == "type_text")
    assert step.error.startswith("refused to type a secret into a field that shows")
    assert "#email" in step.error
    data = (tmp_path / "s.cassette").read_bytes()
    assert SECRET.encode() not in data and SECRET[:4].encode() not in data.replace(
        b"Orav Demo", b""
    )


async def test_a_secret_for_a_secure_field_is_typed(tmp_path: Path):
    script = (
        Decision(Tap(target=Target(id="password"))),
        Decision(TypeText(SECRET, secure=True), expected_outcome="The field shows bullets."),
        Decision(Done()),
    )
    scenario = Scenario("secret", "com.orav.demo", "g", script=script)
    report = (await record(scenario, tmp_path / "s.cassette", clock=VirtualClock())).report
    assert not [e for e in report.errors if e.action == "type_text"], report.errors
