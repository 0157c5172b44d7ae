"""The engine: one scenario through Observe → Reason → Act → Verify, driven by the RunMachine.

The machine drives: each phase of the run is an ``on_enter_<state>`` callback here (the run
is the machine's model) that does the phase's I/O and sends the event that ends it, with what
it found. Unambiguous faults (crash, empty dump, system permission, the keyboard or another
cover over the decided target) recover before the agent reasons; interruptions (an app alert, a login form,
a spinner, a network error) are shown to the agent and recovered only when they block the
decided action, or the agent asks; an action that changed nothing is retried and then handed
back to the agent as *no effect*; only several different actions in a row with no effect
make the app *frozen*. With a cassette writer, every transition (with its step), verification,
recovery (its begin and end) and the report are written beside the device and agent calls that
the recording wrappers write.

This module does one big thing, the run machine's phases with their I/O, so it runs long; what
is not a phase lives beside it: the screen predicates in ``orav.perceive.assertions``, the
report's facts in ``orav.tally``, the settle rule in ``orav.settling``.

    report = await Engine(device, agent).run(scenario)
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TypeVar, cast

from attrs import evolve
from statemachine import State

from orav.agents import Agent, AgentContext, reconsiders
from orav.cassette import (
    CassetteWriter,
    ErrorEvent,
    RecoveryBeginEvent,
    RecoveryEndEvent,
    ReportEvent,
    TransitionEvent,
    VerificationEvent,
)
from orav.clock import Clock, SystemClock
from orav.codec import structure
from orav.device import CrashReport, Device, Settling, World
from orav.errors import (
    AgentError,
    DeviceError,
    DeviceTimeout,
    Interrupted,
    OravError,
    ReplayDivergence,
)
from orav.judges import Judge, Question
from orav.machines.attempt import RecoveryOutcome
from orav.machines.recovery import recover
from orav.machines.run import RunMachine
from orav.model import (
    Action,
    ActionResult,
    Assert,
    Decision,
    Deed,
    DeviceInfo,
    Done,
    Judged,
    Launch,
    Observation,
    Recover,
    RunError,
    RunReport,
    RunStatus,
    Scenario,
    Settled,
    Step,
    Tap,
    Terminate,
    Transition,
    TypeText,
    Verification,
    Wait,
    WorldChanges,
    show_action,
)
from orav.perceive import (
    Detection,
    always_answered,
    blocks,
    cover_fault,
    done_blocked,
    fault,
    interruption,
    look_key,
    measure,
    near_miss,
    no_effect,
    resolve,
    screen_digest,
    screen_name,
    swallowed,
)
from orav.perceive.assertions import (
    check,
    displays,
    expected_labels,
    found_instead,
    revealing_field,
    show_target,
    taps_focused_field,
)
from orav.perceive.deeds import step_deed
from orav.perceive.identity import Place, ticked, with_ticks
from orav.provision import crash_report, install, launch
from orav.run_ids import new_run_id
from orav.settling import settle
from orav.tally import Tally, goal_name
from orav.watchdog import Deadline, cut_of


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


T = TypeVar("T")


class Engine:
    """Runs scenarios against one device with one agent.

    ``raise_on_limit`` makes ``run`` raise StepLimitExceeded / RunTimeout instead of returning a
    report with that status, for library callers who prefer exceptions. ``deadlines=False``
    (replay) leaves the scenario's timeout to the recorded clock and the recorded cut-offs, so
    a slow candidate agent in a decision regression is not cut short by replayed time.
    ``judge`` decides the claims in words (``orav.judges``); without one such a claim fails,
    saying a judge is needed.
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
        judge: Judge | None = None,
    ) -> None:
        self.device = device
        self.agent = agent
        self.judge = judge
        self.clock = clock or SystemClock()
        self.writer = writer
        self.raise_on_limit = raise_on_limit
        self.deadlines = deadlines
        self.run_id = run_id or new_run_id()
        self.unfinished: RunReport | None = None  # a run cancelled or interrupted, so far

    async def run(self, scenario: Scenario) -> RunReport:
        run = _Run(self, scenario)
        try:
            report = await run.execute()
        except (asyncio.CancelledError, Interrupted):
            self.unfinished = run.build_report()  # how far it got, for orav.session's report
            raise
        if self.writer is not None:
            event = ReportEvent.of(report)
            self.writer.write(event)
            self.writer.sync()
            report = _as_written(report, event, self.writer)
        if self.raise_on_limit and report.status == "step_limit":
            raise StepLimitExceeded(report)
        if self.raise_on_limit and report.status == "timed_out":
            raise RunTimeout(report)
        return report


