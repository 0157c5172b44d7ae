"""What perception reads off a tree alone, worked out once per tree.

A step asks the same questions of its ``before`` and ``after`` trees several times (the
faults, the interruption, its target's cover, the deed, the change), its ``after`` is the
next step's ``before``, and a screen the run comes back to is the very same tree again (the
idb driver hands back the tuple it parsed for a dump it has seen lately). ``per_tree`` keeps a
function's answers for the last few trees, by identity: hashing a tree of a hundred frozen
elements costs more than most of the questions. A tree is a tuple of frozen elements, so an
answer holds as long as the tree does.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])

# Answers remembered per question: a step's before and after, and the screens it came from,
# each asked of a target or two (a list and the detail pages it opens: eight, not four).
KEPT = 8


def per_tree(question: F) -> F:
    """``question(elements, *more)``, answered once per tree (by identity) and ``more``."""
    kept: list[tuple[tuple[object, tuple, Any], ...]] = [()]

    @functools.wraps(question)
    def answer(elements: tuple, *more: Any) -> Any:
        known = kept[0]  # one read: another thread may replace it
        for tree, asked, answered in known:
            if tree is elements and asked == more:
                return answered
        answered = question(elements, *more)
        kept[0] = ((elements, more, answered), *known[: KEPT - 1])
        return answered

    return cast(F, answer)
