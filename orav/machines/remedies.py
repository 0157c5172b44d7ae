"""The remedies: one attempt per entry of a remedy state (its ``enter`` in the machine's
declaration), through the recovery's device only.

Remedies do no harm: an alert is dismissed only through a non-destructive label (or escape);
credentials are typed only into the fields of a login form of the app under test, each after
checking that it has focus; an action that changed nothing is retried as itself, never widened
(text is typed again, not the field cleared). What cannot apply safely raises
``Unrecoverable``, which ends the recovery as failed with its reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from orav.machines.aim import nudged, point_outside_fields, repeatable
from orav.model import Element, FaultKind, Point, PressKey, Swipe, Tap, TypeText
from orav.perceive import shows
from orav.perceive.faults import login_fields, screen_size
from orav.perceive.roles import (
    ALLOW_LABELS,
    BACK_LABELS,
    BUTTON_ROLES,
    DENY_LABELS,
    DISMISS_LABELS,
    RETRY_LABELS,
    find_button,
)
from orav.perceive.targets import resolve, tap_on

if TYPE_CHECKING:
    from orav.machines.recovery import RecoveryMachine


class Unrecoverable(Exception):
    """A remedy cannot apply safely (nothing safe to press, no credentials, no login form):
    the recovery fails with it."""


async def dismiss_alert(machine: RecoveryMachine) -> None:
    """Press a non-destructive label of the alert; with no button at all (a terminal
    dialog, a command palette), escape. An alert that offers only other answers (Yes,
    Delete, Sign Out) is the agent's to answer: the recovery fails and says so."""
    await _pause_before_retry(machine, "dismissing_alert", "tap")
    buttons = [e for e in _evidence(machine, "alert") if e.role in BUTTON_ROLES]
    button = find_button(buttons, DISMISS_LABELS)
    if button is not None:
        await machine.device.perform(tap_on(button))
    elif not buttons and machine.attempts["dismissing_alert"] == 1:
        await machine.device.perform(PressKey("escape"))
    else:
        offered = ", ".join(repr(b.label) for b in buttons if b.label) or "none"
        raise Unrecoverable(
            f"the alert offers no safe answer (buttons: {offered}); orav never confirms "
            "for the test: answer it in the scenario"
        )


async def answer_permission(machine: RecoveryMachine) -> None:
    """Tap the scenario's answer (``permissions:``), and nothing but Allow or Don't Allow."""
    await _pause_before_retry(machine, "answering_permission", "tap")
    labels = ALLOW_LABELS if machine.scenario.permissions == "allow" else DENY_LABELS
    button = find_button(machine.observation.elements, labels)
    if button is None:
        raise Unrecoverable(f"the permission dialog has no {labels[0]!r} button")
    await machine.device.perform(tap_on(button))


async def hide_keyboard(machine: RecoveryMachine) -> None:
    """Escape first, then taps on plain text or blank space above the keyboard."""
    await _pause_before_retry(machine, "hiding_keyboard", "tap")
    attempt = machine.attempts["hiding_keyboard"]
    if attempt == 1:
        await machine.device.perform(PressKey("escape"))
        return
    point = point_outside_fields(machine.observation, attempt)
    await machine.device.perform(Tap(point.x, point.y))


async def retry_network(machine: RecoveryMachine) -> None:
    """After 2 s, tap Retry; without one, perform the failed action again when its target
    is still there (else only look again)."""
    await machine.device.sleep(machine.LADDER["network"])
    observation = machine.observation
    button = find_button(observation.elements, RETRY_LABELS)
    if button is not None:
        await machine.device.perform(tap_on(button))
        return
    action = machine.detection.action
    if action is not None and repeatable(action, observation):
        await machine.device.perform(resolve(action, observation))


async def log_in(machine: RecoveryMachine) -> None:
    """Type the scenario's credentials into the app's own login form, then sign in."""
    credentials = machine.scenario.credentials
    if credentials is None:
        raise Unrecoverable("a login form, but the scenario has no credentials")
    observation = machine.observation
    if observation.app != machine.scenario.app or observation.app_running is False:
        raise Unrecoverable("the login form is not the app under test's: orav stays out")
    user, password, submit = login_fields(observation.elements)
    if user is None or password is None:
        raise Unrecoverable("no login form (an account field, a password, a sign-in)")
    await _fill(machine, user, TypeText(credentials.username))
    await _fill(machine, password, TypeText(credentials.password, secure=True))
    await machine.device.perform(tap_on(submit) if submit is not None else PressKey("return"))


