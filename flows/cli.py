"""The ``miscue`` command line."""

from __future__ import annotations

import contextlib
import json
import sys
import time
from pathlib import Path
from typing import Any, Iterator, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from miscue.host import HostDataError
from flows.registry import ADAPTERS, UnknownBenchmark, adapter_for

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Verified corpora of miscommunicated requests.")
err = Console(stderr=True)
out = Console()

DEFAULT_ARTIFACTS = Path("artifacts")

# The model options every model-calling command takes (see miscue.config.ModelOptions).
LLM_CONFIG = typer.Option(None, "--llm-config", help="JSON model configuration (LLMConfig); default: the embedded offline models")
MAX_COST = typer.Option(None, "--max-cost", help="stop cleanly (exit 3) before this run spends more than this many USD on model calls")
PRICE = typer.Option(None, "--price", help="USD per token (prompt and completion) for every role's model, for models that report no cost")
OFFLINE_REPLAY = typer.Option(False, "--offline-replay", help="answer every model call from the exchange store; a miss is an error")


@app.callback()
def _root() -> None:
    """miscue: verified corpora of miscommunicated requests over executable agent benchmarks."""


def _fail(message: str, code: int = 2) -> None:
    err.print(f"[bold red]error:[/] {message}")
    raise typer.Exit(code)


@contextlib.contextmanager
def run_exit_codes() -> Iterator[None]:
    """How a model-calling run ends on the command line: 4 another run holds the artifacts
    directory, 3 stopped cleanly (budget, terminal provider error, replay miss: finished
    exchanges are in the store, a rerun resumes), 2 a corrupt store entry, 1 a corpus error."""
    from miscue.corpus import CorpusError
    from miscue.llm import RUN_STOPS, StoreCorrupt
    from miscue.runlock import RunLocked

    try:
        yield
    except RunLocked as exc:
        _fail(str(exc), 4)
    except RUN_STOPS as exc:
        _fail(f"the run stopped cleanly (finished exchanges are kept in the store; rerun to resume): {exc}", 3)
    except StoreCorrupt as exc:
        _fail(str(exc))
    except CorpusError as exc:
        _fail(str(exc), 1)


def model_options_or_fail(llm_config: Path | None, max_cost: float | None = None, price: float | None = None,
                          replay_only: bool = False) -> Any:
    """The command's :class:`~miscue.config.ModelOptions`, checked by resolving them now (a bad
    configuration exits 2 before anything runs)."""
    from miscue.config import model_options

    try:
        options = model_options(llm_config, max_cost=max_cost, price=price, replay_only=replay_only)
        options.resolve()
    except ValueError as exc:
        _fail(str(exc))
    return options


