"""The idb lifecycle (install, launch arguments, permissions, keychain, crash reports, deep
links, the home button, logs) through orav's idb driver and the real fb-idb client, against
`orav sim` over loopback gRPC."""

from __future__ import annotations

import gzip
import io
import tarfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from grpclib import GRPCError
from idb.common.types import CrashLogQuery, IdbException

from orav.device import Device, Lifecycle
from orav.drivers.idb import IdbDevice
from orav.errors import DeviceError, InputError
from orav.model import Fault, PressKey, Tap, Target, TypeText
from orav.sim import SimCompanion

NOTES = "com.example.notes"
NOTES_APP = """\
name: Notes
bundle_id: com.example.notes
start: "{'home' if token else 'login'}"
keychain: {token: ""}
state: {opened: ""}
routes:
  "notes://note/": [{set: {opened: "{url}"}, to: note}]
screens:
  login:
    title: Sign in
    elements:
      - {role: AXTextField, id: name, label: Name, frame: [20, 200, 350, 44]}
      - {role: AXButton, id: sign_in, label: Sign in, frame: [20, 300, 350, 50],
         on_tap: [{set: {token: "{name}"}, to: home, reset: true, log: "signed in as {name}"}]}
      - {role: AXStaticText, id: server, label: "Server: {env['SERVER_URL'] or 'production'}",
         frame: [20, 400, 350, 40]}
      - {role: AXStaticText, id: ui_tests, label: UI tests, when: "'-UITests' in args",
         frame: [20, 450, 350, 40]}
  home:
    title: Notes
    elements:
      - {role: AXStaticText, id: hello, label: "Hello {token}", frame: [20, 110, 350, 40]}
      - {role: AXButton, id: sign_out, label: Sign out, frame: [20, 300, 350, 50],
         on_tap: [{set: {token: ""}, to: login, reset: true}]}
      - {role: AXStaticText, id: permission,
         label: "Location: {permissions['location'] or 'not asked'}", frame: [20, 400, 350, 40]}
      - {role: AXStaticText, id: where, label: "At {location}", when: "location",
         frame: [20, 450, 350, 40]}
  note:
    title: Note
    elements:
      - {role: AXButton, id: back, label: Back, frame: [8, 47, 80, 44], on_tap: [{to: back}]}
      - {role: AXStaticText, id: link, label: "{opened}", frame: [20, 110, 350, 40]}
"""


@pytest.fixture
async def device(tmp_path: Path) -> AsyncIterator[IdbDevice]:
    async with (
        SimCompanion() as sim,
        IdbDevice.connect(sim.address, bundle_id=NOTES, timeout=5.0) as connected,
    ):
        connected.sim = sim  # type: ignore[attr-defined]
        model = tmp_path / "notes.yaml"
        model.write_text(NOTES_APP)
        assert await connected.install(model) == NOTES
        yield connected


async def labels(device: IdbDevice) -> dict[str, str | None]:
    seen = await device.observe()
    return {e.unique_id: e.label for e in seen.elements if e.unique_id}


async def tap(device: IdbDevice, element_id: str) -> None:
    result = await device.perform(Tap(target=Target(id=element_id)))
    assert result.ok, result.error


async def sign_in(device: IdbDevice, name: str = "ada") -> None:
    await tap(device, "name")
    assert (await device.perform(TypeText(name))).ok
    await tap(device, "sign_in")


def test_the_idb_driver_offers_the_lifecycle() -> None:
    assert issubclass(IdbDevice, Device) and issubclass(IdbDevice, Lifecycle)


async def test_install_adds_an_app_that_launches_with_arguments_and_environment(
    device: IdbDevice,
) -> None:
    apps = {app.bundle_id for app in await device.client.list_apps()}
    assert apps == {"com.orav.demo", NOTES}
    assert not await device.is_running(NOTES)  # installed, not launched
    await device.launch(
        NOTES, arguments=["-UITests", "1"], environment={"SERVER_URL": "http://127.0.0.1:9"}
    )
    seen = await labels(device)
    assert seen["server"] == "Server: http://127.0.0.1:9" and seen["ui_tests"] == "UI tests"
    await device.terminate(NOTES)
    await device.launch(NOTES)
    seen = await labels(device)
    assert seen["server"] == "Server: production" and "ui_tests" not in seen


async def test_the_keychain_outlives_a_relaunch_until_cleared(device: IdbDevice) -> None:
    await device.launch(NOTES)
    await sign_in(device)
    assert (await labels(device))["hello"] == "Hello ada"
    await device.terminate(NOTES)
    await device.launch(NOTES)
    assert (await labels(device))["hello"] == "Hello ada"  # still signed in
    await device.clear_keychain()
    await device.terminate(NOTES)
    await device.launch(NOTES)
    assert "sign_in" in await labels(device)  # a run can start logged out


async def test_a_reinstall_keeps_the_keychain_as_ios_does(device: IdbDevice, tmp_path) -> None:
    await device.launch(NOTES)
    await sign_in(device, "grace")
    await device.uninstall(NOTES)
    assert NOTES not in {app.bundle_id for app in await device.client.list_apps()}
    with pytest.raises(DeviceError, match="no app 'com.example.notes' is installed"):
        await device.launch(NOTES)
    assert await device.install(tmp_path / "notes.yaml") == NOTES
    await device.launch(NOTES)
    assert (await labels(device))["hello"] == "Hello grace"