async def _fill(machine: RecoveryMachine, field: Element, text: TypeText) -> None:
    """Tap a field, check it has focus, clear what it holds, type: never anywhere else."""
    await machine.device.perform(tap_on(field))
    focused = (await machine.device.observe_settled()).focused
    if focused is None or (focused.unique_id, focused.label) != (field.unique_id, field.label):
        raise Unrecoverable(
            f"the field {field.label or field.unique_id!r} did not take focus: "
            "orav types credentials into nothing else"
        )
    held = focused.value if focused.value != focused.placeholder else None
    for _ in range(len(held or "")):
        await machine.device.perform(PressKey("backspace"))
    await machine.device.perform(text)


async def wait_loading(machine: RecoveryMachine) -> None:
    await machine.device.sleep(machine.LADDER["network"])


async def pull_to_refresh(machine: RecoveryMachine) -> None:
    width, height = screen_size(machine.observation)
    await machine.device.perform(
        Swipe(Point(width / 2, height * 0.3), Point(width / 2, height * 0.7))
    )


async def go_back(machine: RecoveryMachine) -> None:
    """Tap a Back button, or make iOS's back gesture (a swipe from the left edge)."""
    button = find_button(machine.observation.elements, BACK_LABELS)
    if button is not None:
        await machine.device.perform(tap_on(button))
        return
    width, height = screen_size(machine.observation)
    await machine.device.perform(Swipe(Point(2, height / 2), Point(width * 0.8, height / 2)))


async def scroll(machine: RecoveryMachine) -> None:
    width, height = screen_size(machine.observation)
    await machine.device.perform(
        Swipe(Point(width / 2, height * 0.7), Point(width / 2, height * 0.3))
    )


async def wait_for_dump(machine: RecoveryMachine) -> None:
    await machine.device.sleep(machine.EMPTY_DUMP_WAIT)


async def relaunch(machine: RecoveryMachine) -> None:
    """The app crashed: launch it again, then give it the crash wait."""
    machine.crashes += 1
    await _pause_before_retry(machine, "relaunching", "launch")
    await machine.device.launch()
    machine.restarted = True
    await machine.device.sleep(machine.CRASH_WAIT)


async def restart(machine: RecoveryMachine) -> None:
    """Terminate and launch the app, then give it the crash wait."""
    await _pause_before_retry(machine, "restarting", "launch")
    await machine.device.terminate()
    await machine.device.launch()
    machine.restarted = True
    await machine.device.sleep(machine.CRASH_WAIT)


async def retry_action(machine: RecoveryMachine) -> None:
    """The action again: a tap or swipe nudged by ±10 pt, text typed again as it was
    (it typed nothing the first time, so nothing is erased)."""
    action = machine.detection.action
    if action is None:
        raise Unrecoverable("no action to retry")
    attempt = machine.attempts["retrying_action"]
    budget = machine.ACTION_BUDGET.get(action.kind, "tap")
    await _pause_before_retry(machine, "retrying_action", budget)
    dx, dy = machine.NUDGES[(attempt - 1) % len(machine.NUDGES)]
    await machine.device.perform(nudged(action, machine.before, dx, dy))


async def _pause_before_retry(machine: RecoveryMachine, state: str, budget: str) -> None:
    pause = machine.PAUSE.get(budget)
    if machine.attempts.get(state, 0) > 1 and pause:
        await machine.device.sleep(pause)


def _evidence(machine: RecoveryMachine, kind: FaultKind) -> tuple[Element, ...]:
    """The evidence of ``kind`` on the latest observation (the first one: the detection)."""
    observation = machine.observation
    if observation is machine.before and machine.detection.kind == kind:
        return machine.detection.evidence or observation.elements
    found = shows(observation, kind)
    return found.evidence if found is not None else ()