def build_graphs(benchmark: str, artifacts: Path, show_progress: bool) -> dict[str, Any]:
    """Build one benchmark's graphs into ``artifacts/graphs/<benchmark>/``; returns the summary."""
    from miscue import graph_store
    from miscue.graphs import GraphBuilder

    started = time.perf_counter()
    adapter = adapter_for(benchmark)
    builder = GraphBuilder(adapter)
    seeds = len(adapter.load_seeds())
    with Progress(TextColumn(f"graphs {benchmark}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, disable=not show_progress, transient=True) as bar:
        task = bar.add_task("tasks", total=seeds)
        build = builder.build(progress=lambda _tid: bar.advance(task))
    directory = graph_store.write(build, artifacts / "graphs" / benchmark)
    summary = build.summary()
    summary["seconds"] = round(time.perf_counter() - started, 2)
    summary["directory"] = str(directory)
    return summary


def check_graphs(benchmark: str, artifacts: Path) -> dict[str, Any]:
    """Re-execute every stored node with a fresh adapter and compare ground-truth hashes."""
    from miscue import graph_store

    adapter = adapter_for(benchmark)
    nodes = graph_store.read_nodes(artifacts / "graphs" / benchmark)
    mismatches = [
        {"graph_id": gid, "intent_id": intent.intent_id, "stored": truth.hash, "now": now.hash}
        for gid, intent, truth in nodes
        if (now := adapter.reexecute(intent)).hash != truth.hash
    ]
    return {"benchmark": benchmark, "nodes_checked": len(nodes), "mismatches": mismatches}


def _summary_table(s: dict[str, Any]) -> Table:
    t = Table(title=f"intent graphs: {s['benchmark']}", show_header=True)
    t.add_column("measure")
    t.add_column("value", justify="right")
    t.add_row("tasks", str(s["tasks"]))
    t.add_row("validated seeds", str(s["validated_seeds"]))
    t.add_row("graphs", str(s["graphs"]))
    for code, n in s["drops"].items():
        t.add_row(f"dropped: {code}", str(n))
    for op, n in s["children_per_operator"].items():
        t.add_row(f"children: {op}", str(n))
    t.add_row("children (real / synthetic)", f"{s['children_by_provenance'].get('real', 0)} / {s['children_by_provenance'].get('synthetic', 0)}")
    t.add_row("moved edges", f"{s['moved_edges']} of {s['children']}")
    if "check" in s:
        c = s["check"]
        t.add_row("check: nodes re-executed", str(c["nodes_checked"]))
        t.add_row("check: hash mismatches", str(len(c["mismatches"])))
    t.add_row("seconds", str(s["seconds"]))
    return t


@app.command()
def graphs(
    benchmark: list[str] = typer.Option(list(ADAPTERS), "--benchmark", "-b", help=f"one of: {', '.join(ADAPTERS)} (repeatable)"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object instead of tables"),
    check: bool = typer.Option(False, "--check", help="re-execute every node and fail if any hash differs"),
    artifacts: Path = typer.Option(DEFAULT_ARTIFACTS, help="the artifacts directory"),
) -> None:
    """Build intent graphs (and the graph-stage ledger) for tau2 benchmarks."""
    results = []
    failed = False
    for bench in benchmark:
        try:
            summary = build_graphs(bench, artifacts, show_progress=not as_json and err.is_terminal)
            if check:
                summary["check"] = check_graphs(bench, artifacts)
                failed |= bool(summary["check"]["mismatches"])
        except (UnknownBenchmark, HostDataError) as exc:
            _fail(str(exc))
        except OSError as exc:
            _fail(f"cannot read or write {exc.filename or ''}: {exc.strerror or exc}")
        results.append(summary)
        if not as_json:
            out.print(_summary_table(summary))
    if as_json:
        out.print_json(json.dumps(results[0] if len(results) == 1 else {"benchmarks": results}))
    if failed:
        err.print("[bold red]check failed:[/] re-executed ground truth differs from the stored hashes")
        raise typer.Exit(1)


def run_single_fault(benchmark: str, artifacts: Path, attempts: int, fault_types: list[str] | None,
                     gateway: Any, show_progress: bool) -> dict[str, Any]:
    """Graphs -> single-fault cells -> ledger in ``artifacts/runs/<benchmark>/``; returns the
    summary. ``gateway``: the run's (one for every benchmark, so a cap covers them all)."""
    from flows.generate import GenerateConfig, run_benchmark
    from miscue import ledger
    from miscue.runlock import run_lock
    from miscue.taxonomy import FAULT_TYPES, fault_type

    for t in fault_types or []:
        fault_type(t)
    config = GenerateConfig(attempts=attempts, fault_types=fault_types or list(FAULT_TYPES))
    with Progress(TextColumn(f"{benchmark}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, disable=not show_progress, transient=True) as bar:
        task = bar.add_task("cells", total=None)

        def tick(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        with run_lock(artifacts, command=f"miscue generate {benchmark}"):  # the ledger write too
            run = run_benchmark(adapter_for(benchmark), artifacts, config, gateway=gateway, progress=tick)
            directory = ledger.write_tables(run.tables(), artifacts / "runs" / benchmark, run.summary)
    return {**run.summary, "directory": str(directory)}


def _generate_table(s: dict[str, Any]) -> Table:
    t = Table(title=f"single-fault run: {s['benchmark']} ({s['graphs']} graphs, {s['cells']} cells, "
                    f"{s['admitted']} admitted, cell rejection {s['cell_rejection_rate']})")
    for col in ("fault type", "cells", "admitted", "cell rej.", "attempt rej.", "agreement", "skipped", "unsupported"):
        t.add_column(col, justify="right" if col != "fault type" else "left")
    for ft, v in s["per_type"].items():
        t.add_row(ft, str(v["cells"]), str(v["admitted"]), str(v["cell_rejection_rate"]), str(v["attempt_rejection_rate"]),
                  str(v["extractor_agreement"]), str(v["skipped"]), str(v["unsupported"]))
    return t


@app.command()
def generate(
    benchmark: list[str] = typer.Option(list(ADAPTERS), "--benchmark", "-b", help="repeatable"),
    attempts: int = typer.Option(4, min=1, help="attempts per cell"),
    fault_type_: Optional[list[str]] = typer.Option(None, "--fault-type", "-t", help="restrict to these fault types (repeatable)"),
    llm_config: Optional[Path] = LLM_CONFIG,
    max_cost: Optional[float] = MAX_COST,
    price: Optional[float] = PRICE,
    replay_only: bool = OFFLINE_REPLAY,
    as_json: bool = typer.Option(False, "--json"),
    artifacts: Path = typer.Option(DEFAULT_ARTIFACTS),
) -> None:
    """Single-fault generate-then-verify over every graph (offline models unless configured);
    the ledger goes to artifacts/runs/<benchmark>/."""
    from miscue.llm import Gateway

    gateway = Gateway(model_options_or_fail(llm_config, max_cost, price, replay_only).resolve(), artifacts / "store")
    results = []
    for bench in benchmark:
        try:
            with run_exit_codes():
                summary = run_single_fault(bench, artifacts, attempts, fault_type_, gateway, not as_json and err.is_terminal)
        except (UnknownBenchmark, HostDataError, ValueError) as exc:
            _fail(str(exc))
        results.append(summary)
        if not as_json:
            out.print(_generate_table(summary))
            for u in summary["unsupported"]:
                out.print(f"[yellow]unsupported[/] {u['fault_type']}: {u['reason']}")
    if as_json:
        out.print_json(json.dumps(results[0] if len(results) == 1 else {"benchmarks": results}))


@app.command()
def verify(
    text: str = typer.Argument(..., help="the request text to check"),
    benchmark: str = typer.Option(..., "--benchmark", "-b"),
    task: str = typer.Option(..., "--task", help="the host task id whose true intent the text is about"),
    fault_type_: Optional[str] = typer.Option(None, "--fault-type", "-t", help="the claimed fault type"),
    slot: Optional[str] = typer.Option(None, "--slot", help="the claimed target slot"),
    as_json: bool = typer.Option(False, "--json"),
    artifacts: Path = typer.Option(DEFAULT_ARTIFACTS),
) -> None:
    """Run text checks, both extractions, agreement and admission on one request."""
    from flows.verify import verify_sync

    try:
        adapter = adapter_for(benchmark)
        from flows.generate import offline_gateway

        result = verify_sync(adapter, offline_gateway(artifacts / "store"), task, text, fault_type_, slot)
    except (UnknownBenchmark, HostDataError, ValueError) as exc:
        _fail(str(exc))
    if as_json:
        out.print_json(json.dumps(result.as_dict()))
    else:
        for step in result.steps:
            mark = "[green]ok[/]" if step.ok else "[red]fail[/]"
            out.print(f"{mark} {step.name}: {json.dumps(step.detail)[:400]}")
        v = result.as_dict()["verdict"]
        colour = "green" if result.admitted else "red"
        out.print(f"[bold {colour}]verdict:[/] {v['code']} {v['detail']} (fault type {result.fault_type}, slot {result.slot})")
    raise typer.Exit(0 if result.admitted else 1)


from flows import corpus_cli  # noqa: E402,F401  (registers the corpus commands)
from flows import budget_cli  # noqa: E402,F401


def main() -> None:
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
