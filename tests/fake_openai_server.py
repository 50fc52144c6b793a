"""A local OpenAI-compatible chat-completions server for tests and benchmarks (stdlib only).

It listens on 127.0.0.1 and answers ``POST /v1/chat/completions`` (also without ``/v1``).
The *model name* selects the behaviour, so one experiment config can mix healthy and failing
agents (litellm model ``openai/<name>`` with ``api_base`` = :attr:`FakeOpenAIServer.base_url`):

==================  ==========================================================================
model               behaviour
==================  ==========================================================================
``fake-model``      scripted agent: one tool call (first tool, arguments filled from its JSON
                    schema), then a final answer; a request without tools (confidence
                    elicitation) gets ``"Confidence: 80"``
``always-429``      HTTP 429 rate limit on every request
``always-500``      HTTP 500 on every request (the message echoes the request target)
``always-timeout``  sleeps ``hang_s`` before answering
``always-badjson``  HTTP 200 with a body that is not JSON
``always-noshape``  HTTP 200 with JSON lacking ``choices``
``flaky``           the first attempt of every distinct request body fails (429, 500 or a
                    malformed body, chosen by the body's hash); a retry of it succeeds
``mixed-500``       permanent 500 for request bodies whose hash is divisible by 4, else
                    scripted like ``fake-model``
``always-hang``     never answers until the server stops: a client timeout always fires,
                    however slow the machine
``always-401``      HTTP 401 (invalid API key; echoes the request target) on every request
``confidence-500``  scripted like ``fake-model``, but HTTP 500 for the confidence question
                    (a user message after the agent's final answer)
==================  ==========================================================================

Every response is delayed by ``latency_s``. :meth:`FakeOpenAIServer.pause` holds every request
that arrives from then on (none is answered) until :meth:`~FakeOpenAIServer.resume`
(``hold_after=n`` holds every request after the first ``n`` the same way), and
:meth:`~FakeOpenAIServer.wait_for_held` waits until a given number are held — so a test can
act while runs are provably in flight, without racing the machine's speed. Stopping the server
releases held requests.

A test may instead *script* the replies: while
:attr:`FakeOpenAIServer.script` is non-empty, each request takes its next action (the last one
repeats) whatever the model: ``("ok", body)`` (build bodies with :func:`chat_body`),
``("status", code)``, ``("malformed", None)``, ``("sleep", seconds)`` or ``("hang", None)``
(no answer until the server stops). Every request body and its headers are recorded
(:attr:`~FakeOpenAIServer.requests`, :attr:`~FakeOpenAIServer.headers`).

Run as a script for benchmarks::

    python tests/fake_openai_server.py --latency 0.1
    # prints "READY http://127.0.0.1:PORT/v1", serves until killed
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[dict[str, Any]], dict[str, Any]]
Action = tuple[str, Any]

_PLACEHOLDER = {"string": "X1", "integer": 1, "number": 1.0, "boolean": False, "array": []}


def _arguments_for(schema: dict[str, Any]) -> dict[str, Any]:
    params = schema.get("parameters", {})
    props = params.get("properties", {})
    args: dict[str, Any] = {}
    for name in params.get("required", []):
        spec = props.get(name, {})
        if spec.get("enum"):
            args[name] = spec["enum"][0]
        else:
            args[name] = _PLACEHOLDER.get(spec.get("type", "string"), "X1")
    return args


def scripted_reply(body: dict[str, Any]) -> dict[str, Any]:
    """Default behaviour: call the first tool once, then answer; confidence requests get 80."""
    tools = body.get("tools") or []
    messages = body.get("messages", [])
    if not tools:
        return {"role": "assistant", "content": "Confidence: 80"}
    calls_so_far = sum(1 for m in messages if m.get("role") == "assistant" and m.get("tool_calls"))
    if calls_so_far == 0:
        fn = tools[0]["function"]
        digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()[:12]
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{digest}",
                    "type": "function",
                    "function": {
                        "name": fn["name"],
                        "arguments": json.dumps(_arguments_for(fn)),
                    },
                }
            ],
        }
    return {"role": "assistant", "content": "I looked into it and your request is handled."}


def chat_body(
    content: str | None = "hello",
    tool_calls: list[dict[str, Any]] | None = None,
    model: str = "test-model",
) -> dict[str, Any]:
    """A chat-completion response body with one assistant message (for scripted replies)."""
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


def _completion_body(model: str, message: dict[str, Any], body_hash: str) -> dict[str, Any]:
    prompt_tokens = 10 + len(json.dumps(message)) // 8
    return {
        "id": f"chatcmpl-{body_hash[:16]}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": 7,
            "total_tokens": prompt_tokens + 7,
        },
    }


class FakeOpenAIServer:
    """Threaded OpenAI-compatible server on 127.0.0.1 (use as a context manager).

    Parameters
    ----------
    latency_s : float
        Delay before every response.
    hang_s : float
        How long ``always-timeout`` waits before answering.
    responder : callable, optional
        ``responder(request_body) -> assistant message`` for healthy models
        (default :func:`scripted_reply`).
    port : int
        0 picks a free port.
    hold_after : int, optional
        Answer only the first ``hold_after`` requests; hold the others until :meth:`resume`.
    """

    def __init__(
        self,
        *,
        latency_s: float = 0.0,
        hang_s: float = 5.0,
        responder: Responder | None = None,
        port: int = 0,
        hold_after: int | None = None,
    ) -> None:
        self.latency_s = latency_s
        self.hang_s = hang_s
        self.responder = responder or scripted_reply
        self.counts: Counter[str] = Counter()
        self.seen_auth: list[str] = []
        self.script: list[Action] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._attempts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._paused = False
        self._stopping = threading.Event()  # set by stop(): hanging requests give up
        self._held = 0
        self.hold_after = hold_after
        self._held_changed = threading.Condition(self._lock)
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler_class())
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1`` — pass as ``api_base``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> FakeOpenAIServer:
        """Serve in a background thread."""
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Release held and hanging requests, stop serving and close the socket."""
        self._stopping.set()
        with self._held_changed:
            self._held_changed.notify_all()
        self._server.shutdown()
        self._server.server_close()

    def pause(self) -> None:
        """Hold every request that arrives from now on until :meth:`resume`."""
        with self._held_changed:
            self._paused = True

    def resume(self) -> None:
        """Answer the held requests and stop holding new ones (``hold_after`` is cleared)."""
        with self._held_changed:
            self._paused = False
            self.hold_after = None
            self._held_changed.notify_all()

    def wait_for_held(self, n: int, timeout_s: float = 120.0) -> None:
        """Block until at least ``n`` requests are held by :meth:`pause`.

        Raises
        ------
        TimeoutError
            Fewer were held after ``timeout_s`` (a generous bound: the test is broken, not slow).
        """
        with self._held_changed:
            if not self._held_changed.wait_for(lambda: self._held >= n, timeout=timeout_s):
                raise TimeoutError(f"only {self._held} of {n} requests arrived")

    def _must_hold(self, number: int) -> bool:
        limit = self.hold_after
        over = limit is not None and number > limit
        return not self._stopping.is_set() and (self._paused or over)

    def _hold(self, number: int) -> None:
        """Wait while paused, or while request ``number`` (1-based) is after ``hold_after``."""
        with self._held_changed:
            if not self._must_hold(number):
                return
            self._held += 1
            self._held_changed.notify_all()
            self._held_changed.wait_for(lambda: not self._must_hold(number))
            self._held -= 1

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- request handling -------------------------------------------------------------------

    def _next_action(self) -> Action | None:
        with self._lock:
            if not self.script:
                return None
            return self.script[0] if len(self.script) == 1 else self.script.pop(0)

    def _decide(self, model: str, body_hash: str) -> str:
        """The outcome for this request: ok, 429, 500, hang, badjson or noshape."""
        with self._lock:
            self._attempts[body_hash] += 1
            attempt = self._attempts[body_hash]
        fixed = {
            "always-429": "429",
            "always-500": "500",
            "always-timeout": "hang",
            "always-hang": "forever",
            "always-401": "401",
            "always-badjson": "badjson",
            "always-noshape": "noshape",
        }
        if model in fixed:
            return fixed[model]
        if model == "flaky" and attempt == 1:
            return ("429", "500", "badjson")[int(body_hash, 16) % 3]
        if model == "mixed-500" and int(body_hash, 16) % 4 == 0:
            return "500"
        return "ok"

    @staticmethod
    def _asks_confidence(body: dict[str, Any]) -> bool:
        """A user message after an assistant message: the post-run confidence question."""
        messages = body.get("messages") or []
        roles = [m.get("role") for m in messages]
        return bool(roles) and roles[-1] == "user" and "assistant" in roles

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in separate writes; without TCP_NODELAY, Nagle's
            # algorithm and the client's delayed ACK add ~40 ms to every response.
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                return

            def _send(self, status: int, payload: bytes, ctype: str = "application/json") -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _error(self, status: int, kind: str, message: str) -> None:
                body = {"error": {"message": message, "type": kind, "code": str(status)}}
                self._send(status, json.dumps(body).encode())

            def _scripted(self, kind: str, arg: Any) -> None:
                if kind == "ok":
                    self._send(200, json.dumps(arg).encode())
                elif kind == "status":
                    self._error(arg, "scripted", f"scripted {arg}")
                elif kind == "malformed":
                    self._send(200, b"{this is not json")
                elif kind == "sleep":
                    time.sleep(arg)
                    self._send(200, json.dumps(chat_body()).encode())
                elif kind == "hang":
                    server._stopping.wait()
                else:
                    raise ValueError(f"unknown scripted action {kind!r}")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                with server._lock:
                    server.seen_auth.append(self.headers.get("Authorization", ""))
                # The route, wherever the client put it: after the path, or (litellm >= 1.109
                # with an api_base that carries a query string) glued to the end of the query.
                if "chat/completions" not in self.path:
                    self._error(404, "not_found", f"unknown path {self.path}")
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    self._error(400, "invalid_request_error", "request body is not JSON")
                    return
                with server._held_changed:
                    server.requests.append(body)
                    server.headers.append(dict(self.headers))
                    number = len(server.requests)
                    server._held_changed.notify_all()
                server._hold(number)
                action = server._next_action()
                if action is not None:
                    self._scripted(*action)
                    return
                model = str(body.get("model", ""))
                body_hash = hashlib.sha256(raw).hexdigest()
                outcome = server._decide(model, body_hash)
                if model == "confidence-500" and server._asks_confidence(body):
                    outcome = "500"
                with server._lock:
                    server.counts[outcome] += 1
                    server.counts["requests"] += 1
                if outcome == "hang":
                    time.sleep(server.hang_s)
                elif outcome == "forever":
                    server._stopping.wait()
                    return
                elif server.latency_s > 0:
                    time.sleep(server.latency_s)
                if outcome == "429":
                    self._error(429, "rate_limit_error", "Rate limit reached, slow down")
                elif outcome == "500":  # echoes the request target, as some providers do
                    self._error(500, "server_error", f"The server had an error ({self.path})")
                elif outcome == "401":
                    self._error(401, "invalid_request_error", f"Incorrect API key ({self.path})")
                elif outcome == "badjson":
                    self._send(200, b'{"id": "x", "choices": [ this is not json')
                elif outcome == "noshape":
                    self._send(200, json.dumps({"id": "x", "object": "chat.completion"}).encode())
                else:
                    message = server.responder(body)
                    self._send(
                        200, json.dumps(_completion_body(model, message, body_hash)).encode()
                    )

        return Handler


def main(argv: list[str] | None = None) -> None:
    """Serve until killed; print ``READY <base_url>`` once listening."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per response")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    server = FakeOpenAIServer(latency_s=args.latency, port=args.port)
    print(f"READY {server.base_url}", flush=True)
    try:
        server._server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server._server.server_close()
    sys.exit(0)


if __name__ == "__main__":
    main()
