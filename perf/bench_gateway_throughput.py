"""Gateway throughput against a local OpenAI-compatible server with a fixed latency.

    python perf/bench_gateway_throughput.py [--calls 96] [--latency 0.1] [--concurrency 8]

A loopback stub answers every chat request after ``latency`` seconds. The gateway makes
``calls`` distinct requests with ``max_concurrency = concurrency``. The ideal wall time is
calls / concurrency * latency; the benchmark prints the measured time and the achieved
fraction of the ideal throughput, then the same calls again (all answered by the exchange
store: zero HTTP requests) as the warm figure.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from miscue.llm import Gateway, LLMConfig, RoleConfig

ROOT = Path(__file__).resolve().parent.parent


async def burst(gateway: Gateway, calls: int, tag: str = "request") -> float:
    started = time.perf_counter()
    await asyncio.gather(*(gateway.complete("writer", [{"role": "user", "content": f"{tag} {i}"}], "bench")
                           for i in range(calls)))
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=96)
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--concurrency", type=int, default=8)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))  # the loopback stub lives in the checkout's tests/, not installed
    from tests.openai_stub import StubServer, reply

    with StubServer(default=reply("fine", delay_s=args.latency)) as stub, tempfile.TemporaryDirectory() as store:
        params = {"api_base": stub.base_url, "api_key": "sk-local"}
        cfg = LLMConfig(writer=RoleConfig(model="openai/stub-writer", params=params),
                        extractor_a=RoleConfig(model="openai/stub-a", params=params),
                        extractor_b=RoleConfig(model="openai/other-b", params=params),
                        max_concurrency=args.concurrency, timeout_s=10)
        gateway = Gateway(cfg, store)
        asyncio.run(burst(gateway, 2, "warm-up"))  # client set-up outside the measurement
        before = stub.request_count
        cold = asyncio.run(burst(gateway, args.calls))
        http_cold = stub.request_count - before
        warm = asyncio.run(burst(gateway, args.calls))
        http_warm = stub.request_count - before - http_cold
    ideal = args.calls / args.concurrency * args.latency
    print(f"calls={args.calls} latency={args.latency}s concurrency={args.concurrency}")
    print("| run | wall s | ideal s | fraction of ideal throughput | HTTP requests |")
    print("|---|---|---|---|---|")
    print(f"| cold | {cold:.2f} | {ideal:.2f} | {ideal / cold:.2f} | {http_cold} |")
    print(f"| warm (store) | {warm:.3f} | - | {cold / warm:.0f}x faster than cold | {http_warm} |")


if __name__ == "__main__":
    main()
