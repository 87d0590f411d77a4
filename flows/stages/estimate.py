"""The pre-run estimate of a build or a generate pass (``miscue estimate``): per benchmark and
part, the expected model calls, tokens and cost. Requests the exchange store already answers are
free; a published version built with the same cards and models says which cells ended, and its
composite requests are replayed exactly when the same code and configuration built it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.compute as pc

from miscue.flows.registry import adapter_for
from miscue.flows.stages.publish import card_versions, code_version
from miscue import corpus
from miscue.config import CompositeConfig, GenerateConfig, role_models
from miscue.estimate import combine, estimate as predict, estimate_composite, estimate_replay
from miscue.graphs import GraphBuilder
from miscue.llm import Gateway, LLMConfig
from miscue.planning import Planner


def estimate_run(benchmarks: list[str], gen: GenerateConfig, comp: CompositeConfig | None, config: LLMConfig,
                 artifacts: Path, tasks: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """The estimate of every part of every benchmark (or of its task slice), and their total."""
    parts: dict[str, dict[str, Any]] = {}
    gateway = Gateway(config, artifacts / "store")
    previous = _comparable_version(artifacts, config)
    for name in benchmarks:
        adapter = adapter_for(name, tasks=(tasks or {}).get(name))
        graphs = GraphBuilder(adapter).build().graphs
        planner = Planner(adapter)
        outcomes = _cell_outcomes(artifacts, name, previous)
        parts[name] = {"single": predict(adapter, graphs, gen, gateway, planner, outcomes)}
        if comp is not None:
            replay = _replayable_composite(artifacts, name, comp, previous)
            parts[name]["composite"] = (estimate_replay(name, *replay, gateway) if replay is not None
                                        else estimate_composite(adapter, graphs, comp, gateway, planner))
    return {**combine([p for b in parts.values() for p in b.values()]), "benchmarks": parts,
            "models": role_models(config)}


def _comparable_version(artifacts: Path, config: Any) -> tuple[str, dict[str, Any]] | None:
    """The latest version and its manifest when it was built with these cards and models (its
    ledger then says how the same requests went); else None."""
    latest = corpus.latest(artifacts)
    if latest is None:
        return None
    man = corpus.manifest(artifacts, latest)
    if man.get("card_versions") != card_versions() or man.get("models") != role_models(config):
        return None
    return latest, man


def _rows(artifacts: Path, version: str, table: str, benchmark: str) -> list[dict[str, Any]]:
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
    if previous is None:
        return None
    version, man = previous
    if (man.get("code_version") != code_version() or benchmark not in man["config"].get("benchmarks", [])
            or man["config"].get("composite") != comp.model_dump(mode="json")):
        return None
    attempts = [a for a in _rows(artifacts, version, "attempts", benchmark) if a["k"] > 1]
    k_of = {cid: a["k"] for a in attempts for cid in a.get("call_ids") or []}
    calls: dict[int, list[dict[str, Any]]] = {k: [] for k in comp.ks}
    for row in _rows(artifacts, version, "llm_calls", benchmark):
        if row["call_id"] in k_of:
            calls[k_of[row["call_id"]]].append(row)
    return calls, len(attempts)
