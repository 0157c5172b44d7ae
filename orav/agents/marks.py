"""Numbered marks drawn on a screenshot (set-of-mark): each element the prompt cites outlined,
the number of its reference (``e12``: 12) at its top left corner, so a small model can name
what it sees by the number it reads there instead of estimating coordinates.
"""

from __future__ import annotations

import base64
import io

from orav.agents.refs import is_ref
from orav.model import Element

_COLOURS = ((230, 25, 75), (0, 130, 200), (60, 160, 60), (145, 30, 180), (245, 130, 48))
_PREFIX = "data:image/png;base64,"


def marked(url: str, refs: dict[str, Element], x_pixels: float, y_pixels: float) -> str:
    """The PNG data URL ``url`` with a numbered mark on each cited element; ``x_pixels`` and
    ``y_pixels`` are the image's pixels per device point on each axis."""
    from PIL import Image, ImageDraw

    image = Image.open(io.BytesIO(base64.b64decode(url.removeprefix(_PREFIX)))).convert("RGB")
    draw = ImageDraw.Draw(image)
    for ref, element in refs.items():
        if not is_ref(ref):
            continue
        frame = element.frame
        box = (
            frame.x * x_pixels,
            frame.y * y_pixels,
            (frame.x + frame.width) * x_pixels - 1,
            (frame.y + frame.height) * y_pixels - 1,
        )
        if box[2] <= box[0] or box[3] <= box[1]:
            continue
        colour = _COLOURS[int(ref[1:]) % len(_COLOURS)]
        draw.rectangle(box, outline=colour, width=1)
        number = ref[1:]
        left, top, right, bottom = draw.textbbox((box[0], box[1]), number)
        draw.rectangle((left - 1, top - 1, right + 1, bottom + 1), fill=colour)
        draw.text((box[0], box[1]), number, fill=(255, 255, 255))
    buffer = io.BytesIO()
    image.save(buffer, "PNG", compress_level=1)
    return _PREFIX + base64.b64encode(buffer.getvalue()).decode("ascii")
