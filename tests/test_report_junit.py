"""JUnit XML: parsed back with xml.etree and checked against the runs' reports."""

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from attrs import evolve
from hypothesis import given, settings
from hypothesis import strategies as st
from report_runs import GOLDEN, recorded

from orav.model import RunError
from orav.report.junit import junit_xml, write_junit
from orav.report.timeline import read_run


@pytest.fixture(scope="session")
def runs(tmp_path_factory):
    """A passed golden run, a recovered one, an aborted one."""
    paths = [
        GOLDEN / "login.cassette",
        recorded("recovered", tmp_path_factory),
        recorded("failed", tmp_path_factory),
    ]
    return [read_run(p) for p in paths]


def test_one_testsuite_one_testcase_per_run(runs, tmp_path: Path):
    root = ET.parse(write_junit(runs, tmp_path / "junit.xml")).getroot()
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [r.header.scenario.name for r in runs]
    assert suite.get("tests") == "3" and root.get("tests") == "3"
    assert suite.get("failures") == "1" and suite.get("errors") == "0"
    total = sum(r.report.duration_seconds for r in runs)
    assert float(suite.get("time")) == pytest.approx(total, abs=0.002)
    for case, run in zip(cases, runs, strict=True):
        assert case.get("classname") == "com.orav.demo"
        assert float(case.get("time")) == pytest.approx(run.report.duration_seconds)
        assert case.get("file") == str(run.path)
        properties = {p.get("name"): p.get("value") for p in case.iter("property")}
        assert properties["status"] == run.status
        assert properties["run_id"] == run.header.run_id


def test_passing_runs_have_no_failure_and_list_resolved_errors(runs):
    cases = ET.fromstring(junit_xml(runs)).find("testsuite").findall("testcase")
    passed, recovered, _ = cases
    assert passed.find("failure") is None and passed.find("error") is None
    assert recovered.find("failure") is None
    said = recovered.find("system-out").text
    assert said.startswith("completed with errors: the goal was met, with 1 error on the way")
    assert "step 3: alert: Something went wrong (resolved)" in said


def test_a_failed_run_is_a_failure_with_the_reports_errors(runs):
    failed = ET.fromstring(junit_xml(runs)).find("testsuite").findall("testcase")[2]
    report = runs[2].report
    (failure,) = failed.findall("failure")
    assert failure.get("type") == "aborted"
    assert failure.get("message").startswith("aborted: login: recovery failed: a login form")
    for error in report.errors:
        assert error.error in failure.text
    for goal in report.goals_missed:
        assert f"goal missed: {goal}" in failure.text


def test_an_unfinished_recording_is_an_error(tmp_path: Path):
    lines = (GOLDEN / "login.cassette").read_bytes().splitlines(keepends=True)
    cut = tmp_path / "cut.cassette"
    cut.write_bytes(b"".join(lines[:-3]) + lines[-3][:10])
    suite = ET.fromstring(junit_xml([read_run(cut)])).find("testsuite")
    assert suite.get("errors") == "1" and suite.get("failures") == "0"
    error = suite.find("testcase").find("error")
    assert error.get("type") == "incomplete"
    assert "did not finish" in error.get("message") and "cut off" in error.get("message")


XML_CHARS = st.characters(codec="utf-8", exclude_categories=("Cs",))


@settings(deadline=None, max_examples=60)
@given(messages=st.lists(st.text(XML_CHARS, max_size=40), min_size=1, max_size=4))
def test_any_error_text_gives_parseable_xml(runs, messages):
    run = runs[2]
    errors = tuple(RunError(step=i, error=m) for i, m in enumerate(messages))
    odd = evolve(run, report=evolve(run.report, errors=errors, summary=""))
    failure = ET.fromstring(junit_xml([odd])).find("testsuite/testcase/failure")
    for message in messages:
        kept = "".join(c if c in "\t\n\r" or c >= " " else "\ufffd" for c in message)
        kept = kept.replace("\r\n", "\n").replace("\r", "\n")  # XML parsers normalise them
        assert kept.replace("\ufffe", "\ufffd").replace("\uffff", "\ufffd") in failure.text


def test_runs_of_one_scenario_are_told_apart_by_their_cassette(tmp_path):
    import shutil
    import xml.etree.ElementTree as ET

    from orav.report.junit import junit_xml
    from orav.report.timeline import read_run

    golden = Path(__file__).resolve().parent.parent / "recordings" / "login.cassette"
    copies = [shutil.copy(golden, tmp_path / name) for name in ("a.cassette", "b.cassette")]
    root = ET.fromstring(junit_xml([read_run(Path(p)) for p in copies]).split("\n", 1)[1])
    names = [case.get("name") for case in root.iter("testcase")]
    assert names == [f"login [{copies[0]}]", f"login [{copies[1]}]"]


def test_a_failure_names_the_missed_criterion_with_what_was_found_not_the_agents_claim(tmp_path):
    """The agent said it was done ("Alarm gestellt!"); the check found otherwise: JUnit's
    message is the criterion and the value found, the claim only in the text."""
    run = read_run(GOLDEN / "change_setting.cassette")
    claim = "Alarm gestellt!"
    report = evolve(
        run.report,
        status="failed",
        summary=claim,
        goals_achieved=(),
        goals_missed=("#tide_alarm has value '1'",),
        goals_found=("value '0'",),
    )
    root = ET.fromstring(junit_xml([evolve(run, report=report)]))
    failure = root.find("testsuite/testcase/failure")
    assert failure.get("type") == "failed"
    assert failure.get("message") == "failed: expected #tide_alarm has value '1'; found value '0'"
    assert claim not in failure.get("message")
