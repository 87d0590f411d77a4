"""Prefect per-task overhead vs a plain call, side by side (justifies the task grain).

    .venv/bin/python perf/bench_prefect_overhead.py [--n 300] [--calls 23000]

Runs in a temporary PREFECT_HOME against Prefect's ephemeral local server (or PREFECT_API_URL
when set), with miscue's Prefect settings (``miscue.flows.prefect_env``: task-run recorder batches
of 200). Measures, for the same trivial function:

- a plain Python call;
- one Prefect task run per call inside a flow (sequential), timed inside the flow;
- one stage-level task doing all N calls (the grain miscue uses), timed inside the flow;

and extrapolates both grains to a build's number of model calls (``--calls``; a full offline
build of tau2-retail + tau2-airline + webshop issues ~23,000). The first flow call (server
start-up) is reported separately and excluded from the per-task figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=300, help="task runs per measurement")
    ap.add_argument("--calls", type=int, default=23000, help="model calls of a build, for the extrapolation")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()

    home = tempfile.mkdtemp(prefix="miscue-prefect-bench-")
    os.environ.setdefault("PREFECT_HOME", home)
    from miscue.flows import prefect_env

    prefect_env.apply()

    from prefect import flow, task
    from prefect.cache_policies import NO_CACHE

    def work(i: int) -> int:
        return i * 2 + 1

    work_task = task(name="work", cache_policy=NO_CACHE, persist_result=False)(work)

    @task(name="stage", cache_policy=NO_CACHE, persist_result=False)
    def stage(n: int) -> int:
        return sum(work(i) for i in range(n))

    @flow(name="bench-empty")
    def empty() -> None:
        return None

    @flow(name="bench-task-per-call")
    def per_call(n: int) -> float:
        t0 = time.perf_counter()  # timed inside the flow: flow start/end costs are not per task
        for i in range(n):
            work_task(i)
        return time.perf_counter() - t0

    @flow(name="bench-stage-task")
    def per_stage(n: int) -> float:
        t0 = time.perf_counter()
        stage(n)
        return time.perf_counter() - t0

    n = args.n
    t = time.perf_counter()
    empty()
    first = time.perf_counter() - t

    t0 = time.perf_counter()
    for i in range(n):
        work(i)
    plain = (time.perf_counter() - t0) / n

    empties, per_calls, stages = [], [], []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        empty()
        empties.append(time.perf_counter() - t0)
        stages.append(per_stage(n))
        per_calls.append(per_call(n))
    base = statistics.median(empties)
    task_ms = statistics.median(per_calls) / n * 1000
    stage_ms = statistics.median(stages) * 1000

    # server side: every task run is a record the server must write; wait for the backlog
    # (exiting earlier would lose records: the tooling notes' "Error flushing" at shutdown)
    from prefect import get_client

    expected = args.repeats * (n + 1)
    t0 = time.perf_counter()
    recorded = 0
    with get_client(sync_client=True) as client:
        while time.perf_counter() - t0 < 120:
            recorded = client._client.post("/task_runs/count", json={}).json()
            if recorded >= expected:
                break
            time.sleep(0.5)
    backlog = time.perf_counter() - t0

    print(f"Prefect per-task overhead (N = {n} trivial task runs, median of {args.repeats}; PREFECT_HOME={home})")
    print(f"  first flow call (ephemeral server start-up): {first:8.2f} s   empty flow: {base * 1000:7.1f} ms")
    print()
    print(f"  {'':34s}{'per call':>14s}{'for N calls':>14s}")
    print(f"  {'plain Python call':34s}{plain * 1e6:11.3f} us{plain * n * 1000:11.2f} ms")
    print(f"  {'one Prefect task per call':34s}{task_ms:11.3f} ms{task_ms * n:11.1f} ms")
    print(f"  {'one stage task for all N calls':34s}{stage_ms / n:11.4f} ms{stage_ms:11.1f} ms")
    print(f"\n  server: {recorded} of {expected} task runs recorded; backlog drained {backlog:.1f} s after the last flow")
    ratio = task_ms / (plain * 1000) if plain else float("inf")
    print(f"\n  a task run costs {task_ms:.2f} ms = {ratio:,.0f}x a plain call")
    stage_tasks = 4 * 3 + 2  # load, graphs, plan, write/verify per benchmark; publish; report
    print(f"  extrapolated to a build of {args.calls:,} model calls:")
    print(f"    one task per model call: {args.calls * task_ms / 1000:8.1f} s of Prefect overhead ({args.calls:,} task runs "
          "recorded by the server)")
    print(f"    stage-per-benchmark:     {stage_tasks * task_ms / 1000:8.3f} s ({stage_tasks} task runs)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
