"""Drill: kill and resume (DESIGN section 13). A single-fault run (`miscue generate`,
tau2-airline, one fault type, attempts=2) talks over HTTP to a loopback model server that
answers like the offline models. It is SIGKILLed at 3 points (after N exchanges reach the
store: early, midway, late), restarted each time, and finally compared with an uninterrupted run in another
artifacts directory: same cells/attempts/samples content hashes, same call set, and no request
that had finished (was in the store at the kill) is ever sent again.
"""

from __future__ import annotations

import subprocess

from support.drills import (SLICE, BENCH, FAULT, ModelServer, cli, kill_at_store_sizes, llm_config, popen,
                           repeated_requests, run, store_files, table_hash, write_config)

# store entries present when the SIGKILL lands (~60 requests in all); `miscue build` is killed at
# three points, its publish among them, in tests/drills/test_build.py
KILL_AT = [4, 24, 44]


def _args(artifacts, config):
    return cli("generate", "-b", BENCH, "--task", SLICE, "-t", FAULT, "--attempts", "2", "--llm-config", str(config),
               "--artifacts", str(artifacts), "--json")


def test_sigkill_at_three_points_then_resume_matches_uninterrupted(tmp_path):
    killed, ref = tmp_path / "killed", tmp_path / "ref"
    log = tmp_path / "runs.log"
    with ModelServer() as server:
        config = write_config(tmp_path / "llm.json", llm_config(server.base_url))
        observed, finished_at_kill = kill_at_store_sizes(lambda: popen(_args(killed, config), log=log), killed,
                                                         KILL_AT, server, timeout=90)
        server.segment = len(KILL_AT)
        final = run(_args(killed, config), timeout=120)
        assert final.returncode == 0, final.stdout + final.stderr
        resumed_requests = list(server.seen)

    with ModelServer() as ref_server:
        config = write_config(tmp_path / "llm-ref.json", llm_config(ref_server.base_url))
        done = run(_args(ref, config), timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        ref_requests = ref_server.distinct()

    # identical ledger content
    for name in ("cells", "attempts", "samples"):
        a = table_hash(killed / "runs" / BENCH / f"{name}.parquet")
        b = table_hash(ref / "runs" / BENCH / f"{name}.parquet")
        assert a == b, f"{name}: killed+resumed {a} != uninterrupted {b}"
    skip = ("cached", "latency_s", "attempts", "cost", "prompt_tokens", "completion_tokens")
    assert (table_hash(killed / "runs" / BENCH / "llm_calls.parquet", skip)
            == table_hash(ref / "runs" / BENCH / "llm_calls.parquet", skip))
    assert len(store_files(killed)) == len(store_files(ref))

    # no finished model call repeated: nothing in the store at kill i is requested in a later segment
    repeats = repeated_requests(resumed_requests, finished_at_kill)
    assert repeats == [], f"{len(repeats)} finished calls were sent again"
    extra = len(resumed_requests) - ref_requests  # requests cut off in flight by a kill, then redone
    assert 0 <= extra <= 4 * len(KILL_AT), (len(resumed_requests), ref_requests)
    print(f"kill points (store entries at SIGKILL): {observed}; requests killed+resumed={len(resumed_requests)} "
          f"uninterrupted={ref_requests} (in-flight redone={extra}); "
          f"samples={table_hash(ref / 'runs' / BENCH / 'samples.parquet')[0]}")
    assert len(set(observed)) == len(KILL_AT)


def test_sigkill_releases_the_run_lock(tmp_path):
    """A run SIGKILLed while holding the lock leaves a lock file that does not block the next run."""
    import os
    import signal
    import sys

    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys,time; from miscue.runlock import run_lock\n"
        f"with run_lock({str(tmp_path)!r}, command='drill-holder'):\n"
        "    print('held', flush=True); time.sleep(60)\n")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        from miscue.runlock import RunLocked, run_lock
        try:
            with run_lock(tmp_path):
                raise AssertionError("lock taken while held")
        except RunLocked as exc:
            assert str(holder.pid) in str(exc) and "drill-holder" in str(exc)
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=10)
    with run_lock(tmp_path):
        pass
