"""docs/api.md is the public API as its docstrings say it, regenerated with ``just docs``."""

import ast
import inspect
import re
from pathlib import Path

import attrs

import orav
from orav.api_reference import reference

API = Path(__file__).resolve().parent.parent / "docs" / "api.md"


def test_the_api_reference_is_current():
    assert API.read_text() == reference(), "regenerate it with `just docs`"


def test_every_public_name_says_what_it_is():
    for name in orav.__all__:
        obj = getattr(orav, name)
        doc = vars(obj).get("__doc__") if inspect.isclass(obj) else obj.__doc__
        assert doc and doc.strip(), f"orav.{name} has no docstring, so docs/api.md has no words"


def test_the_reference_names_every_public_name_once():
    text = reference()
    for name in orav.__all__:
        assert text.count(f"### `{name}`\n") == 1, name


def test_the_reference_does_not_change_once_types_are_resolved():
    """cattrs resolves attrs classes' string annotations as it meets them: the page does not
    depend on which tests ran before it."""
    before = reference()
    for name in orav.__all__:
        obj = getattr(orav, name)
        if attrs.has(obj):
            attrs.resolve_types(obj)
    assert reference() == before


def test_every_code_block_is_python_as_ruff_formats_it():
    """Valid Python, so that CI's ``ruff format --check`` formats it rather than skip it."""
    for block in re.findall(r"```python\n(.*?)```", reference(), re.DOTALL):
        ast.parse(block)
