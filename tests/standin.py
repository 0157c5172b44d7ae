"""A model stand-in: a loopback OpenAI-compatible ``/v1/chat/completions`` that plays a model.

The real openai client reaches it over HTTP on 127.0.0.1. It decides from a plan (one step each
turn, the element found by its label in the prompt's tree, as a model cites it) and judges a
claim as the test says the model would (holds, confidence), citing what the tree shows; every
request is kept, so a test can count what was asked.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Plan = list[tuple[str | None, dict[str, Any]]]  # (the label of the element acted on, the action)


def _text(body: dict[str, Any]) -> str:
    content = next(m for m in body["messages"] if m["role"] == "user")["content"]
    return content if isinstance(content, str) else content[0]["text"]


class StandIn:
    """The model: ``plan`` for decisions, ``answers`` (claim → (holds, confidence)) for claims;
    a claim not in ``answers`` holds, surely."""

    def __init__(self, plan: Plan = (), answers: dict[str, tuple[bool, float]] | None = None):
        self.plan = list(plan)
        self.answers = dict(answers or {})
        self.requests: list[dict[str, Any]] = []
        self.judged: list[str] = []  # the claims asked, in order
        self.decided = 0

    def reply(self, body: dict[str, Any]) -> str:
        self.requests.append(body)
        text = _text(body)
        fmt = body.get("response_format", {}).get("json_schema", {}).get("name")
        if fmt == "orav_judgement":
            return self.judgement(text)
        return self.decision(text)

    def judgement(self, text: str) -> str:
        claim = re.search(r"^Claim: (.*)$", text, re.MULTILINE).group(1)
        self.judged.append(claim)
        holds, confidence = self.answers.get(claim, (True, 0.95))
        seen = re.findall(r'^e\d+ \w+ "([^"]+)"', text, re.MULTILINE)
        evidence = f"the screen shows {', '.join(map(repr, seen[:3])) or 'nothing labelled'}"
        return json.dumps({"holds": holds, "evidence": evidence, "confidence": confidence})

    def decision(self, text: str) -> str:
        step = int(re.search(r"^Step (\d+) of at most", text, re.MULTILINE).group(1))
        self.decided += 1
        label, action = self.plan[min(step, len(self.plan)) - 1]
        ref = None
        if label is not None:
            found = re.search(rf'^(e\d+) \w+ "{re.escape(label)}"', text, re.MULTILINE)
            ref = found.group(1) if found else None
        return json.dumps(
            {
                "previous_outcome_met": None if step == 1 else True,
                "reasoning": f"step {step} of the plan",
                "element": ref,
                "action": action,
                "expected_outcome": "the screen moves on",
            }
        )


@contextmanager
def serving(model: StandIn) -> Iterator[str]:
    """Serve ``model`` on 127.0.0.1 for the block; yields the base URL."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            content = model.reply(body)
            message = {"role": "assistant", "content": content}
            data = json.dumps(
                {
                    "id": "chatcmpl-standin",
                    "object": "chat.completion",
                    "created": 1700000000,
                    "model": body.get("model", "standin"),
                    "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                    "usage": {"prompt_tokens": 800, "completion_tokens": 40, "total_tokens": 840},
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02})
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)
