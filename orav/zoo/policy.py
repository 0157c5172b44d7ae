"""What a sensible model does next on a task, decided from what the screen shows.

A policy never counts steps: it looks at the fields, labels and values on the screen and picks
the action that advances the goal from there, so a run that needed a recovery, a retry or a
correction of a mistake is still played well. A policy names what it acts on by the words on
the screen, as a model reads them.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from attrs import frozen

from orav.secrets import PASSWORD
from orav.zoo.turn import Seen, Turn


@frozen
class Move:
    """One sensible decision: the action's kind and arguments, the element it acts on."""

    kind: str  # tap, type_text, press_key, swipe, wait, done
    element: Seen | None = None
    text: str | None = None
    key: str | None = None
    start: tuple[float, float] | None = None
    end: tuple[float, float] | None = None
    success: bool = True
    reasoning: str = ""
    expected: str = ""
    closing: bool = False  # the action that should reach the goal: where a model says done early

    @property
    def point(self) -> tuple[float, float] | None:
        """Where a tap lands: the element's centre."""
        return None if self.element is None else (self.element.x, self.element.y)


Policy = Callable[[Turn], Move]


def subject(move: Move) -> str:
    """What a move acts on, as a model remembers it: an element's name or a key."""
    if move.kind == "press_key":
        return f"key {move.key}"
    return move.element.name if move.element is not None else ""


def tap(element: Seen, why: str, expected: str = "", *, closing: bool = False) -> Move:
    return Move(
        "tap",
        element,
        reasoning=why,
        expected=expected or f"{element.name} responds",
        closing=closing,
    )


def done(why: str) -> Move:
    return Move("done", reasoning=why, expected="the goal is reached", text=why)


def sign_in(turn: Turn, username: str | None, *, closing: bool = False) -> Move | None:
    """Fill the sign-in form from the test account and submit it; None off a sign-in form."""
    fields = [seen for seen in turn.elements if "TextField" in seen.role or seen.role == "Input"]
    secure = next((f for f in fields if "secure" in f.flags), None)
    plain = next((f for f in fields if "secure" not in f.flags), None)
    button = turn.find("Sign in") or turn.find("Log in")
    if secure is None or plain is None or button is None:
        return None
    username = username or turn.username or ""
    if plain.value != username:
        if not plain.focused:
            return tap(plain, "The email field is empty; focus it first.", "The field has focus.")
        if plain.value:
            return Move("press_key", key="backspace", reasoning="Clear the wrong text.")
        return Move(
            "type_text",
            plain,
            text=username,
            reasoning="Type the test account's email.",
            expected=f'The field shows "{username}".',
        )
    if not secure.value:
        if not secure.focused:
            return tap(secure, "Now the password field.", "The password field has focus.")
        return Move(
            "type_text",
            secure,
            text=PASSWORD,
            reasoning="Type the test password.",
            expected="The password field shows bullets.",
        )
    return tap(
        button, "Both fields are filled; sign in.", "The next screen appears.", closing=closing
    )


def login(turn: Turn) -> Move:
    """The demo login: sign in, then done once the home screen shows."""
    if turn.find("Settings") is not None and turn.find("Sign in") is None:
        return done("The home screen with Settings shows: signed in.")
    move = sign_in(turn, turn.username, closing=True)
    if move is not None:
        return move
    back = turn.find("Back")
    if back is not None:
        return tap(back, "This is not the screen I want; go back.")
    return Move("wait", reasoning="Waiting for the app.", expected="The app shows a screen.")


_CART = re.compile(r"^Cart(?: \((\d+)\))?$")


