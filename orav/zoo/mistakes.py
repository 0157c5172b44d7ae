"""The mistakes the zoo's models make, as data: each a named behaviour, easy to add.

A mistake is either a **slip** (the decision is wrong: a paraphrased label, a stale reference,
a tap a few points off, an early ``done``, the same action again) or a **shape** (the decision
is right but the answer is worded as another server or model family words it: prose before
the JSON, a fence, ``tool_calls``, the seed's decision shape, Qwen's pixels or 0–1000 boxes,
UI-TARS's ``Action: click(start_box=...)``), or a delay. A slip is corrected when the model is
told (a re-ask); a shape is a habit and comes back on every answer. ``template`` mistakes are
pure data (``Mistake.from_dict``, or a JSON file for ``python -m orav.zoo --mistakes``), so a
behaviour nobody wrote the agent for can be played without code.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from attrs import frozen

from orav.codec.yaml import read_text, read_yaml
from orav.errors import InputError
from orav.zoo.policy import Move, subject
from orav.zoo.turn import Turn


@frozen
class Wire:
    """An answer as it goes on the wire: the message's content or its tool calls, a delay."""

    content: str | None = None
    tool_calls: tuple[dict[str, Any], ...] = ()
    delay: float = 0.0


@frozen
class Memory:
    """What the model remembers of its own last fresh answer in this run."""

    decision: dict[str, Any] | None = None
    move: Move | None = None
    made: str | None = None  # the mistake in that answer, if any
    # what it was told about (an unproven done, a loop): it does not make that slip there again
    told: frozenset[tuple[str, str]] = frozenset()
    notes: str | None = None  # the last notes it wrote, which the next turn should show


# A slip: (the decision orav's schema words, the sensible move, the turn, memory, rng) -> the
# wrong decision, or None where this slip does not apply to this move.
Slip = Callable[[dict[str, Any], Move, Turn, Memory, random.Random], dict[str, Any] | None]
# A shape: (the decision, the sensible move, the turn, rng) -> the answer on the wire.
Shape = Callable[[dict[str, Any], Move, Turn, random.Random], Wire]


@frozen
class Mistake:
    """One named behaviour of an imperfect model."""

    name: str
    what: str
    slip: Slip | None = None
    shape: Shape | None = None
    delay: float = 0.0
    model: str | None = None  # the model name a server of this family answers under

    @property
    def habit(self) -> bool:
        """A shape comes back on every answer; a slip is corrected once the model is told."""
        return self.slip is None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "mistake") -> Mistake:
        """A template mistake: ``{"name", "what", "template", "tool": bool, "delay", "model"}``.

        The template is formatted with the fields ``_fields`` lists.
        """
        if not isinstance(data, Mapping):
            raise InputError("expected a mapping with a 'name' and a 'template'", where)
        name, template = data.get("name"), data.get("template")
        if not isinstance(name, str) or not name or not isinstance(template, str):
            raise InputError("a mistake needs a 'name' and a 'template' (strings)", where)
        try:
            template.format(**_fields({}, Move("wait")))
        except (KeyError, IndexError, ValueError, AttributeError, TypeError) as exc:
            raise InputError(f"{name}: template: {exc!r}", where) from None
        delay = data.get("delay", 0.0)
        if not isinstance(delay, int | float) or not 0 <= delay <= 60:
            raise InputError(f"{name}: delay must be 0 to 60 seconds", where)
        tool = bool(data.get("tool", False))

        def shape(decision: dict[str, Any], move: Move, turn: Turn, rng: random.Random) -> Wire:
            text = template.format(**_fields(decision, move, turn))
            return _tool_call(text, turn) if tool else Wire(text)

        model = data.get("model")
        return cls(
            name,
            str(data.get("what", name)),
            shape=shape,
            delay=float(delay),
            model=model if isinstance(model, str) else None,
        )


