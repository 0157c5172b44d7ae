"""The orav command as a user meets it: usage errors, help, exit codes (subprocesses)."""

import pytest
from command import orav

from orav.cli import cli


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["record"], "no scenario given, and no scenarios folder here"),
        (["sim", "--port", "abc"], "not a valid integer"),
        (["sim", "--port", "99999"], "not in the range"),
        (["bogus"], "No such command 'bogus'"),
        (["record", "x.yaml", "--bogus"], "No such option '--bogus'"),
        (["replay", "a.cassette", "--base-url", "http://h"], "--base-url needs --agent"),
        (["rerun", "a.cassette", "--agent-option", "t=1"], "--agent-option needs --agent"),
    ],
)
def test_usage_errors_exit_2_with_clicks_message(args, message, tmp_path):
    result = orav(*args, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


def _commands() -> list[list[str]]:
    """Every command and subcommand the group has, as its words."""
    found = []
    for name, command in sorted(cli.commands.items()):
        found.append([name])
        found += [[name, sub] for sub in sorted(getattr(command, "commands", {}))]
    return found


def test_every_command_module_registers_its_commands():
    assert [" ".join(words) for words in _commands()] == [
        "audit",
        "bench",
        "demo",
        "diagrams",
        "explore",
        "export",
        "export maestro",
        "record",
        "replay",
        "report",
        "rerun",
        "sim",
        "validate",
    ]


@pytest.mark.parametrize("words", _commands(), ids=" ".join)
def test_help_of_every_command_exits_0(words):
    result = orav(*words, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"Usage: orav {' '.join(words)}")
    assert result.stderr == ""


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["record", "x.yaml", "--agent-option", "temperature"], "--agent-option"),
        (["record", "x.yaml", "--agent", "scripted", "--base-url", "http://h"], "--base-url"),
        (["record", "x.yaml", "--device", "idb:a:1,sim"], "--device"),
        (["explore", "--credentials", "nopass"], "--credentials"),
        (["rerun", "missing.cassette"], "missing.cassette"),
    ],
)
def test_a_bad_flag_value_is_one_line_naming_the_flag_exit_2(args, flag, tmp_path):
    (tmp_path / "x.yaml").write_text("name: x\napp: com.orav.demo\ngoal: g\n")
    result = orav(*args, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith("orav: error: ") and flag in line, line
    assert "Traceback" not in result.stderr
