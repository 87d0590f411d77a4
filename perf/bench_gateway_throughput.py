"""Gateway throughput against a local OpenAI-compatible server with a fixed latency: one process
vs shards on Dask worker processes, side by side.

    python perf/bench_gateway_throughput.py [--calls 640] [--latency 0.5] [--concurrency 64] [--workers 2]

A loopback stub (in its own process, so its threads do not share the client's interpreter)
answers every chat request after ``latency`` seconds. The same number of distinct requests is
made twice, each time in a fresh exchange store:

- one process: one gateway with ``max_concurrency = concurrency``;
- ``workers`` processes of a local ``dask.distributed`` cluster (as ``miscue build --workers``
  starts): the requests dealt into one shard per worker, each shard its own gateway with
  ``max_concurrency = concurrency / workers`` (same total concurrency).

The ideal wall time is calls / concurrency * latency; each row prints the measured time and the
achieved fraction of the ideal throughput, the CPU the client processes and the stub spent per
call, and the fraction no schedule can pass on this machine: the ideal time over the largest of
itself, that CPU spread over every core, and the busiest client process's CPU (one event loop
uses one core). The workers are started and warmed (litellm imported,
two calls made) before the clock starts, as they are once per build. Acceptance (issue 14):
640 calls, 0.5 s, 2 workers x 32 reach at least 0.8 of the ideal throughput.

Then, for reference, one worker's share (``calls / workers`` at ``concurrency / workers``) made
in this process with nothing else running but the stub, three ways: a raw ``httpx`` POST,
``litellm.acompletion`` alone, and the gateway. Its fraction of the ideal is what one worker
could reach with a core to itself: the ceiling of the sharded row.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the loopback stub lives in the checkout's tests/, not installed


def serve(latency: float, ready: Any, stop: Any) -> None:
    """The stub server's process: serve until ``stop`` is set."""
    from tests.support.openai_stub import StubServer, reply

    with StubServer(default=reply("fine", delay_s=latency)) as stub:
        ready.put(stub.base_url)
        stop.wait()


def gateway(base_url: str, store: str, concurrency: int) -> Any:
    from miscue.llm import Gateway, LLMConfig, RoleConfig

    params = {"api_base": base_url, "api_key": "sk-local"}
    cfg = LLMConfig(writer=RoleConfig(model="openai/stub-writer", params=params),
                    extractor_a=RoleConfig(model="openai/stub-a", params=params),
                    extractor_b=RoleConfig(model="openai/other-b", params=params),
                    max_concurrency=concurrency, timeout_s=30)
    return Gateway(cfg, store)


async def alone(how: str, base_url: str, store: str, concurrency: int, indices: list[int]) -> tuple[float, float]:
    """One worker's share made one way (``httpx``, ``litellm`` or ``gateway``) in this process."""
    import httpx

    from miscue.llm.env import load_litellm

    litellm, sem = load_litellm(), asyncio.Semaphore(concurrency)
    gw = gateway(base_url, store, concurrency) if how == "gateway" else None
    async with httpx.AsyncClient(timeout=30, limits=httpx.Limits(max_connections=concurrency)) as client:
        async def one(i: int) -> None:
            messages = [{"role": "user", "content": f"alone {how} request {i}"}]
            if gw is not None:
                await gw.complete("writer", messages, "bench")
                return
            async with sem:
                if how == "litellm":
                    await litellm.acompletion(model="openai/stub-writer", messages=messages, timeout=30, max_retries=0,
                                              api_base=base_url, api_key="sk-local")
                else:
                    r = await client.post(f"{base_url}/chat/completions", headers={"authorization": "Bearer sk-local"},
                                          json={"model": "stub-writer", "messages": messages})
                    r.json()["choices"][0]["message"]["content"]

        for i in (-1, -2):  # warm-up, outside the measurement
            await one(i)
        started = time.time()
        await asyncio.gather(*(one(i) for i in indices))
        return started, time.time()


async def burst(gw: Any, indices: list[int], tag: str) -> tuple[float, float]:
    started = time.time()
    await asyncio.gather(*(gw.complete("writer", [{"role": "user", "content": f"{tag} request {i}"}], "bench")
                           for i in indices))
    return started, time.time()


def shard(base_url: str, store: str, concurrency: int, indices: list[int], tag: str) -> tuple[float, float, float]:
    """One worker's shard: its own gateway on the shared store (wall-clock start and end, and
    the CPU seconds the worker spent on it)."""
    gw = gateway(base_url, store, concurrency)
    asyncio.run(burst(gw, [-1, -2], f"warm-up {tag}"))
    cpu = time.process_time()
    started, ended = asyncio.run(burst(gw, indices, tag))
    return started, ended, time.process_time() - cpu


