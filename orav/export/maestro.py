"""A recorded run as a Maestro flow: the path the agent found, replayable without a model.

``maestro_flow(run)`` turns a ``RunView`` (``orav.report.timeline.read_run``) into the flow's two
YAML documents: the header (``appId``, ``name``, ``tags``) and the command list — ``launchApp``,
the scenario's preconditions, every action the agent took in order, then the scenario's success
criteria as assertions. ``export_maestro(path)`` reads a cassette and returns the YAML text.

Recoveries are the environment misbehaving, not steps of the flow: each one becomes a comment
where it ran; a dialog or banner that was dismissed (alert, permission, network) also becomes an
``optional: true`` tap on the button used, a covering keyboard a ``hideKeyboard``. A relaunch
after a crash undid the steps before it, so those steps are left out (the comment names them).
Secure text is never exported: it becomes ``${PASSWORD}``, given with ``maestro test -e``.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from attrs import frozen
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from orav.cassette import REDACTED
from orav.errors import InputError
from orav.model import (
    GOAL_MET,
    Action,
    Assert,
    DeviceInfo,
    Done,
    Launch,
    PressKey,
    Recover,
    Swipe,
    Tap,
    Target,
    Terminate,
    TypeText,
    Wait,
    show_action,
)
from orav.report.timeline import Performed, RecoveryView, RunView, StepView, read_run

SECRET_VARIABLE = "PASSWORD"
# orav's named keys and HID keycodes → Maestro's pressKey names; ``space`` is typed instead.
KEY_NAMES = {
    "enter": "Enter",
    "return": "Enter",  # orav's older name of enter
    "backspace": "Backspace",
    "tab": "Tab",
    "home": "Home",
}
KEYCODE_NAMES = {40: "Enter", 42: "Backspace", 43: "Tab", 74: "Home"}
# Faults whose remedy tapped a button on a dialog or banner: the same tap, optional, fits a run
# where the dialog shows up again and does no harm where it does not.
DISMISSED = frozenset({"alert", "permission", "network", "covered"})
_REGEX_SPECIAL = frozenset("\\.^$|?*+()[]{}")


class NotExportable(InputError):
    """The cassette cannot become a Maestro flow (exit 2): the message says why."""


def regex_literal(text: str) -> str:
    """``text`` as a regex that fully matches exactly ``text``: Maestro's text selectors are
    full-string regexes, so a label such as ``Total (USD)`` must not be read as a group."""
    return "".join("\\" + c if c in _REGEX_SPECIAL else c for c in text)


@frozen
class Flow:
    """The two YAML documents of a Maestro flow file."""

    header: CommentedMap
    commands: CommentedSeq

    def dump(self) -> str:
        """The flow as YAML text, in Maestro's layout."""
        yaml = YAML()
        yaml.indent(mapping=2, sequence=2, offset=0)
        yaml.width = 4096
        out = io.StringIO()
        yaml.dump_all([self.header, self.commands], out)
        return out.getvalue()


def export_maestro(path: str | Path, *, force: bool = False) -> str:
    """The Maestro flow for the cassette at ``path`` (NotExportable when it cannot be one)."""
    return maestro_flow(read_run(path), force=force).dump()


def maestro_flow(run: RunView, *, force: bool = False) -> Flow:
    """The Maestro flow of a run whose goal was met (``force``: any run, marked at the top)."""
    scenario = run.header.scenario
    where = str(run.path)
    device = run.header.device
    if device is None or device.platform != "ios":
        what = "names no device" if device is None else f"is of a {device.platform} app"
        raise NotExportable(
            f"this run {what} ({scenario.app}), and Maestro drives mobile apps only: "
            "export iOS runs",
            where,
        )
    notes = [f"exported by orav from {run.path.name} (run {run.header.run_id})"]
    notes.append(f"goal: {scenario.goal}")
    if run.status not in GOAL_MET:
        if not force:
            raise NotExportable(
                f"the run's goal was not met (status {run.status}); pass --force to export "
                "it anyway",
                where,
            )
        notes.append(
            f"WARNING: exported with --force from a run that ended {run.status}: "
            "this flow may not reach the goal"
        )
    header = CommentedMap(_escaped({"appId": scenario.app, "name": scenario.name}))
    header["tags"] = ["orav"]
    header.yaml_set_start_comment(_comment(notes))

    flow = _Commands(scenario.app, device, where)
    if scenario.permissions == "deny":  # Maestro's launchApp allows every permission by default
        flow.add({"launchApp": {"permissions": {"all": "deny"}}})
    else:
        flow.add("launchApp")
    if scenario.preconditions:
        flow.note("preconditions")
        for action in scenario.preconditions:
            flow.action(action)
    timeline = _since_last_relaunch(run, flow)
    for block in timeline:
        if isinstance(block, StepView):
            flow.step(block)
        else:
            flow.recovery(block)
    if scenario.success_criteria:
        flow.note("success criteria")
        for criterion in scenario.success_criteria:
            flow.action(criterion)
    return Flow(header, flow.close())


