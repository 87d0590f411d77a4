"""Shared pieces of the reliability drills (tests/test_drills_*.py; DESIGN section 13).

Everything is loopback-only and bounded: the model server binds 127.0.0.1 on an ephemeral port,
subprocesses get a hard timeout and are ended by their own PID.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from miscue.canonical import canonical_json
from miscue.llm import count_tokens
from miscue.offline.provider import answer
from support.openai_stub import Action, StubServer, _Handler, _Server, reply

ROOT = Path(__file__).resolve().parents[2]
MISCUE = str(ROOT / ".venv" / "bin" / "miscue")
MODELS = {"writer": "stub-writer", "extractor_a": "lexical-extractor", "extractor_b": "parse-extractor"}
OFFLINE = {"stub-writer": "writer", "lexical-extractor": "lexical", "parse-extractor": "parse"}
BENCH = "tau2-airline"
FAULT = "contextual_irrelevance"  # 27 cells on tau2-airline, 86 model calls at attempts=2 (reading path)
#: the smallest build that shows a drill's effect: a slice of 20 airline tasks (19 graphs, 19
#: contextual_irrelevance cells, ~62 model calls at attempts=2 on the reading path -- three per
#: attempt; `--task` builds them alone)
SLICE = "2,5,7,8,9,11,12,14,15,17,18,19,20,21,23,24,25,27,29,30"
#: the smallest airline slice a sharded build splits in two: tasks 0-25, 16 graphs (shards hold 12)
SHARDED_SLICE = ",".join(str(i) for i in range(26))


def reset() -> Action:
    """Close the connection with an RST (SO_LINGER 0) and send nothing."""
    return Action("reset")


def request_id(model: str, messages: Any) -> str:
    """A request's identity as the server sees it (model name without route, messages)."""
    return hashlib.sha256(canonical_json({"model": model.split("/", 1)[-1], "messages": messages}).encode()).hexdigest()


def empty_body() -> Action:
    """A 200 with no body at all."""
    return Action("empty_body")


class _DrillHandler(_Handler):
    def _perform(self, action: Action, model: str) -> None:
        if action.kind == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()
            return
        if action.kind == "empty_body":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super()._perform(action, model)


class ModelServer(StubServer):
    """Scripted faults first; then answers as the embedded offline models would. Records every
    request's identity with the current ``segment`` label (to find repeated calls)."""

    def __init__(self, default: Action | None = None) -> None:
        super().__init__(default or reply("unused"))
        self.segment = 0
        self.seen: list[tuple[int, str]] = []
        self.gate = threading.Event()  # cleared: every request waits (at most 300 s) until it is set again
        self.gate.set()

    def distinct(self) -> int:
        """Distinct requests seen: a request the client timed out and sent again (a loaded machine
        can answer slower than the drills' 2-second timeout) counts once."""
        with self._lock:
            return len({rid for _, rid in self.seen})

    def _next(self, body: dict[str, Any]) -> Action:
        self.gate.wait(timeout=300)
        action = super()._next(body)
        with self._lock:
            self.seen.append((self.segment, request_id(str(body.get("model")), body.get("messages"))))
        if action is not self.default:
            return action
        text = answer(OFFLINE[body["model"]], body["messages"])
        # usage as the offline models report it (whitespace tokens), so costs are realistic
        return reply(text, prompt_tokens=count_tokens(body["messages"]), completion_tokens=len(text.split()))

    def start(self) -> "ModelServer":
        stub = self

        class Handler(_DrillHandler):
            server_stub = stub

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = False
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="drill-model-server", daemon=True)
        self._thread.start()
        return self


def llm_config(base_url: str, api_key: str = "sk-local", **extra: Any) -> dict[str, Any]:
    """A configuration of the stub models (priced at 0: litellm knows no price for them, and the
    commands refuse a model without a known price)."""
    params = {"api_base": base_url, "api_key": api_key}
    roles = {role: {"model": f"openai/{m}", "params": params} for role, m in MODELS.items()}
    prices = {f"openai/{m}": [0.0, 0.0] for m in MODELS.values()}
    return {**roles, "max_concurrency": 4, "timeout_s": 2.0, "max_retries": 4, "backoff_base_s": 0.05,
            "backoff_cap_s": 0.2, "retry_after_cap_s": 1.0, "prices": prices, **extra}


