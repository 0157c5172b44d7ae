"""A live run's report and the cassette it was written to: what ``orav.record`` returns and
what an interrupted recording kept (``orav.errors.Interrupted.recording``)."""

from __future__ import annotations

from pathlib import Path

from attrs import frozen

from orav.model.report import RunReport


@frozen
class Heal:
    """A recorded tap re-aimed on a changed screen (a rerun, a re-record reusing decisions):
    its target moved or was renamed, and was found live."""

    step: int
    recorded: str  # the target as recorded
    live: str  # the element it was found as
    by: str  # "id", "label", "position", or "moved" (found as recorded, somewhere else)

    def __str__(self) -> str:
        return f"healed step {self.step}: {self.recorded} is now {self.live} (by {self.by})"


@frozen
class Recording:
    """A live run's report and cassette; ``secrets`` must be scrubbed from anything written.

    ``reused`` and ``asked`` count decisions when an old cassette's were reused (new_episodes),
    ``heals`` the reused taps re-aimed on a changed screen.
    """

    report: RunReport
    cassette: Path
    secrets: tuple[str, ...] = ()
    reused: int | None = None  # new_episodes: decisions served from the old cassette
    asked: int | None = None  # new_episodes: decisions asked of the agent
    heals: tuple[Heal, ...] = ()
