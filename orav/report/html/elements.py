"""The element DSL the report pages are built with, and the pieces every page shares.

A page is an ElementTree built by ``el`` and serialised by ``page``, so every recorded string
is escaped: nothing a run recorded can become markup. The style is ``report.css`` (package
data), inlined so a page opens offline as one file.
"""

from __future__ import annotations

import base64
import html
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from functools import cache
from importlib.resources import files

from attrs import frozen

from orav.model import Point, Screenshot

Child = ET.Element | str | None | Iterable["Child"]

STATUS_CLASS = {
    "passed": "ok",
    "completed_with_errors": "warn",
    "failed": "bad",
    "step_limit": "bad",
    "timed_out": "bad",
    "aborted": "bad",
    "incomplete": "gray",
}


@cache
def css() -> str:
    """The reports' style sheet, read once from the package."""
    return files(__package__ or "orav.report.html").joinpath("report.css").read_text("utf-8")


def page(title: str, body: ET.Element) -> str:
    """A whole HTML document: the style inline, then ``body``."""
    html = el("html", {"lang": "en"}, _head(title), body)
    return "<!DOCTYPE html>\n" + ET.tostring(html, encoding="unicode", method="html") + "\n"


def page_parts(title: str, body: dict[str, str], sections: Iterable[Child]) -> Iterator[str]:
    """The same document as ``page`` with a body (of attributes ``body``) of ``sections``, in
    parts: each section is built only when the one before it was written (a long run's page,
    one card at a time)."""
    head = ET.tostring(_head(title), encoding="unicode", method="html")
    opening = ET.tostring(el("body", body), encoding="unicode", method="html")
    yield f'<!DOCTYPE html>\n<html lang="en">{head}{opening.removesuffix("</body>")}'
    for section in _flatten(sections):
        if isinstance(section, str):
            yield html.escape(section, quote=False)
        else:
            yield ET.tostring(section, encoding="unicode", method="html")
    yield "</body></html>\n"


def _head(title: str) -> ET.Element:
    return el(
        "head",
        None,
        el("meta", {"charset": "utf-8"}),
        el("meta", {"name": "viewport", "content": "width=device-width, initial-scale=1"}),
        el("title", None, title),
        el("style", None, css()),
    )


def el(tag: str, attrs: dict[str, str] | None, *children: Child) -> ET.Element:
    """An element with text and child elements in order; None children are skipped."""
    element = ET.Element(tag, attrs or {})
    for child in _flatten(children):
        if isinstance(child, str):
            if len(element):
                element[-1].tail = (element[-1].tail or "") + child
            else:
                element.text = (element.text or "") + child
        else:
            element.append(child)
    return element


def _flatten(children: Iterable[Child]) -> Iterator[ET.Element | str]:
    for child in children:
        if child is None:
            continue
        if isinstance(child, (str, ET.Element)):
            yield child
        else:
            yield from _flatten(child)


def status(status: str) -> ET.Element:
    """A run's status as a coloured badge."""
    label = status.replace("_", " ")
    return el("span", {"class": f"status {STATUS_CLASS.get(status, 'gray')}"}, label)


def field(name: str, *value: Child) -> ET.Element:
    """One named fact of a card."""
    return el("div", {"class": "field"}, el("b", None, name), value)


def chips(items: Iterable[str], kind: str) -> list[ET.Element]:
    return [el("span", {"class": f"chip {kind}"}, item) for item in items]


def error_list(errors: Iterable[str]) -> ET.Element:
    return el("ul", {"class": "errors"}, [el("li", {"class": "error"}, e) for e in errors])


# The screenshots a page has shown so far (sha256 -> where): an identical screen is stored
# once, and every later figure of it links to the first (a step's *before* is usually the
# step before's *after*; a long run revisits its screens). Set by ``screens_shown_once``.
_SHOWN: ContextVar[dict[str, str] | None] = ContextVar("_SHOWN", default=None)
# Where a figure finds the bytes of a screenshot read without them (``read_cassette``'s
# ``screenshots=False``): the cassette's blobs, each read from the file when first shown.
_BLOBS: ContextVar[Mapping[str, bytes] | None] = ContextVar("_BLOBS", default=None)


@contextmanager
def screens_shown_once(blobs: Mapping[str, bytes] | None = None) -> Iterator[None]:
    """While a page is built, a screenshot shown before is a link to its first figure;
    ``blobs``: the bytes of screenshots that carry none, by sha256."""
    shown = _SHOWN.set({})
    source = _BLOBS.set(blobs)
    try:
        yield
    finally:
        _BLOBS.reset(source)
        _SHOWN.reset(shown)


def has_data(screenshot: Screenshot | None) -> bool:
    """Whether the page can show ``screenshot``: its bytes, or the cassette's (``_BLOBS``)."""
    return screenshot is not None and bool(
        screenshot.data or screenshot.sha256 in (_BLOBS.get() or {})
    )


@frozen
class Mark:
    """Where an action landed on a screen, in the screen's own units (points, or a terminal's
    cells): a tap's point, or a swipe from ``at`` to ``to``; or, ``area``, what a judgement's
    evidence points at: the box from ``at`` to ``to`` (top left, bottom right)."""

    at: Point
    to: Point | None = None
    area: bool = False


Space = tuple[float, float]  # a screen's width and height in the units of its marks


