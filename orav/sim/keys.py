"""HID keycodes as the companion reads them: named keys, and characters with or without shift.

The table is fb-idb's own (``idb.common.hid.KEY_MAP``, text to key events) read backwards, so
what the idb client types is what the simulated app receives.
"""

from __future__ import annotations

from idb.common.hid import KEY_MAP

SHIFT = 225
NAMED_KEYCODES = {40: "return", 42: "backspace", 43: "tab", 41: "escape"}


def _invert_key_map() -> dict[tuple[int, bool], str]:
    """(keycode, shifted) → character, read off fb-idb's own text → events table."""
    table: dict[tuple[int, bool], str] = {}
    for char, events in KEY_MAP.items():
        codes = [e.action.keycode for e in events if e.direction.name == "DOWN"]
        shifted = codes[0] == SHIFT and len(codes) == 2
        table[(codes[-1], shifted)] = char
    return table


CHARS = _invert_key_map()
