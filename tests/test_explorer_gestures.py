"""Gestures, keys, the screen identity on real apps, and the coverage in the HTML report.

The gestures app (``orav/demo/gestures.yaml``) opens its screens only by a swipe, the return
key or a tab bar: the explorer reaches all of them through the simulator over real gRPC and
the fb-idb client. The rest runs on hand-built observations (``Tiny``, as in test_explorer).
"""

from __future__ import annotations

from pathlib import Path

from attrs import evolve
from test_explorer import BACK, Run, Tiny, button, heading, text_field

from orav.agents.explore.controls import sample_text
from orav.agents.explore.moves import ESCAPE, app_chrome, screen_moves
from orav.agents.explorer import ExplorerAgent
from orav.model import (
    Credentials,
    Element,
    Frame,
    Observation,
    PressKey,
    Scenario,
    Swipe,
)
from orav.perceive import screen_id, screen_name
from orav.perceive.screens import stable_id
from orav.report.coverage import write_coverage
from orav.report.html import render_html
from orav.report.timeline import read_run
from orav.session import record, replay
from orav.testing import VirtualClock

GESTURES = Path(__file__).resolve().parent.parent / "orav" / "demo" / "gestures.yaml"
GESTURE_SCREENS = {"Hub", "Results", "Gallery", "Photo", "Inbox", "Archive", "Pinned"}
GESTURE_SCREENS |= {"Profile", "Stats", "Status saved"}


async def test_screens_opened_only_by_swipe_return_and_tab_bar_are_all_reached(tmp_path):
    explorer = ExplorerAgent()
    scenario = Scenario("explore-gestures", "com.orav.gestures", "explore", max_steps=90)
    scenario = evolve(scenario, settle_seconds=0.05, timeout_seconds=3600)
    cassette = tmp_path / "gestures.cassette"
    recorded = await record(
        scenario, cassette, device=f"sim:{GESTURES}", agent=explorer, clock=VirtualClock()
    )
    coverage = explorer.coverage()
    assert {s.name for s in coverage.screens} == GESTURE_SCREENS, coverage.summary
    assert coverage.finished and recorded.report.goal_met, recorded.report
    # each kind of way in is a transition of its own in the coverage graph
    ways = {
        (coverage.name_of(t.source), t.element, coverage.name_of(t.target))
        for t in coverage.transitions
    }
    assert ("Hub", "(swipe left)", "Gallery") in ways
    assert ("Gallery", "(swipe up)", "Photo") in ways
    assert ("Profile", "(swipe right)", "Stats") in ways
    assert ("Inbox", "(swipe left on #pinned_note)", "Pinned") in ways
    assert ("Inbox", "#archive_1", "Archive") in ways  # revealed by a swipe on its row
    assert ("Hub", "#search", "Results") in ways  # the return key in the search field
    assert ("Hub", "#tab_inbox", "Inbox") in ways
    assert (await replay(cassette)).faithful

    # the coverage graph in the run's HTML report
    write_coverage(coverage, cassette)
    page = render_html(read_run(cassette))
    assert '<section id="coverage" class="coverage">' in page
    graph = page[page.index('<section id="coverage"') :]
    graph = graph[: graph.index("</section>")]
    assert "(swipe left on #pinned_note)" in graph and graph.count('<g class="screen') == 10


def test_the_screen_identity_holds_on_real_apps() -> None:
    app = Element("AXApplication", "Shop")
    title = heading("Cart")
    mug = Element("AXCell", "Enamel mug", "line_mug", frame=Frame(0, 100, 390, 60))
    tee = Element("AXCell", "Cotton tee", "line_tee", frame=Frame(0, 170, 390, 60))
    less = button("less_mug", "-")
    checkout = button("checkout", "Checkout", y=600)
    empty = Observation((app, title, button("start_shopping", "Start shopping")), app="shop")
    full = Observation((app, title, mug, less, tee, checkout), app="shop")
    # a navigation title is the screen: a cart with other contents is the same cart
    assert screen_id(empty) == screen_id(full)
    # without a title, the structure: rows coming and going change nothing, controls do
    untitled = Observation((app, mug, checkout), app="shop")
    assert screen_id(untitled) == screen_id(Observation((app, mug, tee, checkout), app="shop"))
    assert screen_id(untitled) != screen_id(Observation((app, mug), app="shop"))
    # a per-process id (Textual's Markdown headings carry Python's id()) is no id
    heading_id = Element("AXStaticText", "Intro", "heading-intro-140234511632912")
    assert stable_id(heading_id) is None and stable_id(checkout) == "checkout"
    one = Observation((app, evolve(heading_id, role="AXLink"), checkout), app="x")
    other = evolve(heading_id, role="AXLink", unique_id="heading-intro-139871234567888")
    assert screen_id(one) == screen_id(Observation((app, other, checkout), app="x"))


def textual(screen: str, *elements: Element, title: str | None = None) -> Observation:
    head = Element("AXWindow", screen, value=title or "Demo", traits=(f"screen:{screen}",))
    return Observation((Element("AXApplication", "Demo"), head, *elements), app="demo")


def test_a_textual_screen_is_its_class_and_tab_and_has_a_name_a_person_reads() -> None:
    rule = Element("AXStaticText", "╸━━━━━╺━━━━━━━━", frame=Frame(0, 1, 80, 1))
    home, projects = textual("HomeScreen", rule), textual("ProjectsScreen", rule)
    assert screen_id(home) != screen_id(projects)  # no Header, yet two screens
    assert (screen_name(home), screen_name(projects)) == ("Home", "Projects")
    grown = textual("HomeScreen", rule, Element("AXCell", "task 7", frame=Frame(0, 9, 80, 1)))
    assert screen_id(grown) == screen_id(home)
    tab = Element("AXTab", "Dashboard", traits=("selected",), frame=Frame(0, 2, 10, 1))
    other = evolve(tab, label="Notes")
    assert screen_id(textual("MainScreen", tab)) != screen_id(textual("MainScreen", other))
    assert screen_name(textual("MainScreen", tab, title="Jotter")) == "Jotter · Dashboard"


