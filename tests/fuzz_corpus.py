"""A small generated corpus of worst cases, each of which orav must refuse with a located error.

``documents(yaml_text)`` derives hostile YAML files from a real scenario or app model;
``cassettes(data)`` derives damaged cassettes from a real one (hashes kept consistent, so what
is hostile is the content, not a checksum). Names say what each one tries.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

# Runs ``orav`` in this interpreter and writes its peak resident memory (VmHWM, kB) and the CPU
# seconds it spent at exit. (The parent's ``wait4``/``RUSAGE_CHILDREN`` would count the pytest
# process the child was forked from: Linux carries a process's high-water mark across exec.)
# CPU time, not wall time: a loaded machine (CI, ``pytest -n``) stretches the wall clock, while
# what a hostile input costs orav is the work it does.
PEAK_SHIM = """
import atexit, os, runpy, sys
def peak():
    with open("/proc/self/status") as status, open(os.environ["ORAV_PEAK_FILE"], "w") as out:
        kb = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
        times = os.times()
        out.write(f"{kb} {times.user + times.system}")
atexit.register(peak)
sys.argv = ["orav", *sys.argv[1:]]
runpy.run_module("orav", run_name="__main__", alter_sys=True)
"""


def run_measured(
    *args: object, timeout: float = 60
) -> tuple[subprocess.CompletedProcess, float, float]:
    """Run ``orav ARGS`` as a user does; the result, that process's own peak memory (MB) and the
    CPU seconds it spent."""
    with tempfile.TemporaryDirectory() as folder:
        peak = Path(folder) / "peak"
        env = {k: v for k, v in os.environ.items() if k != "ORAV_DEBUG"}
        env["ORAV_PEAK_FILE"] = str(peak)
        argv = [sys.executable, "-c", PEAK_SHIM, *map(str, args)]
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout, env=env, check=False
        )
        kb, cpu = peak.read_text().split()
        return done, int(kb) / 1024, float(cpu)


def alias_bomb(levels: int) -> str:
    lines = ["a0: &a0 [x,x,x,x,x,x,x,x,x,x]"] + [
        f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels)
    ]
    return "bomb:\n" + "".join(f"  {line}\n" for line in lines)


def documents(base: str) -> dict[str, bytes]:
    """Hostile variants of the YAML document ``base`` (a mapping), as file contents."""
    nested = "".join(" " * i + f"k{i}:\n" for i in range(200)) + " " * 200 + "v\n"
    texts = {
        "alias_bomb_8": base + alias_bomb(8),
        "alias_bomb_12": base + alias_bomb(12),
        "alias_loop": base + "loop: &l [*l]\n",
        "deep_flow": base + "deep: " + "[" * 3000 + "]" * 3000 + "\n",
        "deep_block": base + "deep:\n" + "".join(" " * (i + 1) + f"k{i}:\n" for i in range(200)),
        "deep_mapping": nested,
        "digits": base + "digits: " + "9" * 5000 + "\n",
        "float_tag": base + "f: !!float abc\n",
        "int_tag": base + "i: !!int 12abc\n",
        "timestamp": base + "t: 2024-01-01T10:00:00\n",
        "set": base + "s: !!set {a, b}\n",
        "binary": base + "b: !!binary aGk=\n",
        "unknown_tag": base + "u: !python/object:os.system echo\n",
        "control": base + "c: a\x07b\n",
        "just_a_number": "42\n",
        "just_a_list": "- a\n- b\n",
        "empty": "",
        "mixed_keys": "1: a\nfoo: b\n" + base,
        "duplicate_key": base + next(ln for ln in base.splitlines() if ln[:1].isalpha()) + "\n",
        "tab_indent": base + "t:\n\t- a\n",
        "unclosed": base + "x: [a, b\n",
        "too_large": base + "z:\n" + "  k: v\n" * 100_000,
        "long_value": base + "long: " + "x" * 100_000 + "\n",
    }
    corpus = {name: text.encode("utf-8") for name, text in texts.items()}
    corpus["not_utf8"] = base.encode() + b"n: caf\xe9\n"
    corpus["utf16"] = base.encode("utf-16")
    return corpus


def _lines(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode().splitlines()]


def _join(events: list[dict]) -> bytes:
    return "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events).encode()


def _rewrite_blob(events: list[dict], media: str, change) -> bytes:
    """The cassette with the first blob of ``media`` replaced by ``change(bytes)``, rehashed
    and re-referenced."""
    for event in events:
        if event["type"] == "blob" and event["media_type"] == media:
            old = event["sha256"]
            data = change(base64.b64decode(event["data"]))
            new = hashlib.sha256(data).hexdigest()
            event.update(sha256=new, data=base64.b64encode(data).decode())
            return _join(events).replace(old.encode(), new.encode())
    raise ValueError(f"no {media} blob")


def cassettes(data: bytes) -> dict[str, bytes]:
    """Damaged variants of the cassette ``data`` that reading must refuse."""
    lines = data.split(b"\n")
    middle = len(lines) // 2
    json_blob = "application/json"
    corpus = {
        "empty": b"",
        "not_a_cassette": b"\x89PNG\r\n\x1a\n",
        "future_version": re.sub(rb'"version":\d+', b'"version":99', data, count=1),
        "deep_line": b"\n".join([*lines[:middle], b"[" * 5000, *lines[middle:]]),
        "digits_line": b"\n".join(
            [*lines[:middle], b'{"type":"clock","now":' + b"9" * 5000 + b"}", *lines[middle:]]
        ),
        "nan_line": b"\n".join([*lines[:middle], b'{"type":"clock","now":NaN}', *lines[middle:]]),
        "not_utf8_line": b"\n".join([*lines[:middle], b'{"type":"\xff"}', *lines[middle:]]),
        "garbage_inside": b"\n".join([*lines[:middle], b"}{", *lines[middle:]]),
        "event_after_report": data + lines[1] + b"\n",
    }
    events = _lines(data)
    corpus["deep_elements"] = _rewrite_blob(_lines(data), json_blob, lambda _: b"[" * 5000)
    corpus["digit_elements"] = _rewrite_blob(
        events, json_blob, lambda b: b.replace(b'"width":', b'"width":' + b"9" * 5000 + b',"w":', 1)
    )
    corpus["nan_elements"] = _rewrite_blob(
        _lines(data), json_blob, lambda b: b.replace(b'"width":', b'"width":NaN,"w":', 1)
    )
    corpus["elements_not_a_list"] = _rewrite_blob(_lines(data), json_blob, lambda _: b'{"a":1}')
    kept = [e for e in _lines(data) if e.get("media_type") != "image/png"]
    corpus["missing_screenshot"] = _join(kept)
    bad = _lines(data)
    blob = next(e for e in bad if e["type"] == "blob")
    blob["data"] = "!!!not base64"
    corpus["bad_base64"] = _join(bad)
    return corpus


CONFIG = """\
device = "sim"
agent = "scripted"
scenarios = ["scenarios"]
recordings = "recordings"
workers = 2
retries = 1
settle_seconds = 0.3
agent_options = {temperature = 0.2}
"""


def configs() -> dict[str, tuple[str, bytes]]:
    """Hostile workspace configs, each as (file name, contents): read, they must be refused."""
    pyproject = '[project]\nname = "p"\n'
    return {
        "deep_array": ("orav.toml", ("a = " + "[" * 3000 + "]" * 3000 + "\n").encode()),
        "deep_tables": ("orav.toml", ("a = " + "{b = " * 400 + "1" + "}" * 400 + "\n").encode()),
        "digits": ("orav.toml", ("workers = " + "9" * 5000 + "\n").encode()),
        "digits_in_a_table": ("orav.toml", ("[x]\nn = " + "9" * 80 + "\n").encode()),
        "array_of_tables": (
            "pyproject.toml",
            (pyproject + '[[tool.orav]]\ndevice = "sim"\n').encode(),
        ),
        "tool_orav_int": ("pyproject.toml", (pyproject + "[tool]\norav = 5\n").encode()),
        "tool_orav_string": ("pyproject.toml", (pyproject + '[tool]\norav = "sim"\n').encode()),
        "not_toml": ("orav.toml", CONFIG.encode() + b"[[[\n"),
        "not_utf8": ("orav.toml", CONFIG.encode() + b'agent = "caf\xe9"\n'),
        "unknown_key": ("orav.toml", CONFIG.encode() + b"colour = 1\n"),
        "wrong_type": ("orav.toml", CONFIG.replace("workers = 2", 'workers = "2"').encode()),
        "nul": ("orav.toml", CONFIG.encode() + b"\x00\n"),
    }
