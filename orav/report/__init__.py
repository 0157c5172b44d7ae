"""Outputs of a run: the JSON summary and the recovery audit."""

from orav.report.audit import RecoveryPath, recovery_paths
from orav.report.summary import write_json

__all__ = ["RecoveryPath", "recovery_paths", "write_json"]
