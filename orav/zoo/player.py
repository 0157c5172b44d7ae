"""A simulated model: a task's policy played with mistakes at a rate, seeded and reproducible.

Each answer draws from ``random.Random(f"{seed}:{n}")``, n the answer's number in the run, so
the same run asks the same questions and gets the same answers. At rate r an answer carries
one mistake, chosen among the given kinds: a slip (the decision is wrong) only on a fresh
question, never on a re-ask (the model corrects what it is told), and not again where it was
told; a shape (the wording) on any answer, and again on every re-ask of the step it came in. The player also tallies what it saw: requests, re-asks,
tokens, and every secret it was sent (0 expected).
"""

from __future__ import annotations

import json
import random
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import attrs
from attrs import define

from orav.zoo.mistakes import Memory, Mistake, Wire
from orav.zoo.policy import Move, Policy, subject
from orav.zoo.turn import Turn, read_turn


@define
class Tally:
    """What a player saw and did over a run."""

    requests: int = 0
    reasks: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    secrets_seen: int = 0
    notes_lost: int = 0  # turns that did not show the notes the model wrote the turn before
    made: Counter[str] = attrs.field(factory=Counter)


def decision_of(move: Move, turn: Turn) -> dict[str, Any]:
    """The sensible move in orav's answer schema."""
    action: dict[str, Any] = {"kind": move.kind}
    if move.kind == "tap":
        action.update(x=None, y=None, duration=None)
    elif move.kind == "type_text":
        action["text"] = move.text
    elif move.kind == "press_key":
        action["key"] = move.key
    elif move.kind == "swipe" and move.start and move.end:
        action["start"] = {"x": move.start[0], "y": move.start[1]}
        action["end"] = {"x": move.end[0], "y": move.end[1]}
    elif move.kind == "wait":
        action["seconds"] = 1
    elif move.kind == "done":
        action.update(success=move.success, summary=move.text or move.reasoning)
    return {
        "previous_outcome_met": True if turn.history else None,
        "reasoning": move.reasoning,
        "element": move.element.ref if move.element is not None else None,
        "action": action,
        "expected_outcome": move.expected or "the screen changes",
    }


