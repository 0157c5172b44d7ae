"""The shards of one suite run, joined.

Each ``orav record --shard I/N`` leaves a manifest beside its cassettes,
``shard-I-of-N.json``: the whole suite's cassettes (before sharding) and each run of the
shard with its cassette, its device and its attempts. ``merged`` reads the manifests under
several folders (a CI matrix's artifacts), checks that they are the N shards of one suite,
each once, and gives back every run of the suite with its shard: one index, one JUnit file
and one summary are written from them (``orav report --merge``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from attrs import frozen

from orav.codec import parse_json
from orav.errors import InputError
from orav.report.files import write_text
from orav.report.timeline import RunView

VERSION = 1
_NAME = re.compile(r"shard-(\d+)-of-(\d+)\.json")
MAX_MANIFEST_BYTES = 16 * 1024 * 1024  # a suite of ~100,000 scenarios


@frozen
class ShardRun:
    """One run of a suite's shard: its cassette (``name``, relative to the recordings folder;
    ``cassette`` where it is now), where it ran, and why it left no cassette (``error``)."""

    name: str
    cassette: Path
    shard: str  # "2/4"
    device: str  # empty: a golden replayed, not recorded
    attempts: int = 1
    error: str = ""


def manifest_name(index: int, count: int) -> str:
    return f"shard-{index}-of-{count}.json"


def write_manifest(
    folder: Path,
    shard: tuple[int, int],
    suite: Sequence[Path],
    runs: Sequence[tuple[Path, str, int, str]],
) -> Path:
    """The manifest of shard ``(index, count)`` in ``folder``: ``suite``, every cassette of
    the suite; ``runs``, this shard's ``(cassette, device, attempts, error)``."""

    def name(cassette: Path) -> str:
        return Path(os.path.relpath(cassette, folder)).as_posix()

    document = {
        "orav_shard": VERSION,
        "shard": list(shard),
        "suite": [name(path) for path in suite],
        "runs": [
            {"cassette": name(path), "device": device, "attempts": attempts, "error": error}
            for path, device, attempts, error in runs
        ],
    }
    import json

    return write_text(folder / manifest_name(*shard), json.dumps(document, indent=1) + "\n")


@frozen
class _Manifest:
    path: Path
    index: int
    count: int
    suite: tuple[str, ...]
    runs: tuple[ShardRun, ...]


def merged(folders: Sequence[Path]) -> list[ShardRun]:
    """Every run of the suite whose shards are under ``folders``, in the suite's order. A
    folder without a manifest, a manifest that is damaged, of another suite or of another
    split, a shard given twice or missing, a run's cassette not there: an InputError naming
    the file or folder."""
    manifests = [_read(path) for folder in folders for path in _found(folder)]
    first = manifests[0]
    seen: dict[int, _Manifest] = {}
    for manifest in manifests:
        shard = f"shard {manifest.index}/{manifest.count}"
        if manifest.count != first.count:
            raise InputError(f"{shard}, but {first.path} is of {first.count}", str(manifest.path))
        if manifest.suite != first.suite:
            raise InputError(
                f"{shard} of another suite than {first.path}: {_differ(first.suite, manifest.suite)}",
                str(manifest.path),
            )
        if manifest.index in seen:
            raise InputError(f"{shard} twice: also {seen[manifest.index].path}", str(manifest.path))
        seen[manifest.index] = manifest
    suite = set(first.suite)
    missing = [f"{i}/{first.count}" for i in range(1, first.count + 1) if i not in seen]
    if missing:
        where = ", ".join(str(folder) for folder in folders)
        raise InputError(f"shard {', '.join(missing)} missing: give every shard's folder", where)
    runs: dict[str, ShardRun] = {}
    for manifest in manifests:
        for run in manifest.runs:
            if run.name in runs or run.name not in suite:
                what = "twice" if run.name in runs else "which is not in its suite"
                raise InputError(f"it ran {run.name} {what}", str(manifest.path))
            runs[run.name] = run
    left = [name for name in first.suite if name not in runs]
    if left:
        raise InputError(f"no shard ran {left[0]} (of {len(left)} not run)", str(first.path))
    return [runs[name] for name in first.suite]


