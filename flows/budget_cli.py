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

from adapters.base import HostDataError
from flows.cli import DEFAULT_ARTIFACTS, _fail, app, err, out
from flows.registry import UnknownBenchmark, adapter_for


def load_llm_config(path: Path | None, max_cost: float | None = None, price: float | None = None) -> Any:
    """The run's :class:`LLMConfig`: from ``path`` (JSON) or the offline baselines, with the cap
    and a flat per-token price applied. Raises ValueError naming the file and the problem."""
    from pydantic import ValidationError

    from flows.generate import offline_llm_config
    from miscue.llm import LLMConfig

    if path is None:
        config = offline_llm_config()
    else:
        try:
            raw = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ValueError(f"model configuration {path} does not exist") from None
        except ValueError as exc:
            raise ValueError(f"model configuration {path} is not valid JSON: {exc}") from None
        try:
            config = LLMConfig.model_validate(raw)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(top level)'}: {e['msg']}"
                                 for e in exc.errors())
            raise ValueError(f"model configuration {path} is invalid: {problems}") from None
    update: dict[str, Any] = {}
    if max_cost is not None:
        if max_cost < 0:
            raise ValueError(f"--max-cost must be >= 0, got {max_cost}")
        update["max_cost"] = max_cost
    if price is not None:
        update["prices"] = {**config.prices, **{config.role(r).model: (price, price)
                                                for r in ("writer", "extractor_a", "extractor_b")}}
    if update:
        config = LLMConfig.model_validate({**config.model_dump(), **update})
    if any(config.role(r).provider == "offline" for r in ("writer", "extractor_a", "extractor_b")):
        from miscue.offline.provider import register

        register()
    return config


def _gen_config(attempts: int, fault_types: list[str] | None) -> Any:
    from flows.generate import GenerateConfig
    from miscue.taxonomy import FAULT_TYPES, fault_type

    for t in fault_types or []:
        fault_type(t)  # ValueError naming the unknown type and the known ones
    return GenerateConfig(attempts=attempts, fault_types=fault_types or list(FAULT_TYPES))


@app.command()
def estimate(
    benchmark: str = typer.Option(..., "--benchmark", "-b"),
    fault_type_: Optional[list[str]] = typer.Option(None, "--fault-type", "-t", help="restrict to these fault types (repeatable)"),
    attempts: int = typer.Option(4, min=1, help="attempts per cell"),
    llm_config: Optional[Path] = typer.Option(None, "--llm-config", help="JSON LLMConfig (default: offline models)"),
    price: Optional[float] = typer.Option(None, "--price", help="USD per token for every role's model"),
    as_json: bool = typer.Option(False, "--json"),
    artifacts: Path = typer.Option(DEFAULT_ARTIFACTS),
) -> None:
    """Predict the model calls, tokens and cost of a single-fault run (store hits are free)."""
    from miscue.estimate import estimate as predict
    from miscue.graphs import GraphBuilder
    from miscue.llm import Gateway

    try:
        config = load_llm_config(llm_config, price=price)
        gen = _gen_config(attempts, fault_type_)
        adapter = adapter_for(benchmark)
        graphs = GraphBuilder(adapter).build().graphs
        result = predict(adapter, graphs, gen, Gateway(config, artifacts / "store"))
    except (UnknownBenchmark, HostDataError, ValueError) as exc:
        _fail(str(exc))
    if as_json:
        out.print_json(json.dumps(result))
        return
    out.print(f"estimate for {benchmark}: {result['planned_cells']} planned cells of {result['cells']}, "
              f"~{result['expected_attempts']} attempts, ~{result['calls']} model calls "
              f"({result['store_hits']} answered by the store), ~{result['prompt_tokens']} prompt + "
              f"~{result['completion_tokens']} completion tokens, ~{result['cost']:.6f} USD")


@app.command("run-single")
def run_single(
    benchmark: str = typer.Option(..., "--benchmark", "-b"),
    fault_type_: Optional[list[str]] = typer.Option(None, "--fault-type", "-t", help="restrict to these fault types (repeatable)"),
    attempts: int = typer.Option(4, min=1, help="attempts per cell"),
    llm_config: Optional[Path] = typer.Option(None, "--llm-config", help="JSON LLMConfig (default: offline models)"),
    max_cost: Optional[float] = typer.Option(None, "--max-cost", help="stop cleanly before spending more than this (USD)"),
    price: Optional[float] = typer.Option(None, "--price", help="USD per token for every role's model"),
    max_concurrent_cells: int = typer.Option(16, min=1),
    wait: bool = typer.Option(False, "--wait", help="wait for another run's lock instead of refusing"),
    as_json: bool = typer.Option(False, "--json"),
    artifacts: Path = typer.Option(DEFAULT_ARTIFACTS),
) -> None:
    """Single-fault run of one benchmark with a model configuration and an optional cost cap;
    the ledger goes to artifacts/runs/<benchmark>/ (under the artifacts directory's run lock)."""
    from flows.generate import run_benchmark
    from miscue import ledger
    from miscue.llm import Gateway, StoreCorrupt, StoreMiss, TerminalProviderError
    from miscue.runlock import RunLocked, run_lock

    try:
        config = load_llm_config(llm_config, max_cost=max_cost, price=price)
        gen = _gen_config(attempts, fault_type_).model_copy(update={"max_concurrent_cells": max_concurrent_cells})
        adapter = adapter_for(benchmark)
    except (UnknownBenchmark, HostDataError, ValueError) as exc:
        _fail(str(exc))
    gateway = Gateway(config, artifacts / "store")
    try:
        with run_lock(artifacts, command=f"miscue run-single --benchmark {benchmark}", wait=wait):
            run = run_benchmark(adapter, artifacts, gen, gateway=gateway)
            directory = ledger.write_tables(run.tables(), artifacts / "runs" / benchmark, run.summary)
    except RunLocked as exc:
        _fail(str(exc), 4)
    except HostDataError as exc:
        _fail(str(exc))
    except StoreCorrupt as exc:
        _fail(str(exc))
    except (StoreMiss, TerminalProviderError) as exc:
        _fail(f"the run stopped cleanly (finished exchanges are kept in the store; rerun to resume): {exc}", 3)
    summary = {**run.summary, "directory": str(directory), "spent": round(gateway.spent, 6)}
    if as_json:
        out.print_json(json.dumps(summary, default=str))
    else:
        out.print(f"{benchmark}: {summary['cells']} cells, {summary['admitted']} admitted, spent {summary['spent']} USD; "
                  f"ledger in {directory}")
    err.print(f"done: {benchmark}")
