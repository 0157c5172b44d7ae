"""An agent class that ``--agent`` names on the command line (docs/guide-agent.md).

Run it from the repository, where ``docs/examples/tally_agent.py`` is the module
``docs.examples.tally_agent``::

    orav record docs/examples/tally/count_to_two.yaml --device sim:docs/examples/tally/app.yaml \
        --agent 'class:docs.examples.tally_agent:CountTo?total=2'
"""

from orav import AgentContext, Decision, Done, Tap, Target


class CountTo:
    """Taps "Add one" on Tally until the counter shows ``total``."""

    name = "count-to"  # goes into the cassette header

    def __init__(self, total: str = "3") -> None:
        self.total = int(total)  # a spec's arguments arrive as strings

    async def decide(self, context: AgentContext) -> Decision:
        counter = next(e for e in context.observation.elements if e.unique_id == "total")
        if counter.label == f"Count: {self.total}":
            return Decision(Done(success=True), reasoning=f"The counter shows {self.total}.")
        return Decision(
            Tap(target=Target(id="add")),
            reasoning=f"{counter.label}, not {self.total} yet.",
            expected_outcome="The counter goes up by one.",
        )