def _found(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise InputError("not a folder (give each shard's recordings folder)", str(folder))
    found = sorted(path for path in folder.rglob("shard-*-of-*.json") if _NAME.fullmatch(path.name))
    if not found:
        raise InputError(
            "no shard-I-of-N.json under it: was it recorded with orav record --shard I/N?",
            str(folder),
        )
    return found


def _read(path: Path) -> _Manifest:
    """One manifest, its shape checked; a run's cassette found beside it."""
    try:
        data = parse_json(path.read_bytes(), max_bytes=MAX_MANIFEST_BYTES)
    except (OSError, ValueError) as exc:  # JSONRefused is a ValueError
        raise InputError(f"cannot read the shard manifest: {exc}", str(path)) from None
    match = _NAME.fullmatch(path.name)
    assert match is not None, "found by its name"
    index, count = int(match[1]), int(match[2])
    if not (
        isinstance(data, dict)
        and data.get("orav_shard") == VERSION
        and data.get("shard") == [index, count]
        and _strings(data.get("suite"))
        and isinstance(data.get("runs"), list)
    ):
        raise InputError(
            f"not a shard manifest of orav (version {VERSION}, shard {index}/{count})", str(path)
        )
    runs = tuple(_run(item, path, f"{index}/{count}") for item in data["runs"])
    return _Manifest(path, index, count, tuple(data["suite"]), runs)


def _run(item: object, path: Path, shard: str) -> ShardRun:
    fields = ("cassette", "device", "error")
    if not (
        isinstance(item, dict)
        and all(isinstance(item.get(key), str) for key in fields)
        and isinstance(item.get("attempts"), int)
    ):
        raise InputError(
            f"a run is not {{cassette, device, attempts, error}}: {item!r}"[:300], str(path)
        )
    name = Path(item["cassette"])
    if name.is_absolute() or ".." in name.parts or not name.parts:
        raise InputError(
            f"a run's cassette {item['cassette']!r} is not under its folder", str(path)
        )
    cassette = path.parent / name
    if not item["error"] and not cassette.is_file():
        raise InputError(f"its run {item['cassette']} left no cassette here", str(path))
    return ShardRun(
        item["cassette"], cassette, shard, item["device"], item["attempts"], item["error"]
    )


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _differ(ours: Sequence[str], theirs: Sequence[str]) -> str:
    """The first scenario one suite has and the other has not."""
    mine, yours = set(ours), set(theirs)
    only_theirs = next((name for name in theirs if name not in mine), None)
    if only_theirs is not None:
        return f"it has {only_theirs}"
    only_ours = next((name for name in ours if name not in yours), None)
    return f"it lacks {only_ours}" if only_ours else "its scenarios are in another order"


def write_summary(runs: Sequence[ShardRun], views: Sequence[RunView], out: Path) -> Path:
    """The merged suite as markdown (a CI job's summary: GitHub's ``$GITHUB_STEP_SUMMARY``):
    the count, then a row per run with its shard and device."""
    by_path = {view.path: view for view in views}
    rows = []
    met = 0
    for run in runs:
        view = by_path.get(run.cassette)
        report = view.report if view is not None else None
        met += report is not None and report.goal_met
        status = view.status if view is not None else "not run"
        steps = str(report.total_steps) if report else ""
        seconds = f"{report.duration_seconds:.1f} s" if report else ""
        device = run.device or ("replayed" if view is not None else "")
        why = "; ".join(report.reasons()[:1]) if report and not report.goal_met else run.error
        cells = [run.name, status, run.shard, device, steps, seconds, why]
        rows.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    shards = runs[0].shard.split("/")[1] if runs else "0"
    head = [
        f"**{met} of {len(runs)} met their goal** ({shards} shards)",
        "",
        "| cassette | status | shard | device | steps | duration | why not |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    return write_text(out, "\n".join(head + rows) + "\n")


def _cell(text: str) -> str:
    """Text a markdown table cell holds: one line, no column break."""
    return " ".join(text.split()).replace("|", "\\|")[:300]
