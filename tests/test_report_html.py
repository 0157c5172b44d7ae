"""The HTML report and index, loaded in a real headless Chromium and checked against the cassette.

Chromium comes from Debian (``apt-get install -y chromium``); without it the browser tests skip.
"""

import base64
import hashlib
import os
import shutil
import xml.etree.ElementTree as ET
from collections import Counter
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path

import chromium
import pytest
from attrs import evolve
from chromium import CHROMIUM
from command import orav
from report_runs import GOLDEN, PASSWORD, SCENARIOS, recorded

from orav.cassette import (
    DecideEvent,
    ObserveEvent,
    StepEvent,
    TransitionEvent,
    VerificationEvent,
    read_cassette,
)
from orav.machines import flat_transitions, leaf_states, machine_classes
from orav.model import Done, Transition, show_action
from orav.report.audit import recovery_paths
from orav.report.diagram import draw_machine
from orav.report.html import render_html, write_html, write_index
from orav.report.timeline import StepView, read_run

# Locally the browser tests skip without chromium; in CI (.ci/run installs it) they must run.
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"),
    reason="chromium is not installed (apt-get install -y chromium)",
)


def dump_dom(page: Path, tmp_path: Path) -> "Node":
    """The DOM Chromium built from the page (after its script ran), parsed into a tree."""
    return parse(chromium.dump_dom(page, tmp_path))


# --- a small DOM tree from the serialised HTML ----------------------------------------------------

VOID = {"meta", "img", "br", "hr", "input", "link", "source", "area", "base", "col", "wbr"}


class Node:
    def __init__(self, tag: str, attrs: dict[str, str]) -> None:
        self.tag, self.attrs, self.children = tag, attrs, []

    @property
    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text for c in self.children)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def all(self, tag: str, cls: str | None = None) -> list["Node"]:
        found = []
        for child in self.children:
            if isinstance(child, Node):
                if child.tag == tag and (cls is None or cls in child.classes):
                    found.append(child)
                found += child.all(tag, cls)
        return found

    def one(self, tag: str, cls: str | None = None) -> "Node":
        (found,) = self.all(tag, cls)
        return found


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_endtag(self, tag):
        while len(self.stack) > 1:
            if self.stack.pop().tag == tag:
                break

    def handle_data(self, data):
        self.stack[-1].children.append(data)


def parse(html: str) -> Node:
    builder = _TreeBuilder()
    builder.feed(html)
    return builder.root


# --- what the cassette says, read independently of orav.report.timeline-------------------------------


def recorded_steps(path: Path) -> list[tuple[int, str, bytes | None, bytes | None]]:
    """Per step the agent acted on: its number, the action decided, the bytes of the last
    screenshot before it and of the first one after its action (None: the check observed none).
    A decision the run machine did not go on to act on (done, or set aside) is no step."""
    cassette = read_cassette(path)
    steps, shot, deciding, acting = [], None, None, None
    for event in cassette.events:
        if isinstance(event, ObserveEvent) and event.observation and event.observation.screenshot:
            shot = cassette.blobs[event.observation.screenshot.sha256]
            if acting is not None and acting[3] is None:
                acting[3] = shot
        elif isinstance(event, StepEvent):
            deciding = [event.step, None, shot, None]
        elif isinstance(event, DecideEvent) and event.decision is not None:
            deciding[1] = show_action(event.decision.action)
        elif isinstance(event, VerificationEvent):
            acting = None
        elif isinstance(event, TransitionEvent) and event.machine == "run" and deciding:
            if event.source == "reasoning" and event.target == "acting":
                acting = deciding
                steps.append(acting)
            deciding = None
    return [tuple(step) for step in steps]


def recorded_screens(path: Path) -> list[bytes]:
    cassette = read_cassette(path)
    return [
        cassette.blobs[e.observation.screenshot.sha256]
        for e in cassette.events
        if isinstance(e, ObserveEvent) and e.observation and e.observation.screenshot
    ]


