"""``miscue generate``: the single-fault pass without publishing (graphs, every cell, the ledger
under ``artifacts/runs/<benchmark>/``), with any model configuration and an optional cost cap."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from miscue.flows.cli.app import (ARTIFACTS, AS_JSON, LLM_CONFIG, MAX_COST, OFFLINE_REPLAY, PRICE, PROMPTS_OUT, QUIET,
                                  TASKS, app, err, exit_codes, exported, models_or_fail, out, parse_tasks, pct, print_json)
from miscue.flows.cli.progress import progress, progress_mode
from miscue.flows.registry import ADAPTERS
from miscue.flows.stages.benchmark import check_benchmarks, check_fault_types, make_gateway
from miscue.config import GenerateConfig
from miscue.llm import PromptsExported


def _table(s: dict[str, Any]) -> Table:
    t = Table(title=f"single-fault run: {s['benchmark']} ({s['graphs']} graphs, {s['cells']} cells, "
                    f"{s['admitted']} admitted, cell rejection {pct(s['cell_rejection_rate'])})")
    for col in ("fault type", "cells", "admitted", "cell rej.", "attempt rej.", "agreement", "skipped", "unsupported"):
        t.add_column(col, justify="right" if col != "fault type" else "left", overflow="fold")
    for ft, v in s["per_type"].items():
        t.add_row(ft, str(v["cells"]), str(v["admitted"]), pct(v["cell_rejection_rate"]), pct(v["attempt_rejection_rate"]),
                  pct(v["extractor_agreement"]), str(v["skipped"]), str(v["unsupported"]))
    return t


@app.command()
def generate(
    benchmark: list[str] = typer.Option(list(ADAPTERS), "--benchmark", "-b", help="repeatable"),
    attempts: int = typer.Option(4, min=1, help="attempts per cell"),
    task: Optional[list[str]] = TASKS,
    fault_type_: Optional[list[str]] = typer.Option(None, "--fault-type", "-t",
                                                    help="restrict to these fault types (repeatable)"),
    llm_config: Optional[Path] = LLM_CONFIG,
    max_cost: Optional[float] = MAX_COST,
    price: Optional[float] = PRICE,
    replay_only: bool = OFFLINE_REPLAY,
    prompts_out: Optional[Path] = PROMPTS_OUT,
    max_concurrent_cells: int = typer.Option(16, min=1, help="cells run at once"),
    wait: bool = typer.Option(False, "--wait", help="wait for another run's lock instead of refusing"),
    as_json: bool = AS_JSON,
    quiet: bool = QUIET,
    artifacts: Path = ARTIFACTS,
) -> None:
    """Single-fault generate-then-verify over every graph, without publishing (offline models
    unless configured); the ledger goes to artifacts/runs/<benchmark>/. One gateway serves every
    benchmark, so --max-cost caps the whole command."""
    models = models_or_fail(llm_config, max_cost, price, replay_only, prompts_out)
    with exit_codes():
        names = check_benchmarks(benchmark)
        gen = GenerateConfig(attempts=attempts, fault_types=check_fault_types(fault_type_),
                             max_concurrent_cells=max_concurrent_cells)
        tasks = parse_tasks(task, names)
    from miscue.flows.stages.build import generate as generate_pass  # writes Parquet: imported when generating

    gateway = make_gateway(artifacts, models)
    results, waiting = [], 0
    for bench in names:
        with exit_codes(), progress(progress_mode(quiet, as_json)):
            try:
                summary = generate_pass(bench, artifacts, gen, gateway, lock_wait=wait, tasks=(tasks or {}).get(bench))
            except PromptsExported as exc:  # --prompts-out: every benchmark's requests go out in the same round
                waiting += exc.waiting
                continue
        summary["spent"] = round(gateway.spent, 6)
        results.append(summary)
        if not as_json:
            out.print(_table(summary))
            for u in summary["unsupported"]:
                out.print(f"[yellow]unsupported[/] {u['fault_type']}: {u['reason']}")
            out.print(f"ledger: {summary['directory']}; spent {summary['spent']} USD")
        if not quiet:
            err.print(f"done: {bench}")
    if waiting:
        with exit_codes(), exported(models, artifacts):
            raise PromptsExported(waiting)
    if as_json:
        print_json(results[0] if len(results) == 1 else {"benchmarks": results})
