"""Pure value types shared by every layer: no I/O here."""

from orav.model.action import (
    ACTION_KINDS,
    ACTION_TYPES,
    NAMED_KEYS,
    Action,
    Assert,
    Done,
    Launch,
    PressKey,
    Recover,
    Swipe,
    Tap,
    Target,
    Terminate,
    TypeText,
    Wait,
    show_action,
)
from orav.model.decision import Decision, ModelCall, Verification
from orav.model.device_info import ActionResult, DeviceInfo, Settled
from orav.model.element import Element
from orav.model.fault import Fault, FaultType
from orav.model.geometry import Frame, Point
from orav.model.observation import Observation, Screenshot, locate
from orav.model.report import RunError, RunReport, RunStatus, Transition, Usage
from orav.model.scenario import Credentials, Scenario
from orav.model.step import Step

__all__ = [
    "ACTION_KINDS",
    "ACTION_TYPES",
    "NAMED_KEYS",
    "Action",
    "ActionResult",
    "Assert",
    "Credentials",
    "Decision",
    "DeviceInfo",
    "Done",
    "Element",
    "Fault",
    "FaultType",
    "Frame",
    "Launch",
    "ModelCall",
    "Observation",
    "Point",
    "PressKey",
    "Recover",
    "RunError",
    "RunReport",
    "RunStatus",
    "Scenario",
    "Screenshot",
    "Settled",
    "Step",
    "Swipe",
    "Tap",
    "Target",
    "Terminate",
    "Transition",
    "TypeText",
    "Usage",
    "Verification",
    "Wait",
    "locate",
    "show_action",
]
