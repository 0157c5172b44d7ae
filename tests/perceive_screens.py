"""Screens drawn with Pillow, with the accessibility tree that matches them.

Shared by the perception tests and ``bench/perceive.py``: a status bar with a clock, a title,
rows of labels, and optionally a focused text field with a caret and a spinner.
"""

from __future__ import annotations

import io

from PIL import Image, ImageDraw, ImageFont

from orav.model import Element, Frame, Observation, Screenshot

WIDTH, HEIGHT = 390, 844  # iPhone 14 in points
ROW_TOP, ROW_HEIGHT = 110, 52
FIELD = Frame(16, 60, 358, 40)


def render(
    labels: tuple[str, ...],
    *,
    clock: str = "9:41",
    field_text: str | None = None,
    caret: bool = True,
    spinner_angle: int | None = None,
    scale: float = 1.0,
    fmt: str = "png",
) -> Observation:
    """One observation: pixels at ``scale`` and a tree in points that describes them."""
    size = (round(WIDTH * scale), round(HEIGHT * scale))
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=17 * scale)

    def box(frame: Frame) -> tuple[float, float, float, float]:
        return (
            frame.x * scale,
            frame.y * scale,
            (frame.x + frame.width) * scale,
            (frame.y + frame.height) * scale,
        )

    draw.text((20 * scale, 14 * scale), clock, fill="black", font=font)
    draw.rectangle((300 * scale, 18 * scale, 330 * scale, 30 * scale), outline="black")
    elements = [Element("AXApplication", "Demo", frame=Frame(0, 0, WIDTH, HEIGHT))]
    if field_text is not None:
        draw.rectangle(box(FIELD), outline="gray")
        draw.text(((FIELD.x + 8) * scale, (FIELD.y + 10) * scale), field_text, "black", font)
        if caret:
            end = draw.textlength(field_text, font=font) + (FIELD.x + 9) * scale
            draw.rectangle(
                (end, (FIELD.y + 8) * scale, end + 2 * scale, (FIELD.y + 32) * scale), "blue"
            )
        elements.append(Element("AXTextField", "Name", "name", field_text, FIELD, focused=True))
    for row, label in enumerate(labels):
        frame = Frame(16, ROW_TOP + row * ROW_HEIGHT, 358, 44)
        draw.rectangle(box(frame), outline=(200, 200, 200))
        draw.text(((frame.x + 12) * scale, (frame.y + 12) * scale), label, "black", font)
        elements.append(Element("AXButton", label, f"row{row}", frame=frame))
    if spinner_angle is not None:
        frame = Frame(175, 760, 40, 40)
        draw.pieslice(box(frame), spinner_angle, spinner_angle + 90, fill="gray")
        elements.append(Element("AXActivityIndicator", "In progress", frame=frame))
    out = io.BytesIO()
    image.save(out, format=fmt.upper(), **({"compress_level": 1} if fmt == "png" else {}))
    shot = Screenshot.of(out.getvalue(), size[0], size[1], fmt, scale)
    return Observation(tuple(elements), shot, app="com.example.demo")
