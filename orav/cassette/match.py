"""How a replayed action is matched to the recorded one: a named, replaceable policy, as
vcrpy's ``match_on`` is for requests.

API::

    Match()                          # the default: the whole action, as recorded (redacted)
    Match.on("kind", "target")       # the same kind of action on the same target: a tap whose
                                     # coordinates moved with the layout still matches
    Match.on("text", my_matcher)     # a matcher is any (recorded, actual) -> bool over the two
                                     # actions as plain data, the actual one scrubbed of secrets
    MATCHERS                         # the named matchers

A replayed ``perform`` matches the next recorded one when both are the same kind of action
and every matcher of the policy agrees; anything else is a ``ReplayDivergence``. A recorded
``••••••`` (a redacted secret) matches any text (``matches_redacted``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from attrs import frozen

from orav.cassette.redact import matches_redacted
from orav.codec import unstructure
from orav.model import Action
from orav.secrets import Scrubber

ActionData = Mapping[str, Any]
Matcher = Callable[[ActionData, ActionData], bool]


def _fields(*names: str) -> Matcher:
    def match(recorded: ActionData, actual: ActionData) -> bool:
        return all(matches_redacted(recorded.get(n), actual.get(n)) for n in names)

    return match


MATCHERS: Mapping[str, Matcher] = {
    "action": matches_redacted,  # every field
    "kind": lambda recorded, actual: True,  # the kind itself is always compared
    "target": _fields("target"),
    "point": _fields("x", "y", "start", "end"),
    "text": _fields("text", "secure"),
    "key": _fields("key"),
}


@frozen
class Match:
    """How a replayed action is matched to the recorded one: named matchers (``MATCHERS``:
    ``action``, the default, compares all of it; ``kind``, ``target``, ``point``, ``text``,
    ``key``) and functions of your own, all of which must agree. Build one with ``on``."""

    matchers: tuple[tuple[str, Matcher], ...] = (("action", matches_redacted),)

    @classmethod
    def on(cls, *matchers: str | Matcher) -> Match:
        """The policy that matches on each of ``matchers``, a name or a function."""
        if not matchers:
            raise ValueError("Match.on needs at least one matcher")
        named = []
        for matcher in matchers:
            if isinstance(matcher, str):
                if matcher not in MATCHERS:
                    raise ValueError(f"unknown matcher {matcher!r}; named ones: {sorted(MATCHERS)}")
                named.append((matcher, MATCHERS[matcher]))
            else:
                named.append((getattr(matcher, "__name__", repr(matcher)), matcher))
        return cls(tuple(named))

    def __call__(self, recorded: Action, actual: Action, scrubber: Scrubber | None = None) -> bool:
        """Whether ``actual`` replays ``recorded``; ``scrubber`` redacts its secrets first."""
        if type(recorded) is not type(actual):
            return False
        was = unstructure(recorded)
        now = unstructure(actual)
        if scrubber is not None:
            now = scrubber.data(now)
        return all(matcher(was, now) for _, matcher in self.matchers)

    @property
    def names(self) -> tuple[str, ...]:
        """The matchers' names (a function's own name), for messages."""
        return tuple(name for name, _ in self.matchers)