def _since_last_relaunch(run: RunView, flow: _Commands) -> tuple[StepView | RecoveryView, ...]:
    """The timeline from the last recovery that relaunched the app: the steps before it ran in
    an app that then crashed, and the agent went over them again after the relaunch."""
    timeline = run.timeline
    relaunched = [
        (i, block)
        for i, block in enumerate(timeline)
        if isinstance(block, RecoveryView)
        and block.resolved
        and any(isinstance(p.action, Launch) for p in block.actions)
    ]
    if not relaunched:
        return timeline
    last, recovery = relaunched[-1]
    dropped = [b.number for b in timeline[:last] if isinstance(b, StepView)]
    if dropped:
        flow.note(
            f"step{'s' if len(dropped) > 1 else ''} {', '.join(map(str, dropped))} left out: "
            "the app was relaunched after them "
            f"(recovery at step {recovery.step}) and the agent went that way again"
        )
    return timeline[last:]


class _Commands:
    """The command list being built; notes wait for the next command to sit above it."""

    def __init__(self, app: str, device: DeviceInfo | None, where: str) -> None:
        self.app = app
        self.device = device
        self.where = where
        self.seq = CommentedSeq()
        self.pending: list[str] = []

    def note(self, text: str) -> None:
        self.pending.append(_comment([text]))

    def add(self, command: Any) -> None:
        self.seq.append(_escaped(command))
        if self.pending:
            self.seq.yaml_set_comment_before_after_key(
                len(self.seq) - 1, before="\n".join(self.pending), indent=0
            )
            self.pending = []

    def close(self) -> CommentedSeq:
        if self.pending:  # nothing follows: after the last command
            self.seq.yaml_add_eol_comment("\n# ".join(self.pending), len(self.seq) - 1)
            self.pending = []
        return self.seq

    def step(self, step: StepView) -> None:
        performed = step.actions
        if not performed and step.decision is not None:  # checks and waits: the engine's own
            performed = (Performed(step.decision.action),)
        for p in performed:
            if p.ok:
                self.action(p.action)
            else:
                self.note(f"step {step.number}: {show_action(p.action)} failed, left out")

    def recovery(self, recovery: RecoveryView) -> None:
        outcome = recovery.outcome or "unfinished"
        self.note(
            f"recovery at step {recovery.step}: {recovery.fault or 'fault'} ({outcome}); "
            f"remedy: {recovery.shown_remedy}; not a step of the flow"
        )
        if not recovery.resolved:
            return
        if recovery.fault in DISMISSED:
            for p in recovery.actions:
                if isinstance(p.action, Tap) and p.action.target is not None:
                    self.add({"tapOn": {**_selector(p.action.target), "optional": True}})
        elif recovery.fault == "keyboard":
            self.add("hideKeyboard")

    def action(self, action: Action) -> None:
        match action:
            case Tap(target=target, duration=duration):
                command = "longPressOn" if duration > 0 else "tapOn"
                if target is not None:
                    self.add({command: _shorthand(_selector(target))})
                else:
                    self.add({command: {"point": self.percent(action.x, action.y)}})
            case TypeText():
                self.type_text(action)
            case Swipe(start=start, end=end, duration=duration):
                self.add(
                    {
                        "swipe": {
                            "start": self.percent(start.x, start.y, ", "),
                            "end": self.percent(end.x, end.y, ", "),
                            "duration": round(duration * 1000),
                        }
                    }
                )
            case PressKey(key=key):
                self.press(key)
            case Wait(seconds=seconds):
                self.add({"waitForAnimationToEnd": {"timeout": round(seconds * 1000)}})
            case Launch(bundle_id=bundle) | Terminate(bundle_id=bundle):
                command = "launchApp" if isinstance(action, Launch) else "stopApp"
                other = bundle is not None and bundle != self.app
                self.add({command: {"appId": bundle}} if other else command)
            case Assert():
                self.add(_assertion(action))
            case Done():
                pass  # the run's conclusion: the success criteria stand for it
            case Recover():
                pass  # what the recovery did follows as its own comment and steps

    def type_text(self, action: TypeText) -> None:
        if action.secure or REDACTED in action.text:
            self.add({"inputText": f"${{{SECRET_VARIABLE}}}"})
            return
        # Backspace characters erase; every other run of characters is typed.
        typed = ""
        erased = 0
        for char in action.text + "\0":
            if char == "\b":
                if typed:
                    self.add({"inputText": typed})
                    typed = ""
                erased += 1
                continue
            if erased:
                self.add({"eraseText": erased})
                erased = 0
            if char != "\0":
                typed += char
        if typed:
            self.add({"inputText": typed})

    def press(self, key: str | int) -> None:
        if key in ("space", 44):
            self.add({"inputText": " "})
            return
        name = KEY_NAMES.get(key) if isinstance(key, str) else KEYCODE_NAMES.get(key)
        if name is None:
            self.note(f"press {key}: Maestro has no such key, left out")
        else:
            self.add({"pressKey": name})

    def percent(self, x: float | None, y: float | None, sep: str = ",") -> str:
        """A point as Maestro's whole percentages of the screen recorded in the header."""
        device = self.device
        if device is None or device.width <= 0 or device.height <= 0 or x is None or y is None:
            raise NotExportable(
                "a tap or swipe at a point needs the screen size, and the cassette's header "
                "records none",
                self.where,
            )
        px = min(100, max(0, round(100 * x / device.width)))
        py = min(100, max(0, round(100 * y / device.height)))
        return f"{px}%{sep}{py}%"


