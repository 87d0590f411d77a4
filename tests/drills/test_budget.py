"""Drill: budgets (DESIGN section 8). `miscue estimate` predicts calls, tokens and cost of a
single-fault run (offline models priced at 1e-6 USD per token); a run with --max-cost below the
estimate stops cleanly (exit 3, 'budget', finished exchanges stored); a rerun with a higher cap
resumes from the store and completes; the actual spend (sum of the stored exchanges' costs,
each call paid once) is within 25% of the estimate, and so are calls and prompt tokens; the
estimate made after the stop is within 25% of the calls the resumed run still made.
"""

from __future__ import annotations

import json

from support.drills import SLICE, BENCH, FAULT, cli, run, store_files

PRICE = "0.000001"
TOLERANCE = 0.25


def test_estimate_cap_stop_and_resume(tmp_path):
    art = tmp_path / "art"
    common = ["-b", BENCH, "--task", SLICE, "-t", FAULT, "--attempts", "2", "--price", PRICE, "--artifacts", str(art)]
    est = run(cli("estimate", *common, "--json"), timeout=120)
    assert est.returncode == 0, est.stderr
    predicted = json.loads(est.stdout)
    assert predicted["store_hits"] == 0 and predicted["calls"] > 0 and predicted["cost"] > 0

    cap = round(predicted["cost"] * 0.3, 6)
    capped = run(cli("generate", *common, "--max-cost", str(cap)), timeout=120)
    text = " ".join((capped.stdout + capped.stderr).split())
    assert capped.returncode == 3, text[-2000:]
    assert "budget" in text and "stopped cleanly" in text and "rerun" in text
    partial = [json.loads(p.read_text()) for p in store_files(art)]
    spent_capped = sum(r["cost"] for r in partial)
    assert 0 < len(partial) and spent_capped <= cap + 1e-9, (spent_capped, cap)
    assert not (art / "runs" / BENCH).exists(), "no ledger is written for a stopped run"

    est2 = json.loads(run(cli("estimate", *common, "--json"), timeout=120).stdout)
    assert est2["store_hits"] > 0 and est2["calls"] < predicted["calls"]

    resumed = run(cli("generate", *common, "--max-cost", str(round(predicted["cost"] * 3, 6)), "--json"), timeout=120)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    records = [json.loads(p.read_text()) for p in store_files(art)]
    actual_calls = len(records)
    actual_prompt = sum(r["usage"]["prompt_tokens"] for r in records)
    actual_cost = sum(r["cost"] for r in records)
    remaining = actual_calls - len(partial)  # what the resumed run had still to call
    assert abs(est2["calls"] - remaining) <= TOLERANCE * remaining, f"estimate after the stop {est2['calls']} vs {remaining}"
    for name, est_v, act in (("calls", predicted["calls"], actual_calls),
                             ("prompt_tokens", predicted["prompt_tokens"], actual_prompt),
                             ("cost", predicted["cost"], actual_cost)):
        assert abs(est_v - act) <= TOLERANCE * act, f"{name}: estimate {est_v} vs actual {act}"
    print(f"estimate calls={predicted['calls']} prompt={predicted['prompt_tokens']} cost={predicted['cost']:.6f}; "
          f"actual calls={actual_calls} prompt={actual_prompt} cost={actual_cost:.6f}; cap {cap} stopped after "
          f"{len(partial)} calls spending {spent_capped:.6f}; "
          f"estimate after stop: calls={est2['calls']} hits={est2['store_hits']}")


def test_budget_exceeded_is_a_terminal_error_in_the_gateway(tmp_path):
    import asyncio

    import pytest

    from miscue.config import offline_llm_config
    from miscue.llm import BudgetExceeded, Gateway, TerminalProviderError
    from miscue.offline.provider import register

    register()
    config = offline_llm_config(max_cost=0.0, prices={"offline/writer": (1e-6, 1e-6)})
    gw = Gateway(config, tmp_path / "store")
    with pytest.raises(BudgetExceeded) as info:
        asyncio.run(gw.complete("writer", [{"role": "user", "content": "write something"}], "v1"))
    assert isinstance(info.value, TerminalProviderError) and info.value.kind == "budget"
    assert list((tmp_path / "store").rglob("*.json")) == [], "a refused call writes nothing"


def test_estimate_after_a_published_build_is_exact(tmp_path):
    """After a build, `miscue estimate` of the same build predicts zero model calls (single-fault
    cells and composites: every request is in the store and replays the same way), and with one
    more attempt per cell it predicts exactly one new attempt per rejected cell. On the drills'
    slice of airline (SLICE: 219 calls, 3 cells rejected at one attempt), not the whole host."""
    import duckdb

    from miscue.flows.stages import build as pipeline

    types = [FAULT, "factual_error"]
    out = pipeline.build([BENCH], types, attempts=1, artifacts=tmp_path, composite_ks=[2], tasks={BENCH: SLICE.split(",")})
    root = tmp_path / "corpora" / out["version"]
    rejected, calls = duckdb.connect().execute(
        f"select (select count(*) from '{root}/cells.parquet' where k = 1 and status = 'rejected'), "
        f"(select count(*) from '{root}/llm_calls.parquet')").fetchone()
    common = ["-b", BENCH, "--task", SLICE, "-t", types[0], "-t", types[1], "--composite", "2", "--price", PRICE,
              "--artifacts", str(tmp_path), "--json"]
    same = json.loads(run(cli("estimate", "--attempts", "1", *common), timeout=120).stdout)
    part = same["benchmarks"][BENCH]
    assert same["calls"] == 0 and same["cost"] == 0, same
    assert part["composite"]["method"] == "replay of a published version"
    assert part["composite"]["store_hits"] > 0 and part["single"]["store_hits"] > 0
    assert same["store_hits"] <= calls

    more = json.loads(run(cli("estimate", "--attempts", "2", *common), timeout=120).stdout)
    extra = more["benchmarks"][BENCH]["single"]["expected_attempts"] - part["single"]["expected_attempts"]
    assert rejected > 0 and extra == rejected, (extra, rejected)
    assert more["calls"] > 0 and more["benchmarks"][BENCH]["composite"]["calls"] == 0
    print(f"rebuild estimate: 0 calls, {same['store_hits']} store hits (build made {calls}); "
          f"--attempts 2: {extra} more attempts for {rejected} rejected cells, ~{more['calls']} calls")