def _fields(decision: dict[str, Any], move: Move, turn: Turn | None = None) -> dict[str, Any]:
    """What a template may say: the answer as JSON, as a Python literal and cut to its element
    and action; the move's reasoning, label, point (as shown and in 0-1000 of the screen, and
    as Gemini's ``[ymin, xmin, ymax, xmax]`` box), kind, text and key (label, text and key
    also as JSON strings, for templates that write JSON)."""
    point = move.point or (0.0, 0.0)
    width, height = (turn.screen if turn is not None else None) or (390.0, 844.0)
    x1000, y1000 = round(point[0] / width * 1000), round(point[1] / height * 1000)
    return {
        "json": json.dumps(decision, ensure_ascii=False),
        "python": repr(decision),
        "minimal": json.dumps({k: decision.get(k) for k in ("element", "action")}),
        "reasoning": move.reasoning,
        "label": move.element.name if move.element is not None else "",
        "x": point[0],
        "y": point[1],
        "x1000": x1000,
        "y1000": y1000,
        "box_yx": [y1000 - 8, x1000 - 12, y1000 + 8, x1000 + 12],
        "kind": move.kind,
        "text": move.text or "",
        "key": move.key or "",
        "label_json": json.dumps(move.element.name if move.element is not None else ""),
        "text_json": json.dumps(move.text or ""),
        "key_json": json.dumps(move.key or ""),
    }


def load_mistakes(path: Path) -> list[Mistake]:
    """Template mistakes from a YAML (or JSON) list, each error located."""
    source = str(path)
    data = read_yaml(read_text(path, source), source)
    if not isinstance(data, list):
        raise InputError("expected a list of mistakes", source)
    return [Mistake.from_dict(item, f"{source}[{i}]") for i, item in enumerate(data)]


WILD = Path(__file__).with_name("wild.yaml")  # behaviours nobody wrote the agent for


def _tool_call(arguments: str, turn: Turn) -> Wire:
    name = turn.tools[0] if turn.tools else "decide"
    call = {
        "id": "call_zoo",
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }
    return Wire(None, (call,))


# --- slips ------------------------------------------------------------------------------------

# How models reword a label: case, an article and a role word, a synonym. Test data, not a rule.
SYNONYMS = {
    "sign in": "Log in",
    "log in": "Sign in",
    "more": "Increase",
    "fewer": "Decrease",
    "accept": "Approve",
    "delete": "Remove",
    "skip": "Next",
    "settings": "Preferences",
    "cart": "Basket",
}


def paraphrase(label: str, rng: random.Random) -> str:
    """``label`` as a model might misquote it."""
    ways = [str.lower, str.upper, lambda s: f"the {s} button", lambda s: f" {s}  "]
    synonym = SYNONYMS.get(label.casefold())
    if synonym is not None:
        ways.append(lambda _s: synonym)
    return str(rng.choice(ways)(label))


def _paraphrased(
    decision: dict[str, Any], move: Move, turn: Turn, memory: Memory, rng: random.Random
) -> dict[str, Any] | None:
    if move.element is None or not move.element.name:
        return None
    return {**decision, "element": paraphrase(move.element.name, rng)}


def _stale(
    decision: dict[str, Any], move: Move, turn: Turn, memory: Memory, rng: random.Random
) -> dict[str, Any] | None:
    if move.element is None:
        return None
    shown = {seen.ref for seen in turn.elements}
    highest = max((int(ref[1:]) for ref in shown), default=0)
    stale = f"e{highest + rng.randint(1, 9)}"
    before = memory.move.element if memory.move is not None else None
    if before is not None and before.ref not in shown:  # the ref it cited on the last screen
        stale = before.ref
    return {**decision, "element": stale}


def _off_by_n(
    decision: dict[str, Any], move: Move, turn: Turn, memory: Memory, rng: random.Random
) -> dict[str, Any] | None:
    """A tap by coordinates, 1.5 % of the screen off the element's centre on each axis."""
    point = move.point
    if move.kind != "tap" or point is None:
        return None
    width, height = turn.screen or (390.0, 844.0)
    dx = round(width * 0.015 * rng.choice((-1, 1)), 1)
    dy = round(height * 0.015 * rng.choice((-1, 1)), 1)
    action = {**decision["action"], "x": point[0] + dx, "y": point[1] + dy}
    return {**decision, "element": None, "action": action}


def _early_done(
    decision: dict[str, Any], move: Move, turn: Turn, memory: Memory, rng: random.Random
) -> dict[str, Any] | None:
    """``done`` one step early: instead of the action that should reach the goal, once there."""
    if not move.closing or ("early_done", subject(move)) in memory.told:
        return None
    action = {"kind": "done", "success": True, "summary": "The goal is reached."}
    return {**decision, "element": None, "action": action, "expected_outcome": "Nothing more."}


