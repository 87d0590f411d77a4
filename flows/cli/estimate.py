"""``miscue estimate``: the model calls, tokens and cost of a build before running it."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from miscue.flows.cli.app import (ARTIFACTS, AS_JSON, COMPOSITE, LLM_CONFIG, PRICE, TASKS, app, default_ks, exit_codes,
                                  models_or_fail, out, parse_tasks, print_json)
from miscue.flows.stages.benchmark import check_benchmarks, check_fault_types
from miscue.config import CompositeConfig, GenerateConfig


@app.command()
def estimate(
    benchmark: Optional[list[str]] = typer.Option(None, "--benchmark", "-b",
                                                  help="repeatable; default: every registered benchmark"),
    fault_type_: Optional[list[str]] = typer.Option(None, "--fault-type", "-t",
                                                    help="restrict to these fault types (repeatable)"),
    attempts: int = typer.Option(4, min=1, help="attempts per cell"),
    task: Optional[list[str]] = TASKS,
    composite: Optional[str] = COMPOSITE,
    llm_config: Optional[Path] = LLM_CONFIG,
    price: Optional[float] = PRICE,
    as_json: bool = AS_JSON,
    artifacts: Path = ARTIFACTS,
) -> None:
    """Predict the model calls, tokens and cost of a build (or a generate pass) before running it;
    requests the exchange store already answers are free and counted apart."""
    config = models_or_fail(llm_config, price=price).resolve()
    with exit_codes():
        gen = GenerateConfig(attempts=attempts, fault_types=check_fault_types(fault_type_))
        names = check_benchmarks(benchmark)
        ks = default_ks(composite, fault_type_)  # as build: composites of every type unless told otherwise
        comp = CompositeConfig(ks=ks) if ks else None
        from miscue.flows.stages.estimate import estimate_run  # reads the corpus tables: imported when estimating

        result = estimate_run(names, gen, comp, config, artifacts, parse_tasks(task, names))
    parts = result["benchmarks"]
    if as_json:
        print_json(result)
        return
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
