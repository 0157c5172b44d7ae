"""One element of an accessibility tree, as idb's companion describes it."""

from __future__ import annotations

from attrs import field, frozen

from orav.model.geometry import Frame

# Roles and traits of controls: what a tap by label means when plain text has that label too.
CONTROL_ROLES = frozenset(
    {
        "AXButton",
        "AXCell",
        "AXCheckBox",
        "AXLink",
        "AXMenuItem",
        "AXPopUpButton",
        "AXRadioButton",
        "AXSearchField",
        "AXSecureTextField",
        "AXSegmentedControl",
        "AXSlider",
        "AXSwitch",
        "AXTab",
        "AXTextField",
        "AXTextView",
        "AXToggle",
    }
)
CONTROL_TRAITS = frozenset({"button", "Button", "link", "Link", "keyboardKey", "KeyboardKey"})


@frozen
class Element:
    """An accessibility element in points; ``role`` is idb's ``AXButton`` form."""

    role: str = "AXOther"
    label: str | None = None
    unique_id: str | None = None
    value: str | None = None
    frame: Frame = field(factory=Frame)
    enabled: bool = True
    traits: tuple[str, ...] = ()
    focused: bool = False
    placeholder: str | None = None
    secure: bool = False

    @property
    def type(self) -> str:
        """The role without its ``AX`` prefix, as idb's ``type`` key has it."""
        return self.role.removeprefix("AX")

    @property
    def interactive(self) -> bool:
        """A control (button, cell, field, switch...), not plain text or a container."""
        return self.role in CONTROL_ROLES or not CONTROL_TRAITS.isdisjoint(self.traits)

    def matches(self, label: str | None = None, unique_id: str | None = None) -> bool:
        """True when every given selector equals this element's label or id."""
        if label is None and unique_id is None:
            return False
        return (label is None or self.label == label) and (
            unique_id is None or self.unique_id == unique_id
        )
