"""A function agent: plain Python reads the screen and decides each step (docs/guide-agent.md).

Run it from the repository: ``python docs/examples/count_agent.py``.
"""

import asyncio
import tempfile
from pathlib import Path

from orav import AgentContext, Assert, Done, FunctionAgent, Scenario, Tap, Target, record, replay

TALLY = Path(__file__).parent / "tally" / "app.yaml"


def count_to_three(context: AgentContext) -> Tap | Done:
    """Tap "Add one" until the counter shows 3, then say so."""
    total = next(e for e in context.observation.elements if e.unique_id == "total")
    if total.label == "Count: 3":
        return Done(success=True, summary="The counter shows 3.")
    return Tap(target=Target(id="add"))


scenario = Scenario(
    name="count_to_three",
    app="com.example.tally",
    goal="Add one until the counter shows 3.",
    max_steps=8,
    success_criteria=(Assert(Target(label="Count: 3")),),
)


async def main(folder: Path) -> None:
    agent = FunctionAgent(count_to_three)
    cassette = folder / "count_to_three.cassette"
    recording = await record(scenario, cassette, device=f"sim:{TALLY}", agent=agent)
    print(recording.report.status, recording.report.total_steps)  # passed 3
    assert (await replay(cassette)).faithful


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(main(Path(folder)))
