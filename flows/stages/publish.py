"""Publishing a build: the runs' records as corpus tables, what the run did, and the new version
(DESIGN section 9)."""

from __future__ import annotations

from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

import pyarrow as pa
from pydantic import BaseModel

from miscue.flows.stages.benchmark import BenchmarkRun
from miscue import corpus, resources, writing
from miscue.config import RunConfig, role_models
from miscue.corpus import graph_store
from miscue.llm import Gateway

@lru_cache(maxsize=1)
def code_version() -> str:
    """Package version plus a hash of the source and prompt files as installed (works without
    git, and changes with uncommitted edits)."""
    try:
        pkg = metadata.version("miscue")
    except metadata.PackageNotFoundError:  # pragma: no cover - not installed
        pkg = "0+unknown"
    return f"miscue {pkg}+src.{resources.digest(resources.CODE_PACKAGES, length=12)}"


def card_versions() -> dict[str, str]:
    return writing.card_versions()


def run_tables(runs: list[BenchmarkRun]) -> dict[str, list[BaseModel]]:
    """The corpus records of finished benchmark runs (``run_version`` left null: publish fills it)."""
    out: dict[str, list[BaseModel]] = {name: [] for name in corpus.TABLES}
    for run in runs:
        assert run.result is not None and run.graphs is not None
        res = run.result
        types_of: dict[str, set[str]] = {}
        for a in res.attempts:
            for cid in a.call_ids or []:
                types_of.setdefault(cid, set()).update(a.fault_types or [])
        out["cells"] += res.cells
        out["attempts"] += res.attempts
        out["samples"] += res.samples
        out["llm_calls"] += [c.model_copy(update={"fault_types": sorted(types_of.get(c.call_id, ())), "run_version": None})
                             for c in res.calls]
        g = graph_store.rows(run.graphs)
        for name, table in graph_store.FILES.items():
            out[table] += g[name]
    return out


def arrow_tables(rows: dict[str, list[BaseModel]]) -> dict[str, pa.Table]:
    return {name: corpus.table(name, r) for name, r in rows.items()}


def run_stats(runs: list[BenchmarkRun], gateway: Gateway) -> dict[str, Any]:
    """What this run did (manifest ``run``): model calls made vs answered from the store, and
    what they cost against the run's cap."""
    per = {}
    for r in runs:
        calls = r.result.calls if r.result is not None else []
        made = [c for c in calls if not c.cached]
        per[r.benchmark] = {"requests": len(calls), "model_calls": len(made), "store_hits": len(calls) - len(made),
                            "plans": r.plans, "seconds": r.seconds}
    return {"benchmarks": per, "model_calls": sum(v["model_calls"] for v in per.values()),
            "requests": sum(v["requests"] for v in per.values()),
            "budget": {"spent": round(gateway.spent, 6), "max_cost": gateway.config.max_cost}}


def publish_build(runs: list[BenchmarkRun], *, artifacts: Path, config: RunConfig, gateway: Gateway,
                  skip_unchanged: bool = False) -> dict[str, Any]:
    """Publish the runs as a new version whose parent is the latest one (or, with ``skip_unchanged``,
    publish nothing when every table's content hash and the configuration equal a published
    version's, whichever). ``same_samples_as`` names earlier versions holding the same samples."""
    artifacts = Path(artifacts)
    swept = corpus.sweep_staging(artifacts)  # the build holds the run lock
    tables = arrow_tables(run_tables(runs))
    parent = corpus.latest(artifacts)
    stats = {**run_stats(runs, gateway), "swept_staging": swept}
    hashes = {n: corpus.content_hash_table(n, t) for n, t in tables.items()}
    if skip_unchanged and (same := corpus.same_content(artifacts, hashes, config_hash=config.hash)):
        return {"version": None, "unchanged_from": same[-1], "parent": parent, "content_hashes": hashes, "run": stats}
    same_samples = corpus.same_content(artifacts, hashes, tables=("samples",))
    version = corpus.publish(
        tables, artifacts=artifacts, parent=parent, config=config.record(), code_version=code_version(),
        input_hashes={r.benchmark: r.adapter.input_hashes() for r in runs}, models=role_models(gateway.config),
        card_versions=card_versions(), extra={"kind": "build", "run": stats})
    return {"version": version, "parent": parent, "content_hashes": hashes, "run": stats, "same_samples_as": same_samples}
