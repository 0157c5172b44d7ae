"""The orav command as a user meets it: usage errors, help, exit codes (subprocesses)."""

import pytest
from command import orav


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["record"], "no scenario given, and no scenarios folder here"),
        (["sim", "--port", "abc"], "not a valid integer"),
        (["sim", "--port", "99999"], "not in the range"),
        (["bogus"], "No such command 'bogus'"),
        (["record", "x.yaml", "--bogus"], "No such option '--bogus'"),
    ],
)
def test_usage_errors_exit_2_with_clicks_message(args, message, tmp_path):
    result = orav(*args, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("command", ["record", "replay", "demo", "sim", "audit", "report"])
def test_help_of_every_command_exits_0(command):
    result = orav(command, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"Usage: orav {command}")
    assert result.stderr == ""
