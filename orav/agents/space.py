"""The one coordinate space of a prompt: the unit the screen's size and the tree's centres are
shown in, the unit the model answers in, and the device points each stands for.

The device works in points (cells on a terminal); a screenshot has pixels of its own (a
terminal cell is 8x16 of them); a family may ground in the screenshot's pixels or in
thousandths of it. The prompt shows one unit and says so, with the screenshot's size when it
differs, and every coordinate an answer gives is turned into points here, once. A point off
the shown screen but on the screenshot is the screenshot's pixel: a model that points at the
image it was sent is understood, not refused.
"""

from __future__ import annotations

from attrs import frozen

from orav.agents.family import Unit


@frozen
class Space:
    """``width`` x ``height`` of ``unit`` (points, cells or pixels) shown, one spanning
    ``x_points`` by ``y_points`` device points; answers in ``answers`` (the shown unit, or
    thousandths of the screen); ``image``: the screenshot's size in pixels, when one is sent."""

    unit: str
    width: float
    height: float
    x_points: float = 1.0
    y_points: float = 1.0
    answers: str = "shown"  # or "thousandths"
    image: tuple[int, int] | None = None

    def shown(self, x: float, y: float) -> tuple[float, float]:
        """A point in device points as the prompt shows it."""
        return x / self.x_points, y / self.y_points

    def contains(self, x: float, y: float) -> bool:
        """Whether an answer's point lies on the screen, in the unit answers come in."""
        if self.answers == "thousandths":
            return 0 <= x <= 1000 and 0 <= y <= 1000
        return 0 <= x < self.width and 0 <= y < self.height

    def points(self, x: float, y: float) -> tuple[float, float] | None:
        """An answer's point in device points, or None when it is off the screen. A point
        whose x and y both lie in 0-1, not both whole, is in fractions of the screen."""
        if 0 <= x <= 1 and 0 <= y <= 1 and not (float(x).is_integer() and float(y).is_integer()):
            x, y = min(x * self.width, self.width - 0.5), min(y * self.height, self.height - 0.5)
            return x * self.x_points, y * self.y_points
        if self.answers == "thousandths":
            if not self.contains(x, y):
                return None
            x, y = x / 1000 * self.width, y / 1000 * self.height
            x, y = min(x, self.width - 0.5), min(y, self.height - 0.5)  # 1000 is the far edge
            return x * self.x_points, y * self.y_points
        if self.contains(x, y):
            return x * self.x_points, y * self.y_points
        if self.image is not None and self.unit != "pixels":
            width, height = self.image
            if 0 <= x < width and 0 <= y < height:  # the screenshot's pixels
                points_width, points_height = (
                    self.width * self.x_points,
                    self.height * self.y_points,
                )
                return x * points_width / width, y * points_height / height
        return None

    @property
    def bounds(self) -> str:
        """The screen's bounds as a rejection states them."""
        if self.answers == "thousandths":
            return "0 <= x, y <= 1000 thousandths of the screenshot"
        return f"0 <= x < {self.width:g}, 0 <= y < {self.height:g} {self.unit}"

    def describe(self) -> str:
        """What the prompt says of the coordinates, after the screen's size: "" when the
        screenshot and the shown unit agree pixel for point."""
        said = []
        if self.image is not None and (self.unit == "pixels" or self.image != self._size):
            width, height = self.image
            if self.unit == "pixels":
                said.append(f"the screenshot's pixels ({width}x{height})")
            else:
                x, y = width / self.width, height / self.height
                per = f"{x:.3g} pixels" if abs(x - y) < 1e-6 else f"{x:.3g}x{y:.3g} pixels"
                said.append(
                    f"the screenshot is {width}x{height} pixels, {per} a {self.unit[:-1]}; "
                    f"x, y are {self.unit} as the @centres are"
                )
        if self.answers == "thousandths":
            said.append("answer x, y in thousandths of the screenshot's width and height (0-1000)")
        return "; ".join(said)

    @property
    def _size(self) -> tuple[int, int]:
        return round(self.width), round(self.height)


def space_for(
    width: float,
    height: float,
    *,
    cells: bool = False,
    image: tuple[int, int] | None = None,
    family_unit: Unit = "points",
) -> Space:
    """The space of a screen ``width`` x ``height`` points (``cells`` on a terminal), the
    screenshot's ``image`` size, for a family answering in ``family_unit``."""
    unit = "cells" if cells else "points"
    if family_unit == "pixels" and image is not None:
        iw, ih = image
        return Space("pixels", iw, ih, width / iw, height / ih, "shown", image)
    answers = "thousandths" if family_unit == "thousandths" else "shown"
    return Space(unit, width, height, 1.0, 1.0, answers, image)
