"""CPU per model call: our gateway vs litellm alone vs a raw httpx request, side by side.

    python perf/bench_gateway_overhead.py [--calls 400] [--concurrency 16] [--repeats 3]

A loopback OpenAI-compatible stub answers at once, in its own process (its CPU is not the
client's). In this process, the same number of distinct chat requests is made four ways, each
timed by this process's CPU time (``time.process_time``: every thread of the client):

- ``httpx``: a raw ``httpx.AsyncClient`` POST of the same JSON body, the reply parsed;
- ``litellm``: ``litellm.acompletion`` on the ``openai/`` route (``max_retries=0``), as the gateway calls it;
- ``gateway (miss)``: :meth:`Gateway.complete` on an empty exchange store (store look-up, litellm,
  retry loop, usage, the stored record);
- ``gateway (hit)``: the same requests again, every one answered by the store (no HTTP).

Prints CPU ms per call (the median of ``repeats``), each path's ratio to raw httpx, and what is
ours: gateway (miss) minus litellm.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


async def bounded(n: int, concurrency: int, one: Any) -> None:
    sem = asyncio.Semaphore(concurrency)

    async def go(i: int) -> None:
        async with sem:
            await one(i)

    await asyncio.gather(*(go(i) for i in range(n)))


def cpu(fn: Any) -> float:
    started = time.process_time()
    fn()
    return time.process_time() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=400)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from perf.bench_gateway_throughput import gateway, serve

    ctx = mp.get_context("spawn")
    ready, stop = ctx.Queue(), ctx.Event()
    server = ctx.Process(target=serve, args=(0.0, ready, stop), daemon=True)
    server.start()
    base_url = ready.get(timeout=60)
    import httpx

    from miscue.llm.env import load_litellm

    litellm = load_litellm()
    params = {"api_base": base_url, "api_key": "sk-local"}
    times: dict[str, list[float]] = {k: [] for k in ("httpx", "litellm", "gateway (miss)", "gateway (hit)")}
    try:
        for rep in range(args.repeats + 1):  # the first round warms every path up and is not counted
            tag = f"r{rep}"

            async def raw() -> None:
                async with httpx.AsyncClient(timeout=30) as client:
                    async def one(i: int) -> None:
                        r = await client.post(f"{base_url}/chat/completions", headers={"authorization": "Bearer sk-local"},
                                              json={"model": "stub-writer",
                                                    "messages": [{"role": "user", "content": f"{tag} raw {i}"}]})
                        r.json()["choices"][0]["message"]["content"]
                    await bounded(args.calls, args.concurrency, one)

            async def lite() -> None:
                async def one(i: int) -> None:
                    await litellm.acompletion(model="openai/stub-writer", timeout=30, max_retries=0,
                                              messages=[{"role": "user", "content": f"{tag} lite {i}"}], **params)
                await bounded(args.calls, args.concurrency, one)

            with tempfile.TemporaryDirectory() as store:
                gw = gateway(base_url, store, args.concurrency)

                async def ours() -> None:
                    async def one(i: int) -> None:
                        await gw.complete("writer", [{"role": "user", "content": f"{tag} gateway {i}"}], "bench")
                    await bounded(args.calls, args.concurrency, one)

                measured = {"httpx": cpu(lambda: asyncio.run(raw())), "litellm": cpu(lambda: asyncio.run(lite())),
                            "gateway (miss)": cpu(lambda: asyncio.run(ours())), "gateway (hit)": cpu(lambda: asyncio.run(ours()))}
            if rep:
                for k, v in measured.items():
                    times[k].append(v / args.calls * 1000)
    finally:
        stop.set()
        server.join(timeout=10)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"CPU ms per call, {args.calls} calls at concurrency {args.concurrency}, median of {args.repeats}")
    print("| path | CPU ms / call | x raw httpx |")
    print("|---|---|---|")
    for k, v in med.items():
        print(f"| {k} | {v:.3f} | {v / med['httpx']:.2f} |")
    print(f"ours (gateway miss - litellm): {med['gateway (miss)'] - med['litellm']:.3f} ms per call; "
          f"gateway miss / litellm = {med['gateway (miss)'] / med['litellm']:.2f}")


if __name__ == "__main__":
    main()