def _loop(
    decision: dict[str, Any], move: Move, turn: Turn, memory: Memory, rng: random.Random
) -> dict[str, Any] | None:
    """The previous tap or key again, on the element of the same name where it still shows;
    once per element (a model stuck on it is the agent's loop bound to end)."""
    last, before = memory.decision, memory.move
    if last is None or before is None or memory.made is not None:
        return None
    if ("loop", subject(before)) in memory.told:
        return None
    if before.kind == "press_key":
        return last
    if before.kind != "tap" or before.element is None:
        return None
    again = turn.find(before.element.label) if before.element.label else None
    again = again or (turn.find(id=before.element.id) if before.element.id else None)
    if again is None:
        return None
    return {**last, "element": again.ref}


# --- shapes -----------------------------------------------------------------------------------

_LEADS = (
    "Sure! Looking at the screen, here is my next action:",
    "I can see the app. {reasoning}",
    "Okay, let me think. {reasoning} So:",
)


def _prose(decision: dict[str, Any], move: Move, turn: Turn, rng: random.Random) -> Wire:
    lead = rng.choice(_LEADS).format(reasoning=move.reasoning)
    return Wire(f"{lead}\n\n{json.dumps(decision, indent=2)}")


def _fenced(decision: dict[str, Any], move: Move, turn: Turn, rng: random.Random) -> Wire:
    return Wire(f"```json\n{json.dumps(decision, indent=2)}\n```")


def _tool_calls(decision: dict[str, Any], move: Move, turn: Turn, rng: random.Random) -> Wire:
    return _tool_call(json.dumps(decision), turn)


def _seed(decision: dict[str, Any], move: Move, turn: Turn, rng: random.Random) -> Wire:
    """The ORAV seed's shape: ``{"action": "tap", "coordinates": {...}, "element_label": ...}``."""
    seed: dict[str, Any] = {"reasoning": move.reasoning, "action": move.kind}
    if move.kind == "tap" and move.point is not None:
        seed["coordinates"] = {"x": move.point[0], "y": move.point[1]}
    if move.element is not None and move.element.name:
        seed["element_label"] = move.element.name
    if move.text is not None and move.kind == "type_text":
        seed["text"] = move.text
    if move.key is not None:
        seed["key"] = move.key
    if move.kind == "swipe" and move.start and move.end:
        seed["start"] = {"x": move.start[0], "y": move.start[1]}
        seed["end"] = {"x": move.end[0], "y": move.end[1]}
    seed["expected_outcome"] = move.expected
    return Wire(json.dumps(seed, indent=2))


def _scaled(turn: Turn, point: tuple[float, float], unit: str) -> tuple[int, int]:
    """A point in the image's pixels or in 0-1000 of the screen."""
    x, y = point
    if unit == "pixels":
        per = turn.points_per_pixel or 1.0
        return round(x / per), round(y / per)
    width, height = turn.screen or (390.0, 844.0)
    return round(x / width * 1000), round(y / height * 1000)


def _box(turn: Turn, point: tuple[float, float]) -> list[int]:
    """A small box around ``point`` in 0-1000 (models ground boxes, not points)."""
    x, y = _scaled(turn, point, "relative")
    return [max(x - 12, 0), max(y - 8, 0), min(x + 12, 1000), min(y + 8, 1000)]


def _qwen_action(move: Move, turn: Turn, unit: str) -> dict[str, Any]:
    if move.kind == "tap" and move.element is not None:
        point = (move.element.x, move.element.y)
        if unit == "boxes":
            return {"action": "click", "bbox_2d": _box(turn, point), "label": move.element.name}
        return {"action": "click", "coordinate": list(_scaled(turn, point, "pixels"))}
    if move.kind == "type_text":
        return {"action": "type", "text": move.text}
    if move.kind == "press_key":
        return {"action": "key", "text": move.key}
    if move.kind == "swipe" and move.start and move.end:
        return {
            "action": "swipe",
            "coordinate": list(_scaled(turn, move.start, "pixels")),
            "coordinate2": list(_scaled(turn, move.end, "pixels")),
        }
    if move.kind == "done":
        return {"action": "terminate", "status": "success" if move.success else "failure"}
    return {"action": "wait", "time": 1}


