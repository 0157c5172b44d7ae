"""A live run's report and the cassette it was written to: what ``orav.record`` returns and
what an interrupted recording kept (``orav.errors.Interrupted.recording``)."""

from __future__ import annotations

from pathlib import Path

from attrs import frozen

from orav.model.report import RunReport


@frozen
class Recording:
    """A live run's report and cassette; ``secrets`` must be scrubbed from anything written.

    ``reused`` and ``asked`` count decisions when an old cassette's were reused (new_episodes).
    """

    report: RunReport
    cassette: Path
    secrets: tuple[str, ...] = ()
    reused: int | None = None  # new_episodes: decisions served from the old cassette
    asked: int | None = None  # new_episodes: decisions asked of the agent
