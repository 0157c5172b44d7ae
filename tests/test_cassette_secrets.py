"""Scrubbing follows a secret through edits (issue 11, item 4) and keeps the length the device
showed (issue 9): properties of ``Scrubber`` over random secrets and random edit sequences."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from orav import session
from orav.cassette import read_cassette
from orav.cassette.events import PerformEvent
from orav.codec import unstructure
from orav.model import Decision, Element, Frame, TypeText
from orav.scenario_loader import load_scenario
from orav.secrets import BULLET, MIN_SECRET_LENGTH, Scrubber

ROOT = Path(__file__).resolve().parents[1]

SECRET = st.text(
    st.characters(codec="utf-8", categories=("L", "N", "P", "S")), min_size=1, max_size=24
).filter(lambda s: s.strip(BULLET))
EDITS = st.lists(
    st.one_of(
        st.just("backspace"), st.text(st.sampled_from("abcXYZ019-!"), min_size=1, max_size=3)
    ),
    max_size=8,
)


def field(value: str, *, secure: bool = False, uid: str = "email") -> dict:
    element = Element("AXTextField", "Email", uid, value, Frame(0, 0, 100, 40), secure=secure)
    return unstructure(element)


def edited(secret: str, edits: list[str]) -> list[str]:
    """The field's value after typing ``secret`` and then each edit."""
    values, value = [secret], secret
    for edit in edits:
        value = value[:-1] if edit == "backspace" else value + edit
        values.append(value)
    return values


@given(secret=SECRET, edits=EDITS)
def test_a_field_that_took_a_secret_is_bullets_of_its_length_through_every_edit(secret, edits):
    scrubber = Scrubber([secret])
    scrubber.hold("Email", "email")  # what RecordingDevice does when it types a secure text
    for value in edited(secret, edits):
        (stored,) = scrubber.data([field(value)])
        assert stored.get("value", "") == BULLET * len(value)  # never the text, same length


@given(secret=SECRET.filter(lambda s: len(s) >= MIN_SECRET_LENGTH), edits=EDITS)
def test_what_is_left_of_a_secret_in_any_field_is_bullets(secret, edits):
    scrubber = Scrubber([secret])  # no field held: the prefix alone gives it away
    for value in edited(secret, edits):
        (stored,) = scrubber.data([field(value, uid="other")])
        if secret[:MIN_SECRET_LENGTH] in value:
            assert stored["value"] == BULLET * len(value)


@given(value=st.text(max_size=30))
def test_a_secure_fields_value_keeps_its_length(value):
    (stored,) = Scrubber().data([field(value, secure=True)])
    assert stored.get("value", "") == BULLET * len(value)


def test_other_fields_and_the_apps_own_texts_are_left_alone():
    scrubber = Scrubber(["Orav-Demo-1!"])
    scrubber.hold("Password", "password")
    data = [field("demo@orav.dev"), {"role": "AXStaticText", "label": "Orav Demo", "value": "Hi"}]
    assert scrubber.data(data) == data


class LeakyAgent:
    """An agent (a model told to, say) that types the API key it was given into the app."""

    name = "leaky"
    secrets = ("sk-test-LEAKY-0123456789abcdef",)

    async def decide(self, context):
        return Decision(TypeText(f"my key is {self.secrets[0]}"), expected_outcome="typed")


def test_a_decision_typing_a_registered_secret_is_refused_before_it_reaches_the_app(tmp_path):
    scenario = load_scenario(ROOT / "orav" / "scenarios" / "login.yaml")
    out = tmp_path / "leak.cassette"
    recording = asyncio.run(session.record(scenario, out, agent=LeakyAgent()))
    assert recording.report.status == "aborted"
    assert "decided to type a secret" in recording.report.errors[0].error
    assert b"sk-test-LEAKY" not in out.read_bytes()
    performed = [e.action for e in read_cassette(out).events if isinstance(e, PerformEvent)]
    assert not any(isinstance(action, TypeText) for action in performed)  # the app saw nothing
    assert asyncio.run(session.replay(out)).faithful
