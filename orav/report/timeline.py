"""A recorded run as the HTML and JUnit reports read it: steps, recoveries, transitions.

``read_run(path)`` walks the cassette once, in recorded order, and groups its events into a
timeline: the launch (with the scenario's preconditions), one block per step the agent acted on
(the screen it saw, its decision, what the device did, the verification and the screen after,
errors) and one block per recovery (the screen that showed the fault, the recovery machine's
transitions, the remedies performed, the outcome); then the conclusion (the ``done`` decision,
which is not a step, and the last screen). Nothing is recomputed: every fact comes from a
recorded event.

Numbering follows the engine's, so the cards agree with the report's errors: a step is the Nth
action the agent took (the cassette's step marker); a recovery is counted at the step under way
(steps verified so far, plus one), except one for an action that changed nothing, which belongs
to the step that took it.
"""

from __future__ import annotations

from pathlib import Path

from attrs import evolve, frozen

from orav.cassette import (
    Cassette,
    DecideEvent,
    ErrorEvent,
    Header,
    LaunchEvent,
    ObserveEvent,
    PerformEvent,
    RecoveryEvent,
    ReportEvent,
    StepEvent,
    TerminateEvent,
    TransitionEvent,
    VerificationEvent,
    read_cassette,
)
from orav.codec import structure
from orav.errors import OravError
from orav.model import (
    Action,
    ActionResult,
    Decision,
    Done,
    Element,
    Launch,
    RunReport,
    Screenshot,
    Terminate,
    Transition,
    Verification,
)


@frozen
class Performed:
    """One action sent to the device and what came of it (``error``: the call raised)."""

    action: Action
    result: ActionResult | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and (self.result is None or self.result.ok)


@frozen
class StepView:
    """Step ``number``: the screen the agent saw (``before``), its decision, the device calls,
    the check, and the screen the check observed (``after``; none for an assertion or wait)."""

    number: int
    before: Screenshot | None = None
    after: Screenshot | None = None
    decision: Decision | None = None
    actions: tuple[Performed, ...] = ()
    verification: Verification | None = None
    errors: tuple[str, ...] = ()
    reused: bool = False  # the decision came from an earlier cassette (record mode new_episodes)
    tree: tuple[Element, ...] = ()  # the accessibility tree of ``before``, as recorded


@frozen
class RecoveryView:
    """One recovery, counted at ``step`` as the report's errors count it.

    ``entered_from`` is the run state it interrupted: ``observing`` (before step ``step``),
    ``reasoning`` (step ``step`` was decided, ``set_aside``, and decided again after),
    ``verifying`` (step ``step``'s action changed nothing), or empty (outside the run loop).
    ``outcome`` is ``resolved``, ``failed: why``, or empty when the cassette ends mid-recovery.
    """

    step: int
    entered_from: str = ""
    set_aside: Decision | None = None
    screenshot: Screenshot | None = None
    fault: str = ""
    remedy: str = ""
    outcome: str = ""
    transitions: tuple[Transition, ...] = ()
    actions: tuple[Performed, ...] = ()
    errors: tuple[str, ...] = ()

    @property
    def resolved(self) -> bool:
        return self.outcome == "resolved"


@frozen
class Conclusion:
    """How the run ended: the agent's last decision when the run ended on it (``done``, or one
    never acted on), the last screen recorded, and the run machine's last state."""

    decision: Decision | None = None
    screenshot: Screenshot | None = None
    state: str = ""

    @property
    def done(self) -> Done | None:
        action = self.decision.action if self.decision is not None else None
        return action if isinstance(action, Done) else None


@frozen
class RunView:
    """Everything a report shows about one recorded run."""

    path: Path
    header: Header
    report: RunReport | None
    setup: tuple[Performed, ...]
    timeline: tuple[StepView | RecoveryView, ...]
    conclusion: Conclusion
    transitions: tuple[Transition, ...]
    errors: tuple[str, ...]  # those of no step or recovery: the launch's, the ending's
    truncated: str | None

    @property
    def steps(self) -> tuple[StepView, ...]:
        return tuple(b for b in self.timeline if isinstance(b, StepView))

    @property
    def recoveries(self) -> tuple[RecoveryView, ...]:
        return tuple(b for b in self.timeline if isinstance(b, RecoveryView))

    @property
    def status(self) -> str:
        """The report's status, or ``incomplete`` when the recording did not finish."""
        return self.report.status if self.report is not None else "incomplete"


def recorded_report(cassette: Cassette) -> RunReport | None:
    """The RunReport the engine wrote at the end of the run, or None if it never got there."""
    for index, event in enumerate(cassette.events):
        if isinstance(event, ReportEvent) and event.report_type == RunReport.__name__:
            return structure(event.report, RunReport, source=cassette.where(index))
    return None


def read_run(path: str | Path) -> RunView:
    """Read the cassette at ``path`` into a RunView (InputError when it cannot be read)."""
    cassette = read_cassette(path)
    walk = _Walk(cassette)
    for index, event in enumerate(cassette.events):
        walk.index = index
        walk.take(event)
    walk.close_block()
    return RunView(
        path=Path(path),
        header=cassette.header,
        report=recorded_report(cassette),
        setup=tuple(walk.setup),
        timeline=tuple(walk.timeline),
        conclusion=Conclusion(walk.ending, walk.screenshot, walk.state),
        transitions=tuple(walk.transitions),
        errors=tuple(walk.errors),
        truncated=cassette.truncated,
    )