class _Run:
    """One run: the RunMachine's model. Its ``on_enter_*`` methods are the phases."""

    def __init__(self, engine: Engine, scenario: Scenario) -> None:
        self.engine = engine
        self.device = engine.device
        self.agent = engine.agent
        self.clock = engine.clock
        self.writer = engine.writer
        self.scenario = scenario
        self.machine = RunMachine(
            self,
            max_steps=scenario.max_steps,
            timeout_seconds=scenario.timeout_seconds,
            listeners=[_Transitions(self)],
        )
        self.started = 0.0
        self.info: DeviceInfo | None = None
        self.observation: Observation | None = None
        self.previous: Observation | None = None
        self.interruption: Detection | None = None  # on the current observation
        self.asked = False  # the agent decided ``recover``: the recovery is its step
        self.first_seen = 0.0  # when the run first looked (the device's time): crash reports after
        self.decision: Decision | None = None
        self.result: ActionResult | None = None
        self.verification: Verification | None = None
        self.tally = Tally(scenario)  # what the report will say
        self.history = self.tally.history  # the steps acted on, as the agent is shown them
        self.attempt = 0  # index into history where the current attempt at the goal began
        self.recovery_step = 0  # the step the recovery under way belongs to
        self.effect = WorldChanges()  # what the last step changed in the app's world
        # a protocol check costs ~0.1 ms on Python 3.11: once a run, not once a step
        self.world = self.device if isinstance(self.device, World) else None
        self.quiet = self.device if isinstance(self.device, Settling) else None
        self.reconsidering = reconsiders(self.agent)  # an agent's capability holds for its run
        self.deed: Deed | None = None  # the last step's, when it was one
        self._named: tuple[Observation | None, str] = (None, "")  # the last screen named
        self._aimed: tuple[Action, Observation, Action] | None = None  # the last action aimed
        self._swallowed: tuple[str, str] | None = None  # the last input a modal took, and it
        self._quiet: Observation | None = None  # the last settled look, while no input followed
        self._ticking: frozenset[Place] = frozenset()  # where values were seen ticking

    def note_transition(self, machine: str, source: str, event: str, target: str) -> None:
        transition = Transition(machine, source, event, target, self.step)
        self.tally.transitions.append(transition)
        if self.writer is not None:
            self.writer.write(TransitionEvent.of(transition))

    def note_error(self, error: RunError) -> None:
        self.tally.errors.append(error)
        if self.writer is not None:
            self.writer.write(ErrorEvent(error.error))

    @property
    def seen(self) -> Observation:
        """The screen the phase acts on: the machine looks before it reasons or recovers."""
        return _known(self.observation, "the run looked")

    @property
    def decided(self) -> Decision:
        """The agent's decision for the step under way: reasoning precedes acting."""
        return _known(self.decision, "the agent decided")

    @property
    def acted(self) -> ActionResult:
        """What the decided action did: performing it precedes verifying it."""
        return _known(self.result, "the action was performed")

    @property
    def step(self) -> int:
        """The step under way (1-based): steps acted on so far, plus one."""
        return len(self.history) + 1

    def elapsed(self) -> float:
        return self.clock.now() - self.started

    async def execute(self) -> RunReport:
        """Start the machine and let it drive to a final state within the scenario's timeout
        (a replay needs no deadline of its own: the recorded cut-offs are replayed)."""
        self.started = self.clock.now()
        await self.machine.activate_initial_state()
        remaining = max(self.scenario.timeout_seconds - self.elapsed(), 0.001)
        deadline = Deadline(remaining) if self.engine.deadlines else None
        try:
            async with deadline or contextlib.nullcontext():
                await self.machine.send("start")
        except TimeoutError as timeout:
            await self.time_up(timeout)
        except asyncio.CancelledError as cancelled:
            if self.engine.deadlines:
                raise  # somebody else's cancellation
            await self.time_up(cancelled)  # a replayed cut-off: the run timed out there
        raised = self.machine.raised
        if isinstance(raised, ReplayDivergence):
            raise raised  # not the run's failure: the replay's, reported to the caller
        error = self.machine.error or ""  # set by the machine when a limit or a raise ends it
        if self.machine.limited:
            self.note_error(RunError(step=self.step, error=error))
        if raised is not None:
            call = getattr(raised, "call", None)
            if call is not None:
                self.tally.calls.append(call)  # a failed decision still cost tokens
            self.note_error(RunError(step=self.step, error=error))
        return self.build_report()

    async def time_up(self, error: BaseException) -> None:
        """The run's deadline passed: the call it cut short is the step's error, when a
        ``watchdog.Cut`` names it (a user's method, and whether it held the thread)."""
        cut = cut_of(error)
        if cut is not None:
            self.note_error(RunError(step=self.step, error=str(cut)))
        await self.machine.send("time_up")

    # --- phases: the machine enters them, each ends by sending its event ---------------------

    async def on_enter_installing(self) -> None:
        """The lifecycle's install step: (re)install, reset, permission presets, if asked."""
        self.info = await self.device.describe()
        self.tally.world(self.info)
        await install(self.device, self.scenario)
        await self.machine.send("installed")

    async def on_enter_launching(self) -> None:
        await launch(self.device, self.scenario)
        await self.machine.send("launched")

    async def on_enter_preparing(self, restarted: bool = False) -> None:
        """Bring the freshly launched app to the scenario's start with its preconditions; after
        a relaunch the goal starts over (the agent sees the steps of the new attempt only)."""
        if restarted:
            self.attempt = len(self.history)
            self.previous = None
            self.tally.new_attempt()
        # Each precondition acts on the screen the previous one settled on; the last settled
        # screen is the first the run observes (no precondition: the run looks itself).
        self.observation = None
        if self.scenario.preconditions:
            self.observation = seen = await self.look()
            for action in self.scenario.preconditions:
                await self.establish(resolve(action, seen))
                self.observation = seen = (await self.settle())[0]
        await self.machine.send("prepared")

    async def establish(self, precondition: Action) -> None:
        """Do one precondition, or check it (a state the author named, a claim): one that
        fails or does not hold ends the run before any step, saying which and what was seen."""
        if isinstance(precondition, Assert):
            holds, found = await self.holds(precondition, self.seen, step=0)
            if not holds:
                instead = f": {found}" if found else ""
                name = goal_name(precondition)
                raise DeviceError(f"precondition {name!r} does not hold{instead}")
            return
        result = await self.perform(precondition, step=0)
        if not result.ok:
            raise DeviceError(f"precondition {show_action(precondition)} failed: {result.error}")

    async def on_enter_observing(self) -> None:
        """A look of its own (the first, after a recovery); after an action the settled screen
        acting ended on is the observation, and the machine goes straight on to reasoning."""
        if self.observation is None:
            self.observation = await self.look()
        detection = fault(self.observation) or self.machine.ledger.frozen
        self.interruption = None
        if detection is None:
            self.take_in()
        await self.machine.send("observed", fault=detection, elapsed=self.elapsed())

    def take_in(self) -> None:
        """The screen about to be reasoned on shows no fault: note it, and what interrupts."""
        self.interruption = interruption(self.seen, self.previous)
        self.tally.saw(self.name(self.seen))
        if not self.history:
            self.tally.first_look(self.seen)

    def name(self, observation: Observation) -> str:
        """``screen_name``, once per screen: a step names it when it reasons and when it acts."""
        if self._named[0] is not observation:
            self._named = (observation, screen_name(observation))
        return self._named[1]

    async def on_enter_reasoning(self, source: State) -> None:
        if source.id == RunMachine.running.acting.id:
            self.take_in()  # the screen the action settled on, checked for faults by acting
        elif source.id == RunMachine.running.goal_complete.id:
            self.not_proven()  # the done was not proven: a step, and the agent is told why
        if self.writer is not None:
            self.writer.begin_step(self.step)
        context = AgentContext(
            scenario=self.scenario,
            observation=self.seen,
            step=self.step,
            history=tuple(self.history[self.attempt :]),
            last_verification=self.verification,
            device=self.info,
            interruption=self.interruption,
            last_deed=self.deed,
        )
        self.decision = await self.agent.decide(context)
        if self.decision.call is not None:
            self.tally.calls.append(self.decision.call)
        action = self.decision.action
        blocked = self.blocked(action)
        self.asked = isinstance(action, Recover) and blocked is not None
        # Going round in circles ends a run only for an agent told of it that could do otherwise
        repeats = len(self.repeated(action)) if self.reconsidering else 0
        await self.machine.send(
            "decided",
            done=isinstance(action, Done),
            fault=blocked,
            repeats=repeats,
            action=show_action(action),
        )

    def repeated(self, action: Action) -> list[int]:
        """The earlier steps that took ``action`` on this very screen, nothing new since."""
        if isinstance(action, (Done, Recover)):
            return []
        return self.tally.repeats(look_key(self.seen), show_action(self.aimed(action)))

    def aimed(self, action: Action) -> Action:
        """``action`` resolved on the screen seen (``orav.perceive.resolve``), once a step:
        reasoning asks it (are the agent's steps repeating?) and acting takes it."""
        known = self._aimed
        if known is not None and known[0] is action and known[1] is self.seen:
            return known[2]
        resolved = resolve(action, self.seen)
        self._aimed = (action, self.seen, resolved)
        return resolved

    def not_proven(self) -> None:
        """The agent's done was not proven and it reconsiders: the done is a step whose result
        says which criteria fail and what the screen shows instead. (A phase's helper never
        shares a name with a machine callback: the machine would call it too.)"""
        why = self.tally.unproven(self.machine.steps_left())
        step = Step(
            self.step, self.name(self.seen), self.decided, ActionResult(ok=False, error=why)
        )
        self.history.append(step)

    def blocked(self, action: Action) -> Detection | None:
        """What stands between the test and ``action``: the interruption on screen when it
        blocks the action (or the agent asked to recover), else whatever covers its target
        (the keyboard, a banner, a toast: ``orav.perceive.cover_fault``)."""
        found = self.interruption
        if isinstance(action, Recover):
            return found
        if isinstance(action, Done):
            criteria = self.scenario.success_criteria
            return found if found and done_blocked(found, self.seen, action, criteria) else None
        if found is not None and blocks(found, self.seen, action):
            return self.retried(found, action)
        return cover_fault(self.seen, action)

    def retried(self, found: Detection, action: Action) -> Detection:
        """The detection with the action its remedy retries: after a network error, the
        action that met it; else the blocked action itself."""
        if found.kind == "network" and self.history:
            return evolve(found, action=self.history[-1].decision.action)
        return evolve(found, action=action)

    async def on_enter_acting(self) -> None:
        """Act, wait for the app to settle, verify what the action did; the settled screen is
        the next step's observation, so its faults are found here. A check looks first: it
        reads the screen as it is now, not as it was when the agent began to decide."""
        if isinstance(self.decided.action, Assert):
            self.observation = self._quiet = await self.look()
        action = self.aimed(self.decided.action)
        self.result = result = await self.perform(action)
        self.decision = evolve(self.decided, action=action)
        found = self.interruption
        if not result.ok and found is not None and not isinstance(action, (Assert, Recover)):
            # it failed behind an interruption: handle that, then decide again
            await self.machine.send("acted", fault=evolve(found, action=action), verified=False)
            return
        target = getattr(action, "target", None)
        if target is not None:
            self.tally.touched(str(target))
        if isinstance(action, Assert) and not result.ok:
            self.tally.failed_check(action)  # a failed check fails the run
        if not result.ok:
            self.note_error(
                RunError(
                    step=self.step,
                    error=result.error or "action failed",
                    action=action.kind,
                    target=str(target) if target is not None else None,
                )
            )
        settled = None
        if not isinstance(action, (Assert, Recover)):
            settled = await self.settle()
            taken = self.swallowed(self.seen, settled[0], action)
            if taken is not None:
                # a modal came up as the input went in and took it: answer it, decide again
                self.previous, self.observation = self.seen, settled[0]
                await self.machine.send("acted", fault=taken, verified=False)
                return
        verification = await self.verify(action, settled)
        detection = no_effect(action) if verification.input_dropped else fault(self.seen)
        await self.machine.send(
            "acted", fault=detection, elapsed=self.elapsed(), changed=verification.changed
        )

    def swallowed(
        self, before: Observation, after: Observation, action: Action
    ) -> Detection | None:
        """The modal that took ``action`` as it came up (``orav.perceive.swallowed``), unless
        the same modal took the same action the last time: then it is what the action does."""
        taken = swallowed(before, after, action)
        key = (show_action(action), screen_digest(after)) if taken is not None else None
        again, self._swallowed = key is not None and key == self._swallowed, key
        return None if again else taken

    async def verify(
        self, action: Action, looked: tuple[Observation, Settled] | None
    ) -> Verification:
        """See what the action did on the settled look (its Verification, its step in the
        history); the settled screen becomes the observation. A wait ends so too: the step
        after it decides on what the wait let appear (results that loaded, a banner that came
        up). A check and a recovery do not settle (``looked`` None)."""
        before, decision, result = self.seen, self.decided, self.acted
        after, settled = looked if looked is not None else (before, None)
        changed = measure(before, after).changed
        labels = expected_labels(decision.expected_outcome)
        expected_seen = all(displays(after, label) for label in labels) if labels else None
        acts_on_screen = not isinstance(action, (Assert, Wait, Launch, Terminate, Recover))
        dropped = (
            acts_on_screen
            and result.ok
            and not changed
            and not taps_focused_field(action, before)  # nothing to change: not dropped
        )
        self.verification = Verification(
            changed=changed,
            expected_seen=expected_seen,
            input_dropped=dropped,
            note="the action changed nothing on screen" if dropped else "",
            settled=settled,
        )
        if self.writer is not None:
            self.writer.write(VerificationEvent(self.verification))
        if isinstance(action, Tap) and action.vision:
            self.note_vision(action, changed)
        shown, state = show_action(decision.action), look_key(before)
        done = isinstance(decision.action, (Done, Recover))
        repeats = [] if done else self.tally.repeats(state, shown)  # ``repeated``, asked once
        self.history.append(
            Step(
                index=self.step,
                screen=self.name(before),
                decision=decision,
                result=result,
                verification=self.verification,
                repeat_of=repeats[-1] if repeats else None,
            )
        )
        self.tally.took(self.step - 1, state, shown, look_key(after))
        self.previous, self.observation = before, after
        self.interruption = None  # of the screen before: reasoning looks again at the new one
        if self.world is not None:  # what the step did to the app's files or data
            self.effect = await self.world.changes()
            self.tally.changed(self.effect)
        self.deed = self.judge_deed(action, before)
        return self.verification

    def judge_deed(self, action: Action, before: Observation) -> Deed | None:
        """The step just taken as a deed, in the ledger (``orav.perceive.deeds.step_deed``:
        what it was on the screen it was decided on, what it changed in the app's world)."""
        verdict = step_deed(action, before, self.tally.was_there(self.effect))
        if verdict is None:
            return None
        step = self.history[-1].index
        deed = Deed(verdict.kind, step, show_action(action), "agent", verdict.why)
        self.tally.did(deed)
        return deed

    async def on_enter_recovering(self, fault: Detection, source: State) -> None:
        """Recover from ``fault``. It belongs to the step under way, except an action that
        changed nothing, which belongs to the step that took it; a recovery entered while
        reasoning sets that step's decision aside (the agent decides again after it)."""
        taken = fault.kind == "no_effect"  # found once the action's step was in the history
        self.recovery_step = self.step - 1 if taken else self.step
        if self.writer is not None:
            set_aside = source.id == RunMachine.running.reasoning.id
            self.writer.write(
                RecoveryBeginEvent(self.recovery_step, fault.kind, fault.note, set_aside)
            )
        self._quiet = None  # the remedies' inputs
        outcome = await recover(
            fault,
            device=self.device,
            observation=self.seen,
            scenario=self.scenario,
            sleep=self.clock.sleep,
            on_transition=self.note_transition,
        )
        report = None
        if fault.kind == "crash":
            report = await crash_report(self.device, self.scenario.app, self.first_seen)
        self.account(fault, outcome, report)
        before = self.seen
        # ``previous`` stays the last screen the test saw: what an interruption interrupted.
        looked = outcome.observation
        self.observation = with_ticks(looked, self._ticking) if looked is not None else None
        asked, self.asked = self.asked, False
        if asked:
            self.asked_for(before, outcome)
        if not (outcome.resolved or outcome.handed_back):
            what = f"{fault.kind}: recovery failed: {outcome.error}"
            await self.machine.send("unrecovered", error=what)
            return
        retried = self.handed_back(fault) if outcome.handed_back else None
        unanswered = retried is not None and always_answered(self.previous or self.seen, retried)
        if outcome.restarted:
            self.observation = None
        await self.machine.send(
            "recovered",
            restarted=outcome.restarted,
            resolved=outcome.resolved,
            no_effect=retried,
            unanswered=unanswered,
            asked=asked,
        )

    def handed_back(self, fault: Detection) -> Action:
        """The action a recovery handed back: it changed nothing, also when retried (its
        verification says so)."""
        retried = fault.action
        if retried is None:
            raise RuntimeError("an action that changed nothing was handed back without it")
        self.verification = evolve(
            _known(self.verification, "its verification"),
            note=f"no effect: {show_action(retried)} changed nothing, also when retried",
        )
        return retried

    def asked_for(self, before: Observation, outcome: RecoveryOutcome) -> None:
        """The agent's ``recover`` was its step: record it as one, so the agent goes on."""
        done = outcome.resolved or outcome.handed_back
        self.result = ActionResult(ok=done, error=None if done else outcome.error)
        remedy = ", ".join(show_action(a) for a in outcome.actions) or "nothing"
        self.verification = Verification(changed=bool(outcome.actions), note=f"recovered: {remedy}")
        if self.writer is not None:
            self.writer.write(VerificationEvent(self.verification))
        step = Step(self.step, self.name(before), self.decided, self.result, self.verification)
        self.history.append(step)

    def account(
        self, detection: Detection, outcome: RecoveryOutcome, report: CrashReport | None = None
    ) -> None:
        """Count what a recovery cost (``Tally.recovered``) and write how it ended."""
        if self.writer is not None:
            reason = None
            if outcome.handed_back:
                reason = "no effect: handed back to the agent"
            elif not outcome.resolved:
                reason = outcome.error or "recovery failed"
            self.writer.write(
                RecoveryEndEvent(
                    self.recovery_step,
                    outcome.kind,
                    outcome.actions,
                    resolved=outcome.resolved,
                    handed_back=outcome.handed_back,
                    reason=reason,
                )
            )
        self.tally.recovered(detection, outcome, self.recovery_step, report)

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

    async def on_enter_goal_complete(self) -> None:
        done = self.decided.action
        if not isinstance(done, Done):
            raise TypeError(f"the goal is complete only on done, not on {show_action(done)}")
        checked = [(c, *await self.holds(c, self.seen)) for c in self.scenario.success_criteria]
        self.tally.judge(done.success, done.summary, checked)
        met = done.success and not self.tally.missed
        # A pass needs evidence: the criteria hold now, and did not all hold before any action.
        idle = not any(not isinstance(s.decision.action, Done) for s in self.history)
        unproven = done.success and (self.tally.unmet or (met and idle and self.tally.held_all))
        if unproven and self.reconsidering:
            await self.machine.send("unproven")
            return
        await self.machine.send("checked", met=met, errors=len(self.tally.errors))

    # --- the device ----------------------------------------------------------------------------

    async def settle(self) -> tuple[Observation, Settled]:
        """Wait for the app and look (``orav.settling``): longer while a spinner or a network
        error is up."""
        slow = self.interruption is not None and self.interruption.kind in ("loading", "network")
        fixed = self.scenario.settle_seconds
        looked = await settle(self.quiet, self.clock, self.look, fixed=fixed, slow=slow)
        self._quiet = looked[0]  # settled: what changes after it changes by itself
        return looked

    async def look(self) -> Observation:
        """Observe (the first look's time bounds which crash reports are this run's); a dump
        that did not answer in time is a failed dump (recovery re-dumps within its budget),
        not the end of the run."""
        try:
            observation = await self.device.observe()
        except DeviceTimeout as exc:
            return Observation(app=self.scenario.app, app_running=None, error=str(exc))
        if not self.first_seen:
            self.first_seen = observation.taken_at
        return self.ticks(observation)

    def ticks(self, observation: Observation) -> Observation:
        """``observation`` with the values seen ticking marked (``orav.perceive.identity``):
        a look after a settled one with no input between them (a check's look, the look that
        ends a wait) shows which values change by themselves; once seen, marked on every look
        after. The looks inside a settle are not compared: an input's late effect lands there."""
        if self._quiet is not None:
            self._ticking |= ticked(self._quiet, observation)
        return with_ticks(observation, self._ticking)

    async def holds(self, assertion: Assert, seen: Observation, step: int = -1) -> tuple[bool, str]:
        """Whether ``assertion`` holds on ``seen``, and what was found instead ("" when it
        holds): a selector check by the one target rule, a claim in words by the judge."""
        if assertion.claim is None:
            ok = check(assertion, seen)
            return ok, "" if ok else found_instead(assertion, seen)
        judge = self.engine.judge
        if judge is None:
            return False, "a claim in words needs a judge (--judge), and none was given"
        step = self.step if step < 0 else step
        try:
            judgement = await judge.judge(Question(assertion.claim, seen, self.scenario, step))
        except AgentError as exc:  # no answer had: the run ends, saying which claim was asked
            error = AgentError(f"judging {assertion.claim!r}: {exc}")
            error.call = exc.call
            raise error from exc
        if judgement.call is not None:
            self.tally.calls.append(judgement.call)
        self.tally.judged.append(Judged.of(step, assertion.claim, screen_digest(seen), judgement))
        return judgement.passed, judgement.reason()

    async def perform(self, action: Action, step: int = -1) -> ActionResult:
        if isinstance(action, Assert):
            ok, found = await self.holds(action, self.seen, step)
            if ok:
                return ActionResult()
            why = f": {found}" if action.claim is not None else ""
            return ActionResult(ok=False, error=f"not so: {goal_name(action)}{why}")
        if isinstance(action, Recover):
            return ActionResult(ok=False, error="nothing on screen to recover from")
        revealing = revealing_field(self.seen) if isinstance(action, TypeText) else None
        if isinstance(action, TypeText) and action.secure and revealing is not None:
            return ActionResult(
                ok=False,
                error="refused to type a secret into a field that shows what is typed "
                f"({show_target(revealing)}): its text would reach the screenshots",
            )
        selector = action.target.selector if isinstance(action, Tap) and action.target else None
        if isinstance(action, Tap) and action.x is None and selector is None:
            near = near_miss(self.seen, action.target) if action.target is not None else ""
            hint = f"; {near}" if near else ""
            return ActionResult(ok=False, error=f"no element {action.target} on this screen{hint}")
        if isinstance(action, Wait):
            await self.clock.sleep(action.seconds)
            return ActionResult()
        self._quiet = None  # an input: the next look may differ by it
        return await self.device.perform(action)

    # --- the report -------------------------------------------------------------------------

    def build_report(self) -> RunReport:
        return self.tally.build(
            run_id=self.engine.run_id,
            status=cast(RunStatus, self.machine.state),  # its final states are the statuses
            duration=self.elapsed(),
            last=self.observation,
            ending=self.machine.error or "",
        )