def tokens(text: str) -> int:
    """About four characters a token, as OpenAI's tokenizers average on English and JSON."""
    return max(1, len(text) // 4)


class Player:
    """Answers chat completion requests as an imperfect model playing ``policy``."""

    def __init__(
        self,
        policy: Policy,
        *,
        mistakes: Sequence[Mistake] = (),
        rate: float = 0.0,
        seed: int | str = 0,
        secrets: Iterable[str] = (),
    ) -> None:
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"rate must be 0 to 1, got {rate}")
        self.policy = policy
        self.mistakes = tuple(mistakes)
        self.rate = rate
        self.seed = seed
        self.secrets = tuple(s for s in secrets if s)
        self.tally = Tally()
        self._memory = Memory()
        self._failed: tuple[int, int] = (0, 0)  # a request's hash, the failures it was given
        self._lock = threading.Lock()

    def answer(self, raw: bytes) -> tuple[Wire, dict[str, int], str]:
        """The answer to one request body: the wire form, its usage, the model name."""
        with self._lock:
            return self._answer(raw)

    def _answer(self, raw: bytes) -> tuple[Wire, dict[str, int], str]:
        body = json.loads(raw)
        turn = read_turn(body)
        tally = self.tally
        tally.requests += 1
        tally.reasks += turn.reask
        tally.secrets_seen += sum(_occurrences(raw, secret) for secret in self.secrets)
        if not turn.history and not turn.reask:
            self._memory = Memory()  # a new run
        elif not turn.reask and self._memory.notes and turn.notes != self._memory.notes:
            tally.notes_lost += 1
        rng = random.Random(f"{self.seed}:{tally.requests}")
        move = self.policy(turn)
        decision = decision_of(move, turn)
        wire, decision, made = self._mistaken(rng, turn, move, decision)
        fails = next((m.fails for m in self.mistakes if m.name == made), 0)
        if fails and self._fail(raw, fails):
            tally.made[f"{made} (failed)"] += 1
            return attrs.evolve(wire, content=None, tool_calls=()), {}, turn.model
        wire = attrs.evolve(wire, status=200, drop=False, retry_after=None)
        if made is not None:
            tally.made[made] += 1
        if not turn.reask:
            self._remember(decision, move, made, _notes_of(wire))
        sent = wire.content or json.dumps(list(wire.tool_calls))
        usage = {"prompt_tokens": _prompt_tokens(body, turn), "completion_tokens": tokens(sent)}
        tally.prompt_tokens += usage["prompt_tokens"]
        tally.completion_tokens += usage["completion_tokens"]
        model = next((m.model for m in self.mistakes if m.model), None) or turn.model
        return wire, usage, model

    def _fail(self, raw: bytes, fails: int) -> bool:
        """Whether this request fails again: the same request fails ``fails`` times in a row,
        as a busy server answers the client's retries, then it is answered."""
        digest = hash(raw)
        failed = self._failed[1] if self._failed[0] == digest else 0
        if failed >= fails:
            return False
        self._failed = (digest, failed + 1)
        return True

    def _mistaken(
        self, rng: random.Random, turn: Turn, move: Move, decision: dict[str, Any]
    ) -> tuple[Wire, dict[str, Any], str | None]:
        """The answer as sent (a mistake drawn may change the decision, its wire form or its
        timing), the decision it carries, and the mistake made, if any."""
        wire, made = Wire(json.dumps(decision)), None
        mistake = self._draw(rng, turn)
        if mistake is None:
            return wire, decision, None
        if mistake.slip is not None:
            slipped = mistake.slip(decision, move, turn, self._memory, rng)
            if slipped is not None:
                decision, made = slipped, mistake.name
                wire = Wire(json.dumps(decision))
        elif mistake.shape is not None:
            wire, made = mistake.shape(decision, move, turn, rng), mistake.name
        if mistake.delay:
            wire = attrs.evolve(wire, delay=mistake.delay)
            made = mistake.name
        return wire, decision, made

    def _remember(
        self, decision: dict[str, Any], move: Move, made: str | None, notes: str | None
    ) -> None:
        """What the model did this step, its notes, and what it has been told not to do again."""
        told = self._memory.told
        if made == "early_done" or made == "done_twice" and (made + ":1", subject(move)) in told:
            told |= {(made, subject(move))}
        elif made == "done_twice":
            told |= {(made + ":1", subject(move))}
        elif made in ("loop", "again") and self._memory.move is not None:
            told |= {(made, subject(self._memory.move))}
        self._memory = Memory(decision, move, made, told, notes or self._memory.notes)

    def _draw(self, rng: random.Random, turn: Turn) -> Mistake | None:
        if not self.mistakes:
            return None
        habit = next((m for m in self.mistakes if m.name == self._memory.made and m.habit), None)
        if turn.reask and habit is not None:
            return habit  # the step's wording comes back when the model is asked again
        if rng.random() >= self.rate:
            return None
        kinds = [m for m in self.mistakes if m.habit or not turn.reask]
        return rng.choice(kinds) if kinds else None


def _notes_of(wire: Wire) -> str | None:
    """The notes an answer in orav's JSON (as content or a tool call) writes, if any."""
    text = wire.content
    if text is None and wire.tool_calls:
        text = str((wire.tool_calls[0].get("function") or {}).get("arguments", ""))
    try:
        notes = json.loads(text or "").get("notes")
    except (ValueError, AttributeError):
        return None
    return notes if isinstance(notes, str) and notes else None


def _occurrences(raw: bytes, secret: str) -> int:
    """How often ``secret`` is in a request body, as written or JSON-escaped."""
    forms = {secret.encode(), json.dumps(secret)[1:-1].encode()}
    return max(raw.count(form) for form in forms)


def _prompt_tokens(body: dict[str, Any], turn: Turn) -> int:
    text = json.dumps(body.get("messages", []))
    images = text.count('"image_url"')
    # OpenAI's vision price: 85 base tokens plus 170 per 512 px tile of the image.
    tiles = 1 if turn.image is None else -(-turn.image[0] // 512) * -(-turn.image[1] // 512)
    image_chars = sum(len(part) for part in text.split("data:image/")[1:])
    return tokens(text) - image_chars // 4 + images * (85 + 170 * tiles)
