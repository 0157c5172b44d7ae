"""What a simulated app leaves behind for diagnosis: its log and its crash reports."""

from __future__ import annotations

from collections import deque
from datetime import datetime

from attrs import frozen

from orav.model import Fault

MAX_LOG_LINES = 10_000
MAX_CRASHES = 100  # kept per app, the newest


@frozen
class CrashReport:
    """A crash report as the simulator keeps it (a real one is an .ips file)."""

    name: str
    bundle_id: str
    process_name: str
    pid: int
    timestamp: int
    contents: str


class AppLog:
    """An app's log: the newest MAX_LOG_LINES lines; ``total`` counts every line written, so
    a reader that follows it knows where it left off even after old lines were dropped."""

    def __init__(self) -> None:
        self.lines: deque[str] = deque(maxlen=MAX_LOG_LINES)
        self.total = 0

    def append(self, line: str) -> None:
        self.lines.append(line)
        self.total += 1

    def since(self, position: int) -> list[str]:
        """The lines written after the first ``position`` (those still kept)."""
        kept_from = self.total - len(self.lines)
        return list(self.lines)[max(position - kept_from, 0) :]


def crash_report(
    *,
    app: str,
    bundle_id: str,
    pid: int,
    screen: str | None,
    fault: Fault,
    inputs: int,
    now: datetime,
    number: int,
) -> CrashReport:
    """An .ips-like crash report: what a real simulator writes under DiagnosticReports."""
    when = now.strftime("%Y-%m-%d %H:%M:%S")
    contents = "\n".join(
        (
            f"Process:             {app} [{pid}]",
            f"Identifier:          {bundle_id}",
            f"Date/Time:           {when}",
            "Exception Type:      EXC_BAD_ACCESS (SIGSEGV)",
            f"Crashed on screen:   {screen}",
            f"Reason:              {fault.message or 'injected crash (orav sim)'}",
            f"After input:         {inputs}",
        )
    )
    name = f"{app}-{now.strftime('%Y-%m-%d-%H%M%S')}-{number}.ips"
    return CrashReport(name, bundle_id, app, pid, int(now.timestamp()), contents)
