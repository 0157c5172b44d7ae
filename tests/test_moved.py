"""A user's tests from the last release still import: every public name that moved is served
from its new home for one release, each use warning where it lives now (orav.moved)."""

import importlib
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

from orav.moved import MODULES, NAMES

# A user's project, as written against the last release.
USER_CODE = textwrap.dedent(
    """
    from orav.runner import record, replay, make_agent, open_device, Recording, Replay
    from orav.scenario import load_scenario
    from orav.cassette import use_cassette, CassetteRecorder
    from orav.cassette.mode import RecordMode
    from orav.revisits import read_revisits

    import orav
    import orav.session, orav.specs, orav.recorder, orav.report.revisits

    assert record is orav.record and replay is orav.replay and Replay is orav.Replay
    assert make_agent is orav.make_agent and open_device is orav.specs.open_device
    assert Recording is orav.Recording and load_scenario is orav.load_scenario
    assert use_cassette is orav.use_cassette and CassetteRecorder is orav.CassetteRecorder
    assert RecordMode is orav.RecordMode
    assert read_revisits is orav.report.revisits.read_revisits
    print("imported")
    """
)


def test_a_user_project_of_the_last_release_imports_with_warnings():
    done = subprocess.run(
        [sys.executable, "-W", "always::DeprecationWarning", "-c", USER_CODE],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and done.stdout == "imported\n", done.stderr
    for said in (
        "orav.runner moved to orav.session",
        "orav.runner.make_agent moved to orav.specs.make_agent",
        "orav.runner.Recording moved to orav.model.recording.Recording",
        "orav.cassette.use_cassette moved to orav.recorder.use_cassette",
        "orav.cassette.mode.RecordMode moved to orav.cassette.record_mode.RecordMode",
        "orav.revisits.read_revisits moved to orav.report.revisits.read_revisits",
    ):
        assert f"DeprecationWarning: {said}; the old name goes in the next release" in done.stderr
    assert done.stderr.count("orav.cassette.use_cassette moved") == 1  # once per name
    assert "<string>:2: DeprecationWarning: orav.runner.record moved" in done.stderr  # the line


@pytest.mark.parametrize(("old", "name"), sorted(NAMES))
def test_every_moved_name_is_its_new_homes_object(old, name):
    if old in MODULES:
        sys.modules.pop(old, None)  # served afresh
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the old module's own warning
        module = importlib.import_module(old)
    vars(module).pop(name, None)  # a moved name is cached where it was first asked for
    with pytest.warns(DeprecationWarning, match=rf"{old}\.{name} moved to {NAMES[old, name]}"):
        served = getattr(module, name)
    assert served is getattr(importlib.import_module(NAMES[old, name]), name)


def test_an_old_module_is_a_warning_and_a_name_it_never_had_is_an_import_error():
    for old in MODULES:
        sys.modules.pop(old, None)
    with pytest.warns(
        DeprecationWarning, match=r"orav\.report\.run moved to orav\.report\.timeline"
    ):
        run = importlib.import_module("orav.report.run")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert run.read_run is importlib.import_module("orav.report.timeline").read_run
    with pytest.raises(ImportError, match="never_public"):
        exec("from orav.runner import never_public", {})  # noqa: S102
    with pytest.raises(AttributeError, match="no attribute 'never_public'"):
        importlib.import_module("orav.cassette").never_public  # noqa: B018


PUBLISHED = Path(__file__).with_name("published_names.txt")


def published() -> list[tuple[str, str]]:
    lines = PUBLISHED.read_text().splitlines()
    found = [tuple(line.split()) for line in lines if line and not line.startswith("#")]
    return sorted({*found, *NAMES, *((old, "*") for old in MODULES)})  # type: ignore[arg-type]


def test_every_name_a_release_published_still_imports():
    """Each name of the list (docs/api.md's and orav.__all__'s history) imports from where it
    was published: silently where it still lives, with a DeprecationWarning where it moved."""
    for module_name, name in published():
        moved = module_name in MODULES or (module_name, name) in NAMES
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            if module_name in MODULES:
                sys.modules.pop(module_name, None)  # served afresh: its import warns
            module = importlib.import_module(module_name)
            if name != "*":
                if moved:
                    vars(module).pop(name, None)  # not the copy an earlier use left
                getattr(module, name)
        warned = [w for w in said if issubclass(w.category, DeprecationWarning)]
        assert bool(warned) == moved, (module_name, name, [str(w.message) for w in warned])