def figure(
    screenshot: Screenshot | None,
    label: str,
    alt: str,
    *,
    missing: str = "no screenshot",
    marks: Sequence[Mark] = (),
    space: Space | None = None,
) -> ET.Element:
    """A labelled screenshot, full size on click; a screen shown before links to it, unless it
    carries marks (where an action landed): then it is drawn again, from the first copy."""
    shown_before = _SHOWN.get()
    anchor = f"shot-{screenshot.sha256[:16]}" if screenshot is not None else ""
    shown: ET.Element
    if screenshot is None or not has_data(screenshot):
        shown = el("div", {"class": "noshot"}, missing)
    elif shown_before is not None and screenshot.sha256 in shown_before:
        if marks:
            shown = _marked(copy_of(screenshot, "shot", alt), marks, space or _space(screenshot))
        else:
            shown = el(
                "a",
                {"class": "noshot same", "href": f"#{anchor}", "data-sha256": screenshot.sha256},
                f"the same screen as {shown_before[screenshot.sha256]}",
            )
    else:
        if shown_before is not None:
            shown_before[screenshot.sha256] = alt
        raw = screenshot.data or (_BLOBS.get() or {})[screenshot.sha256]
        data = base64.b64encode(raw).decode("ascii")
        shown = el(
            "img",
            {
                "class": "shot",
                "src": f"data:image/{screenshot.format};base64,{data}",
                "alt": alt,
                "title": f"{label}: {screenshot.width}×{screenshot.height} px (click to enlarge)",
                "id": anchor,
                "data-sha256": screenshot.sha256,
                "width": str(screenshot.width),
                "height": str(screenshot.height),
            },
        )
        if marks:
            shown = _marked(shown, marks, space or _space(screenshot))
    return el(
        "figure",
        {"class": f"shot {label.replace(' ', '-')}"},
        shown,
        el("figcaption", None, label),
    )


def copy_of(screenshot: Screenshot, cls: str, alt: str) -> ET.Element:
    """An image of a screenshot the page holds elsewhere: the page's script copies it from the
    first figure of the same screen (each screen's bytes are in the page once)."""
    return el(
        "img",
        {
            "class": cls,
            "alt": alt,
            "data-same": screenshot.sha256,
            "width": str(screenshot.width),
            "height": str(screenshot.height),
        },
    )


def marked(
    image: ET.Element, marks: Sequence[Mark], space: Space | None, shot: Screenshot
) -> ET.Element:
    """``image`` with its marks drawn over it (``space``: the screen's size, else the shot's)."""
    return _marked(image, marks, space or _space(shot)) if marks else image


def _space(screenshot: Screenshot) -> Space:
    scale = screenshot.scale or 1.0
    return screenshot.width / scale, screenshot.height / scale


def _marked(image: ET.Element, marks: Sequence[Mark], space: Space) -> ET.Element:
    """An image with a dot where each tap landed and an arrow along each swipe, placed in
    percent of the screen so they stay put at any size the image is shown."""
    width, height = space

    def at(point: Point) -> str:
        x = min(max(point.x / width * 100, 0), 100) if width else 0
        y = min(max(point.y / height * 100, 0), 100) if height else 0
        return f"left: {x:.3f}%; top: {y:.3f}%"

    overlay: list[Child] = []
    for mark in marks:
        if mark.area and mark.to is not None:
            w = (mark.to.x - mark.at.x) / width * 100 if width else 0
            h = (mark.to.y - mark.at.y) / height * 100 if height else 0
            box = f"{at(mark.at)}; width: {w:.3f}%; height: {h:.3f}%"
            overlay.append(el("span", {"class": "mark area", "style": box}))
            continue
        if mark.to is None:
            overlay.append(el("span", {"class": "mark tap", "style": at(mark.at)}))
            continue
        line = {"x1": mark.at.x, "y1": mark.at.y, "x2": mark.to.x, "y2": mark.to.y}
        overlay += [
            el(
                "svg",
                {
                    "class": "mark swipe",
                    "viewBox": f"0 0 {width:g} {height:g}",
                    "preserveAspectRatio": "none",
                },
                el("line", {k: f"{v:g}" for k, v in line.items()}),
            ),
            el("span", {"class": "mark swipe-from", "style": at(mark.at)}),
            el("span", {"class": "mark swipe-to", "style": at(mark.to)}),
        ]
    return el("div", {"class": "marked"}, image, overlay)


# Fill each copy of a screen from its first figure, then: click a screenshot to see it full
# size (no script needs to load from anywhere).
ZOOM = """
document.querySelectorAll("img[data-same]").forEach((img) => {
  const first = document.querySelector(`img[src][data-sha256="${img.dataset.same}"]`);
  if (first) img.src = first.src;
});
const zoom = document.getElementById("zoom");
document.querySelectorAll("img.shot").forEach((img) => img.addEventListener("click", () => {
  zoom.querySelector("img").src = img.src; zoom.showModal();
}));
zoom.addEventListener("click", () => zoom.close());
"""


def zoom() -> list[ET.Element]:
    """The dialog a clicked screenshot opens in, and its script: the end of a page's body."""
    return [
        el("dialog", {"id": "zoom"}, el("img", {"alt": "screenshot, full size"})),
        el("script", None, ZOOM),
    ]


def when(created_at: str) -> str:
    """``2026-11-22 07:06:44 UTC`` from the header's ISO time (as recorded if it is not one)."""
    try:
        moment = datetime.fromisoformat(created_at)
    except ValueError:
        return created_at
    zone = moment.strftime("%z")
    zone = " UTC" if zone in ("+0000", "") else f" {zone[:3]}:{zone[3:]}"
    return moment.strftime("%Y-%m-%d %H:%M:%S") + zone


def seconds(value: float) -> str:
    return f"{value:.2f} s" if value >= 1 else f"{value * 1000:.0f} ms"