def _selector(target: Target) -> dict[str, str]:
    """An id when the element has one (stable across copy changes), else its label as text."""
    if target.id is not None:
        return {"id": target.id}
    return {"text": regex_literal(target.label or "")}


def _assertion(check: Assert) -> dict[str, Any]:
    if check.claim is not None:  # a claim in words: Maestro asks its own AI, as orav's judge
        return {"assertWithAI": {"assertion": check.claim}}
    command = "assertNotVisible" if check.condition == "absent" else "assertVisible"
    selector: dict[str, str] = _selector(check.target) if check.target is not None else {}
    if check.condition == "value_equals" and check.value is not None:
        # Maestro has no value selector: the value is matched as the element's text.
        selector = {**selector, "text": regex_literal(check.value)}
    elif check.condition in ("contains", "matches") and check.value is not None:
        # Maestro's text is a regex on the whole text: a found text is one inside anything.
        found = regex_literal(check.value) if check.condition == "contains" else check.value
        selector = {**selector, "text": f".*(?:{found}).*"}
    return {command: _shorthand(selector)}


def _shorthand(selector: dict[str, str]) -> str | dict[str, str]:
    """A text-only selector in Maestro's short form (``tapOn: "Sign in"``)."""
    return selector["text"] if list(selector) == ["text"] else selector


def _escaped(value: Any) -> Any:
    """Strings with unprintable characters double-quoted: YAML would fold a NEL or a line
    separator in a plain or single-quoted scalar into a space, and the selector would change."""
    if isinstance(value, dict):
        return {key: _escaped(item) for key, item in value.items()}
    if isinstance(value, str) and not value.replace(" ", "").isprintable():
        return DoubleQuotedScalarString(value)
    return value


def _comment(lines: list[str]) -> str:
    """Comment text that stays a comment: a line break in a goal or a label (``\\n``, NEL,
    U+2028) would end it, and YAML would read the rest as content."""
    return "\n".join(
        "".join(c if c.isprintable() else " " for c in part)
        for line in lines
        for part in line.split("\n")
    )
