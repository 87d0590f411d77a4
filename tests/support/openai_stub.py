"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests.

Serves ``POST /v1/chat/completions`` from a queue of scripted actions (one action per request,
in arrival order; a default action once the queue is empty). It records every request body and
the maximum number of requests it was serving at once. Stdlib only: ``ThreadingHTTPServer`` in
a background thread, bound to loopback on an ephemeral port.

It also serves the OpenAI files and batches endpoints that litellm's OpenAI-compatible batch
path calls (``create_file``, ``create_batch``, ``retrieve_batch``, ``file_content``):
``POST /v1/files`` (multipart: ``purpose``, ``file``), ``GET /v1/files/{id}`` and
``/v1/files/{id}/content``, ``POST /v1/batches``, ``GET /v1/batches/{id}``. A batch answers each
of its lines at creation with :attr:`StubServer.batch_line` (default: the chat script, as if the
line's body had been posted to the chat route), reports ``in_progress`` for its first
:attr:`StubServer.in_progress_polls` retrievals, then its outcome (:attr:`StubServer.batch_outcomes`,
one per batch created; ``completed`` by default): an output file of the 200 lines and an error file
of the others, as OpenAI writes them. Like OpenAI, a batch whose lines are not of one model and
one endpoint, or whose ``custom_id`` repeats, fails validation. Everything is kept in memory and
goes with the server.

    with StubServer() as stub:
        stub.enqueue(rate_limited(), reply("hello"))
        ...  # point a client at stub.base_url ("http://127.0.0.1:<port>/v1")
        assert stub.request_count == 2

Every response closes its connection (HTTP/1.0), so stopping never waits on an idle keep-alive
socket, and a ``hang`` is released as soon as the server stops.
"""

from __future__ import annotations

import email.parser
import email.policy
import itertools
import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable
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
        self._lock = threading.RLock()  # re-entrant: a batch's retrieval adds its files
        self._stopping = threading.Event()
        self.requests: list[dict[str, Any]] = []  # every request body received, in order
        self.in_flight = 0
        self.max_in_flight = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        # -- the files and batches endpoints
        #: a batch's answer to one input line (custom_id, method, url, body); None: the chat script
        self.batch_line: Callable[[dict[str, Any]], Action] | None = None
        self.in_progress_polls = 0  # retrievals that see a batch still in_progress
        self.batch_outcomes: deque[str] = deque()  # completed (default) | failed | expired | cancelled
        self.files: dict[str, dict[str, Any]] = {}  # id -> {"object": file object, "content": bytes}
        self.batches: dict[str, dict[str, Any]] = {}  # id -> the batch object and its lines
        self.submitted: list[list[str]] = []  # each batch's custom_ids, in creation order
        self._ids = itertools.count(1)

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

    # -- files and batches ---------------------------------------------------------------
    def add_file(self, content: bytes, purpose: str, filename: str = "upload.jsonl") -> dict[str, Any]:
        with self._lock:
            fid = f"file-{next(self._ids)}"
            obj = {"id": fid, "object": "file", "bytes": len(content), "created_at": int(time.time()),
                   "filename": filename, "purpose": purpose, "status": "processed"}
            self.files[fid] = {"object": obj, "content": content}
        return obj

    def create_batch(self, request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        fid, endpoint = request.get("input_file_id"), request.get("endpoint")
        with self._lock:
            upload = self.files.get(fid) if isinstance(fid, str) else None
        if upload is None:
            return 404, {"error": {"message": f"No such File object: {fid}", "type": "invalid_request_error"}}
        lines = [json.loads(raw) for raw in upload["content"].decode().splitlines() if raw.strip()]
        with self._lock:
            bid = f"batch_{next(self._ids)}"
            outcome = self.batch_outcomes.popleft() if self.batch_outcomes else "completed"
            self.submitted.append([line.get("custom_id") for line in lines])
        now = int(time.time())
        batch = {"id": bid, "object": "batch", "endpoint": endpoint, "errors": None, "input_file_id": fid,
                 "completion_window": request.get("completion_window"), "status": "validating",
                 "output_file_id": None, "error_file_id": None, "created_at": now, "in_progress_at": None,
                 "expires_at": now + 86400, "finalizing_at": None, "completed_at": None, "failed_at": None,
                 "expired_at": None, "cancelling_at": None, "cancelled_at": None,
                 "request_counts": {"total": 0, "completed": 0, "failed": 0}, "metadata": request.get("metadata")}
        problem = _invalid(lines, endpoint)
        if problem or outcome == "failed":
            result = ("failed", [], [problem or "scripted to fail"])
        else:
            answered = lines if outcome == "completed" else lines[: len(lines) // 2]
            out, errors = [], []
            for line in answered:
                action = self.batch_line(line) if self.batch_line is not None else self._chat(line["body"])
                (out if action.kind == "reply" else errors).append(_batch_result(line, action))
            if outcome == "expired":  # what had not run when the window closed
                errors += [{"id": f"batch_req_{line['custom_id'][:12]}", "custom_id": line["custom_id"], "response": None,
                            "error": {"code": "batch_expired", "message": "This request could not be executed before the "
                                                                          "completion window expired."}}
                           for line in lines[len(answered):]]
            result = (outcome, out, errors)
        with self._lock:
            self.batches[bid] = {"object": batch, "lines": lines, "result": result, "polls": 0}
        return 200, batch

    def _chat(self, body: dict[str, Any]) -> Action:
        """What the chat route would have answered ``body`` (the script, then the default)."""
        try:
            return self._next(body)
        finally:
            self._done()

    def retrieve_batch(self, bid: str) -> dict[str, Any] | None:
        with self._lock:
            entry = self.batches.get(bid)
            if entry is None:
                return None
            entry["polls"] += 1
            batch, now = entry["object"], int(time.time())
            if batch["status"] in ("validating", "in_progress") and entry["polls"] <= self.in_progress_polls:
                batch.update(status="in_progress", in_progress_at=batch["in_progress_at"] or now,
                             request_counts={"total": len(entry["lines"]), "completed": 0, "failed": 0})
            elif batch["status"] in ("validating", "in_progress"):
                outcome, out, errors = entry["result"]
                if outcome == "failed":  # validation: no output, the reasons in ``errors``
                    batch["errors"] = {"object": "list", "data": [{"code": "invalid_request", "line": None, "message": m,
                                                                  "param": None} for m in errors]}
                else:
                    for name, rows in (("output_file_id", out), ("error_file_id", errors)):
                        if rows:
                            content = "".join(json.dumps(row) + "\n" for row in rows).encode()
                            batch[name] = self.add_file(content, "batch_output", f"{bid}_{name[:-8]}.jsonl")["id"]
                    batch["request_counts"] = {"total": len(entry["lines"]), "completed": len(out), "failed": len(errors)}
                batch.update(status=outcome, **{f"{outcome}_at": now})
            return json.loads(json.dumps(batch))

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
        path = self.path.rstrip("/")
        if path in (FILES_PATH, BATCHES_PATH):
            self._batch_post(path)
            return
        if path != CHAT_PATH:
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

    def _batch_post(self, path: str) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        stub = self.server_stub
        if path == FILES_PATH:
            fields = _multipart(self.headers.get("Content-Type", ""), raw)
            if "file" not in fields or "purpose" not in fields:
                self._send_json(400, {"error": {"message": "a file upload needs 'file' and 'purpose'"}})
                return
            content, filename = fields["file"]
            self._send_json(200, stub.add_file(content, fields["purpose"][0].decode(), filename or "upload.jsonl"))
            return
        try:
            request = json.loads(raw)
        except ValueError:
            self._send_json(400, {"error": {"message": "the body is not JSON"}})
            return
        self._send_json(*stub.create_batch(request))

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        stub = self.server_stub
        match = re.fullmatch(r"/v1/(files|batches)/([^/]+)(/content)?", self.path.rstrip("/"))
        if match and match.group(1) == "batches" and not match.group(3):
            batch = stub.retrieve_batch(match.group(2))
            if batch is not None:
                self._send_json(200, batch)
                return
        elif match and match.group(1) == "files":
            with stub._lock:
                upload = stub.files.get(match.group(2))
            if upload is not None and match.group(3):
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(upload["content"])))
                self.end_headers()
                self.wfile.write(upload["content"])
                return
            if upload is not None:
                self._send_json(200, upload["object"])
                return
        self._send_json(404, {"error": {"message": f"no such object or route {self.path}", "type": "invalid_request_error"}})

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


FILES_PATH = "/v1/files"
BATCHES_PATH = "/v1/batches"


def _multipart(content_type: str, raw: bytes) -> dict[str, tuple[bytes, str | None]]:
    """The fields of a multipart/form-data body: name -> (bytes, filename)."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + raw)
    fields = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if name:
            fields[str(name)] = (part.get_payload(decode=True) or b"", part.get_filename())
    return fields


def _invalid(lines: list[dict[str, Any]], endpoint: str | None) -> str | None:
    """Why OpenAI would refuse a batch input file (None: it would not)."""
    if not lines:
        return "the input file is empty"
    ids = [line.get("custom_id") for line in lines]
    if len(set(ids)) != len(ids):
        return "custom_id values must be unique within a batch"
    if {line.get("url") for line in lines} != {endpoint} or {line.get("method") for line in lines} != {"POST"}:
        return f"every line must POST to the batch's endpoint {endpoint}"
    models = {str((line.get("body") or {}).get("model")) for line in lines}
    if len(models) != 1:
        return f"a batch's requests must all be for one model, got {sorted(models)}"
    return None


def _batch_result(line: dict[str, Any], action: Action) -> dict[str, Any]:
    """One line of a batch's output (a reply) or error file (any other action), as OpenAI writes it."""
    rid = f"batch_req_{line['custom_id'][:12]}"
    if action.kind == "reply":
        body = completion_body(str(line["body"].get("model")), action.text, action.prompt_tokens, action.completion_tokens)
        return {"id": rid, "custom_id": line["custom_id"], "response": {"status_code": 200, "request_id": rid, "body": body},
                "error": None}
    status = action.status if action.kind == "status" else 500
    error = {"message": action.error_message or f"scripted {action.kind}", "type": action.error_type or "server_error",
             "code": action.error_type or "server_error"}
    return {"id": rid, "custom_id": line["custom_id"], "response": {"status_code": status, "request_id": rid,
                                                                    "body": {"error": error}}, "error": None}
