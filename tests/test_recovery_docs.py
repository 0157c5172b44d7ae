"""docs/recovery.md teaches with real output: its audit example is what `orav audit` prints for
the golden it names, and every remedy state its tables name is one of the machine's."""

import re
from pathlib import Path

from command import orav

from orav.machines.recovery import RecoveryMachine

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "recovery.md").read_text()


def test_the_audit_example_is_what_orav_audit_prints():
    example = re.search(r"```\n(recordings/recovery/(\w+)\.cassette: .*?)```", DOC, re.DOTALL)
    assert example, "docs/recovery.md has no audit example"
    printed = orav("audit", example.group(1).split(":")[0], cwd=ROOT)
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout == example.group(1)


def test_the_remedy_states_the_doc_names_are_the_machines():
    """The detection table's remedy column names its states as the machine declares them."""
    table = DOC[DOC.index("| detection | seen as |") :].split("\n\n")[0]
    rows = [line.split("|") for line in table.splitlines()[2:]]
    groups = [g for row in rows for g in re.findall(r"\(((?:`[a-z_]+`(?:, )?)+)\)", row[4])]
    named = {name for group in groups for name in re.findall(r"`([a-z_]+)`", group)}
    assert {"relaunching", "checking_app", "retrying_action", "handed_back"} <= named
    assert named <= {state.id for state in RecoveryMachine.states}
