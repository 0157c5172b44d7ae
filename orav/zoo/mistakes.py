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

import attrs
from attrs import frozen

from orav.codec.yaml import read_text, read_yaml
from orav.errors import InputError
from orav.zoo.policy import Move, subject
from orav.zoo.turn import Turn


@frozen
class Wire:
    """An answer as it goes on the wire: the message's text (in ``content``, or in the field
    ``into`` names: ``reasoning_content``, ``reasoning``, ``refusal``) or its tool calls, why it
    finished, a delay; or an HTTP failure (``status`` with ``Retry-After``, or the connection
    closed unanswered)."""

    content: str | None = None
    tool_calls: tuple[dict[str, Any], ...] = ()
    delay: float = 0.0
    into: str = "content"
    finish_reason: str | None = None
    status: int = 200
    retry_after: float | None = None
    drop: bool = False


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
    once: bool = False  # a shape corrected once the model is told, as a slip is
    fails: int = 0  # HTTP failures (the shape's status, or a closed connection) before it answers

    @property
    def habit(self) -> bool:
        """A shape comes back on every answer; a slip is corrected once the model is told."""
        return self.slip is None and not self.once

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "mistake") -> Mistake:
        """A template mistake: ``{"name", "what", "template", ...}`` (``_TEMPLATE_KEYS``).

        The template is formatted with the fields ``_fields`` lists; it may be one text, or a
        text (or a list of texts, one drawn an answer) per action kind, ``default`` for the
        others (orav's JSON when none). The rest says how it goes on the wire (``Wire``).
        """
        if not isinstance(data, Mapping):
            raise InputError("expected a mapping with a 'name' and a 'template'", where)
        name = data.get("name")
        if not isinstance(name, str) or not name:
            raise InputError("a mistake needs a 'name' and a 'template' (strings)", where)
        unknown = sorted(set(data) - _TEMPLATE_KEYS)
        if unknown:
            raise InputError(f"{name}: unknown key {unknown[0]!r}", where)
        templates = _templates(data.get("template"), name, where)
        delay = _number(data, "delay", 0.0, 60.0, name, where)
        fails = int(_number(data, "fails", 0, 10, name, where))
        wire = Wire(
            into=str(data.get("into", "content")),
            finish_reason=data.get("finish_reason"),
            status=int(_number(data, "status", 200, 599, name, where, 200)),
            retry_after=data.get("retry_after"),
            drop=bool(data.get("drop", False)),
        )
        if wire.into not in _INTO:
            raise InputError(f"{name}: into must be one of {', '.join(_INTO)}", where)
        cut = _number(data, "cut", 0.0, 1.0, name, where, 1.0)
        tool = data.get("tool", False)

        def shape(decision: dict[str, Any], move: Move, turn: Turn, rng: random.Random) -> Wire:
            chosen = templates.get(move.kind) or templates.get("default") or ["{json}"]
            text = rng.choice(chosen).format(**_fields(decision, move, turn))
            text = text[: max(1, round(len(text) * cut))]
            if tool and text.lstrip().startswith(("{", "[")):  # prose stays content
                return _tool_call(text, turn, tool if isinstance(tool, str) else None)
            return attrs.evolve(wire, content=text)

        model = data.get("model")
        return cls(
            name,
            str(data.get("what", name)),
            shape=shape,
            delay=delay,
            model=model if isinstance(model, str) else None,
            once=bool(data.get("once", False)),
            fails=fails,
        )


_TEMPLATE_KEYS = frozenset(
    {"name", "what", "template", "tool", "delay", "model", "into", "finish_reason", "cut"}
    | {"once", "status", "retry_after", "fails", "drop"}
)
_INTO = ("content", "reasoning_content", "reasoning", "refusal")


def _templates(template: Any, name: str, where: str) -> dict[str, list[str]]:
    """The template as texts per action kind (``default``: all of them), each checked."""
    by_kind = template if isinstance(template, Mapping) else {"default": template}
    found: dict[str, list[str]] = {}
    for kind, texts in by_kind.items():
        texts = texts if isinstance(texts, list) else [texts]
        if not texts or not all(isinstance(text, str) for text in texts):
            raise InputError(f"{name}: a mistake needs a 'name' and a 'template' (strings)", where)
        for text in texts:
            try:
                text.format(**_fields({}, Move("wait")))
            except (KeyError, IndexError, ValueError, AttributeError, TypeError) as exc:
                raise InputError(f"{name}: template: {exc!r}", where) from None
        found[str(kind)] = texts
    return found