def _qwen_pixels(decision: dict[str, Any], move: Move, turn: Turn, rng: random.Random) -> Wire:
    """Qwen2.5-VL's mobile agent: a ``mobile_use`` call in absolute pixels of the image."""
    call = {"name": "mobile_use", "arguments": _qwen_action(move, turn, "pixels")}
    return Wire(f"{move.reasoning}\n<tool_call>\n{json.dumps(call)}\n</tool_call>")


def _qwen_boxes(decision: dict[str, Any], move: Move, turn: Turn, rng: random.Random) -> Wire:
    """Qwen3-VL's grounding: a box normalised to 0-1000 of the screen, in a fence."""
    return Wire(f"```json\n{json.dumps(_qwen_action(move, turn, 'boxes'))}\n```")


def _uitars(decision: dict[str, Any], move: Move, turn: Turn, rng: random.Random) -> Wire:
    """UI-TARS: ``Thought: ...`` then ``Action: click(start_box='(x1,y1,x2,y2)')``, 0-1000."""
    if move.kind == "tap" and move.point is not None:
        box = ",".join(map(str, _box(turn, move.point)))
        action = f"click(start_box='({box})')"
    elif move.kind == "type_text":
        action = f"type(content={move.text!r})"
    elif move.kind == "press_key":
        action = f"hotkey(key={move.key!r})"
    elif move.kind == "swipe" and move.start and move.end:
        start = ",".join(map(str, _scaled(turn, move.start, "relative")))
        end = ",".join(map(str, _scaled(turn, move.end, "relative")))
        action = f"drag(start_box='({start})', end_box='({end})')"
    elif move.kind == "done":
        action = f"finished(content={move.reasoning!r})"
    else:
        action = "wait()"
    return Wire(f"Thought: {move.reasoning}\nAction: {action}")


def _noted(decision: dict[str, Any], move: Move, turn: Turn, rng: random.Random) -> Wire:
    """A model that keeps its progress in notes and a plan: what it did, read back from the
    notes the prompt shows it (its only memory), the last four kept."""
    done = (turn.notes or "").removeprefix("did: ")
    did = [part for part in done.split("; ") if part] if turn.notes else []
    notes = "did: " + "; ".join([*did, f"{move.kind} {subject(move)}".strip()][-4:])
    plan = ["read the screen", "do what the goal asks", "check the criteria, then done"]
    return Wire(json.dumps({**decision, "notes": notes, "plan": plan}))


def _slow(decision: dict[str, Any], move: Move, turn: Turn, rng: random.Random) -> Wire:
    return Wire(json.dumps(decision))


MISTAKES: dict[str, Mistake] = {
    m.name: m
    for m in (
        Mistake(
            "prose", "prose before the JSON (small models under Ollama, LM Studio)", shape=_prose
        ),
        Mistake("fenced", "the JSON in a ```json fence", shape=_fenced),
        Mistake("tool_calls", "the answer as tool_calls, content null", shape=_tool_calls),
        Mistake(
            "seed_shape", "the seed's decision shape (coordinates, element_label)", shape=_seed
        ),
        Mistake(
            "paraphrase", "the element named by a reworded label, not its ref", slip=_paraphrased
        ),
        Mistake("stale_ref", "a reference no longer on the screen", slip=_stale),
        Mistake("off_by_n", "a tap by coordinates, a few points off the centre", slip=_off_by_n),
        Mistake("early_done", "done one step before the goal is reached", slip=_early_done),
        Mistake("loop", "the previous tap or key again", slip=_loop),
        Mistake("slow", "a slow answer (bounded)", shape=_slow, delay=2.0),
        Mistake("notes", "its memory in notes and a plan, read back from the prompt", shape=_noted),
        Mistake(
            "qwen_pixels",
            "Qwen2.5-VL: mobile_use call in the image's absolute pixels",
            shape=_qwen_pixels,
            model="qwen2.5-vl-7b-instruct",
        ),
        Mistake(
            "qwen_boxes",
            "Qwen3-VL: a bbox_2d normalised to 0-1000",
            shape=_qwen_boxes,
            model="qwen3-vl-8b-instruct",
        ),
        Mistake(
            "ui_tars",
            "UI-TARS: Thought/Action text, click(start_box=...) in 0-1000",
            shape=_uitars,
            model="ui-tars-1.5-7b",
        ),
    )
}

# A model family answers in its own format on every answer: mixed runs leave these out.
FAMILIES = frozenset(name for name, m in MISTAKES.items() if m.model is not None)
