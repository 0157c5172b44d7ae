"""The apps and app models of tests/unseen_apps/, written to hold deeds in words orav's code
never saw (issue 22), do what they say: each deed, driven by hand, reaches the user's file, the
loopback server or the model's own record. The explorations in test_unseen_deeds.py rest on
this: a deed they did not see is one that was not done, not one the app could not do."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from unseen_apps.harness import FARAWAY, PLI, loopback, user_folders

from orav.drivers.idb import IdbDevice
from orav.drivers.textual import TextualDevice
from orav.model import PressKey, Tap, Target, TypeText
from orav.sim import SimCompanion, load_app_model
from orav.sim.lint import lint


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    work, home = user_folders(tmp_path)
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    return work, home


async def _tap(device, **target: str) -> None:
    result = await device.perform(Tap(target=Target(**target)))
    assert result.ok, result.error


def _tables(path: Path) -> list[str]:
    with sqlite3.connect(path) as db:
        return [n for (n,) in db.execute("SELECT name FROM sqlite_master ORDER BY name")]


async def test_tafel_blows_a_table_up_at_once_and_empties_one_after_asking(folders):
    work, _ = folders
    async with TextualDevice.from_spec("unseen_apps.tafel:Tafel@100x30", timeout=15) as device:
        await device.launch()
        await _tap(device, id="menu")
        await _tap(device, label="🧹 Leeren…")
        asked = await device.observe()
        assert asked.elements[1].role == "AXDialog"  # a question before the rows go
        await _tap(device, label="Ja, leeren")
        await _tap(device, id="menu")
        await _tap(device, id="blast")
        await device.settle(1.0)
    assert _tables(work / "sample.db") == ["kunden"]  # bestellungen is gone, no question asked


async def test_kiste_deletes_on_a_bare_key_without_asking(folders):
    work, home = folders
    async with TextualDevice.from_spec("unseen_apps.kiste:Kiste@100x30", timeout=15) as device:
        await device.launch()
        seen = await device.observe()
        assert not any("delete" in (e.label or "").lower() for e in seen.elements)
        assert "binding:delete" in seen.elements[0].traits  # the key, and no words for it
        await _tap(device, label="🏠 ~")
        await _tap(device, label="📄 notes.md")
        assert (await device.perform(PressKey("delete"))).ok
        await _tap(device, label="＋📁")
        await device.settle(1.0)
    assert not (home / "notes.md").exists()
    assert (home / "Neuer Ordner").is_dir()
    assert (work / "readme.txt").exists()


async def test_plauder_posts_a_message_to_its_server(folders):
    work, home = folders
    with loopback() as (url, received):
        (work / "plauder.json").write_text(f'{{"server": "{url}"}}')
        async with TextualDevice.from_spec("unseen_apps.plauder:Plauder@100x30") as device:
            await device.launch()
            await _tap(device, id="zeile")
            assert (await device.perform(TypeText("Bis gleich\n"))).ok
            await device.settle(1.0)
    assert received == [b'{"text": "Bis gleich"}']
    assert "Bis gleich" in (home / ".local/share/plauder/verlauf.json").read_text()


@pytest.mark.parametrize("model", [PLI, FARAWAY], ids=lambda p: p.stem)
def test_the_models_are_clean(model: Path):
    assert lint(load_app_model(model)) == []


async def test_pli_records_its_deeds():
    async with (
        SimCompanion(PLI) as sim,
        IdbDevice.connect(sim.address, bundle_id="fr.pli.mail") as device,
    ):
        for element in ("boite_reception", "msg_m2", "jeter", "tout_lu", "marquer"):
            await _tap(device, id=element)
        await _tap(device, id="msg_m1")
        await _tap(device, id="repondre")
        await _tap(device, id="envoyer")
        deeds = sim.app("fr.pli.mail").keychain["deeds"]
    assert deeds == ("corbeille:m2", "tout_lu", "envoye:camille@exemple.fr")


async def test_faraway_asks_for_tracking_and_covers_the_heart_with_its_banner():
    bundle = "com.faraway.trips"
    async with (
        SimCompanion(FARAWAY) as sim,
        IdbDevice.connect(sim.address, bundle_id=bundle) as device,
    ):
        await _tap(device, id="stay_lisbon")
        prompt = await device.observe()
        labels = [e.label for e in prompt.elements if e.role == "AXButton"]
        assert labels[-2:] == ["Ask App Not to Track", "Allow"]  # App Tracking's own words
        await _tap(device, label="Allow")
        ids = [e.unique_id for e in (await device.observe()).elements]
        assert ids.index("fav") < ids.index("cookie_text")  # the banner is drawn over it
        await _tap(device, id="fav")  # on the banner: nothing happens
        assert sim.app(bundle).keychain["favourites"] == ()
        await _tap(device, id="cookie_yes")
        await _tap(device, id="fav")
        state = sim.app(bundle)
    assert state.keychain["favourites"] == ("lisbon",)
    assert state.keychain["deeds"] == ("consent:everything",)
    assert list(state.permissions.values()) == [True]