def _number(
    data: Mapping[str, Any],
    key: str,
    low: float,
    high: float,
    name: str,
    where: str,
    default: float = 0.0,
) -> float:
    value = data.get(key, default)
    if not isinstance(value, int | float) or isinstance(value, bool) or not low <= value <= high:
        raise InputError(f"{name}: {key} must be {low:g} to {high:g}", where)
    return float(value)


def _fields(decision: dict[str, Any], move: Move, turn: Turn | None = None) -> dict[str, Any]:
    """What a template may say: the answer as JSON, as a Python literal and cut to its element
    and action; the move's reasoning, label, reference (``ref``, its number ``n``), point (as
    shown, rounded, in 0-1 and 0-1000 of the screen, and as Gemini's ``[ymin, xmin, ymax,
    xmax]`` box), kind, text, key and expected outcome (each text also as a JSON string,
    ``NAME_json``)."""
    point = move.point or (0.0, 0.0)
    width, height = (turn.screen if turn is not None else None) or (390.0, 844.0)
    x1000, y1000 = round(point[0] / width * 1000), round(point[1] / height * 1000)
    ref = move.element.ref if move.element is not None else ""
    texts = {
        "reasoning": move.reasoning,
        "label": move.element.name if move.element is not None else "",
        "text": move.text or "",
        "key": move.key or "",
        "expected": move.expected or "the screen changes",
    }
    return {
        "json": json.dumps(decision, ensure_ascii=False),
        "python": repr(decision),
        "minimal": json.dumps({k: decision.get(k) for k in ("element", "action")}),
        **texts,
        **{f"{name}_json": json.dumps(text, ensure_ascii=False) for name, text in texts.items()},
        "ref": ref,
        "n": ref.removeprefix("e"),
        "kind": move.kind,
        "x": point[0],
        "y": point[1],
        "xi": round(point[0]),
        "yi": round(point[1]),
        "xf": round(point[0] / width, 3),
        "yf": round(point[1] / height, 3),
        "x1000": x1000,
        "y1000": y1000,
        "box_yx": [y1000 - 8, x1000 - 12, y1000 + 8, x1000 + 12],
    }


def load_mistakes(path: Path) -> list[Mistake]:
    """Template mistakes from a YAML (or JSON) list, each error located."""
    source = str(path)
    data = read_yaml(read_text(path, source), source)
    if not isinstance(data, list):
        raise InputError("expected a list of mistakes", source)
    return [Mistake.from_dict(item, f"{source}[{i}]") for i, item in enumerate(data)]


WILD = Path(__file__).with_name("wild.yaml")  # behaviours nobody wrote the agent for


def _tool_call(arguments: str, turn: Turn, name: str | None = None) -> Wire:
    """The answer as a call of ``name``, else of the tool offered, else of ``decide``."""
    name = name or (turn.tools[0] if turn.tools else "decide")
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


def _done_twice(
    decision: dict[str, Any], move: Move, turn: Turn, memory: Memory, rng: random.Random
) -> dict[str, Any] | None:
    """``done`` one step early, and when told it is not proven, ``done`` again, then on."""
    if not move.closing or ("done_twice", subject(move)) in memory.told:
        return None
    return _early_done(decision, move, turn, Memory(), rng)


def _again(
    decision: dict[str, Any], move: Move, turn: Turn, memory: Memory, rng: random.Random
) -> dict[str, Any] | None:
    """The previous action again after it worked (the model moved on, so it did), typing
    included: the text goes in twice. Once per subject."""
    last, before = memory.decision, memory.move
    if last is None or before is None or memory.made is not None or before == move:
        return None
    if before.kind not in ("tap", "type_text", "press_key"):
        return None
    if ("again", subject(before)) in memory.told:
        return None
    if before.kind == "tap" and before.element is not None:
        again = turn.find(before.element.label) if before.element.label else None
        return None if again is None else {**last, "element": again.ref}
    return last


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
        Mistake("again", "the previous action again after it worked, typing too", slip=_again),
        Mistake("done_twice", "done one step early, and again when told", slip=_done_twice),
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