def _as_written(report: RunReport, event: ReportEvent, writer: CassetteWriter) -> RunReport:
    """The report as its cassette holds it: no secret the run met in its text (an agent's
    error that quotes a typed secret is shown, and asserted on, as ``orav report`` shows it)."""
    scrubbed = writer.scrubber.data(event.report)
    return report if scrubbed == event.report else structure(scrubbed, RunReport)


def _known(value: T | None, what: str) -> T:
    """``value``, which the run machine's order of phases guarantees is there by now."""
    if value is None:
        raise RuntimeError(f"a phase of the run began before {what}")
    return value


class _Transitions:
    """Listener: every transition of the run machine is kept and written, as it is taken:
    before the phase it enters runs, so the cassette reads in the order things happened.
    (``on_transition``, not ``before_transition``: python-statemachine runs ``on`` callbacks
    in turn, where it gathers ``before`` and ``after`` ones as tasks, ~35 µs an event.)

    Between leaf states (``orav.machines.flat_transitions``): a transition of the compound
    ``running`` state (time up, abort, an error) is written from the phase it cut short, and
    one into it to the phase it starts."""

    def __init__(self, run: _Run) -> None:
        self.run = run
        self.phase = (
            "idle"  # the leaf state the run is in: what a ``running`` transition cuts short
        )

    def on_transition(self, event: str, source, target) -> None:
        if not source.states and source.id != self.phase:
            return  # the way into a compound state's initial child: written with the way in
        origin = self.phase if source.states else source.id
        while target.states:
            target = next(s for s in target.states if s.initial)
        self.phase = target.id
        self.run.note_transition("run", origin, str(event), target.id)
