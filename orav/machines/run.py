"""The run lifecycle as a StateChart: the engine does the I/O, the machine decides what is next.

The engine sends one event per phase with what it found (a detected fault, the decision, the
elapsed time); guards on the transitions read those and the limits held as data here, so the
step limit and the timeout are transitions, not ad-hoc ifs in the loop. An exception raised in a
callback becomes ``error.execution``, which ends the run as ``aborted`` with the error kept.
"""

from __future__ import annotations

from statemachine import State, StateChart


class RunMachine(StateChart):
    """launching → observing → reasoning → acting → verifying → (next step | a final state)."""

    idle = State(initial=True)
    launching = State()
    observing = State()
    recovering = State()
    reasoning = State()
    acting = State()
    verifying = State()
    goal_complete = State()
    passed = State(final=True)
    failed = State(final=True)
    step_limit = State(final=True)
    timed_out = State(final=True)
    aborted = State(final=True)

    start = idle.to(launching)
    launched = launching.to(observing)
    observed = (
        observing.to(timed_out, cond="out_of_time")
        | observing.to(recovering, cond="fault_seen")
        | observing.to(reasoning)
    )
    recovered = recovering.to(observing)
    unrecovered = recovering.to(aborted)
    decided = (
        reasoning.to(goal_complete, cond="agent_done")
        | reasoning.to(recovering, cond="fault_seen")  # the keyboard covers the target
        | reasoning.to(acting)
    )
    acted = acting.to(verifying)
    verified = (
        verifying.to(timed_out, cond="out_of_time")
        | verifying.to(step_limit, cond="out_of_steps")
        | verifying.to(recovering, cond="fault_seen")  # the action changed nothing
        | verifying.to(observing)
    )
    checked = goal_complete.to(passed, cond="goal_met") | goal_complete.to(failed)
    time_up = (
        launching.to(timed_out)
        | observing.to(timed_out)
        | recovering.to(timed_out)
        | reasoning.to(timed_out)
        | acting.to(timed_out)
        | verifying.to(timed_out)
    )
    abort = (
        idle.to(aborted)
        | launching.to(aborted)
        | observing.to(aborted)
        | recovering.to(aborted)
        | reasoning.to(aborted)
        | acting.to(aborted)
        | verifying.to(aborted)
        | goal_complete.to(aborted)
    )
    error_execution = (
        idle.to(aborted, on="keep_error")
        | launching.to(aborted, on="keep_error")
        | observing.to(aborted, on="keep_error")
        | recovering.to(aborted, on="keep_error")
        | reasoning.to(aborted, on="keep_error")
        | acting.to(aborted, on="keep_error")
        | verifying.to(aborted, on="keep_error")
        | goal_complete.to(aborted, on="keep_error")
    )

    def __init__(self, max_steps: int = 50, timeout_seconds: float = 120.0, **kwargs) -> None:
        self.max_steps = max_steps
        self.timeout_seconds = timeout_seconds
        self.steps = 0
        self.error: str | None = None
        super().__init__(**kwargs)

    # --- guards: they read the event's data and the limits above ---------------------------

    def out_of_time(self, elapsed: float = 0.0) -> bool:
        return elapsed >= self.timeout_seconds

    def out_of_steps(self) -> bool:
        return self.steps >= self.max_steps

    def fault_seen(self, fault: object = None) -> bool:
        return fault is not None

    def agent_done(self, done: bool = False) -> bool:
        return done

    def goal_met(self, met: bool = False) -> bool:
        return met

    # --- actions ------------------------------------------------------------------------------

    def on_acted(self) -> None:
        self.steps += 1

    def on_abort(self, error: str = "aborted") -> None:
        self.error = error

    def keep_error(self, error: BaseException | str | None = None) -> None:
        """Keep what went wrong: an exception, or the engine's own words for it."""
        if isinstance(error, str):
            self.error = error
        else:
            self.error = f"{type(error).__name__}: {error}" if error else "internal error"

    @property
    def state(self) -> str:
        """The one active state's id (the machine has no parallel regions)."""
        return next(iter(self.configuration_values))
