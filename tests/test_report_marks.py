"""What a tester sees in a run's report, measured in a real headless Chromium: where each tap
and swipe landed on its screenshot, the filmstrip, each step's durations, a crash right after a
step in red, a terminal's screenshots at a size its characters can be read, and each judgement
boxed on its screen where its evidence points.

The run is recorded on Gezeiten (tests/report_apps), a tide-table app whose words orav's code
never saw: a tap low on the screen, a swipe across it, a tap near the right edge where the app
crashes. Chromium lays the page out; a script appended to a copy of the page writes where
each marker's centre fell within its image, as fractions of the image, into the DOM it dumps.
"""

import asyncio
import json
import os
import re
from pathlib import Path

import chromium
import pytest
from chromium import CHROMIUM
from command import orav
from standin import StandIn, serving

from orav.cassette import DecideEvent, PerformEvent, RecoveryBeginEvent, read_cassette
from orav.model import Swipe, Tap
from orav.report.html import write_html
from orav.report.timeline import read_run
from orav.scenario_loader import load_scenario
from orav.session import record

HERE = Path(__file__).parent
APP = HERE / "report_apps" / "gezeiten.yaml"
SCENARIO = HERE / "report_apps" / "gezeiten_alarm.yaml"
GOLDEN = HERE.parent / "recordings"

pytestmark = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"),
    reason="chromium is not installed (apt-get install -y chromium)",
)

# Appended to a copy of the report: for every marker, the figure or frame it is in and where its
# centre lies within its image (0..1 each way); every image's shown size; the page's state.
MEASURE = """
<script>
const place = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; };
const marks = [...document.querySelectorAll(".marked")].map((m) => {
  const [ix, iy, iw, ih] = place(m.querySelector("img"));
  const card = m.closest("article") || m.closest("a") || m.closest("section");
  const where = card.id || card.getAttribute("href");
  return {where, strip: !!m.closest(".filmstrip"), marks: [...m.querySelectorAll("span.mark")].map((s) => {
    const [x, y, w, h] = place(s);
    return {kind: s.classList[1], x: (x + w / 2 - ix) / iw, y: (y + h / 2 - iy) / ih,
            box: [(x - ix) / iw, (y - iy) / ih, w / iw, h / ih]};
  })};
});
const shots = [...document.querySelectorAll("img.shot")].map((i) => place(i)[2]);
const filled = [...document.querySelectorAll("img[data-same]")].every((i) => i.src.startsWith("data:"));
const out = document.createElement("pre");
out.id = "measured";
out.textContent = JSON.stringify({marks, shots, filled});
document.body.appendChild(out);
</script>
"""


def measure(report: Path, tmp_path: Path) -> tuple[dict, str]:
    """The measurements Chromium made of ``report`` and the DOM it built."""
    page = tmp_path / f"measured-{report.name}"
    page.write_text(report.read_text().replace("</body>", MEASURE + "</body>"))
    dom = chromium.dump_dom(page, tmp_path)
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.DOTALL)
    assert found, "the measuring script did not run"
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&")), dom


