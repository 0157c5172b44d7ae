"""The prompt for an LLM agent: the goal, a compact tree with element references, history.

The tree encoding keeps only what helps a decision (role, label, id, value, state, centre) and
names each kept element ``e<N>``, N its index in the observation's pre-order list: the same
screen gets the same references from step to step, and a reference maps straight back to
its element. Chat Completions messages are plain dicts, the wire form every OpenAI-compatible
server accepts.
"""

from __future__ import annotations

import base64
import io
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from attrs import frozen

from orav.agents import AgentContext
from orav.agents.family import Unit
from orav.agents.space import Space, space_for
from orav.model import Assert, Element, Frame, Observation, RunningState, Screenshot, show_action
from orav.model.step import Step
from orav.perceive.legend import Legends
from orav.perceive.screens import screen_name
from orav.secrets import PASSWORD

SYSTEM_PROMPT = f"""\
You are a UI acceptance tester driving one app, one action per step (observe, reason, act, \
verify). Each turn you get the goal, the screen as an accessibility tree, maybe a screenshot, \
and the recent steps. Reply with one JSON object:
{{"previous_outcome_met": true|false|null, "reasoning": "...", "element": "e12"|null, \
"action": {{"kind": ...}}, "expected_outcome": "...", "notes": "..."|null, "plan": [...]|null}}
- previous_outcome_met: did the previous step's expected outcome happen, judged on THIS \
screen? null on the first step.
- notes and plan are optional: your memory and your sub-goals, shown to you again on the next \
steps (the last you wrote); null keeps them.
- To tap an element give its reference in "element" and {{"kind": "tap", "x": null, "y": null, \
"duration": null}}: the tap lands on its centre. Give x, y (in the unit the Screen line \
names) only for what the tree lacks.
- type_text types into the focused field: tap the field first. Type the test password as \
{PASSWORD}, and a secret shown as {{{{NAME}}}} as it is shown; orav types it and never shows it.
- Actions: tap, type_text, swipe (start/end points), press_key (return, escape, tab, \
backspace, delete, space, home; a terminal app takes any key: up, down, pageup, ctrl+s, f5, \
shift+tab, a letter), wait (seconds), launch, terminate, assert (target label/id; \
condition visible, absent, value_equals, contains or matches (a regex); contains and matches \
without a target check the whole screen text), done (success, summary), recover (orav handles \
the interruption on screen: dismisses an alert through a safe button, signs in, waits out a \
spinner, retries after a network error). null in an optional field means its default.
Decide in this order of priority:
1. Recovery first: a crash, an empty screen, a system permission dialog and a keyboard over \
your target are handled for you before you are asked. An interruption (a dialog, a login \
form, a spinner, an error banner) is named under "Interruption:": if the test itself opened \
it (a confirmation the goal asks you to answer), answer it yourself; if it is in the way, \
choose recover or act around it. Never confirm something destructive the goal did not ask \
for.
2. Goal progress: the action that most directly advances the goal and its success criteria.
3. Coverage gaps: when the direct path is blocked or an action changed nothing, try a control \
not tried yet instead of repeating yourself.
4. Regression check: when the goal looks reached, assert the success criteria, then done with \
success true. When it cannot be reached, done with success false and say why."""

_DECORATIVE_ROLES = frozenset({"AXOther", "AXGroup", "AXImage", "AXScrollArea", "AXWindow"})
_MAX_TEXT = 60
_ROLE_NAMES = {"StaticText": "Text"}


@frozen
class Screen:
    """The size of the screen in points, when known: bounds for taps and swipes."""

    width: float
    height: float

    def contains(self, x: float, y: float) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height


def screen_of(context: AgentContext) -> Screen | None:
    """The screen in points: the device's size, else the application element's, else None."""
    device = context.device
    if device is not None and device.width > 0 and device.height > 0:
        return Screen(device.width, device.height)
    elements = context.observation.elements
    if elements and elements[0].role == "AXApplication" and not elements[0].frame.is_empty:
        frame = elements[0].frame
        return Screen(frame.x + frame.width, frame.y + frame.height)
    shot = context.observation.screenshot
    if shot is not None and shot.width > 0 and shot.height > 0:
        return Screen(shot.width / shot.scale, shot.height / shot.scale)
    return None


