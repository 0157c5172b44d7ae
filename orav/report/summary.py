"""The JSON summary of a run, next to its cassette."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from attrs import asdict

from orav.cassette.redact import Scrubber
from orav.model import RunReport


def write_json(report: RunReport, path: Path, *, secrets: Iterable[str] = ()) -> Path:
    """Write the report as indented JSON, every field included, scrubbed like a cassette
    (``secrets``, API keys, bearer tokens), and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = Scrubber(secrets).data(asdict(report))
    text = json.dumps(data, indent=2, ensure_ascii=False)
    path.write_text(text + "\n", encoding="utf-8")
    return path
