"""What a run tallies for its report as it goes, apart from the phases that do the run.

The engine's phases (``orav.engine``) note each fact here as they meet it: the steps acted on,
the model calls, the errors (and what each recovery cost), the transitions, the screens and
elements, the goals met and missed, and the side-effect ledger: where the app ran (``world``),
the deeds done (``did``) and what changed in its world (``changed``). ``build`` turns the tally into the frozen ``RunReport``, at the end or for a run cut
short (``Engine.unfinished``).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

from attrs import define, field

from orav.device import CrashReport
from orav.machines.attempt import RecoveryOutcome
from orav.model import (
    Assert,
    Deed,
    DeviceInfo,
    Done,
    FileChange,
    Judged,
    ModelCall,
    Observation,
    RunError,
    RunReport,
    RunStatus,
    Scenario,
    SideEffects,
    Step,
    Transition,
    Usage,
    WorldChanges,
)
from orav.model.deed import Change
from orav.perceive import Detection
from orav.perceive.assertions import check, describe_assertion, found_instead

CRASH_REPORT_CHARS = 4000  # of a crash report kept in the run's report
# A run that ends in one of these never reached its goal: every goal is missed.
UNFINISHED: tuple[RunStatus, ...] = ("step_limit", "timed_out", "aborted")


def goal_name(assertion: Assert) -> str:
    """How a report names the goal a check stands for, as its author named it: the state's
    name (``logged_in``), the claim in words, else the check itself (``#switch is visible``)."""
    return assertion.name or assertion.claim or describe_assertion(assertion)


def goal_names(criteria: tuple[Assert, ...]) -> list[str]:
    """The goals of ``criteria``, each once (a state checked by several selectors is one)."""
    return list(dict.fromkeys(goal_name(c) for c in criteria))


@define
class Tally:
    """The report's facts so far; ``history`` is also what the agent is shown of the run."""

    scenario: Scenario
    history: list[Step] = field(factory=list)
    calls: list[ModelCall] = field(factory=list)
    errors: list[RunError] = field(factory=list)
    transitions: list[Transition] = field(factory=list)
    screens: list[str] = field(factory=list)
    interacted: list[str] = field(factory=list)
    retries: int = 0
    crashes_recovered: int = 0
    achieved: list[str] = field(factory=list)
    missed: list[str] = field(factory=list)
    asserted: list[Assert] = field(factory=list)  # the assert actions that failed (missed goals)
    found: dict[str, str] = field(factory=dict)  # of a missed goal: what was found instead
    judged: list[Judged] = field(factory=list)  # each claim in words a judge decided
    summary: str = ""
    info: DeviceInfo | None = None  # where the app runs: disposable, the network
    deeds: list[Deed] = field(factory=list)
    files: dict[str, FileChange] = field(factory=dict)  # by path, the net change of the run

    # the criteria the last done left unmet, with what was found instead
    unmet: list[tuple[Assert, str]] = field(factory=list)
    held: list[Assert] | None = None  # the criteria that held before the first action
    # Going round in circles: the screen states of this attempt (each by its digest: a run
    # that sees a new screen every step keeps 16 bytes a step, not the screen's tree), and the
    # steps since the last new state that took each action on each state.
    states: set[bytes] = field(factory=set)
    taken: dict[tuple[bytes, str], list[int]] = field(factory=dict)

    def repeats(self, state: tuple, action: str) -> list[int]:
        """The earlier steps that took ``action`` on this screen ``state`` with no state new
        to the attempt reached since (the step that reached the last new one included)."""
        return self.taken.get((_digest(state), action), [])

    def took(self, step: int, state: tuple, action: str, after: tuple) -> None:
        """Step ``step`` took ``action`` on ``state`` and the app settled on ``after``. A
        state new to the attempt makes every step before this one no repeat any more: they
        are let go."""
        key, reached = _digest(state), _digest(after)
        self.states.add(key)
        self.taken.setdefault((key, action), []).append(step)
        if reached not in self.states:
            self.states.add(reached)
            self.taken = {(key, action): [step]}

    def new_attempt(self) -> None:
        """The goal starts over (the app was relaunched): no state is known any more."""
        self.states.clear()
        self.taken.clear()

    def first_look(self, observation: Observation) -> None:
        """The first screen reasoned on, before any action: a success criterion that holds
        here already proves nothing the run will do (a warning of the report). A claim in
        words is not judged here: that would cost a judge's call the run did not ask for (a
        done before any action judges it, ``judge``)."""
        if self.held is None:
            criteria = self.scenario.success_criteria
            self.held = [a for a in criteria if a.claim is None and check(a, observation)]

    @property
    def held_all(self) -> bool:
        """Every success criterion held before the first action: a done proves nothing yet."""
        return bool(self.held) and len(self.held or ()) == len(self.scenario.success_criteria)

    def world(self, info: DeviceInfo) -> None:
        """Where the app runs, as the device described it: the ledger's disposable and network."""
        self.info = info

    def did(self, deed: Deed) -> None:
        """A deed performed (by the agent or a remedy), for the ledger."""
        self.deeds.append(deed)

    def changed(self, changes: WorldChanges) -> None:
        """What an action changed in the world, folded into the run's net change per path: a
        file created and then changed is created, created and then deleted is no change,
        deleted and then created again is changed."""
        for change in changes.files:
            before = self.files.pop(change.path, None)
            net = _net(before.change if before is not None else None, change.change)
            if net is not None:
                self.files[change.path] = FileChange(change.path, net)

    def was_there(self, changes: WorldChanges) -> WorldChanges:
        """Of a step's ``changes``, folded in already, those to what was there before the run
        (changed or deleted on the whole): a file the run itself created harms nobody when it
        is changed or deleted again (an app that writes its settings as it goes)."""
        kept = tuple(
            c
            for c in changes.files
            if (net := self.files.get(c.path)) is not None and net.change != "created"
        )
        return changes if len(kept) == len(changes.files) else WorldChanges(kept)

    def side_effects(self) -> SideEffects | None:
        """The ledger; None when the world is not orav's own and nothing is known to have
        happened in it (a device that cannot tell, a run without deeds)."""
        info = self.info
        disposable = info is not None and info.disposable
        if not (disposable or self.deeds or self.files):
            return None
        return SideEffects(
            disposable=disposable,
            network=info.network if info is not None else "",
            files=tuple(sorted(self.files.values(), key=lambda f: f.path)),
            deeds=tuple(self.deeds),
        )

    def saw(self, screen: str) -> None:
        if screen not in self.screens:
            self.screens.append(screen)

    def touched(self, target: str) -> None:
        if target not in self.interacted:
            self.interacted.append(target)

    def failed_check(self, assertion: Assert) -> None:
        """An assert action that did not hold: a missed goal of the run."""
        self.missed.append(goal_name(assertion))
        self.asserted.append(assertion)

    def recovered(
        self, detection: Detection, outcome: RecoveryOutcome, step: int, crash: CrashReport | None
    ) -> RunError | None:
        """Count what a recovery cost; the error it is of the run, if any (an action retried
        until it worked, or handed back, is none: it is the agent's to judge)."""
        redone = outcome.kind == "no_effect" and bool(outcome.actions)
        self.retries += outcome.retries + redone
        if outcome.resolved:
            self.crashes_recovered += outcome.crashes
        if outcome.handed_back or (outcome.kind == "no_effect" and outcome.resolved):
            return None
        action = detection.action
        error = RunError(
            step=step,
            error=f"{outcome.kind}: {detection.note or outcome.kind}"
            + ("" if outcome.resolved else f"; recovery failed: {outcome.error}"),
            action=action.kind if action is not None else None,
            target=str(getattr(action, "target", None) or "") or None,
            resolved=outcome.resolved,
            crash_report=f"{crash.name}\n{crash.contents[:CRASH_REPORT_CHARS]}"
            if crash is not None
            else None,
        )
        self.errors.append(error)
        return error

    def judge(self, success: bool, summary: str, checked: list[tuple[Assert, bool, str]]) -> None:
        """The agent is done: each success criterion as checked on the last screen (whether it
        held, what was found instead), one goal per name; without any criteria, the agent's own
        ``success`` is the goal's. Judged again after an unproven done, the goals are those of
        the last. Judged before any action, the claims in words that held join ``held``
        (judged now, at no extra call: ``first_look`` judges none)."""
        if self.held is not None and all(isinstance(s.decision.action, Done) for s in self.history):
            words = [a for a, holds, _ in checked if holds and a.claim is not None]
            self.held += [a for a in words if a not in self.held]
        self.achieved = []
        self.missed = [goal_name(a) for a in self.asserted]
        self.unmet = [(assertion, found) for assertion, holds, found in checked if not holds]
        held: dict[str, bool] = {}
        for assertion, holds, found in checked:
            name = goal_name(assertion)
            held[name] = held.get(name, True) and holds
            if not holds and (assertion.claim is not None or assertion.name):
                self.found[name] = found
        for name, holds in held.items():
            (self.achieved if holds else self.missed).append(name)
        if not self.scenario.success_criteria:
            (self.achieved if success else self.missed).append(self.scenario.goal)
        self.summary = summary

    def unproven(self, steps_left: int) -> str:
        """Why the last done is not proven, for the agent: each criterion that does not hold
        and what the screen shows instead, or that they held before anything was done. The
        goal is open again (its summary dropped)."""
        self.summary = ""
        if not self.unmet:
            return (
                "not proven: every success criterion already held before the first action, "
                "so they prove nothing; do what the goal asks, then say done"
            )
        misses = "; ".join(f"{goal_name(a)} (instead: {found})" for a, found in self.unmet)
        left = f"{steps_left} step{'s' if steps_left != 1 else ''}"
        return f"not proven: these success criteria do not hold: {misses}; go on ({left} left)"

    def build(
        self,
        *,
        run_id: str,
        status: RunStatus,
        duration: float,
        last: Observation | None,
        ending: str = "",
    ) -> RunReport:
        """The report: ``last`` is the last screen (what each missed check found there);
        ``ending`` the summary when the agent gave none (the machine's error)."""
        achieved, missed = self.achieved, self.missed
        if status in UNFINISHED:
            achieved = []  # an unproven done's judgement is not the run's
            missed = goal_names(self.scenario.success_criteria) or [self.scenario.goal]
        found = self._found(missed, last)
        results = [step.result for step in self.history]
        return RunReport(
            run_id=run_id,
            scenario=self.scenario.name,
            status=status,
            total_steps=len(self.history),
            successful_actions=sum(1 for r in results if r.ok),
            failed_actions=sum(1 for r in results if not r.ok),
            retries=self.retries,
            crashes_recovered=self.crashes_recovered,
            duration_seconds=round(duration, 3),
            errors=tuple(self.errors),
            goals_achieved=tuple(achieved),
            goals_missed=tuple(missed),
            goals_found=tuple(found) if any(found) else (),
            screens_visited=tuple(self.screens),
            elements_interacted=tuple(self.interacted),
            transitions=tuple(self.transitions),
            usage=Usage.of(self.calls) if self.calls else None,
            summary=self.summary or ending,
            side_effects=self.side_effects(),
            judgements=tuple(self.judged),
            warnings=self.warnings(),
        )

    def _found(self, missed: list[str], last: Observation | None) -> list[str]:
        """What each missed goal found instead: as judged, else its check on ``last``."""
        checks = {goal_name(a): a for a in self.scenario.success_criteria if a.claim is None}
        checks.update({goal_name(a): a for a in self.asserted if a.claim is None})
        return [
            self.found.get(goal) or (found_instead(checks[goal], last) if goal in checks else "")
            for goal in missed
        ]

    def warnings(self) -> tuple[str, ...]:
        """The criteria that held before the first action (``first_look``)."""
        if not self.held:
            return ()
        held = ", ".join(goal_names(tuple(self.held)))
        if self.held_all:
            warning = f"every success criterion already held before the first action ({held}): "
            return (warning + "a pass proves nothing the run did",)
        return (f"already held before the first action, so it proves nothing alone: {held}",)


@lru_cache(maxsize=8)  # a step digests its before and after, and its after is the next's before
def _digest(state: tuple) -> bytes:
    """A screen state (``orav.perceive.look_key``: strings, numbers, truth values and None) by
    16 bytes of its hash: the same in every process, so a replay finds the same repeats."""
    return hashlib.blake2b(repr(state).encode(), digest_size=16).digest()


def _net(before: Change | None, after: Change) -> Change | None:
    """One path's change over a run: ``before`` so far, then ``after``; None: as it was."""
    if before == "created":
        return None if after == "deleted" else "created"
    if before == "deleted" and after == "created":
        return "changed"
    return after
