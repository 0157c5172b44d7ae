"""A recorded run as a timeline, as the HTML and JUnit reports read it: steps, recoveries.

``read_run(path)`` walks the cassette once, in recorded order, and groups its events into a
timeline: the launch (with the scenario's preconditions), one block per step the agent acted on
(the screen it saw, its decision, what the device did, the verification and the screen after,
errors) and one block per recovery (the screen that showed the fault, the recovery machine's
transitions, the remedies performed, the outcome); then the conclusion (the ``done`` decision,
which is not a step, and the last screen). Nothing is recomputed: every fact comes from a
recorded event, numbers included (a step is the cassette's step marker; a recovery and a
transition carry the step the engine gave them). A step's decision that was never acted on
(no device call, no verification) is the run's conclusion, unless a recovery set it aside.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from attrs import evolve, field, frozen

from orav.cassette import (
    DecideEvent,
    ErrorEvent,
    Header,
    LaunchEvent,
    ObserveEvent,
    PerformEvent,
    Raised,
    RecoveryBeginEvent,
    RecoveryEndEvent,
    StepEvent,
    TerminateEvent,
    TransitionEvent,
    VerificationEvent,
    read_cassette,
)
from orav.model import (
    Action,
    ActionResult,
    Decision,
    Done,
    Element,
    FaultKind,
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
    decide_seconds: float | None = None  # how long the agent took (None: not recorded)
    crashed: bool = False  # the app was found not running right after it (a crash recovery)

    @property
    def acted(self) -> bool:
        """Whether the run acted on the decision (a device call, or a verification)."""
        return bool(self.actions) or self.verification is not None

    @property
    def failed(self) -> bool:
        """An error, a device call that failed, or the app crashed right after the step."""
        return self.crashed or bool(self.errors) or any(not p.ok for p in self.actions)

    @property
    def act_seconds(self) -> float:
        """How long the device took to perform the step's actions."""
        return sum(p.result.seconds for p in self.actions if p.result is not None)

    @property
    def settle_seconds(self) -> float | None:
        """How long the app took to settle before the check looked (None: not recorded)."""
        settled = self.verification.settled if self.verification is not None else None
        return settled.waited if settled is not None else None


@frozen
class RecoveryView:
    """One recovery, at the step the engine gave it (an action that changed nothing: the step
    that took it). ``set_aside``: the decision of step ``step`` it interrupted (the agent
    decided again after it). ``end``: how it ended, as recorded; None when the cassette ends
    mid-recovery."""

    step: int
    fault: FaultKind
    note: str = ""
    set_aside: Decision | None = None
    screenshot: Screenshot | None = None
    end: RecoveryEndEvent | None = None
    transitions: tuple[Transition, ...] = ()
    actions: tuple[Performed, ...] = ()
    errors: tuple[str, ...] = ()

    @property
    def resolved(self) -> bool:
        return self.end is not None and self.end.resolved

    @property
    def remedy(self) -> tuple[Action, ...]:
        return self.end.actions if self.end is not None else ()

    @property
    def shown_remedy(self) -> str:
        return self.end.shown_remedy if self.end is not None else "none"

    @property
    def outcome(self) -> str:
        """``resolved``, the hand-back, ``failed: why``, or empty when the cassette ends first."""
        return self.end.outcome if self.end is not None else ""


@frozen
class Conclusion:
    """How the run ended: the agent's last decision when the run ended on it (``done``, or one
    never acted on), the last screen recorded, and the run machine's last state."""

    decision: Decision | None = None
    screenshot: Screenshot | None = None
    state: str = ""
    tree: tuple[Element, ...] = ()  # the accessibility tree of ``screenshot``

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
    # the bytes of the screenshots read without them (``read_run``'s ``screenshots=False``)
    blobs: Mapping[str, bytes] = field(factory=dict, eq=False, repr=False)

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

    def unseen(self) -> RunView:
        """The run without its screenshots and trees, nearly all of its weight: what an index
        and JUnit read of each of many runs, kept while the next run's page is written."""
        timeline = tuple(
            evolve(b, before=None, after=None, tree=())
            if isinstance(b, StepView)
            else evolve(b, screenshot=None)
            for b in self.timeline
        )
        conclusion = evolve(self.conclusion, screenshot=None)
        return evolve(self, timeline=timeline, conclusion=conclusion, blobs={})


def read_run(path: str | Path, *, screenshots: bool = True) -> RunView:
    """Read the cassette at ``path`` into a RunView (InputError when it cannot be read).

    ``screenshots`` false: the screenshots carry no bytes, ``blobs`` reads each from the
    cassette when a page shows it (a page of a run of any length in bounded memory)."""
    cassette = read_cassette(path, screenshots=screenshots)
    walk = _Walk()
    for event in cassette.events:
        walk.take(event)
    walk.close_block()
    return RunView(
        path=Path(path),
        header=cassette.header,
        report=cassette.report(),
        setup=tuple(walk.setup),
        timeline=tuple(walk.timeline),
        conclusion=Conclusion(walk.ending, walk.screenshot, walk.state, walk.tree),
        transitions=tuple(walk.transitions),
        errors=tuple(walk.errors),
        truncated=cassette.truncated,
        blobs=cassette.blobs,
    )


