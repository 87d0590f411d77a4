"""Drills on the sharded build (`miscue build --workers 2`: the stages as shards of graphs on a
local Dask cluster of two worker processes, through prefect-dask), against a real Prefect
server on loopback, with the models behind a loopback OpenAI-compatible server that answers
like the offline models (issue 14; DESIGN sections 10, 13).

- The sharded build publishes the in-process build's corpus (identical table content hashes);
  while it runs, a second build on the same artifacts directory refuses (exit 4): one run lock.
- Budget across two workers: a cap at 40% of the estimate stops cleanly (exit 3, nothing
  published) with the spend of every shard together within the cap; the resumed run pays for
  no finished call twice and publishes the uninterrupted tables.
- A 401 in one shard halts every shard: exit 3, nothing published, few requests after it; the
  rerun resumes to the same corpus.
- One worker process SIGKILLed (by its PID) mid-build: Dask reschedules its shard, which
  answers its finished exchanges from the store; the build publishes the identical corpus and
  no finished call is sent twice.
"""

from __future__ import annotations

from support import prefect_home  # noqa: F401  (first: PREFECT_HOME before prefect is imported)

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from miscue import corpus
from support.drills import (BENCH, FAULT, ModelServer, cli, kill, llm_config, popen, repeated_requests, run, store_files,
                            store_request_ids, wait_for, write_config)
from support.prefect_server import PrefectServer, descendants

PRICE = "0.000001"
WORKERS = ("--workers", "2")
#: long enough that a request held at the server's gate (while a drill acts) never times out
SLOW = {"timeout_s": 120.0}

pytestmark = pytest.mark.slow


def _build(artifacts: Path, config: Path, *extra: str) -> list[str]:
    return cli("build", "-b", BENCH, "-t", FAULT, "--attempts", "2", "--llm-config", str(config), "--price", PRICE,
               "--artifacts", str(artifacts), "--json", *extra)


def _hashes(artifacts: Path, version: str) -> dict[str, str]:
    return {name: m["content_hash"] for name, m in corpus.manifest(artifacts, version)["tables"].items()}


def _unpublished(artifacts: Path) -> bool:
    return not (artifacts / "corpora").exists() or corpus.versions(artifacts) == []


def dask_workers(pid: int) -> list[int]:
    """The Dask worker processes of the build ``pid`` (its multiprocessing children)."""
    out = []
    for child in descendants(pid):
        try:
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if b"spawn_main" in cmdline:
            out.append(child)
    return out


