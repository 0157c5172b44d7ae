"""The remedies: one attempt per entry of a remedy state (its ``enter`` in the machine's
declaration), through the recovery's device only.

Remedies do no harm: no remedy performs a deed (``orav.perceive.deeds``). A dialog or a cover
is answered only by its declining answer (``dismissing``: Cancel, Not Now, Ask App Not to
Track, Only Necessary; never its affirmative one), an acknowledgement that is the dialog's
only answer, or escape; a permission dialog gets the scenario's answer (``permissions:``,
refused when it says nothing); credentials are typed only into the fields of a login form of
the app under test, each after checking that it has focus; an action that changed nothing is
retried as itself, never widened (text is typed again, not the field cleared) nor moved onto
anything else. What cannot apply safely raises ``Unrecoverable``, which ends the recovery as
failed with its reason.
"""

from __future__ import annotations

from orav.machines.aim import nudged, point_outside_fields, repeatable
from orav.machines.attempt import Attempt
from orav.model import Element, FaultKind, Point, PressKey, Swipe, Tap, TypeText
from orav.perceive import shows
from orav.perceive.faults import covering, login_fields, screen_size
from orav.perceive.occlusion import modal_elements
from orav.perceive.roles import (
    ALLOW_LABELS,
    BACK_LABELS,
    BUTTON_ROLES,
    DENY_LABELS,
    RETRY_LABELS,
    find_button,
)
from orav.perceive.targets import resolve, tap_on
from orav.perceive.words import dismissing


class Unrecoverable(Exception):
    """A remedy cannot apply safely (nothing safe to press, no credentials, no login form):
    the recovery fails with it."""


async def dismiss_alert(attempt: Attempt) -> None:
    """Press the alert's declining answer (``dismissing``); with no button at all (a terminal
    dialog, a command palette), escape. An alert that offers only other answers (Yes,
    Delete, Sign Out, Rate) is the agent's to answer: the recovery fails and says so."""
    await _pause_before_retry(attempt, "dismissing_alert", "tap")
    buttons = [e for e in _evidence(attempt, "alert") if e.role in BUTTON_ROLES]
    button = dismissing(buttons)
    if button is not None:
        await attempt.device.perform(tap_on(button))
    elif not buttons and attempt.entries["dismissing_alert"] == 1:
        await attempt.device.perform(PressKey("escape"))
    else:
        raise Unrecoverable(
            f"the alert offers no safe answer (buttons: {_shown(buttons)}); orav never confirms "
            "for the test: answer it in the scenario"
        )


async def answer_permission(attempt: Attempt) -> None:
    """Tap the scenario's answer (``permissions:``): the refusal unless it says ``allow``,
    then the grant (Allow…, else the dialog's one answer beside its refusal); never anything
    else."""
    await _pause_before_retry(attempt, "answering_permission", "tap")
    evidence = _evidence(attempt, "permission")
    dialog = modal_elements(attempt.observation.elements) or evidence
    buttons = [e for e in dialog if e.role in BUTTON_ROLES]
    refusal = find_button(buttons, DENY_LABELS)
    if attempt.scenario.permissions == "allow":
        others = [b for b in buttons if b is not refusal]
        button = find_button(buttons, ALLOW_LABELS) or (
            others[0] if refusal is not None and len(others) == 1 else None
        )
        wanted = "a grant (Allow)"
    else:
        button, wanted = refusal, "a refusal (Don't Allow)"
    if button is None:
        raise Unrecoverable(f"the permission dialog has no {wanted} (buttons: {_shown(buttons)})")
    await attempt.device.perform(tap_on(button))


async def uncover(attempt: Attempt) -> None:
    """Clear what covers the decided target (a banner, sheet, toast, popover): press its
    declining answer (a cookie banner's least consent: Only necessary, Reject all; a close
    button); a cover with no control (a toast: plain text) is tapped, as a person clicks a
    notification away, then waited on, as it goes by itself. One that
    offers only other answers fails the recovery, naming it: orav never consents for the test,
    and never taps beside the cover."""
    await _pause_before_retry(attempt, "uncovering", "tap")
    action = attempt.detection.action
    observation = attempt.observation
    cover = covering(observation, action) if action is not None else None
    if cover is None:
        return  # gone already: the verdict says so
    button = dismissing(cover.buttons)
    entry = attempt.entries["uncovering"]
    if button is not None:
        await attempt.device.perform(tap_on(button))
    elif not cover.buttons and entry == 1:
        await attempt.device.perform(tap_on(cover.elements[0]))  # plain text: it does nothing
    elif not cover.buttons and entry < attempt.limit("uncovering"):
        await attempt.device.sleep(attempt.LADDER["network"])
    elif not cover.buttons:
        raise Unrecoverable(f"{cover.name} covers the target; tapped and waited, it did not go")
    else:
        raise Unrecoverable(
            f"{cover.name} covers the target and offers no declining answer (buttons: "
            f"{_shown(cover.buttons)}); orav never consents for the test: answer it in the "
            "scenario"
        )


def _shown(buttons: list[Element] | tuple[Element, ...]) -> str:
    return ", ".join(repr(b.label) for b in buttons if b.label) or "none"


