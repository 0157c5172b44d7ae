"""What a run did that outlasts it: the deeds performed and what changed in the run's world.

A **deed** is a consequential action: *outward* when its effect leaves the app or reaches
people or money (send, pay, book, rate, grant tracking, sign in with a third party, open a
URL), *destructive* when it deletes or overwrites what the app holds (delete, trash, drop, mark
all, sign out, overwrite a file). The **world** is where the app ran: orav's own, disposable
folder (a Textual app's sandbox, the simulator's app) or the user's own device.
"""

from __future__ import annotations

from typing import Literal

from attrs import frozen

DeedKind = Literal["outward", "destructive"]
DEED_KINDS: tuple[DeedKind, ...] = ("outward", "destructive")
Actor = Literal["agent", "remedy"]
Change = Literal["created", "changed", "deleted"]


@frozen
class Deed:
    """One deed performed at ``step`` by the agent or a remedy; ``why`` says how it was known
    ("confirmation", "binding 'Delete file'", "effect: deleted home/notes.md", "words: trash")."""

    kind: DeedKind
    step: int
    action: str  # the action as shown: "tap #drop_table", "press delete"
    by: Actor = "agent"
    why: str = ""

    def __str__(self) -> str:
        why = f"; {self.why}" if self.why else ""
        return f"step {self.step}: {self.action} ({self.kind}, by the {self.by}{why})"


@frozen
class FileChange:
    """A file the app created, changed or deleted in its world, by its path there
    (``home/notes.md``, ``work/sample.db``), or an entry of the app's data (``app:todos``)."""

    path: str
    change: Change

    def __str__(self) -> str:
        return f"{self.change} {self.path}"


@frozen
class WorldChanges:
    """What changed in the world since the device was last asked (``Device.changes``)."""

    files: tuple[FileChange, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.files)


@frozen
class SideEffects:
    """The side-effect ledger of a run: where it ran, what it did, what that changed.

    ``disposable`` says the world was orav's own and thrown away after the run (a sandbox, the
    simulator); ``network`` says whether the app could reach the network ("off", "on", or why
    it could not be turned off)."""

    disposable: bool = False
    network: str = ""
    files: tuple[FileChange, ...] = ()
    deeds: tuple[Deed, ...] = ()

    @property
    def world(self) -> str:
        """Where the app ran, in a few words: "a disposable world, network off"."""
        where = "a disposable world" if self.disposable else "the user's own world"
        return f"{where}, network {self.network}" if self.network else where

    def lines(self, limit: int = 20) -> list[str]:
        """The deeds, then the files, one a line, at most ``limit`` and a count of the rest."""
        items = [str(deed) for deed in self.deeds] + [str(file) for file in self.files]
        rest = len(items) - limit
        return items[:limit] + ([f"… and {rest} more"] if rest > 0 else [])
