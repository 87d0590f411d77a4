"""Budget commands of ``miscue``: ``estimate`` (a pre-run estimate of calls, tokens and cost)
and ``run-single`` (a single-fault run with a model configuration file and an optional
``--max-cost`` cap). Registered on the ``app`` of :mod:`flows.cli` (which imports this module).

Both take ``--llm-config FILE``: a JSON :class:`miscue.llm.LLMConfig` (the three roles, limits,
``prices``); without it the embedded offline models are used. ``--price USD`` sets one price per
token (prompt and completion) for every role's model, for models that report no cost (the offline
baselines, self-hosted servers). Exit codes of ``run-single``: 0 done, 2 bad input, 3 stopped
cleanly (budget reached, terminal provider error: rerun to resume), 4 another run holds the
artifacts directory's lock.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer

from miscue.host import HostDataError
from flows.cli import DEFAULT_ARTIFACTS, LLM_CONFIG, MAX_COST, PRICE, _fail, app, err, out, run_exit_codes
from flows.registry import UnknownBenchmark, adapter_for
from miscue.config import model_options, role_models


def _gen_config(attempts: int, fault_types: list[str] | None) -> Any:
    from flows.generate import GenerateConfig
    from miscue.taxonomy import FAULT_TYPES, fault_type

    for t in fault_types or []:
        fault_type(t)  # ValueError naming the unknown type and the known ones
    return GenerateConfig(attempts=attempts, fault_types=fault_types or list(FAULT_TYPES))


@app.command()
def estimate(
    benchmark: Optional[list[str]] = typer.Option(None, "--benchmark", "-b", help="repeatable; default: every registered benchmark"),
    fault_type_: Optional[list[str]] = typer.Option(None, "--fault-type", "-t", help="restrict to these fault types (repeatable)"),
    attempts: int = typer.Option(4, min=1, help="attempts per cell"),
    composite: Optional[str] = typer.Option(None, "--composite", help="include composites of these k, e.g. 2,4 (as `build --composite`)"),
    llm_config: Optional[Path] = LLM_CONFIG,
    price: Optional[float] = PRICE,
    as_json: bool = typer.Option(False, "--json"),
    artifacts: Path = typer.Option(DEFAULT_ARTIFACTS),
) -> None:
    """Predict the model calls, tokens and cost of a build (or a run-single) before running it;
    requests the exchange store already answers are free and counted apart."""
    from flows import pipeline
    from flows.composite import CompositeConfig, parse_ks
    from miscue.estimate import combine, estimate as predict, estimate_composite, estimate_replay
    from miscue.graphs import GraphBuilder
    from miscue.llm import Gateway
    from miscue.planning import Planner

    parts: dict[str, dict[str, Any]] = {}
    try:
        config = model_options(llm_config, price=price).resolve()
        gen = _gen_config(attempts, fault_type_)
        names = pipeline.check_benchmarks(benchmark)
        comp = CompositeConfig(ks=parse_ks(composite)) if composite else None  # as build: every type
        gateway = Gateway(config, artifacts / "store")
        previous = _comparable_version(artifacts, config)
        for name in names:
            adapter = adapter_for(name)
            graphs = GraphBuilder(adapter).build().graphs
            planner = Planner(adapter)
            outcomes = _cell_outcomes(artifacts, name, previous)
            parts[name] = {"single": predict(adapter, graphs, gen, gateway, planner, outcomes)}
            if comp is not None:
                replay = _replayable_composite(artifacts, name, comp, previous)
                parts[name]["composite"] = (estimate_replay(name, *replay, gateway) if replay is not None
                                            else estimate_composite(adapter, graphs, comp, gateway, planner))
    except (UnknownBenchmark, HostDataError, ValueError) as exc:
        _fail(str(exc))
    result = {**combine([p for b in parts.values() for p in b.values()]), "benchmarks": parts,
              "models": role_models(config)}
    if as_json:
        out.print_json(json.dumps(result))
        return
    from rich.table import Table

    table = Table(title="estimate: expected values; requests the store answers are free")
    for col in ("benchmark", "part", "planned", "attempts", "calls", "stored", "prompt tok", "compl. tok", "USD"):
        table.add_column(col, justify="left" if col in ("benchmark", "part") else "right")
    for name, bench in parts.items():
        for part, e in bench.items():
            size = (f"{e['planned_cells']}" if part == "single"
                    else str(round(sum(v.get("expected_draws", v.get("requests", 0)) for v in e["per_k"].values()), 1)))
            table.add_row(name, part, size, str(e["expected_attempts"]), str(e["calls"]), str(e["store_hits"]),
                          str(e["prompt_tokens"]), str(e["completion_tokens"]), f"{e['cost']:.4f}")
    table.add_row("total", "", "", str(result["expected_attempts"]), str(result["calls"]), str(result["store_hits"]),
                  str(result["prompt_tokens"]), str(result["completion_tokens"]), f"{result['cost']:.4f}")
    out.print(table)


def _comparable_version(artifacts: Path, config: Any) -> tuple[str, dict[str, Any]] | None:
    """The latest version and its manifest when it was built with these cards and models (its
    ledger then says how the same requests went); else None."""
    from flows import pipeline
    from miscue import corpus
    from miscue.config import role_models

    latest = corpus.latest(artifacts)
    if latest is None:
        return None
    man = corpus.manifest(artifacts, latest)
    if man.get("card_versions") != pipeline.card_versions() or man.get("models") != role_models(config):
        return None
    return latest, man


def _rows(artifacts: Path, version: str, table: str, benchmark: str) -> list[dict[str, Any]]:
    import pyarrow.compute as pc

    from miscue import corpus

    tbl = corpus.read_table(artifacts, version, table)
    return tbl.filter(pc.equal(tbl.column("benchmark"), benchmark)).to_pylist()


def _cell_outcomes(artifacts: Path, benchmark: str, previous: tuple[str, dict[str, Any]] | None) -> dict[str, str]:
    """cell id -> admitted / rejected of the comparable version's single-fault cells."""
    if previous is None:
        return {}
    return {c["cell_id"]: c["status"] for c in _rows(artifacts, previous[0], "cells", benchmark)
            if c["k"] == 1 and c["status"] in ("admitted", "rejected")}