class _Walk:
    """The one pass over the events; ``block`` is the step or recovery being filled in.

    A step block opens at its step marker, while the agent decides; it joins the timeline only
    once the run machine goes on to act. A decision a recovery interrupts is kept on that
    recovery; the one the run ended on (``done``, a failure, the end of the cassette) is the
    conclusion's.
    """

    def __init__(self, cassette: Cassette) -> None:
        self.cassette = cassette
        self.setup: list[Performed] = []
        self.timeline: list[StepView | RecoveryView] = []
        self.transitions: list[Transition] = []
        self.errors: list[str] = []
        self.block: StepView | RecoveryView | None = None
        self.deciding = False  # ``block`` is a step whose decision has not been acted on yet
        self.verified = 0  # steps verified so far: the engine's ``len(history)``
        self.screenshot: Screenshot | None = None
        self.tree: tuple[Element, ...] = ()  # the last observed screen's elements
        self.index = 0  # of the event being taken
        self.ending: Decision | None = None
        self.state = ""  # the run machine's state

    def close_block(self) -> None:
        if self.deciding and isinstance(self.block, StepView):
            self.end_on(self.block)
        elif self.block is not None:
            self.timeline.append(self.block)
        self.block, self.deciding = None, False

    def end_on(self, step: StepView) -> None:
        """The run ended while step ``step`` was being decided: that decision concludes it."""
        self.ending = step.decision
        self.errors.extend(step.errors)
        self.block, self.deciding = None, False

    def take(self, event: object) -> None:
        match event:
            case StepEvent(step=number):
                self.close_block()
                step = StepView(number, before=self.screenshot, tree=self.tree)
                self.block, self.deciding = step, True
            case ObserveEvent(observation=stored, raised=raised):
                if raised is not None:
                    self.add_error(f"observe failed: {raised.message}")
                elif stored is not None and stored.screenshot is not None:
                    self.screenshot = self.resolve(stored.screenshot)
                    self.tree = self.elements()
                    self.on_screen(self.screenshot)
            case DecideEvent(decision=decision, raised=raised, reused=reused) if isinstance(
                self.block, StepView
            ):
                self.block = evolve(self.block, decision=decision, reused=reused)
                if raised is not None:
                    self.add_error(f"the agent failed: {raised.message}")
            case PerformEvent(action=action, result=result, raised=raised):
                self.add_action(Performed(action, result, raised and raised.message))
            case LaunchEvent(bundle_id=bundle, raised=raised):
                self.add_action(Performed(Launch(bundle), None, raised and raised.message))
            case TerminateEvent(bundle_id=bundle, raised=raised):
                self.add_action(Performed(Terminate(bundle), None, raised and raised.message))
            case VerificationEvent(verification=verification):
                self.verified += 1
                if isinstance(self.block, StepView):
                    self.block = evolve(self.block, verification=verification)
            case TransitionEvent(machine=machine, source=source, event=name, target=target):
                # At the step under way, as the engine's report has it.
                transition = Transition(machine, source, name, target, self.verified + 1)
                self.transitions.append(transition)
                self.on_transition(transition)
            case RecoveryEvent(fault=fault, remedy=remedy, outcome=outcome):
                if not isinstance(self.block, RecoveryView):  # a recovery outside the run loop
                    self.close_block()
                    self.block = RecoveryView(self.verified + 1, screenshot=self.screenshot)
                self.block = evolve(self.block, fault=fault, remedy=remedy, outcome=outcome)
            case ErrorEvent(message=message):
                self.add_error(message)

    def on_screen(self, screenshot: Screenshot) -> None:
        """The first screen observed after a step's action is the one its verification saw."""
        step = self.block
        if (
            isinstance(step, StepView)
            and not self.deciding
            and step.verification is None
            and step.after is None
        ):
            self.block = evolve(step, after=screenshot)

    def on_transition(self, transition: Transition) -> None:
        if transition.machine == "recovery" and isinstance(self.block, RecoveryView):
            self.block = evolve(self.block, transitions=(*self.block.transitions, transition))
        if transition.machine != "run":
            return
        self.state = transition.target
        decided = self.block if self.deciding and transition.source == "reasoning" else None
        if isinstance(decided, StepView):
            self.deciding = False  # acted on, set aside by a recovery, or the run's last
            if transition.target not in ("acting", "recovering"):
                self.end_on(decided)
        if transition.target != "recovering":
            return
        if isinstance(decided, StepView):
            self.block = None  # re-decided after the recovery: not a step of its own
        self.close_block()
        # Numbered as the engine numbers the recovery's error (see the module's docstring).
        step = self.verified if transition.source == "verifying" else self.verified + 1
        self.block = RecoveryView(step, transition.source, screenshot=self.screenshot)
        if isinstance(decided, StepView):
            self.block = evolve(self.block, set_aside=decided.decision, errors=decided.errors)

    def elements(self) -> tuple[Element, ...]:
        """The elements of the observation being taken (blobs are decoded once each)."""
        try:
            return self.cassette.observation(self.index).elements
        except (ValueError, OravError):
            return ()

    def resolve(self, screenshot: Screenshot) -> Screenshot:
        blobs = self.cassette.blobs
        if screenshot.sha256 not in blobs:
            return screenshot
        return evolve(screenshot, data=blobs[screenshot.sha256])

    def add_action(self, performed: Performed) -> None:
        if self.block is None:
            self.setup.append(performed)
        else:
            self.block = evolve(self.block, actions=(*self.block.actions, performed))

    def add_error(self, message: str) -> None:
        if self.block is None:
            self.errors.append(message)
            return
        # A failed action is written twice (its result and an error event): show it once.
        if any(p.result is not None and p.result.error == message for p in self.block.actions):
            return
        self.block = evolve(self.block, errors=(*self.block.errors, message))
