"""Pure functions on observations, one word per concept (no I/O).

- ``screens``: THE screen identity and name; ``targets``: THE target-resolution rule;
- ``faults``: faults and interruptions; ``change``: the screen-change measure;
- ``occlusion``: what is on top, the one rule of what a tap can reach;
- ``roles``: the role and label sets all of them read.
"""

from orav.perceive.change import Change, changed, look_key, measure, raster, screen_digest
from orav.perceive.faults import (
    INTERRUPTION_KINDS,
    Detection,
    always_answered,
    blocks,
    cover_fault,
    covering,
    done_blocked,
    fault,
    frozen_app,
    interruption,
    no_effect,
    shows,
    swallowed,
)
from orav.perceive.occlusion import Cover, cover_at, keyboard_frame, on_top, open_point, reachable
from orav.perceive.screens import screen_id, screen_name
from orav.perceive.targets import action_point, near_miss, resolve, same_element, target_element

__all__ = [
    "INTERRUPTION_KINDS",
    "Change",
    "Cover",
    "Detection",
    "action_point",
    "always_answered",
    "blocks",
    "changed",
    "cover_at",
    "cover_fault",
    "covering",
    "done_blocked",
    "fault",
    "frozen_app",
    "interruption",
    "keyboard_frame",
    "look_key",
    "measure",
    "near_miss",
    "no_effect",
    "on_top",
    "open_point",
    "raster",
    "reachable",
    "resolve",
    "same_element",
    "screen_digest",
    "screen_id",
    "screen_name",
    "shows",
    "swallowed",
    "target_element",
]
