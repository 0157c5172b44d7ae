"""App bundles (orav/sim/bundle.py): what idb sends for an app, and damaged or hostile bundles
refused with one InputError, never a traceback."""

from __future__ import annotations

import gzip
import io
import tarfile
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orav.errors import InputError
from orav.sim import DEMO_APP
from orav.sim.bundle import read_bundle

MODEL = DEMO_APP.read_bytes()


def _tar(files: dict[str, bytes], mode: str = "w:gz") -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode=mode) as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _zip(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return out.getvalue()


@pytest.mark.parametrize(
    "data",
    [
        _tar({"Demo.app/app.yaml": MODEL, "Demo.app/Info.plist": b"<plist/>"}),
        _tar({"Demo.app/app.yaml": MODEL}, mode="w"),
        _zip({"Payload/Demo.app/app.yaml": MODEL}),
        gzip.compress(MODEL),
        MODEL,
    ],
    ids=["app-tar-gz", "app-tar", "ipa", "gzip-yaml", "yaml"],
)
def test_what_idb_sends_for_an_app_installs(data: bytes) -> None:
    assert read_bundle(data, "Demo.app").bundle_id == "com.orav.demo"


def test_the_shallowest_app_yaml_is_the_app() -> None:
    other = MODEL.replace(b"bundle_id: com.orav.demo", b"bundle_id: com.example.plugin")
    data = _tar({"Demo.app/PlugIns/X.appex/app.yaml": other, "Demo.app/app.yaml": MODEL})
    assert read_bundle(data).bundle_id == "com.orav.demo"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(["tar", "zip", "gzip", "raw"]),
    cut=st.integers(0, 4000),
    junk=st.binary(max_size=40),
)
def test_damaged_bundles_are_one_input_error(kind: str, cut: int, junk: bytes) -> None:
    whole = {
        "tar": _tar({"Demo.app/app.yaml": MODEL}),
        "zip": _zip({"Payload/Demo.app/app.yaml": MODEL}),
        "gzip": gzip.compress(MODEL),
        "raw": MODEL,
    }[kind]
    data = whole[:cut] + junk + whole[cut + len(junk) :]
    try:
        read_bundle(data, "x.app")
    except InputError as exc:
        assert str(exc)
