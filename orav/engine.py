"""The engine: one scenario through Observe → Reason → Act → Verify, driven by the RunMachine.

The engine owns the I/O (device, agent, clock) and sends the machine one event per phase with
what it found; the machine's guards pick the next state. Recovery comes first: a fault seen on
an observation (or an action that changed nothing) runs the recovery machine before the agent
reasons again. With a cassette writer, every transition, verification, recovery and the report
are written beside the device and agent calls that the recording wrappers write.

    report = await Engine(device, agent).run(scenario)
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import uuid
from collections.abc import Awaitable, Callable

from attrs import evolve

from orav.agents import Agent, AgentContext
from orav.cassette import (
    CassetteWriter,
    Clock,
    ErrorEvent,
    RecoveryEvent,
    ReplayDivergence,
    ReplayedError,
    ReportEvent,
    SystemClock,
    TransitionEvent,
    VerificationEvent,
)
from orav.device import Device
from orav.errors import AgentError, DeviceError, InputError, OravError
from orav.machines.recovery import RecoveryMachine, RecoveryOutcome, recover
from orav.machines.run import RunMachine
from orav.model import (
    Action,
    ActionResult,
    Assert,
    Decision,
    DeviceInfo,
    Done,
    ModelCall,
    Observation,
    RunError,
    RunReport,
    Scenario,
    Step,
    Tap,
    Transition,
    Usage,
    Verification,
    Wait,
    show_action,
)
from orav.model.action import Launch, Terminate
from orav.perceive import Detection, classify, keyboard_fault, measure, stuck
from orav.perceive.faults import TEXT_FIELD_ROLES


class StepLimitExceeded(OravError):
    """Raised instead of a report status when the caller asked for exceptions."""

    exit_code = 1

    def __init__(self, report: RunReport) -> None:
        self.report = report
        super().__init__(f"{report.scenario}: step limit of {report.total_steps} steps reached")


class RunTimeout(OravError):
    exit_code = 1

    def __init__(self, report: RunReport) -> None:
        self.report = report
        super().__init__(
            f"{report.scenario}: timed out after {report.duration_seconds:.1f} s "
            f"({report.total_steps} steps)"
        )


# Recoveries allowed before the next action: faults can stack (a permission dialog, then an
# alert, then a network banner), but a fault that comes back after every remedy must end the run.
RECOVERIES_PER_STEP = 5
# How often the goal may start over after the app was relaunched (the reference's "goal" retry).
GOAL_RESTARTS = RecoveryMachine.RETRIES["goal"]

_QUOTED = re.compile(r'["“]([^"”]{1,80})["”]')


def expected_labels(expected_outcome: str) -> list[str]:
    """The quoted names in an expected outcome: what verification can check on screen."""
    return _QUOTED.findall(expected_outcome)


def displays(observation: Observation, text: str) -> bool:
    """True when an element's label, value or id is ``text``."""
    return any(text in (e.label, e.value, e.unique_id) for e in observation.elements)


def check(assertion: Assert, observation: Observation) -> bool:
    """Evaluate one assertion against an observation."""
    target = assertion.target
    element = observation.find(target.label, target.id)
    if assertion.condition == "absent":
        return element is None
    if assertion.condition == "value_equals":
        return element is not None and element.value == assertion.value
    return element is not None


def describe_assertion(assertion: Assert) -> str:
    if assertion.condition == "value_equals":
        return f"{assertion.target} has value {assertion.value!r}"
    return f"{assertion.target} is {assertion.condition}"


def screen_name(observation: Observation) -> str:
    """A readable name for the screen: its header, else its first label, else its fingerprint."""
    for element in observation.elements:
        if element.label and ("Header" in element.traits or element.role == "AXHeading"):
            return element.label
    return observation.fingerprint


class Engine:
    """Runs scenarios against one device with one agent.

    ``raise_on_limit`` makes ``run`` raise StepLimitExceeded / RunTimeout instead of returning a
    report with that status, for library callers who prefer exceptions. ``deadlines=False``
    (replay) leaves the scenario's timeout to the recorded clock and the recorded cut-offs, so
    a slow candidate agent in a decision regression is not cut short by replayed time.
    """

    def __init__(
        self,
        device: Device,
        agent: Agent,
        *,
        clock: Clock | None = None,
        writer: CassetteWriter | None = None,
        raise_on_limit: bool = False,
        run_id: str | None = None,
        deadlines: bool = True,
    ) -> None:
        self.device = device
        self.agent = agent
        self.clock = clock or SystemClock()
        self.writer = writer
        self.raise_on_limit = raise_on_limit
        self.deadlines = deadlines
        self.run_id = run_id or uuid.uuid4().hex[:12]

    async def run(self, scenario: Scenario) -> RunReport:
        report = await _Run(self, scenario).execute()
        if self.writer is not None:
            self.writer.write(ReportEvent.of(report))
            self.writer.sync()
        if self.raise_on_limit and report.status == "step_limit":
            raise StepLimitExceeded(report)
        if self.raise_on_limit and report.status == "timed_out":
            raise RunTimeout(report)
        return report


