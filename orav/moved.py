"""Names a release made public that have moved since: they keep working for one release, each
use warning (DeprecationWarning) where the name lives now. docs/api.md says what is public.

The moves are data (``MODULES``, ``NAMES``); one mechanism serves them. An old module is
served by ``MovedFinder`` (on ``sys.meta_path`` after every real finder, so it answers only
for a module that no longer exists) as a module whose names are looked up, on use, where they
moved; a name that left a module that still exists is served by that module's ``__getattr__``
(``moved_name``). Both import the new home by its name when the user's code asks for it: a
deprecated name reaches up to where it went, and nothing of orav depends on it.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType
from typing import Any

# An old module: the module its names moved to (unless NAMES says otherwise).
MODULES = {
    "orav.runner": "orav.session",
    "orav.scenario": "orav.scenario_loader",
    "orav.cassette.mode": "orav.cassette.record_mode",
    "orav.cassette.recorder": "orav.recorder",
    "orav.revisits": "orav.report.revisits",
    "orav.report.run": "orav.report.timeline",
}

# A name that moved on its own: (the module it was in, its name) -> where it is now.
NAMES = {
    ("orav.runner", "DEFAULT_DEVICE"): "orav.specs",
    ("orav.runner", "make_agent"): "orav.specs",
    ("orav.runner", "open_device"): "orav.specs",
    ("orav.runner", "app_model"): "orav.specs",
    ("orav.runner", "secrets_of"): "orav.recorder",
    ("orav.runner", "Recording"): "orav.model.recording",
    ("orav.runner", "passed"): "orav.cassette.slot",
    ("orav.runner", "did_not_pass"): "orav.cassette.slot",
    ("orav.runner", "check_out"): "orav.cassette.slot",
    ("orav.cassette.mode", "Slot"): "orav.cassette.slot",
    ("orav.cassette.mode", "passed"): "orav.cassette.slot",
    ("orav.cassette.mode", "did_not_pass"): "orav.cassette.slot",
    ("orav.cassette.mode", "check_out"): "orav.cassette.slot",
    ("orav.cassette", "use_cassette"): "orav.recorder",
    ("orav.cassette", "CassetteRecorder"): "orav.recorder",
}


def moved_name(module: str, name: str) -> Any:
    """``module.name`` from where it moved, with a DeprecationWarning that says where (an
    AttributeError, as Python's own, when it never was one of ``module``'s names)."""
    home = NAMES.get((module, name)) or MODULES.get(module)
    if home is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)  # AttributeError: never one of them
    warnings.warn(
        f"{module}.{name} moved to {home}.{name}; the old name goes in the next release",
        DeprecationWarning,
        stacklevel=3,  # the user's line: under this function, the module's __getattr__
    )
    return value


class _Moved(ModuleType):
    """An old module: each name it had, looked up where it moved."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # import machinery and introspection: nothing moved
            raise AttributeError(name)
        value = moved_name(self.__name__, name)
        setattr(self, name, value)  # warned once: later lookups find it here
        return value


class MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the modules of ``MODULES`` (none exists any more) and loads each as an old
    module, warning once on its import where its names live now."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname not in MODULES:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return _Moved(spec.name)

    def exec_module(self, module: ModuleType) -> None:
        warnings.warn(
            f"{module.__name__} moved to {MODULES[module.__name__]}; "
            "the old name goes in the next release",
            DeprecationWarning,
            stacklevel=2,
        )


def install() -> None:
    """Serve the old modules (once, however often orav is imported)."""
    if not any(isinstance(finder, MovedFinder) for finder in sys.meta_path):
        sys.meta_path.append(MovedFinder())
