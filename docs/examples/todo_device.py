"""A Device of your own: orav drives a to-do app that lives in this process (docs/guide-device.md).

Run it from the repository: ``python docs/examples/todo_device.py``.
"""

import asyncio
import tempfile
from pathlib import Path

import orav
from orav import (
    ActionResult,
    Assert,
    Decision,
    DeviceInfo,
    Done,
    Element,
    Observation,
    Scenario,
    Tap,
    Target,
    TypeText,
)
from orav.model import Action, Frame, Settled
from orav.perceive import target_element


class TodoApp:
    """The app under test: a text field, an Add button, and the items added so far."""

    def __init__(self) -> None:
        self.draft = ""
        self.editing = False
        self.items: list[str] = []

    def add(self) -> None:
        self.items.append(self.draft)
        self.draft = ""


class TodoDevice:
    """orav's Device over a TodoApp: its state shown as an accessibility tree, actions as edits."""

    def __init__(self) -> None:
        self.app: TodoApp | None = None  # launched: running

    async def describe(self) -> DeviceInfo:
        return DeviceInfo(platform="todo", name="TodoDevice", width=400, height=600)

    async def observe(self) -> Observation:
        if self.app is None:
            return Observation(app_running=False)
        return Observation(elements=self.tree(self.app), app="com.example.todo")

    def tree(self, app: TodoApp) -> tuple[Element, ...]:
        field = Element(
            "AXTextField",
            "New item",
            "draft",
            app.draft,
            Frame(20, 20, 260, 40),
            focused=app.editing,
        )
        rows = [
            Element("AXStaticText", item, f"item_{n}", frame=Frame(20, 80 + 40 * n, 360, 36))
            for n, item in enumerate(app.items)
        ]
        return (
            Element("AXApplication", "Todo", frame=Frame(0, 0, 400, 600)),
            field,
            Element(
                "AXButton", "Add", "add", frame=Frame(290, 20, 90, 40), enabled=bool(app.draft)
            ),
            *rows,
        )

    async def perform(self, action: Action) -> ActionResult:
        app = self.app
        if app is None:
            return ActionResult(ok=False, error="the app is not running")
        match action:
            case Tap(target=Target() as target):
                element = target_element(await self.observe(), target)
                if element is None:
                    return ActionResult(ok=False, error=f"no element {target} on this screen")
                app.editing = element.unique_id == "draft"
                if element.unique_id == "add" and element.enabled:
                    app.add()
                return ActionResult(point=element.frame.center)
            case TypeText(text=text) if app.editing:
                app.draft += text
                return ActionResult()
        return ActionResult(ok=False, error=f"TodoDevice cannot {action.kind} here")

    async def settle(self, limit: float) -> Settled:
        """Optional (orav.Settling): the app is quiet once a call returns; no need to look twice."""
        return Settled(quiet=True, waited=0.0, source="idle")

    async def launch(self, bundle_id: str) -> None:
        self.app = TodoApp()

    async def terminate(self, bundle_id: str) -> None:
        self.app = None

    async def is_running(self, bundle_id: str) -> bool:
        return self.app is not None

    async def close(self) -> None:
        self.app = None


def add(item: str) -> tuple[Decision, ...]:
    return (
        Decision(Tap(target=Target(id="draft")), reasoning="Focus the field."),
        Decision(TypeText(item), reasoning=f"Type {item!r}."),
        Decision(Tap(target=Target(id="add")), expected_outcome=f'"{item}" is listed.'),
    )


scenario = Scenario(
    name="two_items",
    app="com.example.todo",
    goal="Add milk and eggs to the list.",
    max_steps=8,
    success_criteria=(Assert(Target(label="milk")), Assert(Target(label="eggs"))),
    script=(*add("milk"), *add("eggs"), Decision(Done(success=True))),
)


async def main(folder: Path) -> None:
    cassette = folder / "two_items.cassette"
    recording = await orav.record(scenario, cassette, device=TodoDevice())
    print(recording.report.status, recording.report.total_steps)  # passed 6
    replayed = await orav.replay(cassette)  # no TodoDevice: the cassette answers
    assert replayed.faithful, replayed.differences

    # The same recording with the wrappers in hand, for a loop of your own:
    device = TodoDevice()
    async with orav.use_cassette(folder / "by_hand.cassette", scenario, device) as recorder:
        report = await recorder.run()  # or recorder.engine(...), recorder.device, ...
    await device.close()  # the device stays yours
    print(report.status)  # passed


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(main(Path(folder)))
