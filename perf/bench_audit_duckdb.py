"""DuckDB audit queries over a million ledger rows.

    python perf/bench_audit_duckdb.py [--rows 1000000]

Writes a synthetic attempts ledger with the real schema (miscue.corpus.SCHEMAS["attempts"])
to a temporary Parquet file, then times the canned audits: rejection funnel by benchmark,
fault type and stage; per-cell rejection rate; top verdict codes; a full-text scan.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

import duckdb
import pyarrow.parquet as pq

from miscue.corpus import table
from miscue.taxonomy import FAULT_TYPES

CODES = ["admitted", "text:too_long", "agree:flaw_mismatch", "agree:slot_mismatch", "admit:withhold_did_not_widen",
         "text:true_value_still_present", "extract:unparseable"]
QUERIES = {
    "funnel by benchmark, type, stage": "select benchmark, fault_types[1] t, stage, count(*) from a group by all",
    "cell rejection rate per type": "select t, avg(rej::int) from (select fault_types[1] t, cell_id, "
                                    "bool_and(not admitted) rej from a group by all) group by t",
    "top verdict codes": "select code, count(*) n from a where not admitted group by code order by n desc limit 10",
    "full text scan": "select count(*) from a where text like '%refund%'",
}


def rows(n: int) -> list[dict]:
    rng = random.Random(7)
    types = list(FAULT_TYPES)
    out = []
    for i in range(n):
        code = rng.choice(CODES)
        out.append({"benchmark": rng.choice(["tau2-retail", "tau2-airline", "webshop"]), "task_id": str(i % 500),
                    "graph_id": f"g{i % 2000:05d}", "cell_id": f"c{i // 3:07d}", "k": 1, "fault_types": [rng.choice(types)],
                    "families": ["x"], "targets": [None], "attempt": i % 3, "query": "please refund my order " * 5,
                    "admitted": code == "admitted", "stage": code.split(":")[0], "code": code, "detail": ""})
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "attempts.parquet"
        t0 = time.perf_counter()
        pq.write_table(table("attempts", rows(args.rows)), path, compression="zstd")
        written = time.perf_counter() - t0
        con = duckdb.connect()
        con.execute(f"create view a as select * from read_parquet('{path}')")
        print(f"{args.rows} attempt rows written in {written:.1f} s ({path.stat().st_size / 1e6:.1f} MB)")
        print("| query | median ms (5 runs) |")
        print("|---|---|")
        for name, sql in QUERIES.items():
            times = []
            for _ in range(5):
                t = time.perf_counter()
                con.execute(sql).fetchall()
                times.append(time.perf_counter() - t)
            print(f"| {name} | {sorted(times)[2] * 1000:.0f} |")


if __name__ == "__main__":
    main()
