"""The engine: one scenario through Observe → Reason → Act → Verify, driven by the RunMachine.

The engine owns the I/O (device, agent, clock) and sends the machine one event per phase with
what it found; the machine's guards pick the next state. Everything that happens goes to a
journal (the cassette writer in practice), so a run can be audited and replayed.

    report = await Engine(device, agent).run(scenario)
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Awaitable, Callable
from typing import Protocol

from orav.agents import Agent, AgentContext
from orav.errors import AgentError, DeviceError, OravError
from orav.machines.run import RunMachine
from orav.model import (
    ActionResult,
    Assert,
    Decision,
    DeviceInfo,
    Done,
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
)
from orav.model.action import Launch, Terminate


class Clock(Protocol):
    """Time as the engine sees it; replay serves recorded readings and never sleeps."""

    def now(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class Journal(Protocol):
    """Where the engine writes what happened (the cassette writer implements it)."""

    def begin_step(self, step: int) -> None: ...

    def transition(self, transition: Transition) -> None: ...

    def verification(self, step: int, verification: Verification) -> None: ...

    def error(self, error: RunError) -> None: ...

    def report(self, report: RunReport) -> None: ...


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


class _MonotonicClock:
    def now(self) -> float:
        return asyncio.get_running_loop().time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


_QUOTED = re.compile(r"[\"“']([^\"”']{1,80})[\"”']")


def expected_labels(expected_outcome: str) -> list[str]:
    """The quoted names in an expected outcome: what verification can check on screen."""
    return _QUOTED.findall(expected_outcome)


def shows(observation: Observation, text: str) -> bool:
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
    report with that status, for library callers who prefer exceptions.
    """

    def __init__(
        self,
        device,
        agent: Agent,
        *,
        clock: Clock | None = None,
        journal: Journal | None = None,
        raise_on_limit: bool = False,
        run_id: str | None = None,
    ) -> None:
        self.device = device
        self.agent = agent
        self.clock = clock or _MonotonicClock()
        self.journal = journal
        self.raise_on_limit = raise_on_limit
        self.run_id = run_id or uuid.uuid4().hex[:12]

    async def run(self, scenario: Scenario) -> RunReport:
        run = _Run(self, scenario)
        report = await run.execute()
        if self.journal is not None:
            self.journal.report(report)
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
        self.journal = engine.journal
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
        self.decision: Decision | None = None
        self.result: ActionResult | None = None
        self.verification: Verification | None = None
        self.history: list[Step] = []
        self.errors: list[RunError] = []
        self.transitions: list[Transition] = []
        self.screens: list[str] = []
        self.interacted: list[str] = []
        self.retries = 0
        self.crashes_recovered = 0
        self.goals: tuple[list[str], list[str]] = ([], [])
        self.summary = ""

    # python-statemachine listener hook: every transition goes to the journal.
    def after_transition(self, event: str, source, target) -> None:
        transition = Transition("run", source.id, str(event), target.id, self.step)
        self.transitions.append(transition)
        if self.journal is not None:
            self.journal.transition(transition)

    @property
    def step(self) -> int:
        return self.machine.steps + 1 if not self.machine.is_terminated else self.machine.steps

    def elapsed(self) -> float:
        return self.clock.now() - self.started

    def remaining(self) -> float:
        return max(self.scenario.timeout_seconds - self.elapsed(), 0.001)

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
            try:
                await asyncio.wait_for(handler(), self.remaining())
            except TimeoutError:
                self.machine.send("time_up")
            except (DeviceError, AgentError) as exc:
                self.fail(str(exc))
            except OravError as exc:
                self.fail(str(exc))
        return self.build_report()

    def fail(self, message: str) -> None:
        self.errors.append(RunError(step=self.step, error=message))
        if self.journal is not None:
            self.journal.error(self.errors[-1])
        self.machine.send("abort", error=message)

    # --- phases --------------------------------------------------------------------------

    async def launch(self) -> None:
        self.info = await self.device.describe()
        await self.device.launch(self.scenario.app)
        for action in self.scenario.preconditions:
            result = await self.perform(action)
            if not result.ok:
                raise DeviceError(f"precondition {action.kind} failed: {result.error}")
        self.machine.send("launched")

    async def observe(self) -> None:
        if self.observation is None:
            self.observation = await self.device.observe()
        name = screen_name(self.observation)
        if name not in self.screens:
            self.screens.append(name)
        self.machine.send("observed", fault=None, elapsed=self.elapsed())

    async def recover(self) -> None:
        self.machine.send("recovered")

    async def reason(self) -> None:
        if self.journal is not None:
            self.journal.begin_step(self.step)
        context = AgentContext(
            scenario=self.scenario,
            observation=self.observation,
            step=self.step,
            history=tuple(self.history),
            last_verification=self.verification,
            device=self.info,
        )
        self.decision = await self.agent.decide(context)
        done = isinstance(self.decision.action, Done)
        self.machine.send("decided", done=done)

    async def act(self) -> None:
        action = self.resolve(self.decision.action, self.observation)
        self.result = await self.perform(action)
        target = getattr(action, "target", None)
        if target is not None and str(target) not in self.interacted:
            self.interacted.append(str(target))
        if not self.result.ok:
            self.errors.append(
                RunError(
                    step=self.step,
                    error=self.result.error or "action failed",
                    action=action.kind,
                    target=str(target) if target is not None else None,
                )
            )
        self.decision = Decision(
            action=action,
            reasoning=self.decision.reasoning,
            element_label=self.decision.element_label,
            expected_outcome=self.decision.expected_outcome,
            previous_outcome_met=self.decision.previous_outcome_met,
            call=self.decision.call,
        )
        self.machine.send("acted")

    async def verify(self) -> None:
        before = self.observation
        action = self.decision.action
        if not isinstance(action, (Assert, Wait)):
            await self.clock.sleep(self.scenario.settle_seconds)
            after = await self.device.observe()
        else:
            after = before
        changed = (
            after.fingerprint != before.fingerprint
            or _values(after) != _values(before)
            or _pixels(after) != _pixels(before)
        )
        labels = expected_labels(self.decision.expected_outcome)
        expected_seen = all(shows(after, label) for label in labels) if labels else None
        acts_on_screen = not isinstance(action, (Assert, Wait, Launch, Terminate))
        dropped = acts_on_screen and self.result.ok and not changed
        self.verification = Verification(
            changed=changed,
            expected_seen=expected_seen,
            input_dropped=dropped,
            note="the action changed nothing on screen (input dropped?)" if dropped else "",
        )
        if self.journal is not None:
            self.journal.verification(self.step, self.verification)
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
        self.machine.send("verified", elapsed=self.elapsed())

    async def check_goal(self) -> None:
        done = self.decision.action
        achieved, missed = self.goals
        for assertion in self.scenario.success_criteria:
            (achieved if check(assertion, self.observation) else missed).append(
                describe_assertion(assertion)
            )
        if not self.scenario.success_criteria:
            (achieved if done.success else missed).append(self.scenario.goal)
        self.summary = done.summary
        self.machine.send("checked", met=done.success and not missed)

    # --- acting ----------------------------------------------------------------------------

    def resolve(self, action, observation: Observation):
        """Give a targeted tap the centre of its element on the current screen."""
        if isinstance(action, Tap) and action.target is not None and action.x is None:
            element = observation.find(action.target.label, action.target.id)
            if element is not None:
                centre = element.frame.center
                return Tap(x=centre.x, y=centre.y, target=action.target, duration=action.duration)
        return action

    async def perform(self, action) -> ActionResult:
        if isinstance(action, Assert):
            ok = check(action, self.observation)
            return ActionResult(ok=ok, error=None if ok else f"{describe_assertion(action)}: no")
        if isinstance(action, Tap) and action.x is None:
            return ActionResult(ok=False, error=f"no element {action.target} on this screen")
        if isinstance(action, Wait):
            await self.clock.sleep(action.seconds)
            return ActionResult()
        return await self.device.perform(action)

    # --- the report -------------------------------------------------------------------------

    def build_report(self) -> RunReport:
        status = self.machine.state
        if status == "passed" and (self.errors or self.retries or self.crashes_recovered):
            status = "completed_with_errors"
        achieved, missed = self.goals
        if status in ("step_limit", "timed_out", "aborted") and not achieved and not missed:
            criteria = self.scenario.success_criteria
            missed = [describe_assertion(a) for a in criteria] or [self.scenario.goal]
        results = [step.result for step in self.history]
        calls = [step.decision.call for step in self.history if step.decision.call is not None]
        usage = (
            Usage(
                calls=len(calls),
                prompt_tokens=sum(c.prompt_tokens for c in calls),
                completion_tokens=sum(c.completion_tokens for c in calls),
            )
            if calls
            else None
        )
        summary = self.summary or (self.machine.error or "")
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
            summary=summary,
        )


def _values(observation: Observation) -> tuple:
    return tuple(e.value for e in observation.elements)


def _pixels(observation: Observation) -> str | None:
    return observation.screenshot.sha256 if observation.screenshot else None
