"""The bounds every untrusted document is loaded within, YAML and JSON alike.

A document past one of them is refused with a located InputError before it can cost more than a
few seconds or a few hundred MB (figures in docs/performance.md, from bench/bounded_input.py).
Real inputs are far inside them: the demo app model is 4 KB and 6 levels deep.
"""

from __future__ import annotations

# A 500-screen app model is ~330 KB; libyaml reads it in ~0.1 s (ruamel's round-trip parser,
# ~50 KB/s, reads only what libyaml's events do not decide, and locates errors).
MAX_YAML_BYTES = 512 * 1024
MAX_JSON_BYTES = 64 * 1024 * 1024  # one JSON document: a cassette line, a blob, a model answer
MAX_TOML_BYTES = 1024 * 1024  # a config file: orav.toml, pyproject.toml
MAX_DEPTH = 64  # nested mappings and lists
MAX_NODES = 200_000  # values in a YAML document once its aliases are expanded
MAX_DIGITS = 64  # of one number: Python refuses ints past 4,300 digits, and none need 64


def size(n: int) -> str:
    """A byte count as a person reads it."""
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):g} MB"
    if n >= 1024:
        return f"{n / 1024:g} KB"
    return f"{n} bytes"
