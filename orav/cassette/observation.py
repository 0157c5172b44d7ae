"""An observation in a cassette: its element tree and its screenshot's bytes are blobs.

An ``observe`` event holds an ``orav.model.Observation``. On disk its ``elements`` is the
sha256 of an ``application/json`` blob holding the element list (an unchanged tree costs one
reference) and its screenshot keeps its fields but not its bytes, which are the blob with that
sha256. The swap is a hook on the codec's one converter, for the ``observation`` field of
``ObserveEvent`` only; it stores through the writer that is writing (``storing``) and resolves
through the blobs of the cassette being read (``resolving``), so no type mirrors Observation.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol

from attrs import evolve

from orav.codec import converter
from orav.errors import InputError
from orav.model import Element, Observation, Screenshot


class BlobSink(Protocol):
    """Where a writer stores an observation's blobs (``CassetteWriter``)."""

    def put_elements(self, elements: tuple[Element, ...]) -> str: ...

    def put_blob(self, data: bytes, media_type: str, sha256: str = "") -> str: ...


class BlobSource(Protocol):
    """Where a reader finds them (``Cassette``): the tree of a sha256, the bytes of one."""

    def elements_of(self, sha256: str) -> tuple[Element, ...]: ...

    def screenshot_data(self, sha256: str) -> bytes | None: ...


class DamagedBlob(InputError):
    """An observation refers to a blob the cassette does not hold, or holds damaged: damage
    found when the line is read, never a cut nor a replay that stops halfway."""


_sink: ContextVar[BlobSink | None] = ContextVar("orav_cassette_sink", default=None)
_source: ContextVar[BlobSource | None] = ContextVar("orav_cassette_source", default=None)


@contextmanager
def storing(sink: BlobSink) -> Iterator[None]:
    """Observations unstructured inside are stored through ``sink``."""
    token = _sink.set(sink)
    try:
        yield
    finally:
        _sink.reset(token)


@contextmanager
def resolving(source: BlobSource) -> Iterator[None]:
    """Observations structured inside are resolved through ``source``."""
    token = _source.set(source)
    try:
        yield
    finally:
        _source.reset(token)


def unstructure_observation(observation: Observation | None) -> Any:
    if observation is None:
        return None
    sink = _sink.get()
    if sink is None:
        raise RuntimeError("an observation is written through a CassetteWriter")
    data = converter.unstructure(evolve(observation, elements=()))
    if observation.elements:
        data = {"elements": sink.put_elements(observation.elements), **data}
    shot = observation.screenshot
    if shot is not None and shot.data:
        sink.put_blob(shot.data, f"image/{shot.format}", shot.sha256)
    return data


def structure_observation(data: Any, _: type) -> Observation | None:
    if data is None:
        return None
    source = _source.get()
    if source is None:
        raise RuntimeError("an observation is read through read_cassette")
    if not isinstance(data, dict):
        raise TypeError(f"expected a mapping, got {type(data).__name__}")
    fields = dict(data)
    sha = fields.pop("elements", None)
    if sha is not None and not isinstance(sha, str):
        raise TypeError("elements: expected the sha256 of an element blob")
    observation = converter.structure(fields, Observation)
    elements = source.elements_of(sha) if sha is not None else ()
    shot = observation.screenshot
    if shot is not None:
        shot = _with_data(shot, source.screenshot_data(shot.sha256))
    return evolve(observation, elements=elements, screenshot=shot)


def _with_data(shot: Screenshot, data: bytes | None) -> Screenshot:
    return shot if data is None else evolve(shot, data=data)
