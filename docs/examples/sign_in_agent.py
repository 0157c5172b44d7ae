"""An agent class: reads the screen, keeps a secret out of the cassette (docs/guide-agent.md).

Run it from the repository: ``DEMO_PASSWORD='Orav-Demo-1!' python docs/examples/sign_in_agent.py``.
"""

import asyncio
import os
import tempfile
from pathlib import Path

from orav import (
    AgentContext,
    Assert,
    Decision,
    Done,
    Element,
    Scenario,
    Tap,
    Target,
    TypeText,
    record,
    replay,
)


class SignInAgent:
    """Signs in to the demo app with the account it is given, one field at a time."""

    name = "sign-in"  # goes into the cassette header

    def __init__(self, email: str, password: str) -> None:
        self.email = email
        self.password = password

    @property
    def secrets(self) -> tuple[str, ...]:
        """Strings orav scrubs from the cassette and the reports."""
        return (self.password,)

    async def decide(self, context: AgentContext) -> Decision:
        screen = {e.unique_id: e for e in context.observation.elements if e.unique_id}
        if "settings" in screen:
            return Decision(Done(success=True), reasoning="Settings shows: signed in.")
        email, password = screen["email"], screen["password"]
        if email.value != self.email:
            return self.fill(email, self.email)
        if not password.value:
            return self.fill(password, self.password, secure=True)
        return Decision(
            Tap(target=Target(id="sign_in")),
            reasoning="Both fields are filled.",
            expected_outcome='The home screen shows "Getting started".',
        )

    def fill(self, field: Element, text: str, *, secure: bool = False) -> Decision:
        """Focus the field first; type once it has the focus."""
        if not field.focused:
            return Decision(Tap(target=Target(id=field.unique_id)), reasoning="Focus it.")
        return Decision(TypeText(text, secure=secure), reasoning=f"Type the {field.label}.")


scenario = Scenario(
    name="sign_in",
    app="com.orav.demo",
    goal="Sign in with the demo account.",
    max_steps=10,
    success_criteria=(Assert(Target(id="settings")),),
)


async def main(folder: Path) -> None:
    agent = SignInAgent("demo@orav.dev", os.environ["DEMO_PASSWORD"])
    cassette = folder / "sign_in.cassette"
    recording = await record(scenario, cassette, device="sim", agent=agent)
    print(recording.report.status)  # passed
    assert agent.password.encode() not in cassette.read_bytes()  # scrubbed
    assert (await replay(cassette)).faithful


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(main(Path(folder)))
