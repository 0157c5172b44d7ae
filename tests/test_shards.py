"""The shards of a suite run joined (``orav report --merge``): what makes one suite run, and a
located error (exit 2) for every way the shards of a CI matrix can fail to make one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from command import orav
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orav.errors import InputError
from orav.report.shards import merged, write_manifest

SUITE = ["garden/water.cassette", "garden/prune.cassette", "kiln/fire.cassette"]


def shard(folder: Path, index: int, count: int, suite=SUITE, runs=None) -> Path:
    """Shard ``index`` of ``count`` as ``orav record --shard`` leaves it: its cassettes (empty
    files: the merge reads only the manifest) and its manifest."""
    taken = [name for n, name in enumerate(suite) if n % count == index - 1]
    for name in taken:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(b"")
    if runs is None:
        runs = [(folder / name, f"idb:mac-{index}:10882", 1, "") for name in taken]
    return write_manifest(folder, (index, count), [folder / name for name in suite], runs)


def test_shards_join_in_the_suites_order_each_run_with_its_shard_and_device(tmp_path: Path):
    one, two = tmp_path / "a", tmp_path / "b"
    shard(one, 1, 2)
    shard(two, 2, 2)
    runs = merged([two, one])
    assert [run.name for run in runs] == SUITE
    assert [(run.shard, run.device) for run in runs] == [
        ("1/2", "idb:mac-1:10882"),
        ("2/2", "idb:mac-2:10882"),
        ("1/2", "idb:mac-1:10882"),
    ]
    assert runs[2].cassette == one / "kiln" / "fire.cassette"


def test_both_shards_in_one_folder_merge_too(tmp_path: Path):
    """GitLab extracts every parallel job's artifacts into one recordings/."""
    shard(tmp_path, 1, 2)
    shard(tmp_path, 2, 2)
    assert len(merged([tmp_path])) == 3


def test_a_run_that_left_no_cassette_is_kept_with_why(tmp_path: Path):
    lost = [(tmp_path / "b" / SUITE[1], "", 0, "no device of the pool left to run it on")]
    shard(tmp_path / "a", 1, 2)
    shard(tmp_path / "b", 2, 2, runs=lost)
    run = merged([tmp_path / "a", tmp_path / "b"])[1]
    assert (run.name, run.error) == (SUITE[1], "no device of the pool left to run it on")


def bad(tmp_path: Path, make) -> InputError:
    folders = make(tmp_path)
    with pytest.raises(InputError) as refused:
        merged(folders)
    return refused.value


def test_each_way_shards_fail_to_make_one_suite_is_located(tmp_path: Path):
    def missing(root):
        shard(root / "a", 1, 3)
        shard(root / "b", 3, 3)
        return [root / "a", root / "b"]

    error = bad(tmp_path / "1", missing)
    assert error.what == "shard 2/3 missing: give every shard's folder"

    def twice(root):
        shard(root / "a", 1, 2)
        shard(root / "b", 1, 2)
        return [root / "a", root / "b"]

    error = bad(tmp_path / "2", twice)
    assert error.where.endswith("b/shard-1-of-2.json") and "shard 1/2 twice: also" in error.what

    def other_split(root):
        shard(root / "a", 1, 2)
        shard(root / "b", 2, 3)
        return [root / "a", root / "b"]

    error = bad(tmp_path / "3", other_split)
    assert error.where.endswith("b/shard-2-of-3.json") and error.what.startswith("shard 2/3, but")

    def other_suite(root):
        shard(root / "a", 1, 2)
        shard(root / "b", 2, 2, suite=[*SUITE, "kiln/glaze.cassette"])
        return [root / "a", root / "b"]

    error = bad(tmp_path / "4", other_suite)
    assert error.what.endswith(
        "of another suite than "
        + str(tmp_path / "4" / "a" / "shard-1-of-2.json")
        + ": it has kiln/glaze.cassette"
    )

    def no_manifest(root):
        shard(root / "a", 1, 2)
        (root / "b").mkdir()
        return [root / "a", root / "b"]

    error = bad(tmp_path / "5", no_manifest)
    assert (
        error.where == str(tmp_path / "5" / "b") and "no shard-I-of-N.json under it" in error.what
    )

    def cassette_gone(root):
        shard(root / "a", 1, 2)
        shard(root / "b", 2, 2)
        (root / "b" / SUITE[1]).unlink()
        return [root / "a", root / "b"]

    error = bad(tmp_path / "6", cassette_gone)
    assert error.what == f"its run {SUITE[1]} left no cassette here"

    def damaged(root):
        shard(root / "a", 1, 2)
        shard(root / "b", 2, 2).write_text('{"orav_shard": 1, "shard": [2, 2], "suite": ')
        return [root / "a", root / "b"]

    error = bad(tmp_path / "7", damaged)
    assert (
        error.where.endswith("b/shard-2-of-2.json")
        and "cannot read the shard manifest" in error.what
    )


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    key=st.sampled_from(
        ["orav_shard", "shard", "suite", "runs", "cassette", "device", "attempts", "error"]
    ),
    value=JSON,
)
def test_a_manifest_changed_anywhere_is_merged_or_refused_naming_it(tmp_path: Path, key, value):
    folder = tmp_path / f"m{abs(hash((key, repr(value))))}"
    path = shard(folder, 1, 1)
    document = json.loads(path.read_text())
    if key in document:
        document[key] = value
    else:
        document["runs"][0][key] = value
    path.write_text(json.dumps(document))
    try:
        runs = merged([folder])
    except InputError as error:
        assert error.where in (str(path), str(folder)), error
    else:
        assert [run.name for run in runs] == SUITE


def test_a_cassette_named_outside_its_folder_is_refused(tmp_path: Path):
    """The merge writes a page per cassette name: a name never leads out of the merged folder."""
    for name in ("../escape.cassette", "/etc/passwd"):
        path = shard(tmp_path, 1, 1)
        document = json.loads(path.read_text())
        document["suite"][0] = document["runs"][0]["cassette"] = name
        path.write_text(json.dumps(document))
        with pytest.raises(InputError, match="is not under its folder"):
            merged([tmp_path])


def test_the_merge_command_refuses_bad_shards_in_one_line(tmp_path: Path):
    shard(tmp_path / "a", 1, 2)
    done = orav("report", "--merge", "a", "--html", "merged", cwd=tmp_path)
    assert (
        done.returncode == 2
        and done.stderr == "orav: error: a: shard 2/2 missing: give every shard's folder\n"
    )
    nowhere = orav("report", "--merge", "a", cwd=tmp_path)
    assert nowhere.returncode == 2 and "--merge: needs --html DIR" in nowhere.stderr


def test_a_shard_with_nothing_to_run_still_leaves_its_manifest(tmp_path: Path):
    """More machines than scenarios: the empty shard is not 'missing' at the merge."""
    from orav.scenario_loader import example_scenarios

    (tmp_path / "scenarios").mkdir()
    for example in [p for p in example_scenarios() if p.stem in ("login", "open_detail")]:
        (tmp_path / "scenarios" / example.name).write_text(example.read_text())
    done = orav("record", "--shard", "3/3", cwd=tmp_path)
    assert done.returncode == 0 and "orav: shard 3/3 has no scenario" in done.stderr
    manifest = json.loads((tmp_path / "recordings" / "shard-3-of-3.json").read_text())
    assert manifest["runs"] == [] and manifest["suite"] == [
        "login.cassette",
        "open_detail.cassette",
    ]
