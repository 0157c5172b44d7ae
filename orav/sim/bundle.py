"""App bundles the simulator installs: an app model packaged the way idb sends an app.

idb's ``install`` streams a ``.app`` directory as a (gzipped) tar and an ``.ipa`` as the zip it
is. For ``orav sim`` an app is a ``Name.app`` directory holding ``app.yaml`` (an app model,
whose ``bundle_id`` is the app's), or an ``.ipa`` zip holding ``Payload/Name.app/app.yaml``.
"""

from __future__ import annotations

import gzip
import io
import tarfile
import zipfile
import zlib
from pathlib import PurePosixPath

from orav.codec import MAX_YAML_BYTES
from orav.errors import InputError
from orav.sim.appmodel import AppModel
from orav.sim.loading import load_app_model

MODEL_NAME = "app.yaml"
MAX_BUNDLE_BYTES = 16 * 1024 * 1024  # what install accepts, compressed or not


def read_bundle(data: bytes, name: str = "") -> AppModel:
    """The app model inside an installed bundle (tar, gzipped tar, zip, or the YAML itself);
    InputError naming the bundle (and the model's file:line:col) when it holds none."""
    if data[:2] == b"\x1f\x8b":
        data = _gunzip(data, name)
    try:
        members = _members(data, name)
    except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise InputError(f"a damaged archive: {exc}", name or None) from None
    if members is None:
        return load_app_model(_decode(data, name or "app.yaml"), name=name or "app.yaml")
    models = sorted(
        (p for p in members if PurePosixPath(p).name == MODEL_NAME), key=lambda p: p.count("/")
    )
    if not models:
        what = f"no {MODEL_NAME} in the bundle (it has {sorted(members)[:5]})"
        raise InputError(what, name or None)
    where = f"{name}:{models[0]}" if name else models[0]
    return load_app_model(_decode(members[models[0]], where), name=where)


def _gunzip(data: bytes, name: str) -> bytes:
    """A gzipped bundle unzipped, at most MAX_BUNDLE_BYTES of it."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as unzipped:
            data = unzipped.read(MAX_BUNDLE_BYTES + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"not a readable gzip stream: {exc}", name or None) from None
    if len(data) > MAX_BUNDLE_BYTES:
        raise InputError(f"more than {MAX_BUNDLE_BYTES} bytes once unzipped", name or None)
    return data


def _members(data: bytes, name: str) -> dict[str, bytes] | None:
    """The files of a tar or zip by path (each cut at MAX_YAML_BYTES + 1 bytes); None when
    ``data`` is neither."""
    buffer = io.BytesIO(data)
    files: dict[str, bytes] = {}
    if zipfile.is_zipfile(buffer):
        with zipfile.ZipFile(buffer) as archive:
            for info in archive.infolist():
                if not info.is_dir():
                    with archive.open(info) as member:
                        files[info.filename] = member.read(MAX_YAML_BYTES + 1)
        return files
    try:
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            for entry in archive.getmembers():
                reader = archive.extractfile(entry) if entry.isfile() else None
                if reader is not None:
                    files[entry.name.removeprefix("./")] = reader.read(MAX_YAML_BYTES + 1)
    except tarfile.TarError:
        return None
    return files


def _decode(data: bytes, where: str) -> str:
    if len(data) > MAX_YAML_BYTES:
        raise InputError(f"an app model of more than {MAX_YAML_BYTES} bytes", where)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("the app model is not UTF-8 text", where) from None