def test_a_textual_apps_bindings_and_arrow_keys_are_moves_of_their_own() -> None:
    # the driver marks a binding whose action ends the app: quits:KEY
    traits = ("binding:w", "binding:ctrl+q", "quits:ctrl+q", "binding:h")
    app = Element("AXApplication", "Demo", traits=traits)
    footer = Element("AXButton", "Home", frame=Frame(0, 29, 8, 1), traits=("binding:h",))
    go = Element("AXButton", "Go", frame=Frame(0, 2, 8, 1))
    observation = Observation((app, go, footer), app="demo")
    moves = screen_moves(observation, "textual")
    # w has no footer key to tap; h has one; ctrl+q quits the app
    assert list(moves) == [
        "(key w)",
        "(key up)",
        "(key down)",
        "(key left)",
        "(key right)",
        ESCAPE,
    ]
    assert all(isinstance(move, PressKey) for move in moves.values())
    # no control in the tree: printable keys probed, those the text shows alone first, never a
    # bound one, one bound to quit (quits:KEY, whatever the key) or one whose hint says quit
    quitting = evolve(app, traits=(*app.traits, "quits:a"))
    text = "r reload   [z] zoom   b beenden"
    bare = Observation((quitting, footer), app="demo", text=text)
    moves = screen_moves(bare, "textual", disposable=True)
    probed = [name for name in moves if len(name) == len("(key r)")]
    assert probed == ["(key w)", "(key r)", "(key z)", "(key ?)", "(key c)", "(key d)", "(key e)"]
    # in the user's own world (not disposable) no key that nothing names is pressed
    users = [name for name in screen_moves(bare, "textual") if len(name) == len("(key r)")]
    assert users == ["(key w)"]
    ios = screen_moves(Observation((heading("Home"),), app="demo"), "ios")
    assert all(isinstance(move, Swipe) for move in ios.values())


async def test_disabled_controls_are_listed_as_disabled_not_untried() -> None:
    off = evolve(button("submit", "Submit", y=200), enabled=False)
    app = Tiny({"home": (heading("Home"), button("ok", "Ok"), off)})
    run = await Run(app).explore()
    (home,) = run.coverage.screens
    assert home.disabled == ("#submit",) and home.untried == ()
    assert run.coverage.finished and "#submit" not in run.taps()


async def test_walking_never_repeats_a_control_that_commits_something() -> None:
    # "Clear cart" (a deed, done in a world orav throws away) led to the receipt once; the
    # way back to "home" never goes through it again
    app = Tiny(
        {
            "home": (heading("Home"), button("cart", "Cart"), button("later", "Later", y=300)),
            "cart": (heading("Cart"), button("clear", "Clear cart"), button("back", "Back", y=40)),
            "receipt": (heading("Receipt"), button("done", "Done"), button("more", "More", y=300)),
        },
        {
            ("home", "#cart"): "cart",
            ("cart", "#clear"): "receipt",
            ("cart", "#back"): BACK,
            ("receipt", "#done"): BACK,
        },
    )
    run = await Run(app, max_steps=120).explore()
    assert run.taps().count("#clear") == 1
    assert run.coverage.finished


def test_the_password_goes_into_password_fields_only() -> None:
    creds = Credentials("me@example.com", "s3cret!")
    card = text_field("card_number", "Card number", secure=True)
    cvv = text_field("cvv", "CVV", secure=True)
    assert sample_text(card, creds).text == "4242424242424242"
    assert sample_text(cvv, creds).text == "123" and sample_text(cvv, creds).secure
    assert sample_text(text_field("expiry", "Expiry (MM/YY)"), creds).text == "12/30"
    assert sample_text(text_field("pw", "Password", secure=True), creds).text == "s3cret!"


async def test_every_control_of_every_screen_comes_before_any_gesture():
    app = Tiny(
        {
            "home": (heading("Home"), button("open", "Open"), button("later", "Later", y=300)),
            "page": (heading("Page"), button("back", "Back"), button("like", "Like", y=300)),
        },
        {("home", "#open"): "page", ("page", "#back"): BACK},
    )
    run = await Run(app).explore()
    kinds = [type(d.action).__name__ for d in run.decisions]
    first_swipe = kinds.index("Swipe")
    assert set(run.taps()[:4]) == {"#open", "#later", "#like", "#back"}
    assert all(kind == "Tap" for kind in kinds[:first_swipe])
    assert run.coverage.finished and run.coverage.elements_tried == run.coverage.elements_total


def test_the_apps_chrome_is_in_the_trees_order_whatever_the_hash_seed() -> None:
    """Walks go through the chrome in this order: a set of strings (another order under
    another PYTHONHASHSEED) made two runs of the Textual notes app differ."""
    bar = Element("AXGroup", "Tab Bar", frame=Frame(0, 761, 390, 83))
    tabs = tuple(
        Element("AXButton", name, f"tab_{name}", frame=Frame(10 + 100 * i, 770, 90, 49))
        for i, name in enumerate("cab")
    )
    key = Element("AXButton", "Help", frame=Frame(0, 700, 50, 1), traits=("binding:f1",))
    observation = Observation((heading("Home"), button("go", "Go"), key, bar, *tabs), app="x")
    assert app_chrome(observation) == ("'Help'", "#tab_c", "#tab_a", "#tab_b")