def write_config(path: Path, config: dict[str, Any]) -> Path:
    path.write_text(json.dumps(config))
    return path


def cli(*args: str) -> list[str]:
    return [MISCUE, *args]


def run(args: list[str], timeout: float = 120, env: dict[str, str] | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})},
                          cwd=cwd or ROOT)


def popen(args: list[str], env: dict[str, str] | None = None, log: Path | None = None) -> subprocess.Popen:
    out = open(log, "ab") if log else subprocess.DEVNULL
    return subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT if log else subprocess.DEVNULL,
                            env={**os.environ, **(env or {})}, cwd=ROOT)


def kill(proc: subprocess.Popen) -> None:
    """End a process this drill started, by its PID."""
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def store_files(artifacts: Path) -> list[Path]:
    root = artifacts / "store" / "exchanges"
    return sorted(root.glob("*/*.json")) if root.exists() else []


def store_request_ids(artifacts: Path) -> set[str]:
    """Identities of the successful exchanges in the store."""
    ids = set()
    for path in store_files(artifacts):
        rec = json.loads(path.read_text())
        if rec.get("text") is not None and rec.get("error") is None:
            ids.add(request_id(rec["request"]["model"], rec["request"]["messages"]))
    return ids


def table_hash(path: Path, skip: tuple[str, ...] = ()) -> tuple[int, str]:
    rows = pq.read_table(path).to_pylist()
    lines = sorted(canonical_json({k: v for k, v in r.items() if k not in skip}) for r in rows)
    return len(rows), hashlib.sha256("\n".join(lines).encode()).hexdigest()


def tree_hashes(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def wait_for(pred: Any, timeout: float, step: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(step)
    return False


# Provider keys the secrets drills plant (in the environment and in every role's params) and then
# look for everywhere; the tails catch a key that was cut or partly masked.
ENV_KEYS = {"OPENAI_API_KEY": "sk-drill-env-0123456789abcdef", "ANTHROPIC_API_KEY": "sk-ant-drill-env-fedcba9876543210"}
PARAM_KEY = "sk-drill-param-5a5a5a5a5a5a5a5a"
SECRETS = [*ENV_KEYS.values(), PARAM_KEY, "5a5a5a5a5a5a5a5a", "0123456789abcdef", "fedcba9876543210"]


def scan_for_secrets(roots: list[Path], texts: dict[str, str]) -> list[tuple[str, str]]:
    """(where, secret) for every planted key found in a file under ``roots`` or in ``texts``."""
    hits = []
    for root in map(Path, roots):
        for path in ([root] if root.is_file() else root.rglob("*")):
            if path.is_file():
                data = path.read_bytes()
                hits += [(str(path), s) for s in SECRETS if s.encode() in data]
    for label, text in texts.items():
        hits += [(label, s) for s in SECRETS if s in text]
    return hits


def kill_at_store_sizes(start: Any, artifacts: Path, thresholds: list[int], server: ModelServer,
                        timeout: float = 180) -> tuple[list[int], list[set[str]]]:
    """Start a run (``start()`` returns its Popen) once per threshold and SIGKILL it as soon as
    the store holds that many exchanges; the server's segment label is the kill's index. Returns
    the store sizes observed at each kill and the finished request identities at each kill."""
    observed: list[int] = []
    finished: list[set[str]] = []
    for i, threshold in enumerate(thresholds):
        server.segment = i
        proc = start()
        try:
            reached = wait_for(lambda: len(store_files(artifacts)) >= threshold or proc.poll() is not None, timeout, 0.01)
            assert reached and proc.poll() is None, f"the run ended before kill point {threshold}"
        finally:
            kill(proc)
        observed.append(len(store_files(artifacts)))
        finished.append(store_request_ids(artifacts))
    return observed, finished


def repeated_requests(seen: list[tuple[int, str]], finished: list[set[str]]) -> list[tuple[int, str]]:
    """Requests sent in a segment after a kill at which they had already finished."""
    return [(seg, rid) for seg, rid in seen if any(rid in finished[k] for k in range(min(seg, len(finished))))]


PY = sys.executable
