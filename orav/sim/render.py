"""Screenshots of a simulated ``View``, drawn with Pillow in an iOS-like style.

Drawing and encoding are cached per (view, scale, format): an unchanged screen costs a dict
lookup. Fonts are Pillow's own (``ImageFont.load_default(size)``): nothing is downloaded.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from orav.model import Frame
from orav.sim.view import Node, View

BLUE = (0, 122, 255)
GREEN = (52, 199, 89)
RED = (255, 59, 48)
GREY = (142, 142, 147)
LIGHT = (229, 229, 234)
KEYBOARD_BG = (209, 212, 217)
BLACK = (0, 0, 0)
WHITE = (255, 255, 255)
WALLPAPER = (30, 60, 114)
ICON_COLOURS = ((0, 122, 255), (142, 142, 147), (52, 199, 89), (255, 149, 0))

FORMATS = {"png": "PNG", "jpeg": "JPEG", "tiff": "TIFF"}


@lru_cache(maxsize=64)
def _font(pixels: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(max(pixels, 6))


class _Painter:
    """Draws nodes at ``scale`` pixels per point."""

    def __init__(self, image: Image.Image, scale: float) -> None:
        self.image = image
        self.draw = ImageDraw.Draw(image)
        self.scale = scale

    def box(self, frame: Frame) -> tuple[float, float, float, float]:
        s = self.scale
        return (frame.x * s, frame.y * s, (frame.x + frame.width) * s, (frame.y + frame.height) * s)

    def rect(self, frame: Frame, fill=None, outline=None, radius: float = 0, width: float = 1):
        self.draw.rounded_rectangle(
            self.box(frame),
            radius=radius * self.scale,
            fill=fill,
            outline=outline,
            width=max(1, round(width * self.scale)),
        )

    def text(
        self,
        frame: Frame,
        text: str,
        size: float = 17,
        fill=BLACK,
        align: str = "left",
        max_lines: int = 0,
    ):
        """Text centred vertically in ``frame``: wrapped onto as many lines as its height holds,
        the last one cut with "..." when the rest does not fit (as UILabel truncates its tail)."""
        if not text:
            return
        font = _font(round(size * self.scale))
        x0, y0, x1, y1 = self.box(frame)
        anchor = {"left": "lm", "center": "mm", "right": "rm"}[align]
        pad = 12 * self.scale
        x = {"left": x0 + pad, "center": (x0 + x1) / 2, "right": x1 - pad}[align]
        line_height = size * 1.25 * self.scale
        room = max(1, int((y1 - y0) // line_height))
        room = min(room, max_lines) if max_lines else room
        lines = _wrap(text, font, max(x1 - x0 - 2 * pad, 1), room)
        top = (y0 + y1) / 2 - (len(lines) - 1) * line_height / 2
        for i, line in enumerate(lines):
            y = top + i * line_height
            self.draw.text((x, y), line, font=font, fill=fill, anchor=anchor)


def _wrap(
    text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, width: float, lines: int
) -> list[str]:
    """``text`` in at most ``lines`` lines of at most ``width`` pixels, the last cut with "...".

    Linear in the text (a 100 KB title once took an hour): wrapping stops at the last line,
    which holds the rest, and the cut is found by halving, not a character at a time."""
    words = text.split()
    out: list[str] = []
    current = ""
    for i, word in enumerate(words):
        candidate = f"{current} {word}".strip()
        if font.getlength(candidate) <= width or not current:
            current = candidate
        elif len(out) == lines - 1:
            current = " ".join([current, *words[i:]])  # the last line: the rest, cut below
            break
        else:
            out.append(current)
            current = word
    out.append(current)
    if font.getlength(out[-1]) > width:
        out[-1] = _cut(out[-1], font, width)
    return out


def _cut(line: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, width: float) -> str:
    """The longest start of ``line`` that fits ``width`` with "..." after it (by halving)."""
    fits, over = 0, len(line)
    while fits + 1 < over:
        middle = (fits + over) // 2
        if font.getlength(line[:middle] + "...") <= width:
            fits = middle
        else:
            over = middle
    return line[:fits].rstrip() + "..."


def render(view: View, scale: float = 1.0) -> Image.Image:
    """The screen as an RGB image of (width * scale, height * scale) pixels."""
    return _render(view, scale)


@lru_cache(maxsize=32)
def _render(view: View, scale: float) -> Image.Image:
    root = view.root
    size = (round(root.frame.width * scale), round(root.frame.height * scale))
    background = WHITE if view.running else WALLPAPER
    image = Image.new("RGB", size, background)
    for node in root.children:
        image = _draw(_Painter(image, scale), node, image)
    _status_bar(_Painter(image, scale), view, root.frame.width)
    return image


def encode(
    view: View,
    scale: float = 1.0,
    fmt: str = "png",
    quality: float = 0.0,
) -> bytes:
    """The encoded screenshot; ``quality`` in (0, 1] for JPEG (0: the companion's 0.8)."""
    return _encode(view, scale, fmt, quality)


@lru_cache(maxsize=32)
def _encode(view: View, scale: float, fmt: str, quality: float) -> bytes:
    return encode_image(_render(view, scale), fmt, quality)


def encode_image(image: Image.Image, fmt: str, quality: float = 0.0) -> bytes:
    out = io.BytesIO()
    if fmt == "jpeg":
        image.save(out, "JPEG", quality=round((quality or 0.8) * 100))
    elif fmt == "png":
        image.save(out, "PNG", compress_level=1)
    else:
        image.save(out, FORMATS[fmt])
    return out.getvalue()


def _draw(p: _Painter, node: Node, image: Image.Image) -> Image.Image:
    """Draw one top-level node (and its children); returns the image (alerts dim a copy)."""
    if node.style == "modal":
        return _alert(p, node, image)
    _drawer(node)(p, node)
    return image


def _drawer(node: Node) -> Callable[[_Painter, Node], None]:
    """How ``node`` is drawn: what the system draws by its style, an element by its role."""
    system = _SYSTEM.get(node.style)
    if system is not None:
        return system
    if node.role == "AXTextField":
        return _text_field
    if node.style in ("swipe", "swipe_destructive"):
        return _swipe_action
    by_role = _ELEMENTS.get(node.role)
    if by_role is not None:
        return by_role
    return _success if node.style == "success" else _label


def _alert(p: _Painter, node: Node, image: Image.Image) -> Image.Image:
    """An alert over the screen dimmed: its title, its text, its buttons."""
    f = node.frame
    image = Image.blend(image, Image.new("RGB", image.size, BLACK), 0.4)
    p = _Painter(image, p.scale)
    p.rect(f, fill=(242, 242, 247), radius=14)
    for child in node.children:
        if child.style == "alert_title":
            p.text(child.frame, child.label or "", size=15, align="center")
        elif child.style == "alert_text":
            p.text(child.frame, child.label or "", size=13, align="center")
        else:
            colour = RED if child.style == "alert_destructive" else BLUE
            p.rect(Frame(child.frame.x, child.frame.y, child.frame.width, 1), fill=LIGHT)
            p.text(child.frame, child.label or "", size=17, fill=colour, align="center")
    return image


def _tab_bar(p: _Painter, node: Node) -> None:
    f = node.frame
    p.rect(f, fill=(247, 247, 247))
    p.rect(Frame(f.x, f.y, f.width, 1), fill=LIGHT)
    for tab in node.children:
        colour = BLUE if "selected" in tab.traits else GREY
        dot = Frame(tab.frame.x + tab.frame.width / 2 - 11, tab.frame.y + 5, 22, 22)
        p.rect(dot, fill=colour, radius=6)
        label = Frame(tab.frame.x, tab.frame.y + 29, tab.frame.width, 16)
        p.text(label, tab.label or "", size=11, fill=colour, align="center")


def _keyboard(p: _Painter, node: Node) -> None:
    p.rect(node.frame, fill=KEYBOARD_BG)
    for key in node.children:
        p.rect(key.frame, fill=WHITE, radius=5)
        size = 22 if len(key.label or "") == 1 else 15
        p.text(key.frame, key.label or "", size=size, align="center")


def _title(p: _Painter, node: Node) -> None:
    f = node.frame
    p.rect(Frame(f.x, f.y + f.height - 1, f.width, 1), fill=LIGHT)
    p.text(f, node.label or "", size=17, align="center")


def _banner(p: _Painter, node: Node) -> None:
    p.rect(node.frame, fill=RED)
    p.text(node.frame, node.label or "", size=17, fill=WHITE, align="center")


def _icon(p: _Painter, node: Node) -> None:
    f = node.frame
    colour = ICON_COLOURS[sum(map(ord, node.label or "")) % len(ICON_COLOURS)]
    p.rect(f, fill=colour, radius=14)
    label = Frame(f.x - 13, f.y + f.height + 2, f.width + 26, 18)
    p.text(label, node.label or "", size=12, fill=WHITE, align="center")


def _swipe_action(p: _Painter, node: Node) -> None:
    p.rect(node.frame, fill=RED if node.style == "swipe_destructive" else GREY)
    p.text(node.frame, node.label or "", size=15, fill=WHITE, align="center")


def _button(p: _Painter, node: Node) -> None:
    f = node.frame
    colour = (RED if node.style == "destructive" else BLUE) if node.enabled else GREY
    if f.width >= 200:
        p.rect(f, fill=colour, radius=12)
        p.text(f, node.label or "", size=17, fill=WHITE, align="center")
    else:  # a narrow button: tinted, as UIButton.Configuration.tinted draws it
        p.rect(f, fill=_tint(colour), radius=8)
        p.text(f, node.label or "", size=15, fill=colour, align="center")


def _image(p: _Painter, node: Node) -> None:
    f = node.frame
    p.rect(f, fill=(242, 242, 247), outline=LIGHT, radius=8)
    _picture(p, f)
    label = Frame(f.x, f.y + f.height - 20, f.width, 20)
    p.text(label, node.label or "", size=11, fill=GREY, align="center")


def _cell(p: _Painter, node: Node) -> None:
    f = node.frame
    p.rect(Frame(f.x + 16, f.y + f.height - 1, f.width - 16, 1), fill=LIGHT)
    p.text(f, node.label or "", size=17)
    p.text(f, ">", size=17, fill=GREY, align="right")
    if node.value:  # a detail label, as UITableViewCell.value1 draws it
        detail = Frame(f.x, f.y, f.width - 20, f.height)
        p.text(detail, node.value, size=17, fill=GREY, align="right", max_lines=1)


def _switch(p: _Painter, node: Node) -> None:
    f = node.frame
    p.text(f, node.label or "", size=17)
    on = node.value == "1"
    pill = Frame(f.x + f.width - 67, f.y + (f.height - 31) / 2, 51, 31)
    p.rect(pill, fill=GREEN if on else LIGHT, radius=15.5)
    knob_x = pill.x + (22 if on else 2)
    p.rect(Frame(knob_x, pill.y + 2, 27, 27), fill=WHITE, radius=13.5)


def _success(p: _Painter, node: Node) -> None:
    p.rect(node.frame, fill=(230, 248, 235), radius=10)
    p.text(node.frame, node.label or "", size=15, fill=(30, 130, 60))


def _label(p: _Painter, node: Node) -> None:
    header = "header" in node.traits
    colour = RED if node.style == "error" else BLACK
    size = 24 if header else (15 if node.style else 17)
    p.text(node.frame, node.label or "", size=size, fill=colour)


def _tint(colour: tuple[int, int, int]) -> tuple[int, int, int]:
    """The colour at 15 % over white: the background of a tinted button."""
    return tuple(round(255 - (255 - c) * 0.15) for c in colour)  # type: ignore[return-value]


def _picture(p: _Painter, f: Frame) -> None:
    """An image placeholder: a sun over two hills, centred in the frame."""
    s = p.scale
    size = min(f.width, f.height - 20) * 0.6
    if size <= 4:
        return
    cx, cy = f.x + f.width / 2, f.y + (f.height - 20) / 2
    left, bottom = cx - size / 2, cy + size / 3
    p.draw.polygon(
        [
            (left * s, bottom * s),
            ((left + size * 0.35) * s, (bottom - size * 0.45) * s),
            ((left + size * 0.6) * s, (bottom - size * 0.2) * s),
            ((left + size * 0.75) * s, (bottom - size * 0.35) * s),
            ((left + size) * s, bottom * s),
        ],
        fill=GREY,
    )
    r = size * 0.12
    sun = (left + size * 0.8, bottom - size * 0.7)
    p.draw.ellipse(
        ((sun[0] - r) * s, (sun[1] - r) * s, (sun[0] + r) * s, (sun[1] + r) * s), fill=GREY
    )


def _text_field(p: _Painter, node: Node) -> None:
    f = node.frame
    p.rect(f, outline=BLUE if node.focused else LIGHT, radius=8, width=2 if node.focused else 1)
    width = 0.0
    if node.value and node.subrole == "AXSecureTextField":
        # Pillow's font has no bullet glyph: draw the dots.
        for i in range(len(node.value)):
            p.rect(Frame(f.x + 13 + i * 11, f.y + f.height / 2 - 4, 8, 8), fill=BLACK, radius=4)
        width = len(node.value) * 11.0
    elif node.value:
        p.text(f, node.value, size=17, max_lines=1)
        width = _font(round(17 * p.scale)).getlength(node.value) / p.scale
    elif node.placeholder:
        p.text(f, node.placeholder, size=17, fill=GREY, max_lines=1)
    if node.focused:
        caret = Frame(f.x + 12 + width + 1, f.y + 10, 2, f.height - 20)
        p.rect(caret, fill=BLUE)


def _spinner(p: _Painter, node: Node) -> None:
    f = node.frame
    cx, cy, r = f.x + f.width / 2, f.y + f.height / 2, f.width / 2
    s = p.scale
    for i in range(8):
        angle = i * math.pi / 4
        shade = 90 + i * 20
        x0, y0 = cx + math.cos(angle) * r * 0.45, cy + math.sin(angle) * r * 0.45
        x1, y1 = cx + math.cos(angle) * r, cy + math.sin(angle) * r
        p.draw.line(
            (x0 * s, y0 * s, x1 * s, y1 * s), fill=(shade, shade, shade), width=max(1, round(3 * s))
        )


def _status_bar(p: _Painter, view: View, width: float) -> None:
    colour = BLACK if view.running else WHITE
    p.text(Frame(16, 12, 80, 24), view.clock, size=16, fill=colour)
    battery = Frame(width - 44, 17, 25, 12)
    p.rect(battery, outline=colour, radius=3)
    p.rect(Frame(battery.x + 2, battery.y + 2, 18, 8), fill=colour, radius=1)


_SYSTEM: dict[str, Callable[[_Painter, Node], None]] = {
    "tab_bar": _tab_bar,
    "keyboard": _keyboard,
    "title": _title,
    "spinner": _spinner,
    "banner": _banner,
    "icon": _icon,
}
_ELEMENTS: dict[str, Callable[[_Painter, Node], None]] = {
    "AXButton": _button,
    "AXImage": _image,
    "AXCell": _cell,
    "AXSwitch": _switch,
}