async def test_approve_and_revoke_preset_permissions(device: IdbDevice) -> None:
    await device.launch(NOTES)
    await sign_in(device)
    assert (await labels(device))["permission"] == "Location: not asked"
    await device.approve(NOTES, ["location"])
    assert (await labels(device))["permission"] == "Location: allow"
    await device.revoke(NOTES, ["location", "camera"])
    assert (await labels(device))["permission"] == "Location: deny"
    assert "where" not in await labels(device)
    await device.set_location(48.85, 2.35)
    assert (await labels(device))["where"] == "At 48.85, 2.35"
    with pytest.raises(InputError, match="unknown permission 'gps'"):
        await device.approve(NOTES, ["gps"])


async def test_a_preset_permission_means_no_dialog() -> None:
    async with (
        SimCompanion(faults=[Fault("permission", at_step=1)]) as sim,
        IdbDevice.connect(sim.address, bundle_id="com.orav.demo") as device,
    ):
        await device.approve("com.orav.demo", ["location"])
        await tap(device, "email")
        assert sim.state.overlay is None


async def test_a_crash_writes_a_report_the_driver_reads(device: IdbDevice) -> None:
    await device.launch(NOTES)
    device.sim.state.schedule(Fault("crash", at_step=device.sim.state.inputs + 1))
    await tap(device, "name")
    assert not await device.is_running(NOTES)
    [report] = await device.crash_reports(NOTES)
    assert report.name.startswith("Notes-") and report.name.endswith(".ips")
    assert (
        "EXC_BAD_ACCESS" in report.contents and "Identifier:          " + NOTES in report.contents
    )
    assert "Crashed on screen:   login" in report.contents
    assert await device.crash_reports(NOTES, since=report.timestamp + 1) == []
    assert await device.crash_reports("com.orav.demo") == []
    deleted = await device.client.crash_delete(CrashLogQuery(bundle_id=NOTES))
    assert [i.name for i in deleted] == [report.name]
    assert await device.crash_reports(NOTES) == []


async def test_open_url_follows_the_apps_route(device: IdbDevice) -> None:
    await device.open_url("notes://note/42")
    assert await device.is_running(NOTES)  # the link launched it
    assert (await labels(device))["link"] == "notes://note/42"
    with pytest.raises(DeviceError, match="no installed app opens 'mail://x'"):
        await device.open_url("mail://x")


async def test_home_backgrounds_the_app_and_a_launch_resumes_it(device: IdbDevice) -> None:
    await device.launch(NOTES)
    await tap(device, "name")
    await device.perform(TypeText("lin"))
    assert (await device.perform(PressKey("home"))).ok
    seen = await device.observe()
    assert seen.elements[0].label == "SpringBoard"
    assert await device.is_running(NOTES)  # in the background, not ended
    await device.launch(NOTES)
    seen = await device.observe()
    field = next(e for e in seen.elements if e.unique_id == "name")
    assert field.value == "lin" and field.focused  # where it was left


async def test_log_holds_the_apps_lines(device: IdbDevice) -> None:
    await device.launch(NOTES)
    await sign_in(device, "mae")
    lines = await device.log_lines(0.3)
    assert f"{NOTES}: installed" in lines
    assert f"{NOTES}: signed in as mae" in lines
    assert any(line.startswith(f"{NOTES}: launched (pid ") for line in lines)


def _tar(files: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


@pytest.mark.parametrize(
    ("files", "what"),
    [
        ({"Bad.app/Info.plist": "x"}, "no app.yaml in the bundle"),
        (
            {"Bad.app/app.yaml": NOTES_APP.replace("to: note}", "to: nowhere}")},
            "Bad.app/app.yaml:7:50: unknown screen",
        ),
    ],
)
async def test_a_bundle_without_a_good_app_model_is_refused_with_its_place(
    device: IdbDevice, files: dict[str, str], what: str
) -> None:
    with pytest.raises(IdbException, match="not an orav sim app") as caught:
        async for _ in device.client.install(io.BytesIO(_tar(files))):
            pass
    assert what in str(caught.value)


def test_gzip_bombs_stop_at_the_bundle_limit() -> None:
    from orav.sim.bundle import MAX_BUNDLE_BYTES, read_bundle

    bomb = gzip.compress(b"\0" * (MAX_BUNDLE_BYTES + 10))
    with pytest.raises(InputError, match="once unzipped"):
        read_bundle(bomb, "bomb.app")


async def test_the_companion_reads_no_path_a_client_names(device: IdbDevice) -> None:
    """A bundle named by path would have the companion read a file of the client's choosing."""
    from idb.grpc import idb_pb2 as pb

    async with device.client.stub.install.open() as stream:
        await stream.send_message(pb.InstallRequest(destination=pb.InstallRequest.APP))
        await stream.send_message(
            pb.InstallRequest(payload=pb.Payload(file_path="/etc/passwd")), end=True
        )
        with pytest.raises(GRPCError, match="send the bundle's bytes, not a path"):
            await stream.recv_message()
