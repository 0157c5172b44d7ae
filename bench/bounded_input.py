"""The worst case of each bounded input class: wall time and peak memory until orav answers.

Each case runs the real ``orav`` command (or, for model answers, the real LLM agent against a
loopback HTTP server) in a fresh process, which reports its own peak resident memory.
Before the bounds (issue 11) the alias bomb ran past 40 s and 2.2 GB, a 10 MB scenario took
84 s and a 50 MB reasoning took a run to 4.9 GB; the figures go into docs/performance.md.

Run: /work/venv/bin/python bench/bounded_input.py
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from orav.codec import MAX_YAML_BYTES

ROOT = Path(__file__).resolve().parents[1]
MINIMAL = "name: s\napp: com.orav.demo\ngoal: g\n"


# Runs ``orav ARGS`` (or a script) in this interpreter and writes its peak resident memory
# (VmHWM, kB) and its own CPU seconds at exit: the parent's ``wait4`` would count the process
# it was forked from, as Linux carries a process's high-water mark across exec.
SHIM = """
import atexit, os, runpy, sys
def peak():
    with open("/proc/self/status") as status, open(os.environ["PEAK_FILE"], "w") as out:
        kb = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
        out.write(f"{kb} {os.times().user + os.times().system}")
atexit.register(peak)
target, sys.argv = sys.argv[1], sys.argv[1:]
if target == "orav":
    runpy.run_module("orav", run_name="__main__", alter_sys=True)
else:
    runpy.run_path(target, run_name="__main__")
"""


def measure(args: list[object], folder: Path) -> tuple[str, float, int]:
    """(wall and CPU seconds, peak MB, exit status) of ``orav ARGS``, or of a script when
    args[0] is one."""
    peak = folder / "peak"
    env = {**os.environ, "PEAK_FILE": str(peak)}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", SHIM, *map(str, args)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=300,
        check=False,
    )
    elapsed = time.perf_counter() - started
    kb, cpu = peak.read_text().split()
    return f"{elapsed:.2f} s ({float(cpu):.2f} s CPU)", int(kb) / 1024, done.returncode


def alias_bomb(levels: int) -> str:
    lines = ["a0: &a0 [x,x,x,x,x,x,x,x,x,x]"] + [
        f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels)
    ]
    return MINIMAL + "x:\n" + "".join(f"  {line}\n" for line in lines)


def yaml_cases() -> dict[str, str]:
    under = MAX_YAML_BYTES - len(MINIMAL) - 100
    return {
        "alias bomb, 9 levels of 10 (10^9 nodes, 0.5 KB)": alias_bomb(9),
        "10 MB of `key: v` lines": MINIMAL + "x:\n" + "  key: v\n" * 1_310_000,
        f"{MAX_YAML_BYTES // 1024} KB of distinct keys, just under the size bound (parsed whole, "
        "its unknown key located)": MINIMAL
        + "x:\n"
        + "".join(f"  k{i:06}: v\n" for i in range(under // 13)),
        "nesting 64 deep (the bound, accepted by the parser)": MINIMAL
        + "x: "
        + "[" * 63
        + "]" * 63
        + "\n",
        "nesting 250,000 deep (within the size bound; libyaml's own composer crashes on it)": MINIMAL
        + "x: "
        + "[" * 250_000
        + "]" * 250_000
        + "\n",
        "a number of 100,000 digits": MINIMAL + "max_steps: " + "9" * 100_000 + "\n",
    }


def deep_cassette(folder: Path) -> Path:
    """A real cassette whose first element blob is 100,000 lists deep (rehashed)."""
    out = folder / "login.cassette"
    subprocess.run(
        [sys.executable, "-m", "orav", "record", "orav/scenarios/login.yaml", "--out", out],
        cwd=ROOT,
        capture_output=True,
        check=False,  # the run's outcome does not matter, only that it wrote a cassette
        timeout=120,
    )
    events = [json.loads(line) for line in out.read_text().splitlines()]
    blob = next(e for e in events if e.get("media_type") == "application/json")
    data = b"[" * 100_000 + b"]" * 100_000
    old, new = blob["sha256"], hashlib.sha256(data).hexdigest()
    blob.update(sha256=new, data=base64.b64encode(data).decode())
    damaged = folder / "deep.cassette"
    text = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events)
    damaged.write_text(text.replace(old, new))
    return damaged


SERVER = textwrap.dedent(
    """
    import json, sys
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    size = int(sys.argv[1])
    answer = json.dumps({"previous_outcome_met": None, "reasoning": "x" * size, "element": None,
                         "action": {"kind": "wait", "seconds": 1}, "expected_outcome": "e"})
    small = answer.replace("x" * size, "x")
    replies = [answer, small]

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            content = replies.pop(0) if replies else small
            body = json.dumps({"id": "1", "object": "chat.completion", "created": 1, "model": "m",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except OSError:
                pass  # the agent refused it unread

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()
    """
)

# The agent in its own process (the server has its own, so its 50 MB are not counted).
ANSWER = textwrap.dedent(
    """
    import asyncio, subprocess, sys
    from orav.agents import AgentContext
    from orav.agents.openai import OpenAIAgent
    from orav.model import Observation, Scenario, Element, Frame

    size = int(sys.argv[1])
    server = subprocess.Popen([sys.executable, sys.argv[2], str(size)], stdout=subprocess.PIPE)
    url = f"http://127.0.0.1:{int(server.stdout.readline())}/v1"

    async def main():
        agent = OpenAIAgent.from_spec("openai:m", base_url=url, api_key="k", max_retries=0)
        observation = Observation(elements=(Element("AXButton", "Go", frame=Frame(0, 0, 9, 9)),))
        context = AgentContext(Scenario(name="s", app="a", goal="g"), observation, 1, ())
        decision = await agent.decide(context)
        await agent.close()
        assert len(decision.call.raw_response) < 10_000
        assert decision.call.attempts == (2 if size > 64 * 1024 else 1)

    try:
        asyncio.run(main())
    finally:
        server.kill()
        server.wait()
    """
)


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        for label, text in yaml_cases().items():
            path = folder / "case.yaml"
            path.write_text(text)
            seconds, mb, code = measure(["orav", "validate", path], folder)
            rows.append((f"scenario: {label}", len(text.encode()), seconds, mb, code))
        damaged = deep_cassette(folder)
        seconds, mb, code = measure(["orav", "replay", damaged], folder)
        label = "cassette: element blob nested 100,000 deep (`orav replay`)"
        rows.append((label, damaged.stat().st_size, seconds, mb, code))
        script, server = folder / "answer.py", folder / "server.py"
        script.write_text(ANSWER)
        server.write_text(SERVER)
        for size in (50_000_000, 60_000):
            seconds, mb, code = measure([script, size, server], folder)
            label = f"model answer: reasoning of {size / 1e6:g} MB, then a valid answer"
            rows.append((label, size, seconds, mb, code))
    print("| input | size | wall (CPU) | peak memory | exit |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for label, size, seconds, mb, code in rows:
        shown = f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.1f} KB"
        print(f"| {label} | {shown} | {seconds} | {mb:.0f} MB | {code} |")


if __name__ == "__main__":
    main()