class _Run:
    """The state of one run: what the machine needs, and what the report will say."""

    def __init__(self, engine: Engine, scenario: Scenario) -> None:
        self.engine = engine
        self.device = engine.device
        self.agent = engine.agent
        self.clock = engine.clock
        self.writer = engine.writer
        self.scenario = scenario
        self.machine = RunMachine(
            max_steps=scenario.max_steps,
            timeout_seconds=scenario.timeout_seconds,
            listeners=[self],
        )
        self.started = 0.0
        self.info: DeviceInfo | None = None
        self.observation: Observation | None = None
        self.previous: Observation | None = None
        self.detection: Detection | None = None
        self.decision: Decision | None = None
        self.result: ActionResult | None = None
        self.verification: Verification | None = None
        self.history: list[Step] = []
        self.calls: list[ModelCall] = []
        self.errors: list[RunError] = []
        self.transitions: list[Transition] = []
        self.screens: list[str] = []
        self.interacted: list[str] = []
        self.retries = 0
        self.crashes_recovered = 0
        self.recoveries = 0  # since the last action
        self.restarts = 0
        self.attempt = 0  # index into history where the current attempt at the goal began
        self.achieved: list[str] = []
        self.missed: list[str] = []
        self.summary = ""

    # python-statemachine listener hook: every transition is kept and written.
    def after_transition(self, event: str, source, target) -> None:
        self.note_transition("run", source.id, str(event), target.id)

    def note_transition(self, machine: str, source: str, event: str, target: str) -> None:
        self.transitions.append(Transition(machine, source, event, target, self.step))
        if self.writer is not None:
            self.writer.write(TransitionEvent(machine, source, event, target))

    def note_error(self, error: RunError) -> None:
        self.errors.append(error)
        if self.writer is not None:
            self.writer.write(ErrorEvent(error.error))

    @property
    def step(self) -> int:
        """The step under way (1-based): steps acted on so far, plus one."""
        return len(self.history) + 1

    def elapsed(self) -> float:
        return self.clock.now() - self.started

    async def execute(self) -> RunReport:
        handlers: dict[str, Callable[[], Awaitable[None]]] = {
            "launching": self.launch,
            "observing": self.observe,
            "recovering": self.recover,
            "reasoning": self.reason,
            "acting": self.act,
            "verifying": self.verify,
            "goal_complete": self.check_goal,
        }
        self.started = self.clock.now()
        self.machine.send("start")
        while not self.machine.is_terminated:
            handler = handlers[self.machine.state]
            remaining = self.scenario.timeout_seconds - self.elapsed()
            try:
                # The scenario's timeout bounds every phase, a model call in flight included;
                # in this task (wait_for would start a task per phase: ~7 µs each on 3.11).
                # A replay needs no deadline of its own: the recorded cut-offs are replayed.
                deadline = asyncio.timeout(max(remaining, 0.001)) if self.engine.deadlines else None
                async with deadline or contextlib.nullcontext():
                    await handler()
            except TimeoutError:
                self.machine.send("time_up")
            except (DeviceError, AgentError, InputError) as exc:
                if getattr(exc, "call", None) is not None:
                    self.calls.append(exc.call)  # a failed decision still cost tokens
                self.note_error(RunError(step=self.step, error=str(exc)))
                self.machine.send("abort", error=str(exc))
            except ReplayDivergence:
                raise  # not the run's failure: the replay's, reported to the caller
            except Exception as exc:  # noqa: BLE001 - a bug: the run ends aborted, error reported
                what = (
                    str(exc) if isinstance(exc, ReplayedError) else f"{type(exc).__name__}: {exc}"
                )
                self.note_error(RunError(step=self.step, error=what))
                self.machine.send("error.execution", error=what)
        return self.build_report()

    # --- phases --------------------------------------------------------------------------

    async def launch(self) -> None:
        self.info = await self.device.describe()
        await self.device.launch(self.scenario.app)
        await self.prepare()
        self.machine.send("launched")

    async def prepare(self) -> None:
        """Bring the freshly launched app to the scenario's start with its preconditions."""
        for action in self.scenario.preconditions:
            self.observation = await self.device.observe()
            result = await self.perform(self.resolve(action, self.observation))
            if not result.ok:
                raise DeviceError(f"precondition {show_action(action)} failed: {result.error}")
            await self.clock.sleep(self.scenario.settle_seconds)
        self.observation = None

    async def observe(self) -> None:
        if self.observation is None:
            self.observation = await self.device.observe()
        self.detection = classify(self.observation, self.previous)
        if self.detection is None:
            name = screen_name(self.observation)
            if name not in self.screens:
                self.screens.append(name)
        self.machine.send("observed", fault=self.detection, elapsed=self.elapsed())

    async def recover(self) -> None:
        self.recoveries += 1
        if self.recoveries > RECOVERIES_PER_STEP:
            raise DeviceError(
                f"{self.recoveries} recoveries in a row without an action "
                f"(at most {RECOVERIES_PER_STEP}); the last fault was {self.detection.kind}"
            )
        detection = self.detection
        outcome = await recover(
            detection,
            device=self.device,
            observation=self.observation,
            scenario=self.scenario,
            sleep=self.clock.sleep,
            on_transition=self.note_transition,
        )
        self.account(outcome)
        # ``previous`` stays the last screen without a fault: what a login wall interrupted.
        self.observation = outcome.observation
        if outcome.resolved and outcome.restarted:
            await self.restart()
        self.machine.send("recovered" if outcome.resolved else "unrecovered", error=outcome.error)

    async def restart(self) -> None:
        """The app was relaunched, so it is back at its start: set it up again and start the
        goal over (the agent sees the steps of the new attempt only), within the goal budget."""
        self.restarts += 1
        if self.restarts > GOAL_RESTARTS:
            raise DeviceError(
                f"the app had to be restarted {self.restarts} times; the goal starts over "
                f"at most {GOAL_RESTARTS} time{'s' if GOAL_RESTARTS != 1 else ''}"
            )
        await self.prepare()
        self.attempt = len(self.history)
        self.previous = self.observation = None

    def account(self, outcome: RecoveryOutcome) -> None:
        """Count what a recovery cost and write it down."""
        # Re-performing an action that changed nothing is itself a retry, the first one too.
        redone = outcome.kind == "stuck" and bool(outcome.actions)
        self.retries += outcome.retries + redone
        if outcome.resolved:
            self.crashes_recovered += outcome.crashes
        remedy = ", ".join(show_action(a) for a in outcome.actions) or "none"
        result = "resolved" if outcome.resolved else f"failed: {outcome.error}"
        if self.writer is not None:
            self.writer.write(RecoveryEvent(outcome.kind, remedy, result))
        action = self.detection.action
        self.errors.append(
            RunError(
                # an action that changed nothing belongs to the step that took it
                step=len(self.history) if outcome.kind == "stuck" else self.step,
                error=f"{outcome.kind}: {self.detection.note or outcome.kind}"
                + ("" if outcome.resolved else f"; recovery failed: {outcome.error}"),
                action=action.kind if action is not None else None,
                target=str(getattr(action, "target", None) or "") or None,
                resolved=outcome.resolved,
            )
        )

    async def reason(self) -> None:
        if self.writer is not None:
            self.writer.begin_step(self.step)
        context = AgentContext(
            scenario=self.scenario,
            observation=self.observation,
            step=self.step,
            history=tuple(self.history[self.attempt :]),
            last_verification=self.verification,
            device=self.info,
        )
        self.decision = await self.agent.decide(context)
        if self.decision.call is not None:
            self.calls.append(self.decision.call)
        action = self.decision.action
        done = isinstance(action, Done)
        # observe() found this screen usable: only the keyboard over the target is left to check.
        blocked = None if done else keyboard_fault(self.observation, action)
        if blocked is not None:
            self.detection = blocked  # the keyboard covers the target: recover, then re-decide
        self.machine.send("decided", done=done, fault=blocked)

    async def act(self) -> None:
        action = self.resolve(self.decision.action, self.observation)
        self.result = await self.perform(action)
        self.recoveries = 0
        target = getattr(action, "target", None)
        if target is not None and str(target) not in self.interacted:
            self.interacted.append(str(target))
        if isinstance(action, Assert) and not self.result.ok:
            self.missed.append(describe_assertion(action))  # a failed check fails the run
        if not self.result.ok:
            self.note_error(
                RunError(
                    step=self.step,
                    error=self.result.error or "action failed",
                    action=action.kind,
                    target=str(target) if target is not None else None,
                )
            )
        self.decision = evolve(self.decision, action=action)
        self.machine.send("acted")

    async def verify(self) -> None:
        before = self.observation
        action = self.decision.action
        if isinstance(action, (Assert, Wait)):
            after = before
        else:
            await self.clock.sleep(self.scenario.settle_seconds)
            after = await self.device.observe()
        changed = measure(before, after).changed
        labels = expected_labels(self.decision.expected_outcome)
        expected_seen = all(displays(after, label) for label in labels) if labels else None
        acts_on_screen = not isinstance(action, (Assert, Wait, Launch, Terminate))
        dropped = (
            acts_on_screen
            and self.result.ok
            and not changed
            and not _taps_focused_field(action, before)  # nothing to change: not dropped
        )
        self.verification = Verification(
            changed=changed,
            expected_seen=expected_seen,
            input_dropped=dropped,
            note="the action changed nothing on screen (input dropped?)" if dropped else "",
        )
        if self.writer is not None:
            self.writer.write(VerificationEvent(self.verification))
        if isinstance(action, Tap) and action.vision:
            self.note_vision(action, changed)
        self.history.append(
            Step(
                index=self.step,
                screen=screen_name(before),
                decision=self.decision,
                result=self.result,
                verification=self.verification,
            )
        )
        self.previous, self.observation = before, after
        self.detection = stuck(action) if dropped else None
        self.machine.send("verified", elapsed=self.elapsed(), fault=self.detection)

    def note_vision(self, tap: Tap, changed: bool) -> None:
        """A tap at coordinates estimated from pixels (the tree lacked the element) is an error
        of the report: resolved when the screen changed after it, unresolved when not."""
        outcome = "the screen changed" if changed else "nothing changed"
        self.note_error(
            RunError(
                step=self.step,
                error=f"vision fallback: tapped ({tap.x:g}, {tap.y:g}) estimated from the "
                f"screenshot; {outcome}",
                action=tap.kind,
                target=str(tap.target) if tap.target is not None else None,
                resolved=changed,
            )
        )

    async def check_goal(self) -> None:
        done = self.decision.action
        for assertion in self.scenario.success_criteria:
            holds = check(assertion, self.observation)
            (self.achieved if holds else self.missed).append(describe_assertion(assertion))
        if not self.scenario.success_criteria:
            (self.achieved if done.success else self.missed).append(self.scenario.goal)
        self.summary = done.summary
        self.machine.send("checked", met=done.success and not self.missed)

    # --- acting ----------------------------------------------------------------------------

    def resolve(self, action: Action, observation: Observation) -> Action:
        """Give a targeted tap the centre of its element on the current screen."""
        if isinstance(action, Tap) and action.target is not None and action.x is None:
            element = observation.locate(action.target.label, action.target.id)
            if element is not None:
                centre = element.frame.center
                return evolve(action, x=centre.x, y=centre.y)
        return action

    async def perform(self, action: Action) -> ActionResult:
        if isinstance(action, Assert):
            ok = check(action, self.observation)
            return ActionResult(
                ok=ok, error=None if ok else f"not so: {describe_assertion(action)}"
            )
        if isinstance(action, Tap) and action.x is None:
            return ActionResult(ok=False, error=f"no element {action.target} on this screen")
        if isinstance(action, Wait):
            await self.clock.sleep(action.seconds)
            return ActionResult()
        return await self.device.perform(action)

    # --- the report -------------------------------------------------------------------------

    def build_report(self) -> RunReport:
        status = self.machine.state
        if status == "passed" and self.errors:
            status = "completed_with_errors"
        achieved, missed = self.achieved, self.missed
        if status in ("step_limit", "timed_out", "aborted"):
            criteria = self.scenario.success_criteria
            missed = [describe_assertion(a) for a in criteria] or [self.scenario.goal]
        results = [step.result for step in self.history]
        usage = Usage.of(self.calls) if self.calls else None
        return RunReport(
            run_id=self.engine.run_id,
            scenario=self.scenario.name,
            status=status,
            total_steps=len(self.history),
            successful_actions=sum(1 for r in results if r.ok),
            failed_actions=sum(1 for r in results if not r.ok),
            retries=self.retries,
            crashes_recovered=self.crashes_recovered,
            duration_seconds=round(self.elapsed(), 3),
            errors=tuple(self.errors),
            goals_achieved=tuple(achieved),
            goals_missed=tuple(missed),
            screens_visited=tuple(self.screens),
            elements_interacted=tuple(self.interacted),
            transitions=tuple(self.transitions),
            usage=usage,
            summary=self.summary or (self.machine.error or ""),
        )


def _taps_focused_field(action: Action, observation: Observation) -> bool:
    """A tap on the text field that already has focus is expected to change nothing."""
    if not isinstance(action, Tap) or action.target is None:
        return False
    element = observation.locate(action.target.label, action.target.id)
    return element is not None and element.focused and element.role in TEXT_FIELD_ROLES