async def hide_keyboard(attempt: Attempt) -> None:
    """Escape first, then taps on plain text or blank space above the keyboard."""
    await _pause_before_retry(attempt, "hiding_keyboard", "tap")
    entry = attempt.entries["hiding_keyboard"]
    if entry == 1:
        await attempt.device.perform(PressKey("escape"))
        return
    point = point_outside_fields(attempt.observation, entry)
    await attempt.device.perform(Tap(point.x, point.y))


async def retry_network(attempt: Attempt) -> None:
    """After 2 s, tap Retry; without one, perform the failed action again when its target
    is still there (else only look again)."""
    await attempt.device.sleep(attempt.LADDER["network"])
    observation = attempt.observation
    button = find_button(observation.elements, RETRY_LABELS)
    if button is not None:
        await attempt.device.perform(tap_on(button))
        return
    action = attempt.detection.action
    if action is not None and repeatable(action, observation):
        await attempt.device.perform(resolve(action, observation))


async def log_in(attempt: Attempt) -> None:
    """Type the scenario's credentials into the app's own login form, then sign in."""
    credentials = attempt.scenario.credentials
    if credentials is None:
        raise Unrecoverable("a login form, but the scenario has no credentials")
    observation = attempt.observation
    if observation.app != attempt.scenario.app or observation.app_running is False:
        raise Unrecoverable("the login form is not the app under test's: orav stays out")
    user, password, submit = login_fields(observation.elements)
    if user is None or password is None:
        raise Unrecoverable("no login form (an account field, a password, a sign-in)")
    await _fill(attempt, user, TypeText(credentials.username))
    await _fill(attempt, password, TypeText(credentials.password, secure=True))
    await attempt.device.perform(tap_on(submit) if submit is not None else PressKey("return"))


async def _fill(attempt: Attempt, field: Element, text: TypeText) -> None:
    """Tap a field, check it has focus, clear what it holds, type: never anywhere else."""
    await attempt.device.perform(tap_on(field))
    focused = (await attempt.device.observe_settled()).focused
    if focused is None or (focused.unique_id, focused.label) != (field.unique_id, field.label):
        raise Unrecoverable(
            f"the field {field.label or field.unique_id!r} did not take focus: "
            "orav types credentials into nothing else"
        )
    held = focused.value if focused.value != focused.placeholder else None
    for _ in range(len(held or "")):
        await attempt.device.perform(PressKey("backspace"))
    await attempt.device.perform(text)


async def wait_loading(attempt: Attempt) -> None:
    await attempt.device.sleep(attempt.LADDER["network"])


async def pull_to_refresh(attempt: Attempt) -> None:
    width, height = screen_size(attempt.observation)
    await attempt.device.perform(
        Swipe(Point(width / 2, height * 0.3), Point(width / 2, height * 0.7))
    )


async def go_back(attempt: Attempt) -> None:
    """Tap a Back button, or make iOS's back gesture (a swipe from the left edge)."""
    button = find_button(attempt.observation.elements, BACK_LABELS)
    if button is not None:
        await attempt.device.perform(tap_on(button))
        return
    width, height = screen_size(attempt.observation)
    await attempt.device.perform(Swipe(Point(2, height / 2), Point(width * 0.8, height / 2)))


async def scroll(attempt: Attempt) -> None:
    width, height = screen_size(attempt.observation)
    await attempt.device.perform(
        Swipe(Point(width / 2, height * 0.7), Point(width / 2, height * 0.3))
    )


async def wait_for_dump(attempt: Attempt) -> None:
    await attempt.device.sleep(attempt.EMPTY_DUMP_WAIT)


async def relaunch(attempt: Attempt) -> None:
    """The app crashed: launch it again, then give it the crash wait."""
    attempt.crashes += 1
    await _pause_before_retry(attempt, "relaunching", "launch")
    await attempt.device.launch()
    attempt.restarted = True
    await attempt.device.sleep(attempt.CRASH_WAIT)


async def restart(attempt: Attempt) -> None:
    """Terminate and launch the app, then give it the crash wait."""
    await _pause_before_retry(attempt, "restarting", "launch")
    await attempt.device.terminate()
    await attempt.device.launch()
    attempt.restarted = True
    await attempt.device.sleep(attempt.CRASH_WAIT)


async def retry_action(attempt: Attempt) -> None:
    """The action again: a tap or swipe nudged by ±10 pt, text typed again as it was
    (it typed nothing the first time, so nothing is erased)."""
    action = attempt.detection.action
    if action is None:
        raise Unrecoverable("no action to retry")
    entry = attempt.entries["retrying_action"]
    budget = attempt.ACTION_BUDGET.get(action.kind, "tap")
    await _pause_before_retry(attempt, "retrying_action", budget)
    dx, dy = attempt.NUDGES[(entry - 1) % len(attempt.NUDGES)]
    await attempt.device.perform(nudged(action, attempt.before, dx, dy))


async def _pause_before_retry(attempt: Attempt, state: str, budget: str) -> None:
    pause = attempt.PAUSE.get(budget)
    if attempt.entries.get(state, 0) > 1 and pause:
        await attempt.device.sleep(pause)


def _evidence(attempt: Attempt, kind: FaultKind) -> tuple[Element, ...]:
    """The evidence of ``kind`` on the latest observation (the first one: the detection)."""
    observation = attempt.observation
    if observation is attempt.before and attempt.detection.kind == kind:
        return attempt.detection.evidence or observation.elements
    found = shows(observation, kind)
    return found.evidence if found is not None else ()