def recorded_transitions(path: Path) -> Counter:
    events = read_cassette(path).events
    return Counter(
        (e.machine, e.source, e.event, e.target) for e in events if isinstance(e, TransitionEvent)
    )


def shown_screens(figure: Node) -> list[str]:
    """The sha256 of each screen a figure shows: its image, or the earlier figure of the same
    screen it links to (a page stores each screen once)."""
    images = [
        hashlib.sha256(data_url_bytes(i.attrs["src"])).hexdigest()
        for i in figure.all("img", "shot")
    ]
    return images + [a.attrs["data-sha256"] for a in figure.all("a", "same")]


def sha(data: bytes | None) -> list[str]:
    return [hashlib.sha256(data).hexdigest()] if data is not None else []


def data_url_bytes(src: str) -> bytes:
    prefix, data = src.split(",", 1)
    assert prefix == "data:image/png;base64"
    return base64.b64decode(data)


def check_report_dom(dom: Node, cassette: Path) -> None:
    """Everything the brief asks a report to show, checked against the cassette itself."""
    run = read_run(cassette)
    header = dom.one("header")
    assert run.header.scenario.name in header.one("h1").text
    status = header.one("span", "status")
    assert status.text == run.status.replace("_", " ")
    assert status.classes & {"ok", "warn", "bad", "gray"}
    assert run.header.scenario.goal in header.text

    # Steps: one card per step acted on, its decided action, the screen the agent saw before
    # and the one its verification saw after, each labelled.
    cards = dom.all("article", "step")
    expected = recorded_steps(cassette)
    assert [c.attrs["id"] for c in cards] == [f"step-{n}" for n, _, _, _ in expected]
    if run.report is not None:
        assert len(cards) == run.report.total_steps  # as many as the header says
    for card, (_, action, before, after) in zip(cards, expected, strict=True):
        assert f"action{action}" in card.text.replace("\n", "")
        shown = {f.one("figcaption").text: shown_screens(f) for f in card.all("figure")}
        assert shown["before"] == sha(before)
        assert shown["after"] == sha(after)

    # The done decision concludes the run, under the run's status; it is no step.
    (conclusion,) = [s for s in dom.all("section") if s.attrs.get("id") == "conclusion"]
    assert conclusion.one("span", "status").text == status.text
    assert not [c for c in cards if "actiondone" in c.text.replace("\n", "")]
    events = read_cassette(cassette).events
    done = [e.decision.action for e in events if isinstance(e, DecideEvent) and e.decision]
    if done and isinstance(done[-1], Done):
        assert f"after{len(cards)} step" in conclusion.text.replace("\n", "")
        assert done[-1].summary in conclusion.text
        assert shown_screens(conclusion.one("figure")) == sha(recorded_screens(cassette)[-1])
    # Each screen is stored once: every link to one leads to its image on the page, and every
    # copy (a marked screen shown again, a filmstrip frame) is drawn from it by the page.
    firsts = [i for i in dom.all("img") if "id" in i.attrs]
    anchors = {i.attrs["id"]: i.attrs["data-sha256"] for i in firsts}
    for link in dom.all("a", "same"):
        assert anchors[link.attrs["href"].removeprefix("#")] == link.attrs["data-sha256"]
    assert len(anchors) == len(set(anchors.values()))
    sources = {i.attrs["data-sha256"]: i.attrs["src"] for i in firsts}
    for copy in [i for i in dom.all("img") if "data-same" in i.attrs]:
        assert copy.attrs["src"] == sources[copy.attrs["data-same"]]

    # Recoveries: the same paths `orav audit` reads, in order.
    shown = [
        (
            r.attrs["data-fault"],
            r.attrs["data-outcome"],
            [li.text for li in r.all("li", "transition")],
        )
        for r in dom.all("article", "recovery")
    ]
    audited = [
        (p.fault, p.outcome, [f"{s} —{e}→ {t}" for s, e, t in p.transitions])
        for p in recovery_paths(cassette)
    ]
    assert shown == audited

    # A recovery is numbered as the report's errors number it (an action retried until it
    # worked or handed back is no error of the run: it has a card but no error).
    if run.report is not None:
        errors = {(e.step, e.error.split(":")[0]) for e in run.report.errors}
        for card in dom.all("article", "recovery"):
            step = int(card.attrs["data-step"])
            if card.attrs["data-fault"] != "no_effect":
                assert (step, card.attrs["data-fault"]) in errors
            assert f"step {step}" in card.one("span", "where").text
            assert card.one("span", "fault").text == card.attrs["data-fault"]

    # Diagrams: the bold edges are exactly the run's transitions, with their counts, and the
    # states drawn as entered are those the transitions entered or left.
    recorded = recorded_transitions(cassette)
    drawn = Counter()
    for machine in dom.all("div", "machine"):
        name = machine.attrs["data-machine"]
        svg = machine.one("svg", "machine-diagram")
        for edge in svg.all("g", "edge"):
            for span in edge.all("tspan", "fired"):
                assert "fired" in edge.classes
                key = (name, edge.attrs["data-source"], span.attrs["data-event"])
                drawn[(*key, edge.attrs["data-target"])] += int(span.attrs["data-count"])
        entered = {g.attrs["data-state"] for g in svg.all("g", "visited")}
        assert entered == {s for (m, a, _, b) in recorded if m == name for s in (a, b)}
    assert drawn == recorded

    # Machines: the marked rows are exactly the run's transitions, with their counts; every
    # transition of every machine class is listed once.
    rows = dom.all("tr", "transition")
    fired = Counter()
    for row in rows:
        if "fired" in row.classes:
            key = tuple(row.attrs[f"data-{k}"] for k in ("machine", "source", "event", "target"))
            fired[key] = int(row.attrs["data-count"])
    assert fired == recorded
    if run.report is not None:  # each at the step the engine had under way, as its report says
        assert run.transitions == run.report.transitions
    defined = sum(len(flat_transitions(cls)) for cls in machine_classes())  # one per event
    assert len([r for r in rows if "unknown" not in r.classes]) == defined

    # Errors of the report, all shown.
    if run.report is not None and run.report.errors:
        shown_errors = dom.all("ul", "errors")[0].text
        for error in run.report.errors:
            assert error.error in shown_errors

    # Nothing loads from anywhere.
    for tag in ("script", "img", "link", "iframe"):
        for node in dom.all(tag):
            src = node.attrs.get("src", "") + node.attrs.get("href", "")
            assert not src or src.startswith("data:"), src


