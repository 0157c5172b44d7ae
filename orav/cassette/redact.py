"""How replay compares a recorded value with a live one: the cassette holds it scrubbed
(``orav.secrets``), so ``REDACTED`` or a secret's stand-in (``{{password}}``) in a recorded
string stands for any text."""

from __future__ import annotations

import re
from typing import Any

from orav.secrets import REDACTED, STAND_IN

_SCRUBBED = re.compile(f"{re.escape(REDACTED)}|{STAND_IN.pattern}")


def matches_redacted(recorded: Any, actual: Any) -> bool:
    """Equal plain data, except that ``REDACTED`` or a stand-in inside a recorded string
    matches any text."""
    if isinstance(recorded, str) and isinstance(actual, str):
        if recorded == actual:
            return True
        parts = _SCRUBBED.split(recorded)
        if len(parts) == 1:
            return False
        pattern = ".*".join(re.escape(part) for part in parts)
        return re.fullmatch(pattern, actual, flags=re.DOTALL) is not None
    if isinstance(recorded, dict) and isinstance(actual, dict):
        return recorded.keys() == actual.keys() and all(
            matches_redacted(value, actual[key]) for key, value in recorded.items()
        )
    if isinstance(recorded, list | tuple) and isinstance(actual, list | tuple):
        return len(recorded) == len(actual) and all(
            matches_redacted(r, a) for r, a in zip(recorded, actual, strict=True)
        )
    return recorded == actual and isinstance(recorded, bool) == isinstance(actual, bool)
