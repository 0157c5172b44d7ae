"""A failed run reads well where the user reads it: in pytest, the missed criterion, what the
screen showed instead, the step and where to look; an id and a label together are named as
both; a mistyped id gets the nearest one on the screen. The app is written here, with words
orav's code never saw."""

import pytest

from orav.model import Assert, Element, Frame, Observation, RunError, RunReport, Target
from orav.perceive import near_miss
from orav.perceive.assertions import describe_assertion, found_instead

pytest_plugins = ["pytester"]

APP = '''
from textual.app import App
from textual.widgets import Button, Static


class Abacus(App):
    """Counts beads; its bead button is broken: a press changes nothing."""

    def compose(self):
        yield Static("0 beads", id="beads")
        yield Button("Slide a bead", id="slide")
'''

SCENARIO = """
name: slide_a_bead
app: abacus:Abacus
goal: Slide one bead and see the count say "1 bead".
max_steps: 4
settle_seconds: 0.05
success_criteria:
  - {target: {id: beads, label: 1 bead}, condition: visible}
script:
  - action: {kind: tap, target: {id: slide}}
  - action: {kind: done, success: true, summary: slid a bead}
"""

TESTS = """
def test_with_the_helper(uat_driver):
    uat_driver.run_sync("slide.yaml").assert_passed()


def test_with_a_plain_assert(uat_driver):
    report = uat_driver.run_sync("slide.yaml")
    assert report.ok
"""


def test_pytest_shows_the_missed_criterion_what_was_found_and_the_step(pytester):
    pytester.makepyfile(abacus=APP, test_abacus=TESTS)
    (pytester.path / "slide.yaml").write_text(SCENARIO)
    pytester.makeini("[pytest]\norav_app = abacus:Abacus\n")
    pytester.syspathinsert()
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:asyncio")
    result.assert_outcomes(failed=2)
    criterion = "expected #beads labelled '1 bead' is visible"
    found = "found no #beads labelled '1 bead' on the last screen; #beads is there, labelled"
    result.stdout.fnmatch_lines(
        [
            "E*AssertionError: 'slide_a_bead' failed after 1 step: slid a bead",
            f"E*{criterion}; {found} '0 beads'",
        ]
    )
    # a plain assert shows the report's outcome, not every field of it
    result.stdout.fnmatch_lines(
        [f"*where False = <RunReport 'slide_a_bead' failed after 1 step: {criterion}*"]
    )


def test_explain_names_the_errors_and_where_to_look():
    report = RunReport(
        run_id="r",
        scenario="pay",
        status="aborted",
        total_steps=3,
        summary="the app did not come back",
        errors=(RunError(step=3, error="relaunch: the app exited at once"),),
    )
    text = report.explain(cassette="recordings/pay.cassette", html="recordings/pay.html")
    assert text.splitlines() == [
        "'pay' aborted after 3 steps: the app did not come back",
        "  step 3: relaunch: the app exited at once",
        "  cassette: recordings/pay.cassette",
        "  html:     recordings/pay.html",
    ]
    with pytest.raises(AssertionError, match="'pay' aborted after 3 steps"):
        report.assert_passed()


def test_ok_means_passed_and_errors_on_the_way_are_said():
    recovered = RunReport(
        run_id="r",
        scenario="pay",
        status="completed_with_errors",
        total_steps=4,
        errors=(RunError(step=2, error="alert: card declined", resolved=True),),
    )
    assert recovered.goal_met and not recovered.ok
    assert recovered.reasons() == [
        "completed with errors",
        "step 2: alert: card declined (resolved)",
    ]
    with pytest.raises(AssertionError, match="completed with errors"):
        recovered.assert_passed()
    passed = RunReport(run_id="r", scenario="pay", status="passed")
    passed.assert_passed()
    assert passed.ok and passed.reasons() == []


def element(label: str, unique_id: str | None = None) -> Element:
    return Element(label=label, unique_id=unique_id, role="AXButton", frame=Frame(0, 0, 80, 20))


SCREEN = Observation(
    elements=(element("Transfer funds", "transfer"), element("Standing orders", "standing"))
)


@pytest.mark.parametrize(
    ("target", "said"),
    [
        (Target(id="transfre"), "did you mean #transfer?"),
        (Target(label="Standing order"), "did you mean 'Standing orders'?"),
        (
            Target(id="transfer", label="Move money"),
            "#transfer is there, labelled 'Transfer funds'",
        ),
        (Target(id="wire", label="Transfer funds"), "'Transfer funds' is there, with #transfer"),
        (Target(id="zzzz"), ""),
    ],
)
def test_a_near_miss_names_what_is_on_the_screen(target, said):
    assert near_miss(SCREEN, target) == said


def test_a_check_of_an_id_and_a_label_is_named_by_both():
    both = Assert(target=Target(id="count", label="1 note"))
    assert describe_assertion(both) == "#count labelled '1 note' is visible"
    assert describe_assertion(Assert(target=Target(id="count"))) == "#count is visible"
    screen = Observation(elements=(element("0 notes", "count"),))
    said = "no #count labelled '1 note' on the last screen; #count is there, labelled '0 notes'"
    assert found_instead(both, screen) == said
