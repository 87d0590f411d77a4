"""Whole runs without Prefect: a build (the same stages the Prefect flow runs as tasks) and the
single-fault pass of ``miscue generate`` (no publishing: its ledger goes to ``artifacts/runs/``)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from miscue.flows.stages.benchmark import (check_benchmarks, first_stop, make_gateway, run_config, stage_composite,
                                           stage_graphs, stage_load, stage_plan, stage_write_verify)
from miscue.flows.stages.publish import publish_build
from miscue import reports
from miscue.config import CompositeConfig, GenerateConfig, ModelOptions
from miscue.corpus import ledger
from miscue.llm import Gateway
from miscue.runlock import run_lock


def build(benchmarks: list[str] | None = None, fault_types: list[str] | None = None, attempts: int = 4,
          artifacts: Path = Path("artifacts"), skip_unchanged: bool = False, composite_ks: list[int] | None = None,
          models: ModelOptions | None = None, tasks: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """The whole build without Prefect (the flow runs the same stages as tasks)."""
    artifacts = Path(artifacts)
    with run_lock(artifacts, command="miscue build (no flow)"):
        names = check_benchmarks(benchmarks)
        gen = GenerateConfig(attempts=attempts, **({"fault_types": fault_types} if fault_types else {}))
        composite = CompositeConfig(ks=composite_ks) if composite_ks else None
        gateway = make_gateway(artifacts, models)
        runs = []
        for b in names:
            run = stage_load(b, (tasks or {}).get(b))
            stage_graphs(run)
            stage_plan(run, gen.fault_types, gen.identity)
            stage_write_verify(run, gen, gateway)
            if composite and not run.halted:
                stage_composite(run, composite, gateway)
            if run.halted:
                raise run.stopped  # type: ignore[misc]
            runs.append(run)
        if (stop := first_stop(runs)) is not None:
            raise stop
        config = run_config(runs, gen, composite, gateway.config)
        out = publish_build(runs, artifacts=artifacts, config=config, gateway=gateway, skip_unchanged=skip_unchanged)
        if out["version"]:
            out["report"] = reports.write_report(artifacts, out["version"])
        return out


def generate(benchmark: str, artifacts: Path, gen: GenerateConfig, gateway: Gateway,
             lock_wait: bool = False, tasks: list[str] | None = None) -> dict[str, Any]:
    """One benchmark's single-fault pass (graphs, every cell) without publishing: the ledger
    (cells, attempts, samples, llm_calls) goes to ``artifacts/runs/<benchmark>/``; returns the
    run's summary. The pass holds the artifacts directory's run lock (re-entrant); progress goes
    to the sink of :func:`miscue.flows.stages.benchmark.set_progress`."""
    started = time.perf_counter()
    artifacts = Path(artifacts)
    with run_lock(artifacts, command=f"miscue generate {benchmark}", wait=lock_wait):
        run = stage_plan(stage_graphs(stage_load(benchmark, tasks)), gen.fault_types, gen.identity)
        run = stage_write_verify(run, gen, gateway)
        if run.stopped:
            raise run.stopped
        assert run.result is not None
        summary = {**run.result.summary, "seconds": round(time.perf_counter() - started, 2)}
        directory = ledger.write_tables(run.result.tables(), artifacts / "runs" / benchmark, summary)
    return {**summary, "directory": str(directory)}
