"""The companion's answers are untrusted: a look of the wrong shape is a located DeviceError,
never a ValueError inside the shared calls; what passes the check, the shared code can read."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orav.drivers.textual.answers import Misshapen, check
from orav.drivers.textual.companion import PROTOCOL
from orav.drivers.textual.raster import RasterCache, row_text
from orav.drivers.textual.remote import RemoteTextualDevice
from orav.drivers.textual.tree import elements
from orav.errors import DeviceError

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
FACT = st.fixed_dictionaries(
    {"role": st.text(max_size=8), "frame": st.lists(st.integers(0, 80), min_size=4, max_size=4)},
    optional={
        "label": st.none() | st.text(max_size=8),
        "value": st.none() | st.text(max_size=8),
        "enabled": st.booleans(),
        "traits": st.lists(st.text(max_size=5), max_size=2),
    },
)
RUN = st.tuples(st.text(max_size=6), st.integers(0, 0xFFFFFF), st.integers(0, 0xFFFFFF)).map(list)
LOOK = st.fixed_dictionaries(
    {
        "running": st.just(True),
        "elements": st.lists(FACT, max_size=3),
        "rows": st.lists(st.lists(RUN, max_size=3), min_size=1, max_size=3),
    }
)


def paths(value: object, at: tuple = ()) -> list[tuple]:
    """Every place in ``value`` a hostile companion could put something else."""
    found = [at]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, (*at, index))
    return found


def replaced(value: object, at: tuple, new: object) -> object:
    if not at:
        return new
    copy = json.loads(json.dumps(value))
    holder = copy
    for part in at[:-1]:
        holder = holder[part]
    holder[at[-1]] = new
    return copy


@st.composite
def hostile_looks(draw) -> object:
    look = draw(LOOK)
    at = draw(st.sampled_from(paths(look)))
    return replaced(look, at, draw(JSON))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(look=hostile_looks())
def test_a_look_is_refused_where_it_is_wrong_or_read_whole(look: object):
    try:
        check("look", look)
    except Misshapen as refused:
        assert str(refused).startswith("look")
        return
    assert isinstance(look, dict)
    if look["running"]:
        elements(look["elements"])
        text = "\n".join(row_text(row) for row in look["rows"])
        assert isinstance(text, str)
        RasterCache().screenshot(look["rows"])


@pytest.mark.parametrize(
    ("call", "answer", "where"),
    [
        ("look", {"running": True, "elements": [], "rows": ["hi"]}, "look.rows[0]"),
        ("look", {"running": "yes"}, "look:"),
        ("candidates", [{"role": "button", "frame": [1, 2, 3]}], "candidates[0].frame"),
        ("click", [1, float("nan")], "click:"),
        ("settle", "quiet", "settle:"),
    ],
)
def test_each_misshapen_answer_names_its_part(call: str, answer: object, where: str):
    with pytest.raises(Misshapen) as refused:
        check(call, answer)
    assert str(refused.value).startswith(where)


# A stand-in companion (no app can make the real one misspeak): it greets in the protocol, then
# answers every call with a look whose rows are strings.
LIAR = f"""#!{sys.executable}
import json, sys
print(json.dumps({{"protocol": {PROTOCOL!r}, "textual": "0"}}), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    if request.get("call") == "quit":
        break
    result = {{"running": True, "elements": [], "rows": ["a row of text"]}}
    print(json.dumps({{"id": request["id"], "result": result}}), flush=True)
"""


def test_a_companion_that_misspeaks_is_a_located_device_error(tmp_path: Path):
    python = tmp_path / "python"
    python.write_text(LIAR)
    python.chmod(0o755)

    async def look() -> None:
        async with RemoteTextualDevice("app:App", python) as device:
            await device.observe()

    with pytest.raises(DeviceError) as failed:
        asyncio.run(look())
    message = str(failed.value)
    assert "the companion answered look.rows[0]: expected a row" in message, message
