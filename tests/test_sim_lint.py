"""`orav validate` knows app models: each lint finding and each load error, located, through the
real command; the shipped apps are clean."""

from __future__ import annotations

from pathlib import Path

import pytest
from command import orav

from orav.sim import DEMO_APP, SHOP_APP, load_app_model
from orav.sim.lint import lint

BASE = """\
name: Lint
bundle_id: com.example.lint
start: one
screens:
  one:
    elements:
      - {role: AXButton, id: go, label: Go, frame: [20, 100, 350, 44], on_tap: [{to: two}]}
      - {role: AXStaticText, id: note, label: Note, hidden: true, frame: [20, 160, 350, 30],
         when: "count > 0"}
  two:
    elements:
      - {role: AXButton, id: back, label: Back, frame: [8, 47, 80, 44],
         on_tap: [{to: back, show: panel}]}
      - {role: AXStaticText, id: panel, hidden: true, label: Panel, frame: [20, 100, 350, 30]}
state: {count: 0}
"""

LINTS = [
    # (old, new, where, what): one finding each
    (
        "{role: AXButton, id: go, label: Go,",
        "{role: AXButton, label: Go,",
        "7:64",
        "on_tap on an element without an id: nothing can tap it",
    ),
    (
        "      - {role: AXStaticText, id: panel,",
        (
            "      - {role: AXTextField, label: Name, frame: [20, 200, 350, 44]}\n"
            "      - {role: AXStaticText, id: panel,"
        ),
        "14:9",
        "a text field without an id",
    ),
    ("on_tap: [{to: two}]", "on_tap: [{to: one}]", "10:3", "screen 'two' is unreachable"),
    ("frame: [20, 160, 350, 30]", "frame: [20, 160, 400, 30]", "8:67", "is off the 390 x 844"),
    ('when: "count > 0"', 'when: "count > 0"}\n  three: {elements: []', "10:3", "no elements"),
    (
        "hidden: true, frame: [20, 160",
        "hidden: true, frame: [20, 160",
        "8:61",
        "no transition shows",
    ),
    (
        "  two:\n    elements:",
        "  two:\n    scroll: true\n    elements:",
        "13:49",
        "navigation bar) but not fixed: it never shows",
    ),
]


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_the_shipped_apps_are_clean() -> None:
    assert lint(load_app_model(DEMO_APP)) == []
    assert lint(load_app_model(SHOP_APP)) == []
    for real in ("settings", "signal", "clock", "monzo"):  # real apps' models
        assert lint(load_app_model(DEMO_APP.with_name(f"{real}.yaml"))) == [], real


def test_validate_reports_each_finding_at_its_place_and_exits_2(tmp_path: Path) -> None:
    files, wanted = [], []
    for index, (old, new, where, what) in enumerate(LINTS):
        assert old in BASE
        files.append(_write(tmp_path, f"lint{index}.yaml", BASE.replace(old, new, 1)))
        wanted.append((f"{files[-1]}:{where}", what))
    clean = _write(
        tmp_path, "clean.yaml", BASE.replace("hidden: true, frame: [20, 160", "frame: [20, 160", 1)
    )
    done = orav("validate", clean, *files)
    assert done.returncode == 2, done.stderr
    assert done.stdout.splitlines() == [f"{clean}: ok (app Lint, 2 screens)"]
    errors = done.stderr.splitlines()
    for where, what in wanted:
        assert any(
            line.startswith(f"orav: error: {where}: ") and what in line for line in errors
        ), (
            where,
            what,
            errors,
        )
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("old", "new", "where", "what"),
    [
        ('when: "count > 0"', 'when: "cuont > 0"', "9:16", "unknown state or field 'cuont'"),
        ('when: "count > 0"', 'when: "count >"', "9:16", "not an expression"),
        ('when: "count > 0"', 'when: "__import__(1)"', "9:16", "unknown function"),
        ("label: Note,", 'label: "Note {count",', "8:47", "lone '{'"),
        (
            "on_tap: [{to: two}]",
            "on_tap: [{to: two, set: {cnt: 1}}]",
            "7:97",
            "unknown state or field 'cnt'",
        ),
        (
            "on_tap: [{to: two}]",
            "on_tap: [{to: two, append: {count: 1}}]",
            "7:100",
            "unknown list 'count'",
        ),
        ("state: {count: 0}", "state: {count: 0, go: 1}", "15:19", "'go' is also an element id"),
        ("start: one", "start: \"{'one' if count else 'zero'\"", "3:8", "lone '{'"),
    ],
)
def test_load_errors_are_located(tmp_path: Path, old: str, new: str, where: str, what: str):
    assert old in BASE
    path = _write(tmp_path, "bad.yaml", BASE.replace(old, new, 1))
    done = orav("validate", path)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith(f"orav: error: {path}:{where}: "), line
    assert what in line


def test_a_comma_in_a_flow_mapping_gets_a_hint_to_quote(tmp_path: Path) -> None:
    path = _write(tmp_path, "comma.yaml", BASE.replace("label: Go,", "label: Go, now,", 1))
    done = orav("validate", path)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert f"{path}:7:45: screens.one.elements[0].now: unknown key 'now'" in line
    assert line.endswith("a comma inside {...} ends a value: quote text that has commas")
