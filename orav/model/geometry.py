"""Points and frames in screen points, with idb's two frame notations."""

from __future__ import annotations

import re

from attrs import field, frozen

from orav.model.limits import finite

_AX_FRAME = re.compile(
    r"^\{\{\s*(-?[\d.]+(?:e-?\d+)?)\s*,\s*(-?[\d.]+(?:e-?\d+)?)\s*\}\s*,"
    r"\s*\{\s*(-?[\d.]+(?:e-?\d+)?)\s*,\s*(-?[\d.]+(?:e-?\d+)?)\s*\}\}$"
)


def _num(value: float) -> str:
    """Format like NSStringFromRect: integers without a decimal point."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


@frozen
class Point:
    """A point in screen points; NaN or infinity is an error."""

    x: float = field(validator=finite)
    y: float = field(validator=finite)


@frozen
class Frame:
    """A rectangle in points: origin (x, y) at the top left, then width and height."""

    x: float = 0.0
    y: float = 0.0
    width: float = 0.0
    height: float = 0.0

    @classmethod
    def parse(cls, text: str) -> Frame:
        """Parse the ``AXFrame`` form ``{{x, y}, {w, h}}``; ValueError on anything else."""
        match = _AX_FRAME.match(text.strip())
        if not match:
            raise ValueError(f"not an AXFrame string {{{{x, y}}, {{w, h}}}}: {text!r}")
        return cls(*(float(group) for group in match.groups()))

    @classmethod
    def from_dict(cls, data: dict) -> Frame:
        """Build from the ``frame`` form ``{x, y, width, height}``."""
        return cls(float(data["x"]), float(data["y"]), float(data["width"]), float(data["height"]))

    def to_ax_string(self) -> str:
        return (
            f"{{{{{_num(self.x)}, {_num(self.y)}}}, {{{_num(self.width)}, {_num(self.height)}}}}}"
        )

    def to_dict(self) -> dict[str, float]:
        return {"x": self.x, "y": self.y, "width": self.width, "height": self.height}

    @property
    def center(self) -> Point:
        """The tap point of the ORAV methodology: x + w/2, y + h/2."""
        return Point(self.x + self.width / 2, self.y + self.height / 2)

    @property
    def is_empty(self) -> bool:
        return self.width <= 0 or self.height <= 0

    def contains(self, point: Point) -> bool:
        return self.x <= point.x < self.x + self.width and self.y <= point.y < self.y + self.height
