"""The JSON summary of a run, next to its cassette."""

from __future__ import annotations

import json
from pathlib import Path

from attrs import asdict

from orav.model import RunReport


def write_json(report: RunReport, path: Path) -> Path:
    """Write the report as indented JSON, every field included, and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(asdict(report), indent=2, ensure_ascii=False)
    path.write_text(text + "\n", encoding="utf-8")
    return path
