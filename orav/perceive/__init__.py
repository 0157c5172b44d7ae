"""Pure functions on observations: fault detectors and the screen-change measure (no I/O)."""

from orav.perceive.change import Change, changed, measure, raster, screen_key, tree_signature
from orav.perceive.faults import (
    FAULT_KINDS,
    Detection,
    FaultKind,
    classify,
    keyboard_blocks,
    keyboard_fault,
    keyboard_frame,
    shows,
    stuck,
)

__all__ = [
    "FAULT_KINDS",
    "Change",
    "Detection",
    "FaultKind",
    "changed",
    "classify",
    "keyboard_blocks",
    "keyboard_fault",
    "keyboard_frame",
    "measure",
    "raster",
    "screen_key",
    "shows",
    "stuck",
    "tree_signature",
]
