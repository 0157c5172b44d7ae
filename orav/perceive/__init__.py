"""Pure functions on observations, one word per concept (no I/O).

- ``screens``: THE screen identity and name; ``targets``: THE target-resolution rule;
- ``faults``: faults and interruptions; ``change``: the screen-change measure;
- ``roles``: the role and label sets all of them read.
"""

from orav.perceive.change import Change, changed, measure, raster, screen_digest
from orav.perceive.faults import (
    INTERRUPTION_KINDS,
    Detection,
    always_answered,
    blocks,
    done_blocked,
    fault,
    frozen_app,
    interruption,
    keyboard_blocks,
    keyboard_fault,
    keyboard_frame,
    no_effect,
    shows,
)
from orav.perceive.screens import screen_id, screen_name, screen_state
from orav.perceive.targets import action_point, resolve, target_element

__all__ = [
    "INTERRUPTION_KINDS",
    "Change",
    "Detection",
    "action_point",
    "always_answered",
    "blocks",
    "changed",
    "done_blocked",
    "fault",
    "frozen_app",
    "interruption",
    "keyboard_blocks",
    "keyboard_fault",
    "keyboard_frame",
    "measure",
    "no_effect",
    "raster",
    "resolve",
    "screen_digest",
    "screen_id",
    "screen_name",
    "screen_state",
    "shows",
    "target_element",
]
