"""A regression check's file beside the run's cassette (``NAME.regressions.json``): written and
read back through the codec's converter, screenshots with their bytes; a damaged one is one
InputError naming the file and the field."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orav.cassette.rerun import Heal, Regression
from orav.errors import InputError
from orav.model import Screenshot
from orav.report.revisits import (
    RegressionCheck,
    Revisit,
    read_revisits,
    revisits_path,
    write_revisits,
)

TEXT = st.text(max_size=12)
SHOTS = st.none() | st.builds(
    Screenshot.of,
    st.binary(min_size=1, max_size=64),
    st.integers(1, 4000),
    st.integers(1, 4000),
    st.sampled_from(["png", "jpeg"]),
    st.sampled_from([1.0, 2.0, 3.0]),
)
REGRESSIONS = st.builds(
    Regression, st.integers(0, 500), st.sampled_from(["screen", "target", "goal"]), TEXT, TEXT,
    SHOTS, SHOTS,
)  # fmt: skip
REVISITS = st.builds(
    Revisit,
    st.builds(Path, st.from_regex(r"[a-z]{1,8}\.cassette", fullmatch=True)),
    TEXT,
    st.sampled_from(["passed", "healed", "regressed", "unchecked"]),
    TEXT,
    st.integers(0, 500),
    st.floats(0, 1e4, allow_nan=False),
    st.lists(st.builds(Heal, st.integers(1, 99), TEXT, TEXT, TEXT), max_size=2).map(tuple),
    st.lists(REGRESSIONS, max_size=2).map(tuple),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(REVISITS, max_size=3), TEXT)
def test_a_check_reads_back_as_it_was_written_screenshot_bytes_and_all(
    tmp_path_factory, revisits, run_id
):
    cassette = tmp_path_factory.mktemp("run") / "run.cassette"
    check = RegressionCheck(tuple(revisits), (Path("failed.cassette"),))
    write_revisits(check, cassette, run_id)
    again = read_revisits(cassette, run_id)
    assert again == check
    shots = [
        (shot, other)
        for revisit, back in zip(check.revisits, again.revisits, strict=True)
        for regression, read in zip(revisit.regressions, back.regressions, strict=True)
        for shot, other in ((regression.recorded, read.recorded), (regression.live, read.live))
    ]
    assert all(a is b is None or a.data == b.data for a, b in shots)  # eq leaves the bytes out


def written(tmp_path: Path, data: object) -> Path:
    cassette = tmp_path / "login.cassette"
    revisits_path(cassette).write_text(json.dumps(data))
    return cassette


REGRESSED = {
    "cassette": "change_setting.cassette",
    "scenario": "change_setting",
    "status": "regressed",
    "regressions": [{"step": 1, "kind": "target", "expected": "#settings", "found": "none"}],
}


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        ({"steps": "three"}, "revisits[0].steps: expected a whole number, got 'three'"),
        ({"colour": "red"}, "revisits[0].colour: unknown key 'colour'"),
        (
            {"regressions": [{**REGRESSED["regressions"][0], "live": {"base64": "*", "width": 1, "height": 1}}]},
            "revisits[0].regressions[0].live: expected the screenshot's bytes in base64",
        ),
        (
            {"regressions": [{**REGRESSED["regressions"][0], "recorded": {"width": 1, "height": 1}}]},
            "revisits[0].regressions[0].recorded.base64: required field is missing",
        ),
    ],
)  # fmt: skip
def test_a_damaged_field_is_named_with_the_file(tmp_path: Path, edit: dict, said: str):
    cassette = written(tmp_path, {"run_id": "r", "revisits": [{**REGRESSED, **edit}]})
    with pytest.raises(InputError) as raised:
        read_revisits(cassette)
    assert raised.value.where == str(revisits_path(cassette))
    assert raised.value.what.startswith(f"not a regression check orav wrote: {said}")
    assert read_revisits(cassette, run_id="a later run") is None  # another run's: not read
