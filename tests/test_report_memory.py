"""A report holds one screen at a time (issue 29): the page of a run is written a card at a
time, each screenshot read from its cassette as its card is written, so a run of any length
is reported in bounded memory; an index and JUnit over many runs keep none of their screens."""

from __future__ import annotations

import base64
import random
import re
import tracemalloc
from pathlib import Path

import pytest
from report_runs import GOLDEN

from orav.cassette import (
    CassetteWriter,
    DecideEvent,
    Header,
    ObserveEvent,
    PerformEvent,
    StepEvent,
    VerificationEvent,
    read_cassette,
)
from orav.errors import InputError
from orav.model import (
    ActionResult,
    Decision,
    Observation,
    Scenario,
    Screenshot,
    Tap,
    Target,
    Verification,
)
from orav.report.html import render_html, write_html, write_index
from orav.report.junit import junit_xml
from orav.report.timeline import read_run

SCENARIO = Scenario(name="long", app="com.example.long", goal="keep going")
SCREEN_BYTES = 64_000
STEPS = 150


def long_run(path: Path) -> Path:
    """A run of STEPS steps, each on a screen never seen before (incompressible bytes)."""
    rng = random.Random(29)
    tap = Tap(target=Target(id="more"))
    with CassetteWriter.create(path, Header(scenario=SCENARIO), fsync=False) as writer:
        for step in range(1, STEPS + 1):
            shot = Screenshot.of(rng.randbytes(SCREEN_BYTES), 390, 844)
            writer.write(ObserveEvent(Observation(screenshot=shot, app=SCENARIO.app)))
            writer.write(StepEvent(step))
            writer.write(DecideEvent(step, Decision(tap, reasoning=f"step {step}")))
            writer.write(PerformEvent(tap, ActionResult()))
            writer.write(VerificationEvent(Verification(changed=True)))
    return path


def test_a_long_runs_page_is_written_holding_one_screen_at_a_time(tmp_path: Path):
    cassette = long_run(tmp_path / "long.cassette")
    tracemalloc.start()
    try:
        page = write_html(cassette)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    text = page.read_text()
    assert len(text) > STEPS * SCREEN_BYTES  # every screen is on the page, base64
    assert peak < len(text) / 5, f"{peak / 1e6:.1f} MB held for a {len(text) / 1e6:.1f} MB page"
    shown = re.findall(r'src="data:image/png;base64,([^"]+)"', text)
    blobs = read_cassette(cassette).blobs
    assert len(shown) == len(set(shown)) == STEPS
    assert {blobs[k] for k in blobs} == {base64.b64decode(data) for data in shown}
    whole = render_html(read_run(cassette))  # the same page as read whole, but the diagrams
    assert _undrawn(text) == _undrawn(whole)  # (their layout differs from one drawing to the next)


def _undrawn(page: str) -> str:
    return re.sub(r"<svg.*?</svg>", "<svg/>", page, flags=re.DOTALL)


def test_a_cassette_changed_under_its_report_is_an_error_not_a_wrong_screen(tmp_path: Path):
    cassette = long_run(tmp_path / "long.cassette")
    run = read_run(cassette, screenshots=False)
    raw = cassette.read_bytes()
    at = raw.index(b'"data":"') + 20  # a character of the first screenshot, changed
    cassette.write_bytes(raw[:at] + (b"A" if raw[at : at + 1] != b"A" else b"B") + raw[at + 1 :])
    with pytest.raises(InputError) as raised:
        write_html(run, tmp_path / "page.html")
    assert str(cassette) in raised.value.where
    assert not (tmp_path / "page.html").exists()


@pytest.mark.parametrize("cassette", sorted(GOLDEN.rglob("*.cassette")), ids=lambda p: p.stem)
def test_an_index_and_junit_read_nothing_of_a_runs_screens(cassette: Path, tmp_path: Path):
    run = read_run(cassette)
    unseen = read_run(cassette, screenshots=False).unseen()
    assert not unseen.blobs and unseen.conclusion.screenshot is None
    assert all(getattr(b, "screenshot", None) is None for b in unseen.recoveries)
    assert all(s.before is None and s.after is None and not s.tree for s in unseen.steps)
    assert junit_xml([unseen]) == junit_xml([run])
    page = tmp_path / "run.html"
    index = write_index([(run, page)], tmp_path / "a.html").read_text()
    assert write_index([(unseen, page)], tmp_path / "b.html").read_text() == index
