"""Faults the simulator can inject on cue, as data shared by app models and scenarios."""

from __future__ import annotations

from typing import Literal

from attrs import field, frozen
from attrs.validators import optional

from orav.model.limits import at_least, between

MAX_STALL = 300.0  # seconds: the longest a slow_* fault holds an RPC

FaultType = Literal[
    "alert",  # an unexpected alert with OK / Cancel
    "permission",  # a system permission dialog with Allow / Don't Allow
    "crash",  # the app stops running; the tree shows SpringBoard
    "loading",  # the screen stays on a spinner
    "network",  # a network-error banner with a Retry button
    "login",  # a login wall in front of the current screen
    "empty_dump",  # accessibility_info answers with an empty tree
    "frozen",  # input is accepted but changes nothing (dropped taps)
    "list_apps_error",  # list_apps fails with a gRPC error while the app runs
    "slow_describe",  # the next accessibility read stalls ``seconds`` before answering
    "slow_launch",  # the next launch stalls ``seconds`` before answering
]


@frozen
class Fault:
    """When to inject one fault: at the Nth input, on entering a screen, with a probability.

    ``times`` bounds how often it fires; ``duration`` is how many observations a loading
    spinner or an empty dump lasts (0: until remedied); ``seconds`` is how long a slow RPC
    stalls.
    """

    type: FaultType
    at_step: int | None = field(default=None, validator=optional(at_least(1)))
    on_screen: str | None = None
    probability: float = field(default=1.0, validator=between(0, 1))
    times: int = field(default=1, validator=at_least(1))
    duration: int = field(default=0, validator=at_least(0))
    message: str | None = None
    seconds: float = field(default=0.0, validator=between(0, MAX_STALL))
