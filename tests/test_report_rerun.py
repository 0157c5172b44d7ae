"""The page of a live rerun (``orav rerun --html``), on the real simulator and in headless
Chromium: a regression candidate is a card with the recorded and the live screenshot, linked
from the top; a rerun on the unchanged app says nothing regressed."""

from pathlib import Path

from chromium import CHROMIUM
from command import orav
from test_report_html import dump_dom, parse

from orav.sim import DEMO_APP

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "recordings" / "change_setting.cassette"
SCENARIO = ROOT / "orav" / "scenarios" / "change_setting.yaml"
SETTINGS_BUTTON = (
    "      - {role: AXButton, id: settings, label: Settings, frame: [290, 47, 92, 44],"
    "\n         on_tap: [{to: settings}]}\n"
)


def _rerun_page(tmp_path: Path, *device: str):
    out = tmp_path / "html"
    result = orav("rerun", GOLDEN, "--scenario", SCENARIO, *device, "--html", out)
    page = out / "change_setting.rerun.html"
    assert f"html: {page}" in result.stdout, result.stderr
    dom = dump_dom(page, tmp_path) if CHROMIUM else parse(page.read_text())
    return result, dom


def test_a_regression_candidate_is_linked_with_its_recorded_and_live_screenshots(tmp_path):
    text = DEMO_APP.read_text()
    assert SETTINGS_BUTTON in text
    app = tmp_path / "demo.yaml"
    app.write_text(text.replace(SETTINGS_BUTTON, "\n", 1))  # the Settings button is gone
    result, dom = _rerun_page(tmp_path, "--device", f"sim:{app}")
    assert result.returncode == 1, result.stderr
    assert dom.one("h1").one("span", "status").text == "regressed"
    [link] = dom.one("nav").all("a")
    card = dom.one("article", "regression")
    assert link.attrs["href"] == f"#{card.attrs['id']}" and "step 1: target" in link.text
    assert (card.attrs["data-step"], card.attrs["data-kind"]) == ("1", "target")
    recorded, live = card.all("img", "shot")
    assert recorded.attrs["src"].startswith("data:image/png;base64,")
    assert recorded.attrs["data-sha256"] != live.attrs["data-sha256"]
    captions = [figure.one("figcaption").text for figure in card.all("figure")]
    assert captions == ["recorded", "live"]
    assert "#settings" in card.text and "none on Home" in card.text


def test_a_rerun_on_the_unchanged_app_reports_no_regression(tmp_path):
    result, dom = _rerun_page(tmp_path)
    assert result.returncode == 0, result.stderr
    assert dom.one("h1").one("span", "status").text == "passed"
    assert not dom.all("article", "regression")
    assert "No regression" in dom.one("header").text


def test_a_run_report_shows_its_regression_check_with_both_screenshots(tmp_path):
    """orav record --regression-check: the run passed, an earlier flow of its app did not;
    the run's report says so under its verdict and links the candidate's card."""
    text = DEMO_APP.read_text()
    app = tmp_path / "demo.yaml"
    app.write_text(text.replace(SETTINGS_BUTTON, "\n", 1))
    out = tmp_path / "open_detail.cassette"
    scenario = ROOT / "orav" / "scenarios" / "open_detail.yaml"
    result = orav(
        "record", scenario, "--out", out, "--device", f"sim:{app}", "-q",
        "--regression-check", GOLDEN,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr  # the run passed; the earlier flow regressed
    page = out.with_suffix(".html")
    dom = dump_dom(page, tmp_path) if CHROMIUM else parse(page.read_text())
    assert dom.one("h1").one("span", "status").text == "passed"
    [said] = dom.one("div", "verdict").all("p")
    assert said.one("a").attrs["href"] == "#regression-check"
    [section] = [s for s in dom.all("section") if s.attrs.get("id") == "regression-check"]
    [row] = section.all("tr", "revisit")
    assert row.attrs["data-status"] == "regressed" and "change_setting" in row.text
    card = section.one("article", "regression")
    assert row.one("a").attrs["href"] == f"#{card.attrs['id']}"
    assert [f.one("figcaption").text for f in card.all("figure")] == ["recorded", "live"]
    assert card.all("img", "shot")  # the recorded Home with its Settings button


def test_a_repeated_rerun_is_one_page_under_pass_at_k(tmp_path):
    from orav.cassette.rerun import Heal, Regression
    from orav.golden import Rerun
    from orav.model import RunReport
    from orav.report.html.rerun_page import write_rerun_html

    ok = RunReport("r", "s", "passed", total_steps=4)
    failed = RunReport("r", "s", "failed", total_steps=4)
    runs = (
        Rerun(Path("a.cassette"), ok, heals=(Heal(2, "#a", "#b", "label"),)),
        Rerun(Path("a.cassette"), failed, regressions=(Regression(4, "screen", "A", "<B>"),)),
    )
    dom = parse(write_rerun_html(runs, tmp_path / "a.rerun.html").read_text())
    assert dom.one("h1").one("span", "status").text == "flaky"
    assert "1 of 2 runs passed or healed" in dom.one("table", "facts").text
    assert [s.attrs["data-status"] for s in dom.all("section", "rerun")] == ["healed", "regressed"]
    [heal] = dom.all("tr", "heal")
    assert [td.text for td in heal.all("td")] == ["2", "#a", "#b", "label"]
    card = dom.one("article", "regression")
    assert card.attrs["id"] == "run-2-regression-1" == dom.one("nav").one("a").attrs["href"][1:]
    assert "<B>" in card.text  # recorded text, never markup
    assert [f.one("div", "noshot").text for f in card.all("figure")] == ["no screenshot"] * 2