@pytest.fixture(scope="module")
def prefect(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with PrefectServer(tmp_path_factory.mktemp("prefect")) as server:
        yield server
    assert server.closed()


@pytest.fixture(scope="module")
def reference(prefect: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The uninterrupted in-process build: its content hashes, requests and spend."""
    art = tmp_path_factory.mktemp("reference")
    with ModelServer() as server:
        config = write_config(art.parent / "llm-reference.json", llm_config(server.base_url, **SLOW))
        started = time.perf_counter()
        done = run(_build(art, config), timeout=300, env=prefect.env)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
        seconds = time.perf_counter() - started
        requests = server.distinct()
    version = json.loads(done.stdout)["version"]
    return {"hashes": _hashes(art, version), "requests": requests, "seconds": seconds,
            "spent": corpus.manifest(art, version)["run"]["budget"]["spent"]}


def test_sharded_build_publishes_the_in_process_corpus_under_one_run_lock(prefect, reference, tmp_path):
    art, log = tmp_path / "sharded", tmp_path / "sharded.log"
    with ModelServer() as server:
        config = write_config(tmp_path / "llm.json", llm_config(server.base_url, **SLOW))
        started = time.perf_counter()
        proc = popen(_build(art, config, *WORKERS), env=prefect.env, log=log)
        try:
            assert wait_for(lambda: len(store_files(art)) >= 5 or proc.poll() is not None, 240, 0.05)
            server.gate.clear()  # the sharded build waits on its model calls: it holds the lock meanwhile
            try:
                second = run(_build(art, config), timeout=300, env=prefect.env)  # in-process, same artifacts
            finally:
                server.gate.set()
            code = proc.wait(timeout=300)
        finally:
            kill(proc)
        seconds = time.perf_counter() - started
        requests = len(server.seen)
    assert second.returncode == 4 and f"pid {proc.pid}" in " ".join(second.stderr.split()), second.stderr[-1000:]
    assert code == 0, log.read_text()[-3000:]
    assert corpus.versions(art) == ["v0001"] and corpus.verify_corpus("v0001", art).ok
    assert _hashes(art, "v0001") == reference["hashes"]
    assert not (art / ".run").exists(), "the run's shared state is removed when it ends"
    # a request two shards make at the same time may be sent by both (neither had finished)
    assert reference["requests"] <= requests <= reference["requests"] + 8, (requests, reference["requests"])
    print(f"--workers 2: {seconds:.1f} s, {requests} requests; in-process {reference['seconds']:.1f} s, "
          f"{reference['requests']} requests; identical hashes; a second build refused with exit 4")


def test_budget_across_two_workers_stops_within_the_cap_and_resumes(prefect, reference, tmp_path):
    art = tmp_path / "capped"
    with ModelServer() as server:
        config = write_config(tmp_path / "llm.json", llm_config(server.base_url, **SLOW))
        est = run(cli("estimate", "-b", BENCH, "-t", FAULT, "--attempts", "2", "--llm-config", str(config),
                      "--price", PRICE, "--artifacts", str(art), "--json"), timeout=120)
        assert est.returncode == 0, est.stderr
        predicted = json.loads(est.stdout)
        cap = round(predicted["cost"] * 0.4, 6)
        capped = run(_build(art, config, *WORKERS, "--max-cost", str(cap)), timeout=300, env=prefect.env)
        text = " ".join((capped.stdout + capped.stderr).split())
        assert capped.returncode == 3, text[-3000:]
        assert "budget" in text and "stopped cleanly" in text and "Traceback" not in text
        assert _unpublished(art)
        partial = [json.loads(p.read_text()) for p in store_files(art)]
        spent_capped = sum(r["cost"] for r in partial)
        assert partial and spent_capped <= cap + 1e-9, (spent_capped, cap)
        finished = store_request_ids(art)
        requests_capped = len(server.seen)

        server.segment = 1
        resumed = run(_build(art, config, *WORKERS, "--max-cost", str(round(predicted["cost"] * 3, 6))), timeout=300,
                      env=prefect.env)
        assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-3000:]
        repeats = repeated_requests(list(server.seen), [finished])
    result = json.loads(resumed.stdout)
    assert _hashes(art, result["version"]) == reference["hashes"]
    assert repeats == [], f"{len(repeats)} finished calls were paid for again"
    spent_resumed = result["run"]["budget"]["spent"]
    assert spent_capped + spent_resumed == pytest.approx(reference["spent"], rel=0.02), "every call paid once"
    print(f"estimate {predicted['cost']:.6f} USD; cap {cap} (40%): stopped after {requests_capped} requests, "
          f"{len(partial)} stored, spent {spent_capped:.6f} (<= cap); resumed spent {spent_resumed:.6f}; "
          f"total {spent_capped + spent_resumed:.6f} vs uninterrupted {reference['spent']:.6f}")


def test_a_401_in_one_shard_halts_every_shard(prefect, reference, tmp_path):
    from support.openai_stub import unauthorized

    art, log = tmp_path / "auth", tmp_path / "stopped.log"
    with ModelServer() as server:
        config = write_config(tmp_path / "llm.json", llm_config(server.base_url, **SLOW))
        proc = popen(_build(art, config, *WORKERS), env=prefect.env, log=log)
        try:
            assert wait_for(lambda: len(store_files(art)) >= 40 or proc.poll() is not None, 240, 0.01)
            server.enqueue(unauthorized())
            sent_before = len(server.seen)
            code = proc.wait(timeout=180)
        finally:
            kill(proc)
        text = " ".join(log.read_text().split())
        assert code == 3 and "stopped cleanly" in text and "auth" in text, text[-3000:]
        assert "Traceback" not in text
        assert _unpublished(art) and not (art / ".run").exists()
        after_stop = len(server.seen) - sent_before
        finished = store_request_ids(art)
        server.segment = 1
        final = run(_build(art, config, *WORKERS), timeout=300, env=prefect.env)
        assert final.returncode == 0, final.stdout[-2000:] + final.stderr[-3000:]
        repeats = repeated_requests(list(server.seen), [finished])
    assert repeats == [], f"{len(repeats)} finished calls were sent again"
    remaining = reference["requests"] - sent_before
    assert after_stop < remaining / 2, f"{after_stop} requests after the 401 of {remaining} still to make"
    assert _hashes(art, json.loads(final.stdout)["version"]) == reference["hashes"]
    print(f"401 after {sent_before} requests: exit 3, {after_stop} requests after it (in flight on both workers) "
          f"of {remaining} still to make; rerun published the reference corpus")


def test_a_killed_worker_is_rescheduled_to_the_identical_corpus(prefect, reference, tmp_path):
    art, log = tmp_path / "worker-killed", tmp_path / "killed.log"
    with ModelServer() as server:
        config = write_config(tmp_path / "llm.json", llm_config(server.base_url, **SLOW))
        proc = popen(_build(art, config, *WORKERS), env=prefect.env, log=log)
        try:
            assert wait_for(lambda: len(store_files(art)) >= 40 or proc.poll() is not None, 240, 0.01)
            server.gate.clear()  # hold the build mid-way while a worker is killed
            try:
                workers = dask_workers(proc.pid)
                assert len(workers) == 2 and proc.poll() is None, (workers, log.read_text()[-2000:])
                os.kill(workers[0], signal.SIGKILL)  # a worker we started, by its PID
                killed_at = len(server.seen)
                finished = store_request_ids(art)
                server.segment = 1
            finally:
                server.gate.set()
            code = proc.wait(timeout=300)
        finally:
            kill(proc)
        requests = len(server.seen)
        repeats = repeated_requests(list(server.seen), [finished])
    assert code == 0, log.read_text()[-3000:]
    assert corpus.versions(art) == ["v0001"] and _hashes(art, "v0001") == reference["hashes"]
    assert repeats == [], f"{len(repeats)} finished calls were sent again"
    assert requests >= reference["requests"]
    print(f"worker {workers[0]} killed after {killed_at} requests: published the identical corpus with {requests} "
          f"requests (uninterrupted {reference['requests']}: {requests - reference['requests']} in flight redone)")