def _replayable_composite(artifacts: Path, benchmark: str, comp: Any, previous: tuple[str, dict[str, Any]] | None
                          ) -> tuple[dict[int, list[dict[str, Any]]], int] | None:
    """The comparable version's composite requests of ``benchmark`` (per k) and its number of
    composite attempts, when that version was also built by this code and this composite
    configuration (so a build now repeats exactly those requests); else None."""
    from flows import pipeline

    if previous is None:
        return None
    version, man = previous
    wanted = {"ks": comp.ks, **comp.model_dump(mode="json", exclude={"ks"})}
    if man.get("code_version") != pipeline.code_version() or man["config"].get("composite", {}).get(benchmark) != wanted:
        return None
    attempts = [a for a in _rows(artifacts, version, "attempts", benchmark) if a["k"] > 1]
    k_of = {cid: a["k"] for a in attempts for cid in a.get("call_ids") or []}
    calls: dict[int, list[dict[str, Any]]] = {k: [] for k in comp.ks}
    for row in _rows(artifacts, version, "llm_calls", benchmark):
        if row["call_id"] in k_of:
            calls[k_of[row["call_id"]]].append(row)
    return calls, len(attempts)


@app.command("run-single")
def run_single(
    benchmark: str = typer.Option(..., "--benchmark", "-b"),
    fault_type_: Optional[list[str]] = typer.Option(None, "--fault-type", "-t", help="restrict to these fault types (repeatable)"),
    attempts: int = typer.Option(4, min=1, help="attempts per cell"),
    llm_config: Optional[Path] = LLM_CONFIG,
    max_cost: Optional[float] = MAX_COST,
    price: Optional[float] = PRICE,
    max_concurrent_cells: int = typer.Option(16, min=1),
    wait: bool = typer.Option(False, "--wait", help="wait for another run's lock instead of refusing"),
    as_json: bool = typer.Option(False, "--json"),
    artifacts: Path = typer.Option(DEFAULT_ARTIFACTS),
) -> None:
    """Single-fault run of one benchmark with a model configuration and an optional cost cap;
    the ledger goes to artifacts/runs/<benchmark>/ (under the artifacts directory's run lock)."""
    from flows.generate import run_benchmark
    from miscue import ledger
    from miscue.llm import Gateway
    from miscue.runlock import run_lock

    try:
        config = model_options(llm_config, max_cost=max_cost, price=price).resolve()
        gen = _gen_config(attempts, fault_type_).model_copy(update={"max_concurrent_cells": max_concurrent_cells})
        adapter = adapter_for(benchmark)
    except (UnknownBenchmark, HostDataError, ValueError) as exc:
        _fail(str(exc))
    gateway = Gateway(config, artifacts / "store")
    try:
        with run_exit_codes(), run_lock(artifacts, command=f"miscue run-single --benchmark {benchmark}", wait=wait):
            run = run_benchmark(adapter, artifacts, gen, gateway=gateway)
            directory = ledger.write_tables(run.tables(), artifacts / "runs" / benchmark, run.summary)
    except HostDataError as exc:
        _fail(str(exc))
    summary = {**run.summary, "directory": str(directory), "spent": round(gateway.spent, 6)}
    if as_json:
        out.print_json(json.dumps(summary, default=str))
    else:
        out.print(f"{benchmark}: {summary['cells']} cells, {summary['admitted']} admitted, spent {summary['spent']} USD; "
                  f"ledger in {directory}")
    err.print(f"done: {benchmark}")
