"""Key names a ``press_key`` action may carry: Textual's names, which orav uses on every platform.

A key is an optional run of modifiers (``ctrl+``, ``alt+``, ``shift+``, ``meta+``, ``super+``,
``hyper+``, each at most once) and a base key: a named key (``enter``, ``down``, ``pageup``,
``f5``...), a printable ASCII character by itself (``a``, ``?``) or by Textual's name for it
(``question_mark``, ``slash``). ``return`` is orav's older name of ``enter``. The list is kept
here, not read from Textual, so the model stays free of heavy imports; a test checks that every
key of ``textual.keys.Keys`` is accepted. Which keys a device can press is the driver's call:
the iOS driver refuses what has no HID keycode.
"""

from __future__ import annotations

import string
import unicodedata

MODIFIERS = ("ctrl", "alt", "shift", "meta", "super", "hyper")
NAMED = frozenset(
    {
        "enter",
        "return",
        "escape",
        "tab",
        "backspace",
        "delete",
        "insert",
        "space",
        "home",
        "end",
        "pageup",
        "pagedown",
        "up",
        "down",
        "left",
        "right",
        *(f"f{n}" for n in range(1, 25)),
    }
)
# Textual's key name of a punctuation character is its Unicode name, snake-cased, with a few
# shorter replacements (``textual.keys.KEY_NAME_REPLACEMENTS``).
_REPLACEMENTS = {
    "solidus": "slash",
    "reverse_solidus": "backslash",
    "commercial_at": "at",
    "hyphen_minus": "minus",
    "plus_sign": "plus",
    "low_line": "underscore",
}


def character_key(char: str) -> str:
    """Textual's key name of one printable character (``?`` → ``question_mark``)."""
    if char.isalnum():
        return char
    name = unicodedata.name(char).lower().replace("-", "_").replace(" ", "_")
    return _REPLACEMENTS.get(name, name)


_PUNCTUATION = {character_key(c): c for c in string.punctuation}
BASE_KEYS = frozenset(NAMED | set(_PUNCTUATION) | set(string.ascii_letters + string.digits))


def parse_key(key: str) -> tuple[tuple[str, ...], str]:
    """``ctrl+shift+up`` → (("ctrl", "shift"), "up"); ValueError saying what is wrong."""
    if len(key) == 1 and key in string.punctuation:
        return (), character_key(key)
    *modifiers, base = key.split("+") if not key.endswith("++") else [*key[:-2].split("+"), "+"]
    if len(base) == 1 and base in string.punctuation:
        base = character_key(base)
    unknown = [m for m in modifiers if m not in MODIFIERS]
    if unknown:
        raise ValueError(f"unknown modifier {unknown[0]!r} in key {key!r}; modifiers: {MODIFIERS}")
    if len(set(modifiers)) != len(modifiers):
        raise ValueError(f"a modifier is repeated in key {key!r}")
    if base not in BASE_KEYS:
        raise ValueError(
            f"unknown key {key!r}: expected a Textual key name such as enter, escape, tab, "
            "up, down, pageup, end, f5, ctrl+s, shift+tab or a printable character"
        )
    return tuple(modifiers), base


def textual_key(key: str) -> str:
    """The name Textual's events carry for ``key`` (``return`` → ``enter``, ``?`` →
    ``question_mark``)."""
    modifiers, base = parse_key(key)
    if base == "return":
        base = "enter"
    return "+".join((*modifiers, base))


def key_character(key: str) -> str | None:
    """The character a key types, when it types one (``a``, ``question_mark``, ``space``)."""
    modifiers, base = parse_key(key)
    if modifiers:
        return None
    if base == "space":
        return " "
    if len(base) == 1:
        return base
    return _PUNCTUATION.get(base)
