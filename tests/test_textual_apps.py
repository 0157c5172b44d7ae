"""The Textual driver on apps not written for it: Textual's own demo (always), and Textual 8 apps
from PyPI when they are installed (browsr, harlequin: `pip install browsr` or `pip install
harlequin` in a throwaway venv beside orav; CI installs neither, so those tests skip)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import ClassVar

import pytest

from orav.drivers.textual import TextualDevice
from orav.model import PressKey, Tap, Target, TypeText


async def test_textuals_own_demo_app():
    async with TextualDevice.from_spec(
        "textual.demo.demo_app:DemoApp@100x30", timeout=15
    ) as device:
        await device.launch()
        home = await device.observe()
        assert home.elements[1].traits == ("screen:HomeScreen",)
        keys = {e.label: e.traits for e in home.elements if e.role == "AXButton"}
        assert "binding:w" in keys["Widgets"] and "binding:ctrl+p" in keys["palette"]
        assert any(e.label == "What is Textual?" for e in home.elements)
        assert (await device.perform(PressKey("w"))).ok
        widgets = await device.observe()
        assert widgets.elements[1].traits == ("screen:WidgetsScreen",)
        assert (await device.perform(Tap(target=Target(label="Primary")))).ok
        assert (await device.perform(PressKey("shift+tab"))).ok


async def test_browsr_browses_a_folder(tmp_path: Path, monkeypatch):
    pytest.importorskip("browsr", reason="browsr is not installed (pip install browsr)")
    (tmp_path / "readme.txt").write_text("hello from orav\n")
    (tmp_path / "docs").mkdir()
    monkeypatch.chdir(tmp_path)
    async with TextualDevice.from_spec("browsr.browsr:Browsr", timeout=15) as device:
        await device.launch()
        seen = await device.observe()
        assert seen.elements[1].traits == ("screen:CodeBrowserScreen",)
        docs = next(e for e in seen.elements if e.label == "docs")
        assert (docs.role, docs.value) == ("AXCell", "collapsed")
        for key in ("down", "down", "enter"):
            assert (await device.perform(PressKey(key))).ok
        opened = await device.observe()
        assert any(e.value == "hello from orav\n" for e in opened.elements)
        assert any("binding:question_mark" in e.traits for e in opened.elements)


def _harlequin():
    harlequin_app = pytest.importorskip("harlequin.app", reason="harlequin is not installed")
    from harlequin_duckdb.adapter import DuckDbAdapter

    here = Path(harlequin_app.__file__).parent
    css = harlequin_app.Harlequin.CSS_PATH
    paths = css if isinstance(css, list) else [css]

    class DuckHarlequin(harlequin_app.Harlequin):
        """Harlequin on an in-memory DuckDB (its CSS found beside harlequin.app)."""

        CSS_PATH: ClassVar = [here / p for p in paths]  # Textual takes a list only

        def __init__(self) -> None:
            super().__init__(
                DuckDbAdapter((":memory:",)), record_history=False, no_download_tzdata=True
            )

    return DuckHarlequin


async def test_harlequin_runs_a_query():
    app = _harlequin()
    async with TextualDevice(app, size=(100, 30), timeout=15) as device:
        await device.launch()
        seen = await device.observe()
        assert seen.elements[1].traits == ("screen:ScreenBase",)
        assert seen.locate(unique_id="run_query").label == "Run Query"
        assert (await device.perform(TypeText("select 42 as answer, 'orav' as name"))).ok
        assert (await device.perform(PressKey("ctrl+j"))).ok
        for _ in range(50):
            result = await device.observe()
            if "orav" in result.text.split("Query Results")[-1]:
                break
            await asyncio.sleep(0.1)
        assert "42" in result.text and any("toast" in e.traits for e in result.elements)
