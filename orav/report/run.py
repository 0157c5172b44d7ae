"""A recorded run as the HTML and JUnit reports read it: steps, recoveries, transitions.

``read_run(path)`` walks the cassette once, in recorded order, and groups its events into a
timeline: the launch (with the scenario's preconditions), one block per step (the screen the
agent saw, its decision, what the device did, the verification, errors) and one block per
recovery (the screen that showed the fault, the recovery machine's transitions, the remedies
performed, the outcome). Nothing is recomputed: every fact comes from a recorded event.
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
from orav.model import (
    Action,
    ActionResult,
    Decision,
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
    """Step ``number``: the screen the agent saw, its decision, the device calls, the check."""

    number: int
    screenshot: Screenshot | None = None
    decision: Decision | None = None
    actions: tuple[Performed, ...] = ()
    verification: Verification | None = None
    errors: tuple[str, ...] = ()


@frozen
class RecoveryView:
    """One recovery after step ``after_step`` (0: before the first step).

    ``outcome`` is ``resolved``, ``failed: why``, or empty when the cassette ends mid-recovery.
    """

    after_step: int
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
class RunView:
    """Everything a report shows about one recorded run."""

    path: Path
    header: Header
    report: RunReport | None
    setup: tuple[Performed, ...]
    timeline: tuple[StepView | RecoveryView, ...]
    transitions: tuple[Transition, ...]
    errors: tuple[str, ...]
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
        walk.take(index, event)
    walk.close_block()
    return RunView(
        path=Path(path),
        header=cassette.header,
        report=recorded_report(cassette),
        setup=tuple(walk.setup),
        timeline=tuple(walk.timeline),
        transitions=tuple(walk.transitions),
        errors=tuple(walk.errors),
        truncated=cassette.truncated,
    )


class _Walk:
    """The one pass over the events; ``block`` is the step or recovery being filled in."""

    def __init__(self, cassette: Cassette) -> None:
        self.cassette = cassette
        self.setup: list[Performed] = []
        self.timeline: list[StepView | RecoveryView] = []
        self.transitions: list[Transition] = []
        self.errors: list[str] = []
        self.block: StepView | RecoveryView | None = None
        self.screenshot: Screenshot | None = None

    def close_block(self) -> None:
        if self.block is not None:
            self.timeline.append(self.block)
            self.block = None

    def take(self, index: int, event: object) -> None:
        step = self.cassette.steps[index]
        match event:
            case StepEvent(step=number):
                self.close_block()
                self.block = StepView(number, screenshot=self.screenshot)
            case ObserveEvent(observation=stored, raised=raised):
                if raised is not None:
                    self.add_error(f"observe failed: {raised.message}")
                elif stored is not None and stored.screenshot is not None:
                    self.screenshot = self.resolve(stored.screenshot)
            case DecideEvent(decision=decision, raised=raised) if isinstance(self.block, StepView):
                self.block = evolve(self.block, decision=decision)
                if raised is not None:
                    self.add_error(f"the agent failed: {raised.message}")
            case PerformEvent(action=action, result=result, raised=raised):
                self.add_action(Performed(action, result, raised and raised.message))
            case LaunchEvent(bundle_id=bundle, raised=raised):
                self.add_action(Performed(Launch(bundle), None, raised and raised.message))
            case TerminateEvent(bundle_id=bundle, raised=raised):
                self.add_action(Performed(Terminate(bundle), None, raised and raised.message))
            case VerificationEvent(verification=verification) if isinstance(self.block, StepView):
                self.block = evolve(self.block, verification=verification)
            case TransitionEvent(machine=machine, source=source, event=name, target=target):
                transition = Transition(machine, source, name, target, step)
                self.transitions.append(transition)
                self.on_transition(transition, step)
            case RecoveryEvent(fault=fault, remedy=remedy, outcome=outcome):
                if not isinstance(self.block, RecoveryView):  # a recovery outside the run loop
                    self.close_block()
                    self.block = RecoveryView(step, screenshot=self.screenshot)
                self.block = evolve(self.block, fault=fault, remedy=remedy, outcome=outcome)
            case ErrorEvent(message=message):
                self.add_error(message)

    def on_transition(self, transition: Transition, step: int) -> None:
        if transition.machine == "run" and transition.target == "recovering":
            self.close_block()
            self.block = RecoveryView(step, screenshot=self.screenshot)
        elif transition.machine == "recovery" and isinstance(self.block, RecoveryView):
            self.block = evolve(self.block, transitions=(*self.block.transitions, transition))

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
