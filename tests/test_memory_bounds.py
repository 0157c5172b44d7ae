"""Memory at length (issue 29): what a long run keeps does not grow with its steps where the
run needs only the latest of them. Each bound is asserted as a count of what is kept; peak RSS
at 100 / 1,000 / 10,000 steps is bench/memory.py's."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from orav.agents import AgentContext
from orav.agents.prompt import build_messages
from orav.model import (
    ActionResult,
    Decision,
    Element,
    Frame,
    Observation,
    Scenario,
    Step,
    Tap,
    Target,
    Verification,
)
from orav.tally import Tally

SCENARIO = Scenario(name="long", app="app", goal="go on", max_steps=10_000)


class Unbounded:
    """The going-round-in-circles tally as it was: every state and every step kept."""

    def __init__(self) -> None:
        self.states: set[tuple] = set()
        self.taken: dict[tuple[tuple, str], list[int]] = {}
        self.fresh = 0

    def repeats(self, state: tuple, action: str) -> list[int]:
        return [k for k in self.taken.get((state, action), ()) if k >= self.fresh]

    def took(self, step: int, state: tuple, action: str, after: tuple) -> None:
        self.states.add(state)
        self.taken.setdefault((state, action), []).append(step)
        if after not in self.states:
            self.states.add(after)
            self.fresh = step


def screen(n: int) -> tuple:
    """A screen state as ``orav.perceive.look_key`` gives one: the app and a tree signature."""
    return ("app", (("AXStaticText", f"Count: {n}", None, None, 0, 100, 390, 30, True, False),))


walks = st.lists(
    st.tuples(st.integers(0, 5), st.sampled_from(["tap #a", "tap #b", "swipe"])),
    min_size=1,
    max_size=60,
)


@given(walks)
def test_repeats_are_those_of_the_unbounded_tally(walk: list[tuple[int, str]]) -> None:
    """Over any walk among a few screens, the bounded tally finds the very repeats the
    unbounded one found, at every step."""
    bounded, unbounded = Tally(SCENARIO), Unbounded()
    here = 0
    for step, (there, action) in enumerate(walk, start=1):
        assert bounded.repeats(screen(here), action) == unbounded.repeats(screen(here), action)
        bounded.took(step, screen(here), action, screen(there))
        unbounded.took(step, screen(here), action, screen(there))
        here = there


def test_a_run_that_sees_a_new_screen_every_step_keeps_one_step_for_repeats() -> None:
    """10,000 steps, each reaching a screen never seen (a counter that goes up): the steps
    kept to find repeats are those since the last new screen (one), and each state seen is
    kept as a digest of a fixed size, not its tree."""
    tally = Tally(SCENARIO)
    for step in range(1, 10_001):
        tally.took(step, screen(step - 1), "tap #add", screen(step))
    assert sum(len(steps) for steps in tally.taken.values()) == 1
    assert len(tally.states) == 10_001
    assert {len(state) for state in tally.states} == {16}
    assert tally.repeats(screen(9_999), "tap #add") == [10_000]
    # going back to a screen seen long ago is no new state: the circle is found from there
    tally.took(10_001, screen(10_000), "back", screen(5))
    tally.took(10_002, screen(5), "tap #add", screen(6))
    assert tally.repeats(screen(5), "tap #add") == [10_002]


def long_history(steps: int) -> tuple[Step, ...]:
    """``steps`` steps over screens whose names no code knows, one in seven failed, a plan
    written once near the start."""
    history = []
    for index in range(1, steps + 1):
        decision = Decision(
            Tap(target=Target(id=f"kachel{index % 11}")),
            f"Kachel {index % 11} auf Seite {index % 37} probieren",
            expected_outcome="eine andere Seite",
            plan=("Seiten ablaufen", "Kacheln zaehlen") if index == 3 else None,
        )
        result = ActionResult(ok=index % 7 != 0, error=None if index % 7 else "verfehlt")
        history.append(Step(index, f"Seite {index % 37}", decision, result, Verification(True)))
    return tuple(history)


def test_the_model_is_sent_as_much_after_5000_steps_as_after_50() -> None:
    """What the LLM agent sends the model is one user turn of the recent steps and counts:
    after 5,000 steps it is as long as after 50, but for the digits of larger numbers (no
    conversation that grows with the run)."""
    observation = Observation(
        elements=(Element(role="AXButton", label="Weiter", frame=Frame(20, 700, 350, 44)),),
        app="app",
    )

    def sent(steps: int) -> str:
        context = AgentContext(SCENARIO, observation, steps + 1, long_history(steps))
        messages, _ = build_messages(context)
        assert len(messages) == 2  # the system prompt and one user turn
        return messages[1]["content"]

    early, late = sent(50), sent(5_000)
    assert "Seiten ablaufen" in early and "Seiten ablaufen" in late  # the plan is kept
    assert len(late) <= len(early) + 200
