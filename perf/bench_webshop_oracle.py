"""Cost of the WebShop oracle on the shipped catalogue (or a WebShop data directory).

    .venv/bin/python perf/bench_webshop_oracle.py [--data DIR] [--repeat 3]      (the venv has the project installed)

Intents = every node of the built graphs (roots and children). Measured, in one run:
  naive     WebShop's reward, in full, for every product of the intent's cluster (one full
            option choice each): products scored per second
  scan cold a fresh cluster oracle per intent (every predicate evaluated anew): products/s
  scan warm the adapter's memoised oracle: products/s
  GT cold   ground truth from scratch (fresh oracle + exact re-scoring of every purchase), ms/intent
  GT warm   ground truth with the memoised predicates (compile cache bypassed), ms/intent
Prints medians and the ratios side by side.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from miscue.adapters.webshop import WebShopAdapter
from miscue.adapters.webshop.oracle import ClusterOracle, all_purchases
from miscue.adapters.webshop.reward import reward
from miscue.graphs import GraphBuilder


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=None, help="WebShop data directory (default: the shipped catalogue)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    adapter = WebShopAdapter(args.data)
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    build = GraphBuilder(adapter).build()
    build_s = time.perf_counter() - t0
    intents = list({n.intent.intent_id: n.intent for g in build.graphs for n in g.nodes}.values())
    specs = [(i, adapter._spec(i)) for i in intents]

    naive_rates, cold_rates, warm_rates, gt_cold, gt_warm = [], [], [], [], []
    for _ in range(args.repeat):
        n = 0
        t0 = time.perf_counter()
        for _, spec in specs:
            for p in adapter.catalogue.load_cluster(spec.cluster):
                reward(p, spec.goal, p.price, next(iter(all_purchases(p))), adapter.tagger)
                n += 1
        naive_rates.append(n / (time.perf_counter() - t0))

        n = 0
        t0 = time.perf_counter()
        for _, spec in specs:
            products = adapter.catalogue.load_cluster(spec.cluster)
            ClusterOracle(products, adapter.tagger).purchases(spec.goal)
            n += len(products)
        cold_rates.append(n / (time.perf_counter() - t0))

        n = 0
        t0 = time.perf_counter()
        for _, spec in specs:
            oracle = adapter._oracle(spec.cluster)
            oracle.purchases(spec.goal)
            n += len(oracle.products)
        warm_rates.append(n / (time.perf_counter() - t0))

        for intent, _ in specs:
            t0 = time.perf_counter()
            adapter.reexecute(intent)
            gt_cold.append((time.perf_counter() - t0) * 1000)
            adapter._compiled.pop(intent.intent_id, None)
            t0 = time.perf_counter()
            adapter.ground_truth(intent)
            gt_warm.append((time.perf_counter() - t0) * 1000)

    clusters = {s.cluster for _, s in specs}
    mean_cluster = statistics.mean(len(adapter.catalogue.load_cluster(c)) for c in clusters)
    print(f"catalogue: {adapter.data_dir}  ({adapter.catalogue.products_loaded} products, "
          f"{len(adapter.catalogue.clusters)} clusters, "
          f"{len(adapter.catalogue.goals)} goals; type factor {adapter.type_factor})")
    print(f"load {load_s * 1000:.0f} ms; graphs {len(build.graphs)} built in {build_s:.2f} s; "
          f"{len(intents)} intents over {len(clusters)} clusters (mean cluster {mean_cluster:.1f} products)")
    naive, cold, warm = (statistics.median(x) for x in (naive_rates, cold_rates, warm_rates))
    print(f"{'oracle path':28s} {'products/s':>12s} {'vs naive':>9s}")
    for label, rate in (("naive: full reward()", naive), ("scan, cold oracle", cold), ("scan, memoised oracle", warm)):
        print(f"{label:28s} {rate:12,.0f} {rate / naive:8.1f}x")
    print(f"{'ground truth':28s} {'median ms':>12s} {'mean ms':>9s}")
    for label, xs in (("GT per intent, cold", gt_cold), ("GT per intent, memoised", gt_warm)):
        print(f"{label:28s} {statistics.median(xs):12.3f} {statistics.mean(xs):9.3f}")
    print(f"purchases the full reward did not confirm: {adapter.disagreements}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
