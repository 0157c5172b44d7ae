"""LLM agent: prompt size of the compact tree vs the companion's raw JSON, and agent overhead.

For every screen of the demo app (plus the keyboard, an alert and SpringBoard) the simulator
produces the accessibility JSON exactly as idb's companion does; the agent's compact encoding
of the same elements is compared with it. Overhead per step is the agent's own work: prompt
building and answer parsing measured directly, the screenshot downscale, and decide() against
a loopback server that answers instantly minus a bare SDK call to the same server.

    /work/venv/bin/python bench/agent_prompt.py
"""

from __future__ import annotations

import asyncio
import json
import statistics
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from attrs import evolve

from orav.agents import AgentContext
from orav.agents.answer import parse_answer
from orav.agents.openai import OpenAIAgent
from orav.agents.prompt import (
    build_messages,
    encode_tree,
    screen_of,
    screenshot_data_url,
    state_line,
    user_text,
)
from orav.drivers.accessibility import parse_elements
from orav.model import (
    ActionResult,
    Decision,
    DeviceInfo,
    Fault,
    Observation,
    Scenario,
    Screenshot,
    Tap,
    Target,
    Verification,
)
from orav.model.step import Step
from orav.sim import DEMO_APP, AppState, load_app_model
from orav.sim.accessibility import describe_all
from orav.sim.render import encode
from orav.sim.screen import ScreenState

ANSWER = json.dumps(
    {
        "previous_outcome_met": True,
        "reasoning": "The email field is focused; sign in next.",
        "element": "e5",
        "action": {"kind": "tap", "x": None, "y": None, "duration": None},
        "expected_outcome": "The home screen appears.",
    }
)


def demo_screens() -> dict[str, AppState]:
    """One simulator state per demo screen, and a few states a run meets on the way."""
    model = load_app_model(DEMO_APP)
    states: dict[str, AppState] = {}
    for name, screen in model.screens.items():
        state = AppState(model)
        state.stack = [ScreenState.fresh(name, screen)]
        states[name] = state
    first = model.start
    keyboard = AppState(model)
    text_field = next(e for e in model.screens[first].elements if e.is_text_field)
    keyboard.focus = text_field.id
    states[f"{first}+keyboard"] = keyboard
    alert = AppState(model, faults=[Fault("alert", at_step=1)])
    alert.begin_input()
    alert.end_input()
    states[f"{first}+alert"] = alert
    springboard = AppState(model)
    springboard.terminate()
    states["springboard"] = springboard
    return states


def _median_us(fn, repeat: int = 300) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e6


def prompt_sizes(states: dict[str, AppState]) -> list[tuple[str, int, int, int, int]]:
    rows = []
    for name, state in states.items():
        raw = describe_all(state.view())
        elements = parse_elements(raw)
        tree, refs = encode_tree(Observation(elements))
        rows.append((name, len(elements), len(refs), len(raw), len(tree)))
    return rows


class _Instant(BaseHTTPRequestHandler):
    body = json.dumps(
        {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "bench",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": ANSWER},
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    ).encode()

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)


async def decide_overhead(context: AgentContext, rounds: int = 200) -> tuple[float, float]:
    """Median decide() and median bare SDK call (same messages) to an instant server, in ms."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Instant)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02})
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        async with OpenAIAgent.from_spec(
            "openai:bench", base_url=url, api_key="x", send_screenshot=False
        ) as agent:
            messages, _ = build_messages(context)
            client = agent._connect()
            request = agent._request(messages)
            for _ in range(20):  # warm up the connection pool and the SDK
                await agent.decide(context)
                await client.chat.completions.create(**request)
            decide_times, bare_times = [], []
            for _ in range(rounds):
                started = time.perf_counter()
                await agent.decide(context)
                decide_times.append(time.perf_counter() - started)
                started = time.perf_counter()
                await client.chat.completions.create(**request)
                bare_times.append(time.perf_counter() - started)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    return statistics.median(decide_times) * 1e3, statistics.median(bare_times) * 1e3


def main() -> None:
    states = demo_screens()
    print("prompt size: compact tree vs raw companion JSON (characters)")
    print(f"{'screen':<18}{'elements':>9}{'kept':>6}{'raw':>8}{'compact':>9}{'ratio':>8}")
    total_raw = total_tree = 0
    for name, count, kept, raw, tree in prompt_sizes(states):
        total_raw += raw
        total_tree += tree
        print(f"{name:<18}{count:>9}{kept:>6}{raw:>8}{tree:>9}{tree / raw:>8.1%}")
    print(f"{'all':<18}{'':>9}{'':>6}{total_raw:>8}{total_tree:>9}{total_tree / total_raw:>8.1%}")

    model = load_app_model(DEMO_APP)
    login = states[model.start]
    elements = parse_elements(describe_all(login.view()))
    device = DeviceInfo("ios", "sim", width=model.width, height=model.height, scale=3.0)
    scenario = Scenario("bench", model.bundle_id, "Sign in and reach the home screen.")
    context = AgentContext(scenario, Observation(elements), 2, device=device)
    messages, refs = build_messages(context)
    screen = screen_of(context)
    print()
    print("agent overhead per step (median)")
    build_us = _median_us(lambda: build_messages(context))
    parse_us = _median_us(lambda: parse_answer(ANSWER, refs, screen=screen))
    print(f"  prompt build (tree only)          {build_us:8.1f} us")
    print(f"  answer parse + validate           {parse_us:8.1f} us")
    print(f"  user prompt, login screen         {len(messages[1]['content']):8d} chars")
    for scale in (2.0, 3.0):
        png = encode(login.view(), scale=scale, fmt="png")
        width, height = round(model.width * scale), round(model.height * scale)
        shots = [Screenshot.of(png + bytes([i]), width, height, scale=scale) for i in range(6)]
        started = time.perf_counter()
        for shot in shots:  # distinct hashes: every one is decoded and re-encoded
            url, _ = screenshot_data_url(shot, 1024)
        fresh_ms = (time.perf_counter() - started) / len(shots) * 1e3
        cached_us = _median_us(lambda shot=shots[0]: screenshot_data_url(shot, 1024))
        print(
            f"  screenshot {width}x{height} -> points  {fresh_ms:8.1f} ms fresh, "
            f"{cached_us:.1f} us same screen; data URL {len(url)} chars"
        )
    print()
    print("the running state line (seed 000's state) in the user prompt, ~4 characters a token")
    screens = list(states)
    for steps in (1, 12, 40):
        history = tuple(
            Step(
                i,
                screens[i % len(screens)],
                Decision(Tap(target=Target(id=f"control_{i}"))),
                ActionResult(ok=i % 7 != 0),
                Verification(changed=True),
            )
            for i in range(1, steps + 1)
        )
        turn = evolve(context, step=steps + 1, history=history)
        text, _ = user_text(turn, 8, screen)
        line = state_line(turn)
        print(
            f"  {steps:>2} steps before: {len(text) - len(line) - 1:>6} chars, with the state "
            f"{len(text):>6} (+{len(line) + 1} chars, ~{(len(line) + 1) // 4} tokens)"
        )
    decide_ms, bare_ms = asyncio.run(decide_overhead(context))
    print(f"  decide() vs instant loopback      {decide_ms:8.2f} ms")
    print(f"  bare SDK call, same messages      {bare_ms:8.2f} ms")
    print(f"  agent overhead (difference)       {decide_ms - bare_ms:8.2f} ms")


if __name__ == "__main__":
    main()
