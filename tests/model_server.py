"""The loopback model server: a scripted OpenAI-compatible /v1/chat/completions on 127.0.0.1
for the real openai client, and the demo-like login screen the agent is asked about.

Tests take a started server from the ``server`` fixture (conftest.py); a test that needs one
outside a fixture uses ``serving()``.
"""

from __future__ import annotations

import io
import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from PIL import Image

from orav.agents import AgentContext
from orav.agents.openai import OpenAIAgent
from orav.model import (
    Assert,
    Credentials,
    Decision,
    DeviceInfo,
    Element,
    Frame,
    Observation,
    Scenario,
    Screenshot,
    Step,
    Target,
)

API_KEY = "sk-test-SECRET-0123456789abcdef"
PASSWORD = "Orav-Demo-1!"


# --- a demo-like app ---------------------------------------------------------------------------


def png(width: int, height: int) -> bytes:
    image = Image.new("RGB", (width, height), "white")
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


SCREENSHOT = Screenshot.of(png(1170, 2532), 1170, 2532, scale=3.0)

LOGIN = Observation(
    elements=(
        Element("AXApplication", "Orav Demo", frame=Frame(0, 0, 390, 844)),
        Element("AXOther", frame=Frame(0, 0, 390, 844)),
        Element("AXStaticText", "Welcome back", frame=Frame(20, 120, 350, 40)),
        Element(
            "AXTextField",
            "Email",
            "email",
            frame=Frame(20, 220, 350, 44),
            placeholder="you@example.com",
        ),
        Element("AXTextField", "Password", "password", frame=Frame(20, 280, 350, 44), secure=True),
        Element("AXButton", "Sign in", "sign_in", frame=Frame(20, 360, 350, 50)),
        Element("AXButton", "Forgot password?", "forgot", frame=Frame(20, 430, 350, 30)),
        Element("AXOther", "spacer", frame=Frame(0, 0, 0, 0)),
    ),
    screenshot=SCREENSHOT,
    app="com.orav.demo",
)

HOME = Observation(
    elements=(
        Element("AXApplication", "Orav Demo", frame=Frame(0, 0, 390, 844)),
        Element("AXStaticText", "Home", frame=Frame(20, 60, 350, 40)),
        Element("AXCell", "Getting started", "item_1", frame=Frame(0, 120, 390, 60)),
        Element("AXButton", "Settings", "settings", frame=Frame(300, 780, 80, 44)),
    ),
    app="com.orav.demo",
)

SCENARIO = Scenario(
    name="login",
    app="com.orav.demo",
    goal="Sign in with the demo account and reach the home screen.",
    success_criteria=(Assert(Target(id="settings")), Assert(Target(id="sign_in"), "absent")),
    credentials=Credentials("demo@orav.dev", PASSWORD),
    max_steps=12,
)

DEVICE = DeviceInfo("ios", "iPhone 15", width=390, height=844, scale=3.0)


def agent_context(step: int = 1, history: tuple[Step, ...] = (), observation=LOGIN) -> AgentContext:
    return AgentContext(SCENARIO, observation, step, history, device=DEVICE)


def answer(
    action: dict[str, Any],
    element: str | None = None,
    met: bool | None = None,
    reasoning: str = "the next step towards the goal",
    expected: str = "something visible changes",
) -> str:
    return json.dumps(
        {
            "previous_outcome_met": met,
            "reasoning": reasoning,
            "element": element,
            "action": action,
            "expected_outcome": expected,
        }
    )


TAP_SIGN_IN = answer({"kind": "tap", "x": None, "y": None, "duration": None}, "e5")


# --- the loopback model server ------------------------------------------------------------------


class ModelServer:
    """A scripted /v1/chat/completions on 127.0.0.1: one queued reply per request."""

    def __init__(self) -> None:
        self.replies: deque[dict[str, Any]] = deque()
        self.requests: list[dict[str, Any]] = []
        self.release = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                server.requests.append(
                    {
                        "path": self.path,
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                        "body": body,
                        "at": time.monotonic(),
                    }
                )
                reply = server.replies.popleft() if server.replies else {"status": 500}
                if reply.get("hang"):
                    server.release.wait(10)
                    return
                status = reply.get("status", 200)
                if "raw" in reply:
                    payload = reply["raw"]
                elif status == 200:
                    payload = server.completion(reply, body.get("model", "?"))
                else:
                    error = {"message": reply.get("message", "scripted error"), "type": "x"}
                    payload = json.dumps({"error": error})
                data = payload.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in reply.get("headers", {}).items():
                    self.send_header(key, value)
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up first (a timeout under test): nothing to answer

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    @staticmethod
    def completion(reply: dict[str, Any], model: str) -> str:
        message = {"role": "assistant", "content": reply.get("content")}
        if reply.get("refusal"):
            message["refusal"] = reply["refusal"]
        message.update(reply.get("message", {}))  # fields some servers add (reasoning_content)
        return json.dumps(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 1700000000,
                "model": reply.get("model", model),
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": reply.get("finish_reason", "stop"),
                        "message": message,
                    }
                ],
                "usage": {"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050},
            }
        )

    def answer(self, *contents: str) -> None:
        self.replies.extend({"content": content} for content in contents)

    def bodies(self) -> list[dict[str, Any]]:
        return [request["body"] for request in self.requests]


@contextmanager
def serving() -> Iterator[ModelServer]:
    """A started server, shut down (and any hanging request released) on the way out."""
    model = ModelServer()
    model.thread.start()
    try:
        yield model
    finally:
        model.release.set()
        model.httpd.shutdown()
        model.httpd.server_close()


def make_agent(server: ModelServer, **options: Any) -> OpenAIAgent:
    options = {"base_url": server.url, "api_key": API_KEY, "max_retries": 0, **options}
    return OpenAIAgent.from_spec("openai:gpt-4o-mini", **options)


async def decide(server: ModelServer, context: AgentContext | None = None, **options) -> Decision:
    async with make_agent(server, **options) as agent:
        return await agent.decide(context or agent_context())


def user_content(body: dict[str, Any]) -> Any:
    return next(m for m in body["messages"] if m["role"] == "user")["content"]


def user_text(body: dict[str, Any]) -> str:
    content = user_content(body)
    return content if isinstance(content, str) else content[0]["text"]
