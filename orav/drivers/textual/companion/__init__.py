"""What runs where the Textual app runs: in orav's process (the in-process driver) or in the app's
own Python environment (the companion process), with the app's own Textual.

Nothing here imports orav, nor anything but the standard library and Textual (with Rich, which
Textual brings): the companion loads this package by path into an interpreter that has only the
app and its Textual. Modules: ``compat`` (Textual 0.47 .. 8.x API differences), ``facts`` (a
screen's element facts: plain dicts with Element's fields), ``lines`` (the rendered rows with
their colours), ``actions`` (typing, keys, clicks that land where nothing covers them,
scrolling), ``session`` (one launch under ``run_test()``), ``host`` (the calls orav makes, by
name, with JSON-able arguments and results) and ``__main__`` (the JSON-lines server). Relative
imports only: the companion loads the package under a name of its own.
"""

from pathlib import Path

PROTOCOL = 1
"""The version of the JSON-lines protocol between orav and the companion (``__main__``)."""

HERE = Path(__file__).resolve().parent
