"""The fast tau2 path against tau2's naive path on the recipes of every node of the built graphs.

    .venv/bin/python perf/bench_fast_path_equivalence.py [--per-node 2] [--domain retail ...]

For each domain: the golden actions of every task and the first ``--per-node`` recipes of every
node of the graphs (``0``: all of them; settled intents give nodes dozens of equivalent recipes:
3,115 retail and 904 airline, ~25 minutes) are run both ways
(:func:`miscue.adapters.tau2.exec.compare_paths`): the fast state digests must partition them exactly as
the naive hashes do, with identical per-call errors, and the database must end pristine. Prints
the recipe count, the seconds and any disagreement; exits 1 on one. The test suite runs a sample
of the same recipes (tests/integration/test_fast_path.py).
"""

from __future__ import annotations

import argparse
import sys
import time

from miscue.adapters.tau2 import Tau2Adapter
from miscue.adapters.tau2.exec import compare_paths
from miscue.graphs import GraphBuilder


def recipes(domain: str, per_node: int) -> list:
    adapter = Tau2Adapter(domain)
    build = GraphBuilder(adapter).build()
    calls = {adapter.golden_calls(s) for s in adapter.load_seeds()}
    for g in build.graphs:
        for node in g.nodes:
            ordered = sorted((r.calls for r in adapter.compile(node.intent)), key=str)
            calls.update(ordered[:per_node] if per_node else ordered)
    return sorted(calls, key=str)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-node", type=int, default=2, help="recipes per node (0: every recipe)")
    ap.add_argument("--domain", action="append", choices=["retail", "airline"])
    args = ap.parse_args()
    failed = False
    print("| domain | recipes | seconds | disagreements |")
    print("|---|---|---|---|")
    for domain in args.domain or ["retail", "airline"]:
        todo = recipes(domain, args.per_node)
        started = time.perf_counter()
        result = compare_paths(domain, todo)
        print(f"| {domain} | {result.recipes} | {time.perf_counter() - started:.0f} | {len(result.disagreements)} |")
        for d in result.disagreements[:10]:
            print(f"  {d}", file=sys.stderr)
        failed |= not result.ok
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