# --- tests --------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def recovered_run(tmp_path_factory) -> Path:
    return recorded("recovered", tmp_path_factory)


@pytest.fixture(scope="session")
def failed_run(tmp_path_factory) -> Path:
    return recorded("failed", tmp_path_factory)


@needs_chromium
@pytest.mark.parametrize(
    "cassette",
    sorted(GOLDEN.rglob("*.cassette")),
    ids=lambda p: p.relative_to(GOLDEN).with_suffix("").as_posix(),
)
def test_golden_report_in_the_browser_matches_its_cassette(cassette: Path, tmp_path: Path):
    page = write_html(cassette, tmp_path / f"{cassette.stem}.html")
    dom = dump_dom(page, tmp_path)
    check_report_dom(dom, cassette)
    assert bool(dom.all("article", "recovery")) == bool(recovery_paths(cassette))


@needs_chromium
def test_a_resolved_recovery_is_shown_with_its_path(recovered_run: Path, tmp_path: Path):
    dom = dump_dom(write_html(recovered_run, tmp_path / "r.html"), tmp_path)
    check_report_dom(dom, recovered_run)
    (recovery,) = dom.all("article", "recovery")
    assert recovery.attrs["data-outcome"] == "resolved"
    assert "failed" not in recovery.classes
    assert "dismissing_alert —cleared→ resolved" in recovery.text
    assert "tap 'Cancel'" in recovery.text  # an alert is dismissed by its declining answer
    assert dom.one("header").one("span", "status").text == "completed with errors"
    # The fault's screen is the alert the engine saw: its image, or a link to the same screen
    # shown earlier on the page (each screen is stored once).
    (figure,) = recovery.all("figure")
    assert figure.one("figcaption").text == "fault" and len(shown_screens(figure)) == 1
    for image in figure.all("img", "shot"):
        assert image.attrs["alt"] == "the screen that showed the alert fault"