class _Walk:
    """The one pass over the events; ``block`` is the step or recovery being filled in.

    A step block opens at its step marker, while the agent decides. A recovery that sets its
    decision aside takes it over; a decision never acted on when the cassette ends concludes
    the run.
    """

    def __init__(self) -> None:
        self.setup: list[Performed] = []
        self.timeline: list[StepView | RecoveryView] = []
        self.transitions: list[Transition] = []
        self.errors: list[str] = []
        self.block: StepView | RecoveryView | None = None
        self.screenshot: Screenshot | None = None
        self.tree: tuple[Element, ...] = ()  # the last observed screen's elements
        self.ending: Decision | None = None
        self.state = ""  # the run machine's state

    def close_block(self) -> None:
        block, self.block = self.block, None
        if isinstance(block, StepView) and not block.acted:
            self.ending = block.decision  # the run ended on this decision
            self.errors.extend(block.errors)
        elif block is not None:
            self.timeline.append(block)

    def take(self, event: object) -> None:
        match event:
            case StepEvent(step=number):
                self.close_block()
                self.block = StepView(number, before=self.screenshot, tree=self.tree)
            case ObserveEvent():
                self.observed(event)
            case DecideEvent() if isinstance(self.block, StepView):
                self.decided(event, self.block)
            case PerformEvent(action=action, result=result, raised=raised):
                self.add_action(Performed(action, result, _message(raised)))
            case LaunchEvent(bundle_id=bundle, raised=raised):
                self.add_action(Performed(Launch(bundle), None, _message(raised)))
            case TerminateEvent(bundle_id=bundle, raised=raised):
                self.add_action(Performed(Terminate(bundle), None, _message(raised)))
            case VerificationEvent(verification=verification) if isinstance(self.block, StepView):
                self.block = evolve(self.block, verification=verification)
            case TransitionEvent():
                self.transitioned(event)
            case RecoveryBeginEvent():
                self.recovery_begins(event)
            case RecoveryEndEvent() if isinstance(self.block, RecoveryView):
                self.block = evolve(self.block, end=event)
            case ErrorEvent(message=message):
                self.add_error(message)

    def decided(self, event: DecideEvent, step: StepView) -> None:
        """The decision, and how long it took: as recorded, else its model call's latency."""
        decision, call = event.decision, event.decision.call if event.decision else None
        took = event.seconds if event.seconds is not None else None
        if took is None and call is not None and not event.reused:
            took = call.latency_seconds
        self.block = evolve(step, decision=decision, reused=event.reused, decide_seconds=took)
        if event.raised is not None:
            self.add_error(f"the agent failed: {event.raised.message}")

    def observed(self, event: ObserveEvent) -> None:
        """A failed look is an error; a screen seen becomes the one every later block starts on."""
        observation = event.observation
        if event.raised is not None:
            self.add_error(f"observe failed: {event.raised.message}")
        elif observation is not None and observation.screenshot is not None:
            self.screenshot = observation.screenshot
            self.tree = observation.elements
            self.on_screen(self.screenshot)

    def transitioned(self, event: TransitionEvent) -> None:
        """The run machine's move sets the state the run ends in; a recovery's, its block's."""
        transition = event.transition
        self.transitions.append(transition)
        if event.machine == "run":
            self.state = event.target
        elif isinstance(self.block, RecoveryView):
            transitions = (*self.block.transitions, transition)
            self.block = evolve(self.block, transitions=transitions)

    def recovery_begins(self, event: RecoveryBeginEvent) -> None:
        """A recovery opens its block; a step it sets aside is folded into it (decided again
        after the recovery, it has no step of its own), any other block closes as acted on."""
        block, self.block = self.block, None
        decided = block if event.set_aside and isinstance(block, StepView) else None
        if isinstance(block, StepView) and decided is None and event.fault == "crash":
            block = evolve(block, crashed=True)  # the app stopped right after this step
        if decided is None and block is not None:
            self.timeline.append(block)  # not set aside: acted on, if only by failing
        recovery = RecoveryView(event.step, event.fault, event.note, screenshot=self.screenshot)
        if decided is not None:
            recovery = evolve(recovery, set_aside=decided.decision, errors=decided.errors)
        self.block = recovery

    def on_screen(self, screenshot: Screenshot) -> None:
        """The first screen observed after a step's decision is the one its verification saw."""
        step = self.block
        if (
            isinstance(step, StepView)
            and step.decision is not None
            and step.verification is None
            and step.after is None
        ):
            self.block = evolve(step, after=screenshot)

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


def _message(raised: Raised | None) -> str | None:
    return raised.message if raised is not None else None
