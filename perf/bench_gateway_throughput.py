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
achieved fraction of the ideal throughput. The workers are started and warmed (litellm imported,
two calls made) before the clock starts, as they are once per build. Acceptance (issue 14):
640 calls, 0.5 s, 2 workers x 32 reach at least 0.8 of the ideal throughput.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
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


async def burst(gw: Any, indices: list[int], tag: str) -> tuple[float, float]:
    started = time.time()
    await asyncio.gather(*(gw.complete("writer", [{"role": "user", "content": f"{tag} request {i}"}], "bench")
                           for i in indices))
    return started, time.time()


def shard(base_url: str, store: str, concurrency: int, indices: list[int], tag: str) -> tuple[float, float]:
    """One worker's shard: its own gateway on the shared store (wall-clock start and end)."""
    gw = gateway(base_url, store, concurrency)
    asyncio.run(burst(gw, [-1, -2], f"warm-up {tag}"))
    return asyncio.run(burst(gw, indices, tag))


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
    ideal = args.calls / args.concurrency * args.latency
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            gw = gateway(base_url, f"{tmp}/one", args.concurrency)
            asyncio.run(burst(gw, [-1, -2], "warm-up"))  # client set-up outside the measurement
            t0, t1 = asyncio.run(burst(gw, list(range(args.calls)), "one"))
            rows.append((f"1 process x {args.concurrency}", t1 - t0))

            from distributed import Client, LocalCluster

            per = args.concurrency // args.workers
            with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                    Client(cluster) as client:
                names = sorted(client.scheduler_info()["workers"])
                client.gather([client.submit(warm, base_url, f"{tmp}/warm", pure=False, workers=[w]) for w in names])
                parts = [list(range(args.calls))[i::args.workers] for i in range(args.workers)]
                futures = [client.submit(shard, base_url, f"{tmp}/dask", per, part, "dask", pure=False,
                                         workers=[w]) for part, w in zip(parts, names)]
                spans = client.gather(futures)
            rows.append((f"{args.workers} Dask workers x {per}", max(e for _, e in spans) - min(s for s, _ in spans)))
    finally:
        stop.set()
        server.join(timeout=10)
    print(f"calls={args.calls} latency={args.latency}s total concurrency={args.concurrency} (ideal {ideal:.2f} s)")
    print("| run | wall s | ideal s | fraction of ideal throughput |")
    print("|---|---|---|---|")
    for label, wall in rows:
        print(f"| {label} | {wall:.2f} | {ideal:.2f} | {ideal / wall:.2f} |")
    print(f"ratio: {rows[0][1] / rows[1][1]:.2f}x the one-process throughput")


if __name__ == "__main__":
    main()