def shop(turn: Turn) -> Move:
    """Sign in, put two Enamel mugs in the cart, and check the cart shows them."""
    move = sign_in(turn, turn.username)
    if move is not None:
        return move
    tab = next((s for s in turn.elements if _CART.match(s.label)), None)
    line = turn.find(id="line_mug") or _line(turn, "Enamel mug")
    if line is not None:  # the cart
        count = int((line.value or "0").split(" ", 1)[0] or 0)
        if count == 2:
            return done('The cart lists "2 x Enamel mug".')
        button = _beside(turn, line, "Fewer" if count > 2 else "More")
        if button is not None:
            return tap(button, f"The cart has {count} mugs, not 2; fix it.")
    in_cart = int(_CART.match(tab.label).group(1) or 0) if tab is not None else 0  # type: ignore[union-attr]
    if in_cart >= 2 and tab is not None:
        return tap(tab, "The mugs are in the cart; open the cart tab to check.", closing=True)
    quantity = next((s for s in turn.elements if s.label.startswith("Quantity: ")), None)
    title = turn.find("Enamel mug")
    if quantity is not None:  # a product page
        if turn.find("Back") is not None and not turn.shows("mug"):
            return tap(turn.find("Back"), "The wrong product; go back.")  # type: ignore[arg-type]
        wanted = 2 - in_cart
        have = int(quantity.label.removeprefix("Quantity: ") or 0)
        if have < wanted and (more := turn.find("More")) is not None:
            return tap(more, "Two mugs are wanted; raise the quantity.")
        if have > wanted and (fewer := turn.find("Fewer")) is not None:
            return tap(fewer, "Too many; lower the quantity.")
        add = next((s for s in turn.elements if s.label.startswith("Add ")), None)
        if add is not None:
            return tap(add, "Add the mugs to the cart.", "The tab reads Cart (2).")
    if title is not None and "Cell" in title.role:
        return tap(title, "The catalogue lists the mug; open it.", "The product page shows.")
    shop_tab = turn.find("Shop")
    if shop_tab is not None:
        return tap(shop_tab, "Back to the catalogue.")
    back = turn.find("Back")
    if back is not None:
        return tap(back, "Go back towards the catalogue.")
    return Move("wait", reasoning="Waiting for the app.", expected="The app shows a screen.")


def _line(turn: Turn, title: str) -> Seen | None:
    return next(
        (s for s in turn.elements if s.label == title and s.value and " x " in s.value), None
    )


def _beside(turn: Turn, line: Seen, label: str) -> Seen | None:
    """The button with ``label`` on the same row as ``line``."""
    row = [s for s in turn.elements if s.label == label and abs(s.y - line.y) < 30]
    return row[0] if row else None


_PROGRESS = re.compile(r"^Item (\d+) of (\d+)$")
_TRIAGE_PLAN = ("Accept", "Change type", "Delete", "Skip")


def triage(turn: Turn) -> Move:
    """Triage the planner's inbox: accept, change type, skip, delete, until it is complete."""
    if any(s.label.startswith("Triage complete") for s in turn.elements):
        return done("Triage says it is complete.")
    if any(s.label.startswith("Delete ") and "cannot be undone" in s.label for s in turn.elements):
        confirm = turn.find("Delete")
        if confirm is not None:
            return tap(confirm, "The goal asks to delete this one; confirm.", closing=True)
    heading = next((s for s in turn.elements if s.label.startswith("Change type (now ")), None)
    if heading is not None:
        current = heading.label.removeprefix("Change type (now ").split(")")[0]
        options = [s for s in turn.elements if s.role == "Cell" and s.label.lower() != current]
        pick = turn.find("Task") if current != "task" else None
        pick = pick or (options[0] if options else None)
        if pick is not None:
            return tap(pick, f"It is a {current}; change its type to {pick.label}.")
    progress = next((m for s in turn.elements if (m := _PROGRESS.match(s.label))), None)
    if progress is not None:
        position = int(progress.group(1))
        wanted = _TRIAGE_PLAN[min(position, len(_TRIAGE_PLAN)) - 1]
        button = turn.find(wanted)
        if button is not None:
            return tap(button, f"Item {position}: {wanted.lower()} it.")
    chat_input = next((s for s in turn.elements if s.role == "Input"), None)
    if chat_input is not None and chat_input.focused:
        return Move("type_text", chat_input, text="/triage\n", reasoning="Enter triage.")
    chat = turn.find("Chat")
    if chat is not None and turn.find("Triage") is not None and turn.find("Back") is None:
        triage_button = turn.find("Triage")
        return tap(triage_button, "Open triage from home.")  # type: ignore[arg-type]
    if chat_input is not None:
        return tap(chat_input, "Focus the chat prompt.")
    if "escape" in turn.keys:
        return Move("press_key", key="escape", reasoning="Go back home.")
    return Move("wait", reasoning="Waiting for the app.", expected="The app shows a screen.")


POLICIES: dict[str, Policy] = {"login": login, "shop": shop, "triage": triage}
