"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests.

Serves ``POST /v1/chat/completions`` from a queue of scripted actions (one action per request,
in arrival order; a default action once the queue is empty). It records every request body and
the maximum number of requests it was serving at once. Stdlib only: ``ThreadingHTTPServer`` in
a background thread, bound to loopback on an ephemeral port.

    with StubServer() as stub:
        stub.enqueue(rate_limited(), reply("hello"))
        ...  # point a client at stub.base_url ("http://127.0.0.1:<port>/v1")
        assert stub.request_count == 2

Every response closes its connection (HTTP/1.0), so stopping never waits on an idle keep-alive
socket, and a ``hang`` is released as soon as the server stops.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HOST = "127.0.0.1"
CHAT_PATH = "/v1/chat/completions"


@dataclass(frozen=True)
class Action:
    """One scripted response. Build it with the helper functions below."""

    kind: str  # reply | status | hang | truncated | invalid_body
    text: str = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    error_type: str = ""
    error_message: str = ""
    delay_s: float = 0.0
    prompt_tokens: int = 11
    completion_tokens: int = 4


def reply(text: str = "ok", *, prompt_tokens: int = 11, completion_tokens: int = 4,
          delay_s: float = 0.0) -> Action:
    """A normal 200 reply with a full OpenAI body (including usage), after ``delay_s``."""
    return Action("reply", text=text, prompt_tokens=prompt_tokens,
                  completion_tokens=completion_tokens, delay_s=delay_s)


def malformed_json() -> Action:
    """A normal reply whose content is broken JSON (the model's fault, not the transport's)."""
    return reply('```json\n{"answer": "yes", "conditions": [\n```')


def empty() -> Action:
    """A normal reply whose content is the empty string."""
    return reply("", completion_tokens=0)


def rate_limited(retry_after: str | None = "1") -> Action:
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return Action("status", status=429, headers=headers, error_type="rate_limit_exceeded",
                  error_message="Rate limit reached for requests. Please try again later.")


def insufficient_quota() -> Action:
    return Action("status", status=429, error_type="insufficient_quota",
                  error_message="You exceeded your current quota, please check your plan and "
                                "billing details. (insufficient_quota)")


def server_error(status: int = 500) -> Action:
    return Action("status", status=status, error_type="server_error",
                  error_message="The server had an error while processing your request.")


def unauthorized() -> Action:
    return Action("status", status=401, error_type="invalid_request_error",
                  error_message="Incorrect API key provided.")


def bad_request() -> Action:
    return Action("status", status=400, error_type="invalid_request_error",
                  error_message="Invalid value for 'messages'.")


def hang(seconds: float = 30.0) -> Action:
    """Sleep (longer than the client's timeout), then try to answer; released early on stop."""
    return Action("hang", delay_s=seconds)


def truncated() -> Action:
    """A 200 whose body is cut off: Content-Length promises more than is sent."""
    return Action("truncated")


def invalid_body() -> Action:
    """A 200 whose body is not JSON at all."""
    return Action("invalid_body")


def completion_body(model: str, text: str, prompt_tokens: int, completion_tokens: int) -> dict[str, Any]:
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


class StubServer:
    """Scripted OpenAI-compatible server; use as a context manager."""

    def __init__(self, default: Action | None = None) -> None:
        self.default = default or reply("ok")
        self._script: deque[Action] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.requests: list[dict[str, Any]] = []  # every request body received, in order
        self.in_flight = 0
        self.max_in_flight = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- script --------------------------------------------------------------------------
    def enqueue(self, *actions: Action) -> None:
        with self._lock:
            self._script.extend(actions)

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

    @property
    def pending(self) -> int:
        """Scripted actions not yet consumed."""
        with self._lock:
            return len(self._script)

    def _next(self, body: dict[str, Any]) -> Action:
        with self._lock:
            self.requests.append(body)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            return self._script.popleft() if self._script else self.default

    def _done(self) -> None:
        with self._lock:
            self.in_flight -= 1

    # -- lifecycle -----------------------------------------------------------------------
    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    def start(self) -> StubServer:
        stub = self

        class Handler(_Handler):
            server_stub = stub

        self._server = _Server((HOST, 0), Handler)
        self._server.daemon_threads = False  # server_close() joins the handler threads
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05},
                                        name="openai-stub", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._stopping.set()  # releases any hang
        self._server.shutdown()
        self._server.server_close()
        assert self._thread is not None
        self._thread.join(timeout=10)
        self._server = None

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # the default backlog of 5 drops concurrent connects (1 s SYN retry)


class _Handler(BaseHTTPRequestHandler):
    server_stub: StubServer
    protocol_version = "HTTP/1.0"  # one request per connection
    timeout = 10  # a client that stalls mid-request cannot pin a thread

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        if self.path.rstrip("/") != CHAT_PATH:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        stub = self.server_stub
        action = stub._next(body)
        try:
            self._perform(action, str(body.get("model", "stub")))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout): nothing to answer
        finally:
            stub._done()

    def _perform(self, action: Action, model: str) -> None:
        stub = self.server_stub
        if action.kind == "reply":
            if action.delay_s and stub._stopping.wait(action.delay_s):
                return
            self._send_json(200, completion_body(model, action.text, action.prompt_tokens,
                                                 action.completion_tokens))
        elif action.kind == "status":
            self._send_json(action.status, {"error": {"message": action.error_message,
                                                      "type": action.error_type,
                                                      "code": action.error_type}},
                            action.headers)
        elif action.kind == "hang":
            if stub._stopping.wait(action.delay_s):
                return
            self._send_json(200, completion_body(model, "too late", 1, 1))
        elif action.kind == "truncated":
            payload = json.dumps(completion_body(model, "cut off", 1, 1)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload[: len(payload) // 2])
            self.wfile.flush()
            self.close_connection = True
        elif action.kind == "invalid_body":
            payload = b"<html>upstream proxy error</html>"
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        else:  # pragma: no cover - a typo in a test script
            raise ValueError(f"unknown stub action {action.kind!r}")

    def _send_json(self, status: int, payload: dict[str, Any],
                   headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
