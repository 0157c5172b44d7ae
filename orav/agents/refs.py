"""Which element of the prompt's tree an answer names: its reference, a name (a label, id or
placeholder, case, spaces and punctuation aside, or said within a longer phrase as in
"the Sign in button"), or the point a tap lands on; and, when it names none, the three
elements nearest to what it said, for the re-ask.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from difflib import SequenceMatcher

from orav.agents.prompt import element_line
from orav.agents.schema import DESCRIPTIONS
from orav.agents.space import Space
from orav.model import Element

NEAREST = 3  # elements a re-ask names
_REF = re.compile(r"e\d+")
_MIN_INSIDE = 3  # characters a name needs to be found inside a longer phrase
_REF_INSIDE = re.compile(r"(?<![^\W_])[eE]\d+(?![^\W_])")
# The element field's own words (its name and its description in the schema): around a number
# they say it is a reference, not a name.
ELEMENT_WORDS = frozenset(re.findall(r"[^\W_]+", f"element {DESCRIPTIONS['element']}".casefold()))


def is_ref(text: str) -> bool:
    """Whether ``text`` is written as a reference (``e12``), on this screen or not."""
    return _REF.fullmatch(text.strip()) is not None


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.casefold())


def names(element: Element) -> list[str]:
    """What an answer may call an element: its label, its id, its placeholder."""
    found = (element.label, element.unique_id, element.placeholder)
    return [name for name in found if name and _words(name)]


def _inside(name: list[str], said: list[str]) -> bool:
    """Whether the words of ``name`` come in a row in ``said``."""
    n = len(name)
    return any(said[i : i + n] == name for i in range(len(said) - n + 1))


def named(said: str, refs: dict[str, Element]) -> Element | None:
    """The element ``said`` names: one whose name is the same words (case and punctuation
    aside), else the one whose name is said within it (the longest such name; none when two
    different elements share it)."""
    words = _words(said.removeprefix("#"))
    if not words:
        return None
    same = [e for e in refs.values() if any(_words(n) == words for n in names(e))]
    if same:  # the target rule's order: controls before plain text, enabled ones first
        return min(same, key=lambda e: (not e.interactive, not e.enabled))
    inside: list[tuple[int, Element]] = []
    for element in refs.values():
        for name in names(element):
            wanted = _words(name)
            if len("".join(wanted)) >= _MIN_INSIDE and _inside(wanted, words):
                inside.append((len(wanted), element))
    if not inside:
        return None
    longest = max(n for n, _ in inside)
    best = {id(e): e for n, e in inside if n == longest}
    return next(iter(best.values())) if len(best) == 1 else None


def cited(said: str) -> str | None:
    """The reference written inside what was said, when it names no element: an ``eN`` in
    any case (``E7``, ``(e7)``, ``ref e7``), else a number alone among the words the schema
    uses for the element field itself (``element 7``, ``[7]``, ``#7``)."""
    found = _REF_INSIDE.search(said)
    if found is not None:
        return found.group().lower()
    rest = [word for word in _words(said) if word not in ELEMENT_WORDS]
    return f"e{rest[0]}" if len(rest) == 1 and rest[0].isdigit() else None


def element_at(x: float, y: float, refs: dict[str, Element]) -> Element | None:
    """The element under a point (in points): the smallest whose frame holds it, the later in
    pre-order of two the same size (drawn over the other)."""
    under = [
        (e.frame.width * e.frame.height, -i, e)
        for i, e in enumerate(refs.values())
        if e.frame.x <= x < e.frame.x + e.frame.width
        and e.frame.y <= y < e.frame.y + e.frame.height
    ]
    return min(under, key=lambda hit: hit[:2])[2] if under else None


def _nearness(said: str, element: Element) -> float:
    words = set(_words(said))
    best = 0.0
    for name in names(element):
        wanted = set(_words(name))
        overlap = len(words & wanted) / len(wanted)
        ratio = SequenceMatcher(None, said.casefold(), name.casefold()).ratio()
        best = max(best, overlap + ratio)
    return best


def nearest(said: Iterable[str], refs: dict[str, Element], space: Space | None = None) -> str:
    """The ``NEAREST`` elements closest to what the answer said, as the prompt lists them."""
    text = " ".join(s for s in said if s)
    shown = [(ref, element) for ref, element in refs.items() if is_ref(ref)]
    ranked = sorted(shown, key=lambda item: -_nearness(text, item[1]) if text else 0)
    return "; ".join(element_line(ref, element, space=space) for ref, element in ranked[:NEAREST])
