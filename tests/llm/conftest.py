"""A scripted OpenAI-compatible chat server on 127.0.0.1 for the LLM-client tests."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


def chat_body(
    content: str | None = "hello",
    tool_calls: list[dict[str, Any]] | None = None,
    model: str = "test-model",
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_calls else "stop",
            }
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


class ScriptedServer:
    """Replies to each POST with the next scripted action; the last one repeats.

    Actions: ``("ok", body)``, ``("status", code)``, ``("malformed", None)``,
    ``("sleep", seconds)``.
    """

    def __init__(self) -> None:
        self.script: list[tuple[str, Any]] = [("ok", chat_body())]
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.lock = threading.Lock()

    def next_action(self) -> tuple[str, Any]:
        with self.lock:
            action = self.script[0] if len(self.script) == 1 else self.script.pop(0)
            return action


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

        def _send(self, code: int, payload: bytes) -> None:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            with server.lock:
                server.requests.append(body)
                server.headers.append(dict(self.headers))
            kind, arg = server.next_action()
            if kind == "ok":
                self._send(200, json.dumps(arg).encode())
            elif kind == "status":
                err = {"error": {"message": f"scripted {arg}", "type": "x", "code": str(arg)}}
                self._send(arg, json.dumps(err).encode())
            elif kind == "malformed":
                self._send(200, b"{this is not json")
            elif kind == "sleep":
                time.sleep(arg)
                try:
                    self._send(200, json.dumps(chat_body()).encode())
                except OSError:
                    pass

    return Handler


@pytest.fixture()
def make_body() -> Any:
    """The :func:`chat_body` builder (tests cannot import conftest modules)."""
    return chat_body


@pytest.fixture()
def chat_server() -> Iterator[tuple[ScriptedServer, str]]:
    """(server, api_base) for a fresh scripted server."""
    state = ScriptedServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state, f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()