def space_of(
    context: AgentContext, image: tuple[int, int] | None = None, unit: Unit = "points"
) -> Space | None:
    """The prompt's coordinate space (``orav.agents.space``): the screen in points, cells on a
    terminal, the screenshot's ``image`` size in pixels, a family answering in ``unit``."""
    screen = screen_of(context)
    if screen is None:
        return None
    device = context.device
    cells = device is not None and device.platform == "textual"
    return space_for(screen.width, screen.height, cells=cells, image=image, family_unit=unit)


def _quote(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > _MAX_TEXT:
        text = text[: _MAX_TEXT - 1] + "…"
    return '"' + text.replace('"', "'") + '"'


def _num(value: float) -> str:
    return str(round(value))


def _kept(element: Element) -> bool:
    """Zero-size nodes and unlabelled containers or images help no decision."""
    if element.frame.is_empty:
        return False
    if element.role in _DECORATIVE_ROLES:
        return bool(element.label or element.unique_id or element.value)
    return True


def _snake(text: str) -> str:
    return re.sub(r"\W+", "_", text.lower()).strip("_")


def element_line(
    ref: str, element: Element, screen: Screen | None = None, space: Space | None = None
) -> str:
    """One element: ``e4 TextField "Email" #mail ="a@b.c" @195,242 focused``.

    An id that only restates the label (``#sign_in`` of "Sign in") and a placeholder beside a
    label are left out: they cost characters and add nothing to a decision.
    """
    parts = [ref, _ROLE_NAMES.get(element.type, element.type), *_said(element)]
    center = element.frame.center
    x, y = space.shown(center.x, center.y) if space is not None else (center.x, center.y)
    parts.append(f"@{_num(x)},{_num(y)}")
    states = (
        ("disabled", not element.enabled),
        ("focused", element.focused),
        ("selected", "selected" in element.traits),
        ("offscreen", screen is not None and not screen.contains(center.x, center.y)),
    )
    parts += [state for state, holds in states if holds]
    return " ".join(parts)


def _said(element: Element) -> list[str]:
    """An element's label, its id (unless it restates the label), and its value (bullets when
    secure; its placeholder when it has neither value nor label)."""
    parts = []
    if element.label:
        parts.append(_quote(element.label))
    if element.unique_id and (not element.label or element.unique_id != _snake(element.label)):
        parts.append("#" + element.unique_id)
    if element.secure:
        parts += ["secure", "=•••"] if element.value else ["secure"]
    elif element.value:
        parts.append("=" + _quote(element.value))
    elif element.placeholder and not element.label:
        parts.append("placeholder=" + _quote(element.placeholder))
    return parts


def _inside(inner: Frame, outer: Frame) -> bool:
    return (
        outer.x <= inner.x
        and outer.y <= inner.y
        and inner.x + inner.width <= outer.x + outer.width
        and inner.y + inner.height <= outer.y + outer.height
    )


def _app_lines(app: Element) -> list[str]:
    """What the app element tells a model: the app's and the screen's key bindings (what
    press_key can do here) and the app's own commands in its command palette."""
    lines = []
    bound = [t.removeprefix("binding:") for t in app.traits if t.startswith("binding:")]
    if bound:
        lines.append(f"App {_quote(app.label or '')} keys: {', '.join(bound)}")
    said = [t.removeprefix("command:") for t in app.traits if t.startswith("command:")]
    if said:
        lines.append(f"App commands in its palette (ctrl+p): {', '.join(said)}")
    return lines


def encode_tree(
    observation: Observation, screen: Screen | None = None, space: Space | None = None
) -> tuple[str, dict[str, Element]]:
    """The compact tree, one element a line, and the references it cites.

    The software keyboard's keys fold into its one line: typing is ``type_text``. They are
    kept as ``(eN)``: a model cannot cite a reference it was never shown, a tap's point on a
    key still finds the key.
    """
    refs: dict[str, Element] = {}
    lines: list[str] = []
    keyboard: tuple[int, Frame] | None = None
    keys = 0
    for index, element in enumerate(observation.elements):
        if index == 0 and element.role == "AXApplication":
            lines += _app_lines(element)
            continue
        if not _kept(element):
            continue
        ref = f"e{index}"
        if keyboard is not None and _inside(element.frame, keyboard[1]):
            refs[f"({ref})"] = element  # not shown, so not citable; a tap's point finds it
            keys += 1
            continue
        refs[ref] = element
        if keyboard is not None and keys:
            lines[keyboard[0]] += f" ({keys} keys: use type_text and press_key)"
            keyboard, keys = None, 0
        if element.type == "Keyboard":
            keyboard = (len(lines), element.frame)
        lines.append(element_line(ref, element, screen, space))
    if keyboard is not None and keys:
        lines[keyboard[0]] += f" ({keys} keys: use type_text and press_key)"
    return "\n".join(lines), refs


def _criterion(check: Assert) -> str:
    if check.claim is not None:  # a claim in words: the judge decides it as written
        return '"' + " ".join(check.claim.split()).replace('"', "'") + '"'
    where = "the screen" if check.target is None else check.target
    return f"{where} {check.condition}" + (f" {_quote(check.value)}" if check.value else "")


def _step_line(step: Step) -> str:
    decision = step.decision
    line = f"{step.index}. [{step.screen}] {show_action(decision.action)}"
    if decision.expected_outcome:
        line += f"; expected: {decision.expected_outcome}"
    line += "; result: " + ("ok" if step.result.ok else f"failed ({step.result.error})")
    verification = step.verification
    if verification is not None:
        line += "; screen " + ("changed" if verification.changed else "UNCHANGED")
        if verification.expected_seen is not None:
            line += ", expected " + ("seen" if verification.expected_seen else "NOT seen")
        if verification.input_dropped:
            line += ", input dropped"
        if verification.note.startswith("no effect"):
            line += "; NO EFFECT even when retried: try something else"
    if step.repeat_of is not None:
        line += (
            f"; the same action on the same screen as step {step.repeat_of}, with nothing new "
            "since: you are going round in circles, try something else"
        )
    return line


def _memory(history: Sequence[Step]) -> list[str]:
    """The model's last plan and notes, however many steps back it wrote them."""
    out = []
    plan = next((s for s in reversed(history) if s.decision.plan), None)
    if plan is not None and plan.decision.plan:
        items = "; ".join(
            f"{n}. {' '.join(item.split())}" for n, item in enumerate(plan.decision.plan, 1)
        )
        out.append(f"Your plan (step {plan.index}): {items}")
    notes = next((s for s in reversed(history) if s.decision.notes), None)
    if notes is not None and notes.decision.notes:
        out.append(f"Your notes (step {notes.index}): {' '.join(notes.decision.notes.split())}")
    return out


MAX_STATE_SCREENS = 12  # the screens named in the state line: the last ones first seen
MAX_STATE_FAILURES = 5  # the failed steps it names: the latest


def state_line(context: AgentContext) -> str:
    """The running state in one line (``orav.model.RunningState``): where the run stands, the
    screens it has seen (the latest few named), its moves between them and failed steps."""
    history = context.history
    screens = [step.screen for step in history] + [screen_name(context.observation)]
    failed = [step for step in history if not step.result.ok]
    state = RunningState.of(screens, steps=len(history), errors=[str(s.index) for s in failed])
    visited = state.screens_visited
    named = ", ".join(_quote(s) for s in visited[-MAX_STATE_SCREENS:])
    more = f"{len(visited) - MAX_STATE_SCREENS} more, " if len(visited) > MAX_STATE_SCREENS else ""
    latest = ", ".join(state.errors_encountered[-MAX_STATE_FAILURES:])
    errors = f"{len(failed)} failed steps (latest: {latest})" if failed else "no failed step"
    return (
        f"State: on {_quote(state.current_screen)} after {state.steps_taken} steps; "
        f"{len(visited)} screens seen ({more}{named}), {state.coverage.paths_explored} moves "
        f"between them; {errors}."
    )


def user_text(
    context: AgentContext,
    history: int,
    screen: Screen | None,
    space: Space | None = None,
    legends: Legends | None = None,
) -> tuple[str, dict]:
    """The turn's text: goal, criteria, recent steps, the screen; with the references it cites,
    and the keys the app's help screens listed (``legends``), saying where each was read."""
    scenario = context.scenario
    out = [f"Goal: {scenario.goal}"]
    if scenario.success_criteria:
        out.append("Success criteria: " + "; ".join(map(_criterion, scenario.success_criteria)))
    if scenario.credentials is not None:
        out.append(
            f"Test account: username {_quote(scenario.credentials.username)}, password {PASSWORD}"
        )
    out.append(f"Permission dialogs: {scenario.permissions}.")
    out.append(f"Step {context.step} of at most {scenario.max_steps}.")
    if context.history:
        out.append(state_line(context))
    recent = context.history[-history:] if history > 0 else ()
    if recent:
        out.append("Recent steps:")
        out.extend(_step_line(step) for step in recent)
    out.extend(_memory(context.history))
    if context.history:
        out.append(
            f"Verify step {context.history[-1].index}: judge previous_outcome_met on this screen."
        )
    observation = context.observation
    app = observation.app or scenario.app
    state = {True: "running", False: "NOT running", None: "(state unknown)"}[
        observation.app_running
    ]
    size = f", {_num(screen.width)}x{_num(screen.height)} points" if screen else ""
    if space is not None:
        size = f", {_num(space.width)}x{_num(space.height)} {space.unit}"
        size += f" ({space.describe()})" if space.describe() else ""
    out.append(f"Screen: app {app} {state}{size}. Elements (ref role label #id =value @centre):")
    if observation.error:
        out.append(f"(observation error: {observation.error})")
    tree, refs = encode_tree(observation, screen, space)
    out.append(tree or "(no elements)")
    if legends is not None:
        out.extend(legends.lines())
    if context.interruption is not None:
        found = context.interruption
        out.append(f"Interruption: {found.kind} ({_quote(found.note or found.kind)}).")
    return "\n".join(out), refs


@lru_cache(maxsize=8)
def screenshot_data_url(
    shot: Screenshot, max_side: int, block: int = 0
) -> tuple[str, tuple[int, int]]:
    """The screenshot as a PNG data URL at point resolution and at most ``max_side`` pixels,
    with its size in pixels (``orav.agents.space`` says what one spans).

    Point resolution makes pixel and point coordinates the same for the model (on iOS; a
    terminal cell is several pixels). With a ``block``, the image is padded right and below to
    a multiple of it: a family's vision encoder that cuts images into blocks then keeps every
    pixel where it was. Cached by content hash: a screen that did not change is not encoded twice.
    """
    from PIL import Image

    image: Image.Image = Image.open(io.BytesIO(shot.data))
    scale = max(shot.scale, 1.0, max(image.size) / max_side if max_side > 0 else 1.0)
    if scale > 1.0:
        if float(scale).is_integer():  # box-average by a whole factor: 5x faster than resize
            image = image.reduce(int(scale))
        else:
            size = (max(1, round(image.width / scale)), max(1, round(image.height / scale)))
            image = image.resize(size, Image.Resampling.BILINEAR, reducing_gap=2.0)
    size = image.size
    padded = (-(-size[0] // block) * block, -(-size[1] // block) * block) if block else size
    if padded != size:
        canvas = Image.new(image.mode if image.mode in ("RGB", "RGBA", "L") else "RGB", padded)
        canvas.paste(image.convert(canvas.mode), (0, 0))
        image = canvas
    if scale > 1.0 or padded != size or shot.format != "png":
        buffer = io.BytesIO()
        image.save(buffer, "PNG", compress_level=1)
        data = buffer.getvalue()
    else:
        data = shot.data
    url = "data:image/png;base64," + base64.b64encode(data).decode("ascii")
    return url, size


def build_messages(
    context: AgentContext,
    *,
    history: int = 8,
    image: str | None = None,
    detail: str = "auto",
    space: Space | None = None,
    legends: Legends | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Element]]:
    """The Chat Completions messages for one step, and the element references they cite (and
    the keys the app's help listed, ``legends``, with where they were read).

    ``image`` is a data URL; without one the user turn is plain text (tree-only mode, for text
    models), with the screen's text rendering added when the observation has one. ``space``
    is the coordinates the prompt shows (``space_of``), the screen's points by default.
    """
    screen = screen_of(context)
    text, refs = user_text(context, history, screen, space or space_of(context), legends)
    if image is None and context.observation.text:
        text += "\nScreen text:\n" + context.observation.text
    content: str | list[dict[str, Any]] = text
    if image is not None:
        content = [
            {"type": "text", "text": text},
            {"type": "image_url", "image_url": {"url": image, "detail": detail}},
        ]
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": content},
    ]
    return messages, refs
