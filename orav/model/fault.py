"""The one fault vocabulary: what can go wrong on a device, by kind, and when the simulator
injects one.

Each kind is named once, here. ``AppFault``: what an app shows (the simulator injects it, a run
detects it and recovers); ``FaultKind``: everything a run detects (an app's fault, the keyboard
or another cover over the decided target, an action that changed nothing); ``InjectedFault``:
everything the simulator injects (an app's fault, device trouble a run meets as an error or a timeout).
"""

from __future__ import annotations

from typing import Literal, get_args

from attrs import field, frozen
from attrs.validators import optional

from orav.model.limits import at_least, between

MAX_STALL = 300.0  # seconds: the longest a slow_* fault holds an RPC

AppFault = Literal[
    "alert",  # an app alert or modal dialog (an interruption)
    "permission",  # a system permission dialog with Allow / Don't Allow
    "crash",  # the app stops running (the device reports it not running)
    "loading",  # a spinner or a "Loading…" text stays up (an interruption)
    "network",  # a network-error banner or a Retry control (an interruption)
    "login",  # a login wall in front of the current screen (an interruption)
    "empty_dump",  # the accessibility dump comes back empty or failed
    "frozen",  # input is accepted but changes nothing (several actions in a row)
]
FaultKind = Literal[
    AppFault,
    "keyboard",  # the keyboard covers the target of the decided action
    "covered",  # a banner, sheet, toast or popover covers the target of the decided action
    "no_effect",  # an action changed nothing: retried, then handed back to the agent
]
InjectedFault = Literal[
    AppFault,
    "list_apps_error",  # list_apps fails with a gRPC error while the app runs
    "slow_describe",  # the next accessibility read stalls ``seconds`` before answering
    "slow_launch",  # the next launch stalls ``seconds`` before answering
]
FAULT_KINDS: tuple[FaultKind, ...] = get_args(FaultKind)
INJECTED_FAULTS: tuple[InjectedFault, ...] = get_args(InjectedFault)


@frozen
class Fault:
    """When to inject one fault: at the Nth input, on entering a screen, with a probability.

    ``times`` bounds how often it fires; ``duration`` is how many observations a loading
    spinner or an empty dump lasts (0: until remedied); ``seconds`` is how long a slow RPC
    stalls.
    """

    type: InjectedFault
    at_step: int | None = field(default=None, validator=optional(at_least(1)))
    on_screen: str | None = None
    probability: float = field(default=1.0, validator=between(0, 1))
    times: int = field(default=1, validator=at_least(1))
    duration: int = field(default=0, validator=at_least(0))
    message: str | None = None
    seconds: float = field(default=0.0, validator=between(0, MAX_STALL))