@needs_chromium
def test_a_failed_run_shows_its_unresolved_recovery_and_errors(failed_run: Path, tmp_path: Path):
    dom = dump_dom(write_html(failed_run, tmp_path / "f.html"), tmp_path)
    check_report_dom(dom, failed_run)
    status = dom.one("header").one("span", "status")
    assert status.text == "aborted" and "bad" in status.classes
    failed = [r for r in dom.all("article", "recovery") if "failed" in r.classes]
    assert failed and failed[-1].attrs["data-outcome"].startswith("failed: ")
    assert "no credentials" in dom.one("ul", "errors").text
    aborted = [r for r in dom.all("tr", "fired") if r.attrs["data-target"] == "aborted"]
    assert [r.attrs["data-machine"] for r in aborted] == ["run"]


@needs_chromium
def test_the_report_renders_readably(failed_run: Path, tmp_path: Path):
    """A screenshot of the page in Chromium: the status badge and recovery border are drawn."""
    from PIL import Image

    page = write_html(failed_run, tmp_path / "f.html")
    png = tmp_path / "page.png"
    chromium.chromium(tmp_path, "--window-size=1100,900", f"--screenshot={png}", page.as_uri())
    image = Image.open(png).convert("RGB")
    assert image.size == (1100, 900)
    colours = {colour: count for count, colour in image.getcolors(maxcolors=1 << 24)}
    assert colours.get((0xCF, 0x22, 0x2E), 0) > 200  # the red "aborted" badge
    assert len(colours) > 50  # screenshots and text, not a blank page


@needs_chromium
def test_recorded_strings_are_text_not_markup(tmp_path: Path):
    run = read_run(GOLDEN / "login.cassette")
    nasty = '<img src=x onerror="document.title=1"><script>document.title=2</script> & "q"'
    first = run.timeline[0]
    assert isinstance(first, StepView)
    step = evolve(first, decision=evolve(first.decision, reasoning=nasty))
    page = tmp_path / "nasty.html"
    page.write_text(render_html(evolve(run, timeline=(step, *run.timeline[1:]))))
    dom = dump_dom(page, tmp_path)
    card = dom.all("article", "step")[0]
    assert nasty in card.text
    assert len(card.all("img")) == 2 and not card.all("script")
    assert dom.one("head").one("title").text.startswith("orav: login")


def test_a_big_machine_is_drawn_around_what_the_run_touched():
    """The recovery machine untouched: its initial state and the states one event away; the run
    machine whole, its catch-all events named in the caption instead of drawn 6-8 times."""
    recovery, run = (
        c for c in machine_classes() if c.__name__ in ("RecoveryMachine", "RunMachine")
    )
    drawing = draw_machine(recovery, "recovery", [])
    states = {
        g.attrs["data-state"]
        for g in parse(ET.tostring(drawing.svg, "unicode")).all("g")
        if "data-state" in g.attrs
    }
    assert states == {"detected"} | {t.target.id for t in recovery.detected.transitions}
    assert f"({len(states)} of {len(recovery.states)})" in drawing.caption
    drawing = draw_machine(run, "run", [Transition("run", "acting", "abort", "aborted", 1)])
    svg = parse(ET.tostring(drawing.svg, "unicode"))
    assert {g.attrs["data-state"] for g in svg.all("g") if "data-state" in g.attrs} == {
        s.id for s in leaf_states(run)
    }
    edges = {(e.attrs["data-source"], e.attrs["data-target"]): e for e in svg.all("g", "edge")}
    assert "fired" in edges[("acting", "aborted")].classes  # taken: drawn though a catch-all
    assert ("launching", "aborted") not in edges and ("launching", "timed_out") not in edges
    phases = len(run.running.states)
    assert f"time_up → timed_out (from {phases + 1} states)" in drawing.caption  # idle, phases


