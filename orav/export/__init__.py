"""Exports of recorded runs to other tools' formats: Maestro flows (docs/maestro.md)."""

from orav.export.maestro import Flow, NotExportable, export_maestro, maestro_flow, regex_literal

__all__ = ["Flow", "NotExportable", "export_maestro", "maestro_flow", "regex_literal"]
