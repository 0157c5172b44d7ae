"""The zoo's loopback server: an OpenAI-compatible ``/v1/chat/completions`` over real HTTP.

The standard library's threading HTTP server on 127.0.0.1 answers each request through a
Player; the agent under test talks to it with the real ``openai`` client. A slow answer is
slept in the request's thread, bounded by ``max_delay``.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self

from orav.zoo.mistakes import Wire
from orav.zoo.player import Player

MAX_BODY_BYTES = 32 * 1024 * 1024  # of one request: a prompt with a screenshot is well under


def completion(wire: Wire, model: str, usage: dict[str, int]) -> bytes:
    """The chat completion of an answer: its text where the wire says (content, or a
    reasoning or refusal field with content null), its tool calls, why it finished."""
    message: dict[str, object] = {"role": "assistant", "content": None}
    message[wire.into] = wire.content
    if wire.tool_calls:
        message["tool_calls"] = list(wire.tool_calls)
    finished = wire.finish_reason or ("tool_calls" if wire.tool_calls else "stop")
    total = usage["prompt_tokens"] + usage["completion_tokens"]
    return json.dumps(
        {
            "id": "chatcmpl-zoo",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "finish_reason": finished,
                    "message": message,
                }
            ],
            "usage": {**usage, "total_tokens": total},
        }
    ).encode()


class ZooServer:
    """``with ZooServer(player) as zoo:`` a model server at ``zoo.url`` until the block ends."""

    def __init__(self, player: Player, *, port: int = 0, max_delay: float = 10.0) -> None:
        self.player = player
        self.max_delay = max_delay
        zoo = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0) or 0)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    return self._send(404, b'{"error": {"message": "not found"}}')
                if not 0 < length <= MAX_BODY_BYTES:
                    return self._send(413, b'{"error": {"message": "body too large"}}')
                try:
                    wire, usage, model = zoo.player.answer(self.rfile.read(length))
                except ValueError as exc:
                    message = json.dumps({"error": {"message": f"bad request: {exc}"}})
                    return self._send(400, message.encode())
                if wire.delay:
                    time.sleep(min(wire.delay, zoo.max_delay))
                if wire.drop:  # closed unanswered, as a server that restarts does
                    self.close_connection = True
                    return None
                if wire.status != 200:
                    message = json.dumps({"error": {"message": "busy: try again later"}})
                    return self._send(wire.status, message.encode(), wire.retry_after)
                self._send(200, completion(wire, model, usage))

            def _send(self, status: int, data: bytes, retry_after: float | None = None) -> None:
                self.send_response(status)
                if retry_after is not None:
                    self.send_header("Retry-After", f"{retry_after:g}")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        port = self.httpd.server_address[1]
        return f"http://127.0.0.1:{port}/v1"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(5)
