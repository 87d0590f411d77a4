"""A real Prefect server for tests: started on a free loopback port with a private PREFECT_HOME,
health-checked, and stopped (with anything it spawned) by PID. Used by the scheduled-deployment
test and the build-level kill drill.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from miscue.flows.prefect_env import PREFECT_ENV

ROOT = Path(__file__).resolve().parents[2]  # the checkout (a working directory for the processes tests start)
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: what Prefect's own client retries: the server answers 503 for errors a client may retry
#: (its SQLite database briefly locked under load), 502 and 429 likewise
RETRYABLE = (429, 502, 503)


def http(method: str, url: str, body: Any = None, timeout: float = 10, attempts: int = 6) -> Any:
    """One API request; a retryable status is retried with backoff (1, 2, 4, 8, 16 s), as the
    Prefect client does, and raised after ``attempts`` tries."""
    data = None if body is None else json.dumps(body).encode()
    for attempt in range(attempts):
        req = urllib.request.Request(url, data=data, method=method, headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as e:
            if e.code not in RETRYABLE or attempt == attempts - 1:
                raise
            time.sleep(2 ** attempt)


def wait(what: str, check: Any, timeout: float, logs: list[Path]) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            got = check()
            if got:
                return got
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            pass
        time.sleep(0.5)
    tails = "\n".join(f"--- {p.name}\n{p.read_text()[-3000:]}" for p in logs if p.exists())
    pytest.fail(f"timed out after {timeout} s waiting for {what}\n{tails}")


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def stop(procs: list[subprocess.Popen]) -> None:
    """Terminate every process a test started (and any child they left), by PID."""
    for p in reversed(procs):
        kids = descendants(p.pid)
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=10)
        for pid in kids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


class PrefectServer:
    """``with PrefectServer(tmp_path) as server:`` -- ``server.api`` is its API URL,
    ``server.env`` the environment a client process needs to use it."""

    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self.api = f"http://127.0.0.1:{self.port}/api"
        self.home = directory / "prefect-home"
        self.log = directory / "prefect-server.log"
        env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
        env.update(PREFECT_ENV, PREFECT_HOME=str(self.home))
        self.server_env = env
        self.env = {**env, "PREFECT_API_URL": self.api}
        self.procs: list[subprocess.Popen] = []

    def __enter__(self) -> "PrefectServer":
        self.home.mkdir(parents=True, exist_ok=True)
        with open(self.log, "w") as log:
            self.procs.append(subprocess.Popen(
                [str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(self.port),
                 "--analytics-off", "--no-ui"],
                cwd=self.home, env=self.server_env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))
        try:
            wait("the server's /api/health", lambda: http("GET", f"{self.api}/health") is True, 120, [self.log])
        except BaseException:
            stop(self.procs)
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        stop(self.procs)

    def closed(self) -> bool:
        """Every process stopped and the port no longer accepts connections."""
        if any(p.poll() is None for p in self.procs):
            return False
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
        except OSError:
            return True
        return False
