"""Injected faults: when each one is due, and the system UI a login fault puts up.

A fault fires after an input (``at_step``) or on entering a screen (``on_screen``), at most
``times`` times, with its ``probability`` drawn from the app's seeded generator. What a fault
does to the app is the app state's business (``orav.sim.state``).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Sequence

from orav.model import Fault, InjectedFault
from orav.sim.appmodel import BACK, AppModel, ElementSpec, Screen, Transition

# Faults of the RPCs themselves, not of the screen: they fire at once (no overlay to wait for).
RPC_FAULTS: tuple[InjectedFault, ...] = ("list_apps_error", "slow_describe", "slow_launch")
SERVICES = ("photos", "camera", "contacts", "microphone", "notification", "location")
# App Tracking Transparency's prompt ("… to track your activity across other companies' apps
# and websites?") is a permission dialog with buttons of its own.
TRACKING = "tracking"


class FaultSchedule:
    """The faults of a run (the app model's, then those injected), how often each fired, and
    the RPC faults armed (they hold or fail the companion's calls, not the screen)."""

    def __init__(self, faults: Sequence[Fault], seed: int) -> None:
        self.faults: list[Fault] = list(faults)
        self.fired: list[int] = [0] * len(self.faults)
        self.rng = random.Random(seed)
        self.list_apps_errors = 0  # list_apps calls left that fail (-1: until relaunch)
        self.describe_stalls: deque[float] = deque()  # seconds, one per accessibility read
        self.launch_stalls: deque[float] = deque()  # seconds, one per launch

    def add(self, fault: Fault) -> None:
        self.faults.append(fault)
        self.fired.append(0)

    def due(self, entered: str | None, inputs: int) -> list[Fault]:
        """The faults that fire now: after input number ``inputs`` (``entered`` None) or on
        entering the screen ``entered``; each is counted as fired."""
        found = []
        for index, fault in enumerate(self.faults):
            if self.fired[index] >= fault.times:
                continue
            if entered is None:
                if fault.on_screen is not None:
                    continue
                if fault.at_step is not None and fault.at_step != inputs:
                    continue
            else:
                if fault.on_screen != entered:
                    continue
                if fault.at_step is not None and inputs < fault.at_step:
                    continue
            if fault.probability < 1.0 and self.rng.random() >= fault.probability:
                continue
            self.fired[index] += 1
            found.append(fault)
        return found

    def arm(self, fault: Fault) -> None:
        """An RPC fault (one of RPC_FAULTS) that just fired: it holds from the next call on."""
        if fault.type == "list_apps_error":
            self.list_apps_errors = fault.duration or -1
        elif fault.type == "slow_describe":
            self.describe_stalls.append(fault.seconds)
        elif fault.type == "slow_launch":
            self.launch_stalls.append(fault.seconds)

    def relaunched(self) -> None:
        """A new process: list_apps answers again (stalls already armed still hold)."""
        self.list_apps_errors = 0

    def list_apps_fails(self) -> bool:
        """One list_apps call: True when a list_apps_error fault makes it fail."""
        if not self.list_apps_errors:
            return False
        self.list_apps_errors -= 1 if self.list_apps_errors > 0 else 0
        return True

    def describe_stall(self) -> float:
        """Seconds the next accessibility read stalls (a slow_describe fault; 0 if none)."""
        return self.describe_stalls.popleft() if self.describe_stalls else 0.0

    def launch_stall(self) -> float:
        """Seconds the next launch stalls (a slow_launch fault; 0 if none)."""
        return self.launch_stalls.popleft() if self.launch_stalls else 0.0


def service(title: str) -> str:
    """Which permission a dialog asks for, read off its title (location unless it says)."""
    lowered = title.lower()
    if "to track" in lowered:
        return TRACKING
    return next((s for s in SERVICES if s.rstrip("s") in lowered), "location")


def permission_buttons(title: str) -> tuple[str, str]:
    """A permission dialog's buttons, the refusal first: App Tracking's are its own."""
    if service(title) == TRACKING:
        return ("Ask App Not to Track", "Allow")
    return ("Don't Allow", "Allow")


def permission_message(title: str) -> str:
    """What a permission dialog says under its title (the app's usage description)."""
    if service(title) == TRACKING:
        return "Your data will be used to deliver personalized ads to you."
    return "Your location is used to show nearby places."


def login_wall(model: AppModel) -> Screen:
    """The screen a ``login`` fault puts in front of the current one: sign in again."""
    creds = model.credentials
    Spec = ElementSpec
    ok: dict[str, str] = {"email": creds.username, "password": creds.password} if creds else {}
    empty = "Enter your email and password"
    submit = (
        Transition(when={"email": ""}, show=("wall_error",), message=empty),
        Transition(when={"password": ""}, show=("wall_error",), message=empty),
        Transition(when=ok, to=BACK),
        Transition(show=("wall_error",), message="Wrong email or password"),
    )
    return Screen(
        title="Session expired",
        elements=(
            Spec(label="Your session has expired. Sign in again.", frame=(20, 110, 350, 50)),
            Spec(
                "AXTextField", "Email", "email", (20, 200, 350, 44), placeholder="you@example.com"
            ),
            Spec(
                "AXTextField",
                "Password",
                "password",
                (20, 260, 350, 44),
                secure=True,
                placeholder="Password",
                on_return=submit,
            ),
            Spec(label="", id="wall_error", frame=(20, 312, 350, 28), hidden=True, tone="error"),
            Spec("AXButton", "Sign in", "sign_in", (20, 352, 350, 50), on_tap=submit),
        ),
    )