def test_secrets_do_not_reach_the_report(recovered_run: Path, tmp_path: Path):
    text = write_html(recovered_run, tmp_path / "r.html").read_text()
    assert PASSWORD not in text
    assert "(secure)" in text  # the step that typed it is there, without its text


@needs_chromium
def test_index_links_every_report(recovered_run: Path, failed_run: Path, tmp_path: Path):
    again = tmp_path / "login_again.cassette"  # a second run of the same scenario
    shutil.copy(GOLDEN / "login.cassette", again)
    paths = (GOLDEN / "login.cassette", recovered_run, failed_run, again)
    runs = [read_run(p) for p in paths]
    pages = [write_html(run, tmp_path / "reports" / f"{i}.html") for i, run in enumerate(runs)]
    index = write_index(list(zip(runs, pages, strict=True)), tmp_path / "index.html")
    dom = dump_dom(index, tmp_path)
    rows = dom.all("tr", "run")
    statuses = ["passed", "completed_with_errors", "aborted", "passed"]
    assert [r.attrs["data-status"] for r in rows] == statuses
    for row, run, page in zip(rows, runs, pages, strict=True):
        link = row.one("a")
        assert link.text == run.header.scenario.name
        assert (index.parent / link.attrs["href"]).resolve() == page.resolve()
        # Told apart by their cassette's name and when they were recorded.
        assert row.one("td", "file").text == run.path.name
        when = datetime.fromisoformat(run.header.created_at).strftime("%Y-%m-%d %H:%M:%S")
        assert row.one("td", "when").text == f"{when} UTC"
    assert "3 of 4 met their goal" in dom.text
    # Why a run did not pass, on the index too (as the terminal says it).
    whys = [row.one("td", "why").text.strip() for row in rows]
    assert whys[0] == whys[3] == "" and whys[2].startswith("aborted: ")


def test_an_unfinished_recording_still_reports_its_steps(tmp_path: Path):
    lines = (GOLDEN / "login.cassette").read_bytes().splitlines(keepends=True)
    cut = tmp_path / "cut.cassette"
    cut.write_bytes(b"".join(lines[: len(lines) // 2]) + lines[len(lines) // 2][:20])
    run = read_run(cut)
    assert run.report is None and run.truncated
    dom = parse(render_html(run))
    assert dom.one("header").one("span", "status").text == "incomplete"
    assert "did not finish" in dom.text and "cut off" in dom.text
    assert len(dom.all("article", "step")) == len(run.steps) > 0


def test_cli_report_writes_html_index_and_junit(failed_run: Path, tmp_path: Path):
    out, junit = tmp_path / "html", tmp_path / "junit.xml"
    result = orav("report", str(GOLDEN / "login.cassette"), str(failed_run), "--html", str(out))
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["failed.html", "index.html", "login.html"]
    assert f"index: {out / 'index.html'}" in result.stdout
    result = orav("report", str(failed_run), "--junit", str(junit), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert junit.read_text().count("<testcase ") == 1
    assert failed_run.with_suffix(".html").exists()  # without --html: next to the cassette
    clash = orav("report", str(failed_run), str(failed_run), "--html", str(tmp_path / "x"))
    assert clash.returncode == 2
    assert "would both write failed.html" in clash.stderr


def test_cli_record_writes_the_html_report_next_to_its_cassette(tmp_path: Path):
    out = tmp_path / "open_detail.cassette"
    result = orav("record", str(SCENARIOS / "open_detail.yaml"), "--out", str(out))
    assert result.returncode == 0, result.stderr
    page = out.with_suffix(".html")
    assert f"html:     {page}" in result.stdout
    assert len(parse(page.read_text()).all("article", "step")) == 3  # and the done decision
