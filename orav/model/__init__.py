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
from orav.model.action_result import ActionResult, Settled
from orav.model.coverage import Coverage, ScreenCoverage, ScreenTransition
from orav.model.decision import Decision, ModelCall, Verification
from orav.model.deed import (
    DEED_KINDS,
    Actor,
    Change,
    Deed,
    DeedKind,
    FileChange,
    SideEffects,
    WorldChanges,
)
from orav.model.device_info import DeviceInfo
from orav.model.element import Element
from orav.model.fault import (
    FAULT_KINDS,
    INJECTED_FAULTS,
    AppFault,
    Fault,
    FaultKind,
    InjectedFault,
)
from orav.model.geometry import Frame, Point
from orav.model.judgement import Judged, Judgement
from orav.model.observation import Observation, Screenshot, cut_observation, locate
from orav.model.recording import Heal, Recording
from orav.model.report import GOAL_MET, RunError, RunReport, RunStatus, Transition, Usage
from orav.model.running_state import RunningState
from orav.model.scenario import Credentials, Scenario
from orav.model.step import Step

__all__ = [
    "ACTION_KINDS",
    "ACTION_TYPES",
    "DEED_KINDS",
    "FAULT_KINDS",
    "GOAL_MET",
    "INJECTED_FAULTS",
    "NAMED_KEYS",
    "Action",
    "ActionResult",
    "Actor",
    "AppFault",
    "Assert",
    "Change",
    "Coverage",
    "Credentials",
    "Decision",
    "Deed",
    "DeedKind",
    "DeviceInfo",
    "Done",
    "Element",
    "Fault",
    "FaultKind",
    "FileChange",
    "Frame",
    "Heal",
    "InjectedFault",
    "Judged",
    "Judgement",
    "Launch",
    "ModelCall",
    "Observation",
    "Point",
    "PressKey",
    "Recording",
    "Recover",
    "RunError",
    "RunReport",
    "RunStatus",
    "RunningState",
    "Scenario",
    "ScreenCoverage",
    "ScreenTransition",
    "Screenshot",
    "Settled",
    "SideEffects",
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
    "WorldChanges",
    "cut_observation",
    "locate",
    "show_action",
]
