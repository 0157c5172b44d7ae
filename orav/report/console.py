"""What the terminal shows: live progress while a run goes, and why a run did not pass.

``Progress`` is fed the cassette's events as the engine writes them (``orav.session`` tees the
writer), so it shows exactly what is recorded: the step and the budget, the action and its
target, recoveries as they happen, elapsed time, and tokens and cost for an LLM. On a terminal
the lines are coloured; in a pipe or a CI log they are plain. Verbosity: 0 quiet (nothing
while running), 1 steps and recoveries, 2 the run machine's phases and every device call too.

Why a run did not pass is the report's own ``RunReport.reasons``: the same lines here, in the
HTML and in a failed test.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import IO

from rich.console import Console
from rich.markup import escape

from orav.cassette.events import (
    DecideEvent,
    ErrorEvent,
    ObserveEvent,
    PerformEvent,
    RecoveryEndEvent,
    ReportEvent,
    StepEvent,
    TransitionEvent,
)
from orav.model import GOAL_MET, Done, ModelCall, show_action
from orav.secrets import Scrubber


def console_for(stream: IO[str] | None = None) -> Console:
    """A console on ``stream`` (stderr by default): coloured on a terminal, plain otherwise,
    and never folding a line of a CI log at 80 columns."""
    import sys

    stream = stream or sys.stderr
    terminal = stream.isatty()
    return Console(
        file=stream,
        highlight=False,
        force_terminal=terminal,
        no_color=not terminal,
        width=None if terminal else 200,
        soft_wrap=not terminal,
    )


class Progress:
    """Prints a run's progress from its events; ``label`` prefixes every line (a suite's
    scenario name), ``max_steps`` is the budget shown as ``step n/max``."""

    def __init__(
        self,
        console: Console,
        *,
        max_steps: int,
        label: str = "",
        verbosity: int = 1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console = console
        self.max_steps = max_steps
        self.label = f"{label}: " if label else ""
        self.verbosity = verbosity
        self.clock = clock
        self.scrubber = Scrubber()  # the recording's own (orav.secrets.Shows)
        self.started = clock()
        self.step = 0
        self.tokens = 0
        self.cost: float | None = 0.0
        self.calls = 0

    def __call__(self, event: object) -> None:
        if self.verbosity <= 0:
            return
        match event:
            case StepEvent(step=step):
                self.step = step
            case DecideEvent():
                self.decided(event)
            case RecoveryEndEvent(fault=fault, resolved=resolved):
                colour = "green" if resolved else "red"
                self.line(
                    "recovery",
                    f"{escape(fault)}: {escape(event.shown_remedy)} -> "
                    f"[{colour}]{escape(event.outcome)}[/]",
                )
            case TransitionEvent(machine="run", target=target) if self.verbosity >= 2:
                self.line("phase", target.replace("_", " "))
            case PerformEvent(action=action, raised=raised) if self.verbosity >= 2:
                failed = f" [red]failed: {escape(raised.message)}[/]" if raised is not None else ""
                self.line("device", escape(show_action(self.scrubber.shown(action))) + failed)
            case ObserveEvent(raised=raised) if self.verbosity >= 2 and raised is not None:
                self.line("device", f"[red]observe failed: {escape(raised.message)}[/]")
            case ErrorEvent(message=message) if self.verbosity >= 2:
                self.line("error", f"[red]{escape(message)}[/]")
            case ReportEvent(report=report) if isinstance(report, dict):
                status = str(report.get("status", ""))
                colour = (
                    "green" if status == "passed" else "yellow" if status in GOAL_MET else "red"
                )
                self.line("end", f"[{colour}]{escape(status)}[/]")

    def decided(self, event: DecideEvent) -> None:
        """A model call adds to the usage; the decision, or the agent's failure, is a line."""
        decision, raised, reused = event.decision, event.raised, event.reused
        call = decision.call if decision is not None else event.call
        if call is not None and not reused:
            self.used(call)
        if raised is not None:
            self.line(
                f"step {self.step}/{self.max_steps}",
                f"[red]the agent failed[/]: {escape(raised.message)}",
            )
        elif decision is not None and isinstance(decision.action, Done):
            self.line("decided", escape(show_action(decision.action)))
        elif decision is not None:
            what = escape(show_action(self.scrubber.shown(decision.action)))
            self.line(
                f"step {self.step}/{self.max_steps}",
                f"[bold]{what}[/]" + (" (reused)" if reused else ""),
            )

    def used(self, call: ModelCall) -> None:
        """One more model call: its tokens, and its cost (unknown once one call's is)."""
        self.calls += 1
        self.tokens += call.prompt_tokens + call.completion_tokens
        self.cost = None if self.cost is None or call.cost is None else self.cost + call.cost

    def line(self, what: str, text: str) -> None:
        text = self.scrubber.text(text)
        elapsed = self.clock() - self.started
        usage = ""
        if self.calls:
            usage = f"  {self.tokens} tokens" + (f" ${self.cost:.4f}" if self.cost else "")
        self.console.print(
            f"{escape(self.label)}[dim]{elapsed:6.1f}s[/] {what:>11}  {text}[dim]{usage}[/]"
        )
