"""The JSON summary of a run, next to its cassette."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from attrs import asdict

from orav.model import RunReport
from orav.report.files import write_text
from orav.report.records import seed_records
from orav.report.timeline import RunView
from orav.secrets import Scrubber


def write_json(
    report: RunReport, path: Path, *, secrets: Iterable[str] = (), run: RunView | None = None
) -> Path:
    """Write the report as indented JSON, every field included, scrubbed like a cassette
    (``secrets``, API keys, bearer tokens), and return the path. With the recorded ``run``,
    the seeds' records follow: a verify record per step and the running state."""
    data = asdict(report) | (seed_records(run) if run is not None else {})
    data = Scrubber(secrets).data(data)
    text = json.dumps(data, indent=2, ensure_ascii=False)
    return write_text(path, text + "\n")  # whole, and never through a symlink
