"""Cost of one tau2 recipe execution: tau2's naive path, our fast path, and replay alone.

    .venv/bin/python perf/bench_tau2_exec.py [--n 40]      (the venv has the project installed)

For each domain, recipes are drawn evenly from every node of the built graphs. In one run:
  naive  fresh environment from disk + replay + tau2's hash of the whole database
  fast   our path (replay on the long-lived database, digest and restore what changed)
  floor  replay alone, on environments built beforehand (not timed)
Prints medians (ms) and the ratios fast/floor and naive/fast.
"""

from __future__ import annotations

import argparse
import statistics
import time

from miscue.adapters.tau2 import Tau2Adapter
from miscue.adapters.tau2.exec import FastExecutor, NaiveExecutor, environment_module, replay
from miscue.graphs import GraphBuilder


def recipes_of(domain: str, n: int) -> list:
    adapter = Tau2Adapter(domain)
    build = GraphBuilder(adapter).build()
    calls = sorted({r.calls for g in build.graphs for node in g.nodes for r in adapter.compile(node.intent)}, key=str)
    step = max(1, len(calls) // n)
    return calls[::step][:n]


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def bench(domain: str, n: int) -> dict[str, float]:
    recipes = recipes_of(domain, n)
    fast, naive, module = FastExecutor(domain), NaiveExecutor(domain), environment_module(domain)
    t_naive, t_fast, t_floor = [], [], []
    for calls in recipes:
        env = module.get_environment()  # built beforehand for the floor, not timed
        t0 = time.perf_counter()
        replay(env, calls)
        t1 = time.perf_counter()
        fast.run(calls)
        t2 = time.perf_counter()
        naive.run(calls)
        t3 = time.perf_counter()
        t_floor.append(t1 - t0)
        t_fast.append(t2 - t1)
        t_naive.append(t3 - t2)
    row = {"recipes": len(recipes), "naive_ms": median_ms(t_naive), "fast_ms": median_ms(t_fast), "floor_ms": median_ms(t_floor)}
    row["fast_over_floor"] = row["fast_ms"] / row["floor_ms"]
    row["naive_over_fast"] = row["naive_ms"] / row["fast_ms"]
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=40, help="recipes per domain")
    args = ap.parse_args()
    print("| domain | recipes | naive ms | fast ms | replay-alone ms | fast / replay | naive / fast |")
    print("|---|---|---|---|---|---|---|")
    for domain in ("retail", "airline"):
        r = bench(domain, args.n)
        print(f"| {domain} | {r['recipes']} | {r['naive_ms']:.1f} | {r['fast_ms']:.3f} | {r['floor_ms']:.3f} | "
              f"{r['fast_over_floor']:.1f}x | {r['naive_over_fast']:.0f}x |")


if __name__ == "__main__":
    main()
