"""The Prefect API helper of the server tests retries what Prefect's own client retries: a
Prefect server under load answers 503 while its SQLite database is locked (a CI run failed on
one such answer to ``create_flow_run``)."""

from __future__ import annotations

import json
import threading
import urllib.error
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from support.prefect_server import http


def serve(statuses: list[int]) -> tuple[ThreadingHTTPServer, list[int]]:
    """A loopback server answering each request with the next status (200 with a JSON body
    once the list is used up); returns it and the statuses it sent."""
    sent: list[int] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            code = statuses[len(sent)] if len(sent) < len(statuses) else 200
            sent.append(code)
            body = json.dumps({"id": "run-1"} if code == 200 else {"exception_message": "Service Unavailable"}).encode()
            self.send_response(code)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, sent


def url(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/api/deployments/x/create_flow_run"


def test_a_locked_database_answer_is_retried_until_the_server_answers() -> None:
    server, sent = serve([503, 503])
    try:
        assert http("POST", url(server), {}) == {"id": "run-1"}
        assert sent == [503, 503, 200]
    finally:
        server.shutdown()


def test_a_client_error_is_raised_at_once_and_a_lasting_503_after_the_attempts() -> None:
    server, sent = serve([404, 503, 503])
    try:
        with pytest.raises(urllib.error.HTTPError) as err:
            http("POST", url(server), {})
        assert err.value.code == 404 and sent == [404]
        with pytest.raises(urllib.error.HTTPError) as err:
            http("POST", url(server), {}, attempts=2)
        assert err.value.code == 503 and sent == [404, 503, 503]
    finally:
        server.shutdown()