@pytest.fixture(scope="module")
def gezeiten(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gezeiten") / "gezeiten_alarm.cassette"
    asyncio.run(record(load_scenario(SCENARIO), out, device=f"sim:{APP}"))
    return out


def test_each_tap_and_swipe_is_marked_where_it_landed(gezeiten: Path, tmp_path: Path):
    measured, _ = measure(write_html(gezeiten), tmp_path)
    run = read_run(gezeiten)
    width, height = run.header.device.width, run.header.device.height
    # Where the device says each step's action landed, read from the cassette itself.
    landed: dict[str, list[tuple[str, float, float]]] = {}
    step = 0
    for event in read_cassette(gezeiten).events:
        if isinstance(event, DecideEvent):
            step = event.step
        elif isinstance(event, RecoveryBeginEvent):
            step = 0  # a recovery's own taps are no step's
        elif isinstance(event, PerformEvent) and step and event.result is not None:
            action, key = event.action, f"step-{step}"
            if isinstance(action, Tap):
                landed.setdefault(key, []).append(
                    ("tap", event.result.point.x, event.result.point.y)
                )
            elif isinstance(action, Swipe):
                landed.setdefault(key, []).append(("swipe-from", action.start.x, action.start.y))
                landed.setdefault(key, []).append(("swipe-to", action.end.x, action.end.y))
    assert {k for k, v in landed.items() if v[0][0] == "swipe-from"}, "the run swiped"
    cards = {m["where"]: m["marks"] for m in measured["marks"] if not m["strip"]}
    strip = {m["where"].lstrip("#"): m["marks"] for m in measured["marks"] if m["strip"]}
    assert set(cards) == set(landed) == set(strip)
    for key, expected in landed.items():
        for shown in (cards[key], strip[key]):
            assert [m["kind"] for m in shown] == [kind for kind, _, _ in expected]
            for mark, (_, x, y) in zip(shown, expected, strict=True):
                # within 2 % of the image: a few points on a phone's screen
                assert abs(mark["x"] - x / width) < 0.02, (key, mark, x)
                assert abs(mark["y"] - y / height) < 0.02, (key, mark, y)
    assert measured["filled"]  # every copy of a screen was drawn from its first figure


def test_the_filmstrip_has_a_frame_per_step_and_the_crash_is_red(gezeiten: Path, tmp_path: Path):
    _, dom = measure(write_html(gezeiten), tmp_path)
    run = read_run(gezeiten)
    frames = re.findall(r'<a class="frame([^"]*)" href="#([^"]+)"', dom)
    assert [href for _, href in frames] == [f"step-{s.number}" for s in run.steps] + ["conclusion"]
    # The app crashed at the alarm's tap: that step, and only it, is red, though its screen
    # changed (the app was gone); its timeline chip and its frame too.
    crashed = [s.number for s in run.steps if s.crashed]
    alarm = [s.number for s in run.steps if "alarm" in str(s.decision.action)]
    assert crashed == alarm[:1]
    (number,) = crashed
    red = {href for cls, href in frames if "failed" in cls}
    assert red == {f"step-{number}"}
    card = re.search(rf'<article class="([^"]*)" id="step-{number}".*?</article>', dom, re.DOTALL)
    assert "failed" in card.group(1).split()
    assert "the app crashed after it" in card.group(0)
    assert "screen changed" not in card.group(0)
    assert re.search(rf'<a class="chip bad" href="#step-{number}">', dom)
    for step in run.steps:
        if step.number != number:
            assert re.search(rf'<a class="chip ok" href="#step-{step.number}">', dom)


def test_each_step_says_how_long_it_decided_acted_and_settled(gezeiten: Path, tmp_path: Path):
    _, dom = measure(write_html(gezeiten), tmp_path)
    run = read_run(gezeiten)
    decided = [e for e in read_cassette(gezeiten).events if isinstance(e, DecideEvent)]
    assert all(e.seconds is not None and e.seconds >= 0 for e in decided)  # recorded
    took = re.findall(r'<span class="timings">([^<]*)</span>', dom)
    assert len(took) == len(run.steps)
    for line, step in zip(took, run.steps, strict=True):
        assert re.fullmatch(r"decide \d+ ms · act \d+ ms · settle \d+ ms", line), line
        assert step.settle_seconds is not None and step.act_seconds > 0


def test_a_terminal_is_shown_in_cells_at_a_readable_size(tmp_path: Path):
    cassette = GOLDEN / "textual" / "sign_in.cassette"
    measured, dom = measure(write_html(cassette, tmp_path / "sign_in.html"), tmp_path)
    device = read_run(cassette).header.device
    assert f"{device.width:g}×{device.height:g} cells" in dom
    assert " pt<" not in dom
    # At least 6 px a cell across, as a terminal's characters are read (a 240 px thumbnail
    # gave 3).
    assert measured["shots"] and min(measured["shots"]) / device.width >= 6


class Pointing(StandIn):
    """A judge that points at its evidence three ways: by the element's ref, by its label
    quoted in the evidence, by coordinates (centre of the element, in points)."""

    def judgement(self, text: str) -> str:
        claim = re.search(r"^Claim: (.*)$", text, re.MULTILINE).group(1)
        self.judged.append(claim)
        refs = dict(re.findall(r'^(e\d+) \w+ "([^"]+)"', text, re.MULTILINE))
        ref = {label: r for r, label in refs.items()}
        answer = {"holds": True, "confidence": 0.9}
        if "Husum" in claim:  # by ref, in the evidence's object
            answer["evidence"] = {"element": ref["Husum"], "says": "Nordsee"}
        elif "Hochwasser" in claim:  # by label, quoted
            answer["evidence"] = "the table reads 'Hochwasser Tag 1'"
        else:  # by coordinates
            answer |= {"evidence": "a button low on the right", "element": [335, 722]}
        return json.dumps(answer)


def test_each_judgement_is_boxed_where_its_evidence_points(tmp_path: Path) -> None:
    scenario = tmp_path / "gezeiten_words.yaml"
    scenario.write_text(
        "name: gezeiten_words\napp: de.gezeiten.app\ngoal: Morgen den Pegel von Husum sehen.\n"
        "preconditions: [Husum steht unter den Häfen]\n"
        "success_criteria: [Hochwasser für morgen wird gezeigt, man kann einen Alarm stellen]\n"
        "script:\n  - action: {kind: tap, target: {id: hafen_husum}}\n"
        "  - action: {kind: swipe, start: {x: 330, y: 420}, end: {x: 60, y: 400}}\n"
        "  - action: {kind: done, success: true}\n"
    )
    cassette = tmp_path / "gezeiten_words.cassette"
    judge = Pointing()
    with serving(judge) as url:
        done = orav(
            "record", scenario, "--device", f"sim:{APP}", "--judge", "openai:pointing",
            "--base-url", url, "--out", cassette,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(cassette.with_suffix(".report.json").read_text())
    frames = {j["claim"]: j["at"] for j in report["judgements"]}
    assert frames == {  # the elements' frames in the app model
        "Husum steht unter den Häfen": {"x": 0, "y": 520, "width": 390, "height": 60},
        "Hochwasser für morgen wird gezeigt": {"x": 20, "y": 300, "width": 350, "height": 40},
        "man kann einen Alarm stellen": {"x": 290, "y": 700, "width": 90, "height": 44},
    }
    measured, _ = measure(cassette.with_suffix(".html"), tmp_path)
    shown = [m["marks"] for m in measured["marks"] if m["where"] == "judgements"]
    assert len(shown) == 3
    for marks, at in zip(shown, frames.values(), strict=True):
        (mark,) = marks
        assert mark["kind"] == "area"
        expected = [at["x"] / 390, at["y"] / 844, at["width"] / 390, at["height"] / 844]
        assert all(abs(a - b) < 0.01 for a, b in zip(mark["box"], expected, strict=True)), mark