def warm(base_url: str, store: str) -> bool:
    asyncio.run(burst(gateway(base_url, store, 2), [-1, -2], f"warm-up {time.time()}"))
    return True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=640)
    ap.add_argument("--latency", type=float, default=0.5)
    ap.add_argument("--concurrency", type=int, default=64, help="total concurrency (split evenly across workers)")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    ctx = mp.get_context("spawn")
    ready, stop = ctx.Queue(), ctx.Event()
    server = ctx.Process(target=serve, args=(args.latency, ready, stop), daemon=True)
    server.start()
    base_url = ready.get(timeout=60)
    import psutil  # a dependency of dask.distributed

    stub = psutil.Process(server.pid)

    def stub_cpu() -> float:
        times = stub.cpu_times()
        return times.user + times.system

    ideal = args.calls / args.concurrency * args.latency
    rows = []  # (label, calls, concurrency, wall s, client CPU s, the busiest client process's CPU s, stub CPU s)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            gw = gateway(base_url, f"{tmp}/one", args.concurrency)
            asyncio.run(burst(gw, [-1, -2], "warm-up"))  # client set-up outside the measurement
            cpu, served = time.process_time(), stub_cpu()
            t0, t1 = asyncio.run(burst(gw, list(range(args.calls)), "one"))
            cpu = time.process_time() - cpu
            rows.append((f"1 process x {args.concurrency}", args.calls, args.concurrency, t1 - t0, cpu, cpu, stub_cpu() - served))

            import dask
            from distributed import Client, LocalCluster

            from miscue.flows.prefect_flows import LOCAL_CLUSTER_CONFIG  # the settings `miscue build --workers` starts with

            per = args.concurrency // args.workers
            local = dict(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None)
            with dask.config.set(LOCAL_CLUSTER_CONFIG), LocalCluster(**local) as cluster, Client(cluster) as client:
                names = sorted(client.scheduler_info()["workers"])
                client.gather([client.submit(warm, base_url, f"{tmp}/warm", pure=False, workers=[w]) for w in names])
                parts = [list(range(args.calls))[i::args.workers] for i in range(args.workers)]
                served = stub_cpu()
                futures = [client.submit(shard, base_url, f"{tmp}/dask", per, part, "dask", pure=False,
                                         workers=[w]) for part, w in zip(parts, names)]
                spans = client.gather(futures)
                served = stub_cpu() - served
            rows.append((f"{args.workers} Dask workers x {per}", args.calls, args.concurrency,
                         max(e for _, e, _ in spans) - min(s for s, _, _ in spans),
                         sum(c for _, _, c in spans), max(c for _, _, c in spans), served))
            share = list(range(args.calls // args.workers))
            for how in ("httpx", "litellm", "gateway"):
                cpu, served = time.process_time(), stub_cpu()
                t0, t1 = asyncio.run(alone(how, base_url, f"{tmp}/{how}", per, share))
                cpu = time.process_time() - cpu
                rows.append((f"one worker's share alone: {how} x {per}", len(share), per, t1 - t0, cpu, cpu, stub_cpu() - served))
    finally:
        stop.set()
        server.join(timeout=10)
    cores = os.cpu_count() or 1
    print(f"calls={args.calls} latency={args.latency}s total concurrency={args.concurrency} (ideal {ideal:.2f} s); {cores} CPUs")
    print("| run | wall s | ideal s | fraction of ideal throughput | client CPU ms / call | stub CPU ms / call "
          "| CPU ceiling: fraction at 100% of every CPU |")
    print("|---|---|---|---|---|---|---|")
    for label, calls, concurrency, wall, client_cpu, busiest, stub_cpu_s in rows:
        # the client processes and the stub (same machine) need this CPU whatever the overlap: no
        # schedule ends before their sum is spread over every CPU, nor before the busiest process's
        # own CPU (one event loop uses one core)
        best = calls / concurrency * args.latency
        floor = max(best, (client_cpu + stub_cpu_s) / cores, busiest)
        print(f"| {label} | {wall:.2f} | {best:.2f} | {best / wall:.2f} | {1000 * client_cpu / calls:.2f} "
              f"| {1000 * stub_cpu_s / calls:.2f} | {best / floor:.2f} |")
    print(f"ratio: {rows[0][3] / rows[1][3]:.2f}x the one-process throughput")


if __name__ == "__main__":
    main()
