"""The pytest plugin replays golden cassettes as test items."""

import json
from pathlib import Path

pytest_plugins = ["pytester"]

GOLDEN = Path(__file__).resolve().parent.parent / "recordings" / "login.cassette"


def test_a_faithful_cassette_passes(pytester):
    (pytester.path / "golden").mkdir()
    (pytester.path / "golden" / "login.cassette").write_bytes(GOLDEN.read_bytes())
    result = pytester.runpytest(
        "--orav-cassettes", "golden", "-p", "no:cacheprovider", "-p", "no:asyncio"
    )
    result.assert_outcomes(passed=1)


def test_cassettes_are_not_collected_unless_asked_for(pytester):
    (pytester.path / "login.cassette").write_bytes(GOLDEN.read_bytes())
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:asyncio")
    assert result.ret == 5  # no tests collected


def test_a_diverging_cassette_fails_with_the_difference(pytester):
    header, rest = GOLDEN.read_bytes().split(b"\n", 1)
    data = json.loads(header)
    data["scenario"]["max_steps"] = 2  # the recorded run took 5 steps
    (pytester.path / "cut.cassette").write_bytes(json.dumps(data).encode() + b"\n" + rest)
    pytester.makeini("[pytest]\norav_cassettes = .\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:asyncio")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*cut.cassette: *status: recorded 'passed', replayed 'step_limit'*"]
    )
