"""The recovery StateChart: one state per remedy, budgets, timeouts and verdicts as data.

The engine calls one function when a fault is seen, when an interruption blocks the decided
action, or when an action changed nothing::

    outcome = await recover(
        detection,                      # orav.perceive.Detection
        device=device,                  # orav.device.Device: the only I/O
        observation=observation,        # the observation that showed it
        scenario=scenario,              # app bundle, credentials, permissions answer
        sleep=asyncio.sleep,            # injectable: replay and tests do not wait
        on_transition=None,             # (machine, source, event, target) for the cassette
    )
    outcome.resolved, outcome.handed_back, outcome.actions, outcome.retries, outcome.error

How it runs: the detection's kind is the first event; entering a state performs one remedy
attempt through the device (tap a safe button, relaunch, nudge the tap...); then the state's
declared verdict (``VERDICT``) looks at the app and answers the next event (``cleared``,
``persists``, ``stalled``, ``running`` / ``not_running``). ``persists`` re-enters the same
state while its budget (``RETRIES`` by ``SPENDS``) lasts, then escalates, hands back or fails,
so every path ends in ``resolved``, ``handed_back`` or ``failed`` within
``RecoveryMachine.max_events()`` events. Device calls are bounded by the drivers' own
timeouts, which are the ``LADDER``'s rungs (``dump`` per call, ``restart`` per launch); a
re-dump that times out counts as an empty one. Any exception in a callback or a verdict (a
device error, a remedy that cannot apply safely) is
``error.execution``, which ends the recovery as ``failed`` with the error.

Remedies do no harm: an alert is dismissed only through a non-destructive label (or escape);
credentials are typed only into the fields of a login form of the app under test, each after
checking that it has focus; an action that changed nothing is retried as itself, never widened
(text is typed again, not the field cleared). ``handed_back`` means a retried action still
changed nothing: no fault, the agent decides what next. ``restarted`` says the app was
relaunched, so the screen is back at the app's start.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from attrs import evolve, frozen
from statemachine import State, StateChart

from orav.device import Device
from orav.errors import DeviceTimeout, ReplayDivergence
from orav.model import (
    Action,
    ActionResult,
    Element,
    Launch,
    Observation,
    Point,
    PressKey,
    Scenario,
    Swipe,
    Tap,
    Terminate,
    TypeText,
)
from orav.perceive import Detection, FaultKind, changed, keyboard_blocks, keyboard_frame, shows
from orav.perceive.change import STATUS_BAR_POINTS
from orav.perceive.faults import login_fields, screen_size
from orav.perceive.roles import (
    ALLOW_LABELS,
    BACK_LABELS,
    BUTTON_ROLES,
    DENY_LABELS,
    DISMISS_LABELS,
    RETRY_LABELS,
    STATIC_ROLES,
    TEXT_FIELD_ROLES,
    find_button,
    is_secure,
)
from orav.perceive.targets import resolve, tap_on, target_element
from orav.provision import launch

Sleep = Callable[[float], Awaitable[Any]]
OnTransition = Callable[[str, str, str, str], Any]
OnAction = Callable[[Action, ActionResult], Any]


class Unrecoverable(Exception):
    """A remedy cannot apply safely (nothing safe to press, no credentials, no login form):
    the recovery fails with it."""


@frozen
class RecoveryOutcome:
    """What a recovery did: the fault, whether it is gone, the remedies and what they cost.

    ``handed_back``: a retried action still changed nothing; not a failure, the agent's turn.
    """

    kind: FaultKind
    resolved: bool
    actions: tuple[Action, ...] = ()
    retries: int = 0
    crashes: int = 0
    restarted: bool = False
    handed_back: bool = False
    observation: Observation | None = None
    error: str | None = None
    path: tuple[tuple[str, str, str], ...] = ()


class RecoveryMachine(StateChart):
    """detected → one remedy state per fault → resolved | handed_back | failed."""

    # The timeout escalation ladder, in seconds.
    LADDER: ClassVar[dict[str, float]] = {
        "floor": 0.05,  # the least wait after an action, and between two looks while settling
        "settle": 0.4,  # the most an action's settle waits; after a remedy, before looking
        "network": 2.0,  # network retry, animations, a loading re-check
        "dump": 5.0,  # one device call (the driver's own timeout): a longer one is a hang
        "change": 10.0,  # how long a spinner may keep changing before we intervene
        "restart": 30.0,  # one terminate or launch (the driver's launch timeout)
    }
    # Retry limits per kind of attempt, and the pause before each retry (seconds).
    RETRIES: ClassVar[dict[str, int]] = {
        "tap": 3,
        "text": 2,
        "swipe": 3,
        "launch": 3,
        "dump": 5,
        "goal": 1,  # the whole goal: read by the run's ledger, not by this machine
    }
    PAUSE: ClassVar[dict[str, float]] = {"tap": 0.1, "text": 0.0, "swipe": 0.0, "launch": 2.0}
    DUMP_PAUSE: ClassVar[float] = 1.0
    # Fixed waits of the reference: after a relaunch, before re-dumping, loading stuck.
    CRASH_WAIT: ClassVar[float] = 3.0
    EMPTY_DUMP_WAIT: ClassVar[float] = 2.0
    LOADING_STUCK: ClassVar[float] = 5.0
    # An action that changed nothing: how far each retry moves it, in points, attempt by attempt.
    NUDGES: ClassVar[tuple[tuple[float, float], ...]] = ((10, 0), (-10, 0), (0, 10), (0, -10))
    # Which budget each state spends per entry (states entered once per path spend nothing).
    SPENDS: ClassVar[dict[str, str]] = {
        "dismissing_alert": "tap",
        "answering_permission": "tap",
        "hiding_keyboard": "tap",
        "retrying_network": "tap",
        "logging_in": "text",
        "relaunching": "launch",
        "restarting": "launch",
    }
    # An ineffective action is retried on the budget of its kind; other kinds are retried once.
    ACTION_BUDGET: ClassVar[dict[str, str]] = {"tap": "tap", "swipe": "swipe", "type_text": "text"}
    # Each state's verdict: the method that looks at the app after the state's attempt.
    VERDICT: ClassVar[dict[str, str]] = {
        "checking_app": "app_state",
        "relaunching": "app_back",
        "restarting": "app_back",
        "reloading_dump": "dump_back",
        "waiting_loading": "loading_over",
        "retrying_action": "screen_changed",
        "going_back": "screen_changed",
        "scrolling": "screen_changed",
        "hiding_keyboard": "keyboard_gone",
        "refreshing": "loading_gone",
        "leaving": "loading_gone",
    }  # every other remedy state: ``fault_gone``

    detected = State(initial=True)
    dismissing_alert = State()
    answering_permission = State()
    hiding_keyboard = State()
    retrying_network = State()
    logging_in = State()
    waiting_loading = State()
    refreshing = State()
    leaving = State()
    checking_app = State()
    reloading_dump = State()
    relaunching = State()
    restarting = State()
    retrying_action = State()
    going_back = State()
    scrolling = State()
    resolved = State(final=True)
    handed_back = State(final=True)
    failed = State(final=True)

    alert = detected.to(dismissing_alert)
    permission = detected.to(answering_permission)
    keyboard = detected.to(hiding_keyboard)
    network = detected.to(retrying_network)
    login = detected.to(logging_in)
    loading = detected.to(waiting_loading)
    empty_dump = detected.to(checking_app)
    crash = detected.to(relaunching)
    no_effect = detected.to(retrying_action)
    frozen = detected.to(going_back)

    cleared = resolved.from_(
        dismissing_alert,
        answering_permission,
        hiding_keyboard,
        retrying_network,
        logging_in,
        waiting_loading,
        refreshing,
        leaving,
        reloading_dump,
        relaunching,
        restarting,
        retrying_action,
        going_back,
        scrolling,
    )
    persists = (
        dismissing_alert.to.itself(cond="budget_left")
        | dismissing_alert.to(failed)
        | answering_permission.to.itself(cond="budget_left")
        | answering_permission.to(failed)
        | hiding_keyboard.to.itself(cond="budget_left")
        | hiding_keyboard.to(failed)
        | retrying_network.to.itself(cond="budget_left")
        | retrying_network.to(failed)
        | logging_in.to.itself(cond="budget_left")
        | logging_in.to(failed)
        | waiting_loading.to.itself(cond="budget_left")
        | waiting_loading.to(refreshing)
        | refreshing.to(leaving)
        | leaving.to(failed)
        | reloading_dump.to(restarting)
        | relaunching.to.itself(cond="budget_left")
        | relaunching.to(failed)
        | restarting.to.itself(cond="budget_left")
        | restarting.to(failed)
        | retrying_action.to.itself(cond="budget_left")
        | retrying_action.to(handed_back)
        | going_back.to(scrolling)
        | scrolling.to(restarting)
    )
    stalled = waiting_loading.to(refreshing)
    running = checking_app.to(reloading_dump)
    not_running = checking_app.to(relaunching)
    error_execution = failed.from_.any(on="keep_error")

    def __init__(
        self,
        detection: Detection,
        *,
        device: Device,
        observation: Observation,
        scenario: Scenario,
        sleep: Sleep = asyncio.sleep,
        on_action: OnAction | None = None,
        **kwargs: Any,
    ) -> None:
        self.detection = detection
        self.device = device
        self.observation = observation
        self.before = observation  # the screen an ineffective action failed to change
        self.scenario = scenario
        self.sleep = sleep
        self.on_action = on_action
        self.attempts: dict[str, int] = {}
        self.actions: list[Action] = []
        self.crashes = 0
        self.restarted = False
        self.error: str | None = None
        self.raised: BaseException | None = None  # what ended the recovery as failed
        self.loading_seen = observation  # the last look while waiting for a spinner
        self.unchanged_for = 0.0
        super().__init__(**kwargs)

    # --- budgets: the tables above, read by the one guard ----------------------------------

    def limit(self, state: str) -> int:
        """How many times ``state`` may be entered in one recovery."""
        if state == "waiting_loading":
            return math.ceil(self.LADDER["change"] / self.LADDER["network"])
        if state == "retrying_action":
            action = self.detection.action
            kind = self.ACTION_BUDGET.get(action.kind) if action is not None else None
            return self.RETRIES[kind] if kind else 1
        spends = self.SPENDS.get(state)
        return self.RETRIES[spends] if spends else 1

    def budget_left(self, source: State) -> bool:
        return self.attempts.get(source.id, 0) < self.limit(source.id)

    @classmethod
    def max_events(cls) -> int:
        """An upper bound on the events of any recovery: every state at its largest budget."""
        most = max(cls.RETRIES.values())
        loading = math.ceil(cls.LADDER["change"] / cls.LADDER["network"])
        return 2 + len(cls.states) * max(most, loading)

    def on_enter_state(self, target: State) -> None:
        if not target.final and target.id != "detected":
            self.attempts[target.id] = self.attempts.get(target.id, 0) + 1

    def keep_error(self, error: BaseException | None = None) -> None:
        self.raised = error
        if error is None:
            self.error = "recovery failed"
        else:
            self.error = str(error) or type(error).__name__

    @property
    def state(self) -> str:
        return next(iter(self.configuration_values))

    # --- device access, bounded by the ladder and reported to the engine --------------------

    async def perform(self, action: Action) -> ActionResult:
        result = await self.device.perform(action)
        await self._record(action, result)
        return result

    async def _record(self, action: Action, result: ActionResult) -> None:
        self.actions.append(action)
        if self.on_action is not None:
            returned = self.on_action(action, result)
            if asyncio.iscoroutine(returned):
                await returned

    async def observe(self) -> Observation:
        self.observation = await self.device.observe()
        return self.observation

    async def observe_settled(self) -> Observation:
        await self.sleep(self.LADDER["settle"])
        return await self.observe()

    async def observe_until_elements(self) -> Observation:
        """Re-dump while the tree is empty: ``RETRIES['dump']`` tries, ``DUMP_PAUSE`` between.
        A dump that times out counts as an empty one: one slow call is a rung, not the end."""
        for attempt in range(self.RETRIES["dump"]):
            if attempt:
                await self.sleep(self.DUMP_PAUSE)
            try:
                observation = await self.observe()
            except DeviceTimeout:
                continue
            if observation.elements and not observation.error:
                break
        return self.observation

    async def launch(self) -> None:
        """Relaunch the app as the run launched it (with the scenario's arguments)."""
        await launch(self.device, self.scenario)
        await self._record(Launch(self.scenario.app), ActionResult())

    async def terminate(self) -> None:
        app = self.scenario.app
        await self.device.terminate(app)
        await self._record(Terminate(app), ActionResult())

    async def pause_before_retry(self, state: str, budget: str) -> None:
        if self.attempts.get(state, 0) > 1 and self.PAUSE.get(budget):
            await self.sleep(self.PAUSE[budget])

    # --- remedies: one attempt per entry ------------------------------------------------------

    async def on_enter_dismissing_alert(self) -> None:
        """Press a non-destructive label of the alert; with no button at all (a terminal
        dialog, a command palette), escape. An alert that offers only other answers (Yes,
        Delete, Sign Out) is the agent's to answer: the recovery fails and says so."""
        await self.pause_before_retry("dismissing_alert", "tap")
        buttons = [e for e in self._evidence("alert") if e.role in BUTTON_ROLES]
        button = find_button(buttons, DISMISS_LABELS)
        if button is not None:
            await self.perform(tap_on(button))
        elif not buttons and self.attempts["dismissing_alert"] == 1:
            await self.perform(PressKey("escape"))
        else:
            offered = ", ".join(repr(b.label) for b in buttons if b.label) or "none"
            raise Unrecoverable(
                f"the alert offers no safe answer (buttons: {offered}); orav never confirms "
                "for the test: answer it in the scenario"
            )

    async def on_enter_answering_permission(self) -> None:
        await self.pause_before_retry("answering_permission", "tap")
        labels = ALLOW_LABELS if self.scenario.permissions == "allow" else DENY_LABELS
        button = find_button(self.observation.elements, labels)
        if button is None:
            raise Unrecoverable(f"the permission dialog has no {labels[0]!r} button")
        await self.perform(tap_on(button))

    async def on_enter_hiding_keyboard(self) -> None:
        await self.pause_before_retry("hiding_keyboard", "tap")
        if self.attempts["hiding_keyboard"] == 1:
            await self.perform(PressKey("escape"))
            return
        point = _point_outside_fields(self.observation, self.attempts["hiding_keyboard"])
        await self.perform(Tap(point.x, point.y))

    async def on_enter_retrying_network(self) -> None:
        """After 2 s, tap Retry; without one, perform the failed action again when its target
        is still there (else only look again)."""
        await self.sleep(self.LADDER["network"])
        button = find_button(self.observation.elements, RETRY_LABELS)
        if button is not None:
            await self.perform(tap_on(button))
            return
        action = self.detection.action
        if action is not None and _repeatable(action, self.observation):
            await self.perform(resolve(action, self.observation))

    async def on_enter_logging_in(self) -> None:
        credentials = self.scenario.credentials
        if credentials is None:
            raise Unrecoverable("a login form, but the scenario has no credentials")
        if self.observation.app != self.scenario.app or self.observation.app_running is False:
            raise Unrecoverable("the login form is not the app under test's: orav stays out")
        user, password, submit = login_fields(self.observation.elements)
        if user is None or password is None:
            raise Unrecoverable("no login form (an account field, a password, a sign-in)")
        await self._fill(user, TypeText(credentials.username))
        await self._fill(password, TypeText(credentials.password, secure=True))
        await self.perform(tap_on(submit) if submit is not None else PressKey("return"))

    async def _fill(self, field: Element, text: TypeText) -> None:
        """Tap a field, check it has focus, clear what it holds, type: never anywhere else."""
        await self.perform(tap_on(field))
        focused = (await self.observe_settled()).focused
        if focused is None or (focused.unique_id, focused.label) != (field.unique_id, field.label):
            raise Unrecoverable(
                f"the field {field.label or field.unique_id!r} did not take focus: "
                "orav types credentials into nothing else"
            )
        held = focused.value if focused.value != focused.placeholder else None
        for _ in range(len(held or "")):
            await self.perform(PressKey("backspace"))
        await self.perform(text)

    async def on_enter_waiting_loading(self) -> None:
        await self.sleep(self.LADDER["network"])

    async def on_enter_refreshing(self) -> None:
        width, height = screen_size(self.observation)
        await self.perform(Swipe(Point(width / 2, height * 0.3), Point(width / 2, height * 0.7)))

    async def on_enter_leaving(self) -> None:
        await self._go_back()

    async def on_enter_going_back(self) -> None:
        await self._go_back()

    async def _go_back(self) -> None:
        """Tap a Back button, or make iOS's back gesture (a swipe from the left edge)."""
        button = find_button(self.observation.elements, BACK_LABELS)
        if button is not None:
            await self.perform(tap_on(button))
            return
        width, height = screen_size(self.observation)
        await self.perform(Swipe(Point(2, height / 2), Point(width * 0.8, height / 2)))

    async def on_enter_scrolling(self) -> None:
        width, height = screen_size(self.observation)
        await self.perform(Swipe(Point(width / 2, height * 0.7), Point(width / 2, height * 0.3)))

    async def on_enter_reloading_dump(self) -> None:
        await self.sleep(self.EMPTY_DUMP_WAIT)

    async def on_enter_relaunching(self) -> None:
        self.crashes += 1
        await self.pause_before_retry("relaunching", "launch")
        await self.launch()
        self.restarted = True
        await self.sleep(self.CRASH_WAIT)

    async def on_enter_restarting(self) -> None:
        await self.pause_before_retry("restarting", "launch")
        await self.terminate()
        await self.launch()
        self.restarted = True
        await self.sleep(self.CRASH_WAIT)

    async def on_enter_retrying_action(self) -> None:
        """The action again: a tap or swipe nudged by ±10 pt, text typed again as it was
        (it typed nothing the first time, so nothing is erased)."""
        action = self.detection.action
        if action is None:
            raise Unrecoverable("no action to retry")
        attempt = self.attempts["retrying_action"]
        budget = self.ACTION_BUDGET.get(action.kind, "tap")
        await self.pause_before_retry("retrying_action", budget)
        dx, dy = self.NUDGES[(attempt - 1) % len(self.NUDGES)]
        await self.perform(_nudged(action, self.before, dx, dy))

    # --- verdicts: what the screen says after an attempt (see VERDICT) -------------------

    async def assess(self) -> str:
        """Look at the app after the current state's attempt; the name of the verdict event."""
        verdict = getattr(self, f"verdict_{self.VERDICT.get(self.state, 'fault_gone')}")
        return await verdict()

    async def verdict_app_state(self) -> str:
        running = await self.device.is_running(self.scenario.app)
        return "running" if running else "not_running"

    async def verdict_app_back(self) -> str:
        observation = await self.observe_until_elements()
        ok = observation.app_running is not False and bool(observation.elements)
        return "cleared" if ok and not observation.error else "persists"

    async def verdict_dump_back(self) -> str:
        observation = await self.observe_until_elements()
        return "cleared" if observation.elements and not observation.error else "persists"

    async def verdict_loading_over(self) -> str:
        observation = await self.observe()
        previous = self.loading_seen
        self.loading_seen = observation
        if shows(observation, "loading") is None:
            return "cleared"
        if changed(previous, observation):
            self.unchanged_for = 0.0
        else:
            self.unchanged_for += self.LADDER["network"]
        return "stalled" if self.unchanged_for >= self.LOADING_STUCK else "persists"

    async def verdict_screen_changed(self) -> str:
        return "cleared" if changed(self.before, await self.observe_settled()) else "persists"

    async def verdict_keyboard_gone(self) -> str:
        observation = await self.observe_settled()
        action = self.detection.action
        blocked = (
            keyboard_blocks(observation, action)
            if action is not None
            else keyboard_frame(observation) is not None
        )
        return "persists" if blocked else "cleared"

    async def verdict_loading_gone(self) -> str:
        observation = await self.observe_settled()
        return "persists" if shows(observation, "loading") is not None else "cleared"

    async def verdict_fault_gone(self) -> str:
        observation = await self.observe_settled()
        return "persists" if shows(observation, self.detection.kind) is not None else "cleared"

    def _evidence(self, kind: str) -> tuple[Element, ...]:
        """The evidence of ``kind`` on the latest observation (the first one: the detection)."""
        if self.observation is self.before and self.detection.kind == kind:
            return self.detection.evidence or self.observation.elements
        found = shows(self.observation, kind)
        return found.evidence if found is not None else ()

    def outcome(self) -> RecoveryOutcome:
        spent = sum(max(0, count - 1) for count in self.attempts.values())
        state = self.state
        return RecoveryOutcome(
            kind=self.detection.kind,
            resolved=state == "resolved",
            actions=tuple(self.actions),
            retries=spent,
            crashes=self.crashes,
            restarted=self.restarted,
            handed_back=state == "handed_back",
            observation=self.observation,
            error=None if state in ("resolved", "handed_back") else (self.error or "failed"),
        )


def _repeatable(action: Action, observation: Observation) -> bool:
    """Whether ``action`` can be performed again on ``observation`` as it was meant."""
    if isinstance(action, Tap) and action.target is not None and action.x is None:
        return target_element(observation, action.target) is not None
    return isinstance(action, (Tap, Swipe, PressKey))


def _nudged(action: Action, observation: Observation, dx: float, dy: float) -> Action:
    """The action again, moved by (dx, dy) points, never off the element it aims at: a retry
    must hit the same control (a terminal app's points are cells, and 10 of them are often the
    next tab). A tap's point, or a swipe's both ends."""
    if isinstance(action, Tap):
        if action.x is not None and action.y is not None:
            point = Point(action.x, action.y)
            element = _element_at(observation, point)
        else:
            element = target_element(observation, action.target)
            if element is None:
                return action
            point = element.frame.center
        nx, ny = _within(element, dx, dy)
        return Tap(point.x + nx, point.y + ny, action.target, action.duration, action.vision)
    if isinstance(action, Swipe):
        nx, ny = _within(_element_at(observation, action.start), dx, dy)
        return evolve(
            action,
            start=Point(action.start.x + nx, action.start.y + ny),
            end=Point(action.end.x + nx, action.end.y + ny),
        )
    return action


def _within(element: Element | None, dx: float, dy: float) -> tuple[float, float]:
    """(dx, dy) shrunk to a quarter of ``element``'s size, so the point stays on it."""
    if element is None or element.frame.is_empty:
        return dx, dy
    width, height = element.frame.width / 4, element.frame.height / 4
    return max(-width, min(width, dx)), max(-height, min(height, dy))


def _element_at(observation: Observation, point: Point) -> Element | None:
    """The smallest element under ``point``: what a tap there lands on."""
    under = [e for e in observation.elements if not e.frame.is_empty and e.frame.contains(point)]
    return min(under, key=lambda e: e.frame.width * e.frame.height, default=None)


def _point_outside_fields(observation: Observation, attempt: int) -> Point:
    """A point above the keyboard off every field and button: a label first, then blank."""
    width, height = screen_size(observation)
    board = keyboard_frame(observation)
    top = board.y if board is not None else height / 2
    blockers = [
        e.frame
        for e in observation.elements
        if e.role in TEXT_FIELD_ROLES or e.role in BUTTON_ROLES or is_secure(e)
    ]
    labels = sorted(
        (
            e.frame.center
            for e in observation.elements
            if e.role in STATIC_ROLES and STATUS_BAR_POINTS < e.frame.center.y < top
        ),
        key=lambda point: -point.y,
    )
    blank = [Point(x, y) for y in _descending(top - 12, 60, 24) for x in (width / 2, 12)]
    free = [p for p in (*labels, *blank) if not any(f.contains(p) for f in blockers)]
    pool = free or [Point(width / 2, top / 2)]
    return pool[(attempt - 2) % len(pool)]


def _descending(start: float, stop: float, step: float) -> list[float]:
    count = max(0, int((start - stop) // step) + 1)
    return [start - i * step for i in range(count)]


async def recover(
    detection: Detection,
    *,
    device: Device,
    observation: Observation,
    scenario: Scenario,
    sleep: Sleep = asyncio.sleep,
    on_transition: OnTransition | None = None,
    on_action: OnAction | None = None,
) -> RecoveryOutcome:
    """Run the recovery for one detection to its end; never raises for device trouble (a
    replay's divergence, which is no device trouble, is raised as it is)."""
    machine = RecoveryMachine(
        detection,
        device=device,
        observation=observation,
        scenario=scenario,
        sleep=sleep,
        on_action=on_action,
    )
    path: list[tuple[str, str, str]] = []
    await machine.activate_initial_state()
    machine.add_listener(_Transitions(path, on_transition))
    await machine.send(detection.kind)
    _raise_through(machine.raised)
    for _ in range(machine.max_events()):
        if machine.is_terminated:
            break
        try:
            event = await machine.assess()
        except Exception as exc:  # noqa: BLE001 - every failure ends the recovery, with its text
            await machine.send("error.execution", error=exc)
        else:
            await machine.send(event)
        _raise_through(machine.raised)
    if not machine.is_terminated:
        await machine.send("error.execution", error=RuntimeError("recovery exceeded its budget"))
    return evolve(machine.outcome(), path=tuple(path))


def _raise_through(error: BaseException | None) -> None:
    """Raise what is no failure of the recovery: a replay's divergence."""
    if isinstance(error, ReplayDivergence):
        raise error


class _Transitions:
    """Listener: keeps the path taken and hands each transition to the engine's callback."""

    def __init__(self, path: list[tuple[str, str, str]], callback: OnTransition | None) -> None:
        self.path = path
        self.callback = callback

    async def after_transition(self, event: str, source: State, target: State) -> None:
        self.path.append((source.id, str(event), target.id))
        if self.callback is not None:
            returned = self.callback("recovery", source.id, str(event), target.id)
            if asyncio.iscoroutine(returned):
                await returned
