"""``miscue verify`` (judge one request for a host task: any text, not only the pipeline's own) and
``miscue eval-verifier`` (measure the verifier on a labelled set)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from miscue.flows.cli.app import (ARTIFACTS, AS_JSON, LLM_CONFIG, OFFLINE_REPLAY, PRICE, PROMPTS_OUT, app, clip, err,
                                  exit_codes, exported, fmt, models_or_fail, out, print_json)
from miscue.flows.registry import adapter_for
from miscue.flows.stages.evaluate import evaluate, load_set
from miscue.flows.stages.verify import check_request, verify_sync
from miscue import stoppable
from miscue.flows.stages.benchmark import make_gateway
from miscue.llm import Deferred, PromptsExported


@app.command()
def verify(
    text: str = typer.Argument(..., help="the request text to check"),
    benchmark: str = typer.Option(..., "--benchmark", "-b"),
    task: str = typer.Option(..., "--task", help="the host task id whose true intent the text is about"),
    fault_type_: Optional[str] = typer.Option(None, "--fault-type", "-t", help="the claimed fault type"),
    slot: Optional[str] = typer.Option(None, "--slot", help="the claimed target slot"),
    llm_config: Optional[Path] = LLM_CONFIG,
    replay_only: bool = OFFLINE_REPLAY,
    prompts_out: Optional[Path] = PROMPTS_OUT,
    as_json: bool = AS_JSON,
    artifacts: Path = ARTIFACTS,
) -> None:
    """Judge one request: without --fault-type the fault is the one code derives from extractor A's
    reading (or none); then text checks, agreement and the executed literal reading (exit 0 when admitted)."""
    with exit_codes():  # the benchmark, task, type and slot first: a typo answers in a second
        adapter = adapter_for(benchmark)
        check_request(adapter, task, text, fault_type_, slot)
    models = models_or_fail(llm_config, replay_only=replay_only, prompts_out=prompts_out)
    with exit_codes(), exported(models, artifacts):
        try:
            result = verify_sync(adapter, make_gateway(artifacts, models), task, text, fault_type_, slot)
        except Deferred:
            raise PromptsExported(1) from None
    if as_json:
        print_json(result.as_dict())
    else:
        for step in result.steps:
            mark = "[green]ok[/]" if step.ok else "[red]fail[/]"
            out.print(f"{mark} {step.name}: {clip(json.dumps(step.detail), 400)}")
        v = result.as_dict()["verdict"]
        colour = "green" if result.admitted else "red"
        out.print(f"[bold {colour}]verdict:[/] {v['code']} {v['detail']} (fault type {result.fault_type}, slot {result.slot})")
    raise typer.Exit(0 if result.admitted else 1)


@app.command("eval-verifier")
def eval_verifier(
    labelled: Path = typer.Argument(
        ..., help="the labelled set (JSON Lines: text, benchmark, task_id, claimed_type?, slot?, expected)"),
    llm_config: Optional[Path] = LLM_CONFIG,
    price: Optional[float] = PRICE,
    replay_only: bool = OFFLINE_REPLAY,
    prompts_out: Optional[Path] = PROMPTS_OUT,
    split: Optional[list[str]] = typer.Option(None, "--split", help="only these splits of the set (repeatable)"),
    as_json: bool = AS_JSON,
    artifacts: Path = ARTIFACTS,
) -> None:
    """Measure the verifier (its two extractors, checks and admission) on a labelled set: precision,
    recall and F1 overall, per fault type, per benchmark and per split; verdict codes; agreement."""
    models = models_or_fail(llm_config, price=price, replay_only=replay_only, prompts_out=prompts_out)
    with exit_codes():
        items = load_set(labelled)
        if split:
            items = [i for i in items if i.split in split]
    gateway = make_gateway(artifacts, models)
    bar = Progress(TextColumn("verifying"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err,
                   disable=as_json or not err.is_terminal, transient=True)
    with exit_codes(), exported(models, artifacts), bar:
        task = bar.add_task("requests", total=len(items))
        evaluation = stoppable.run(evaluate(items, gateway, progress=lambda d, _n: bar.update(task, completed=d)))
    report = evaluation.report()
    if as_json:
        print_json(report)
        return
    out.print(_scores_table("overall and per split", {"all": report["overall"], **report["by_split"]}))
    out.print(_scores_table("per fault type (true type)", report["per_type"]))
    out.print(_scores_table("per benchmark", report["per_benchmark"]))
    agree = Table(title="extractor agreement (derived class / slot) per true type")
    for col in ("type", "class", "slot", "n"):
        agree.add_column(col, justify="left" if col == "type" else "right")
    for t, a in report["extractor_agreement"].items():
        agree.add_row(t, fmt(a["class"]), fmt(a["slot"]), str(a["n"]))
    out.print(agree)
    codes = Table(title="verdict codes (expected -> got)")
    codes.add_column("expected -> verdict")
    codes.add_column("n", justify="right")
    for code, n in report["verdict_codes"].items():
        codes.add_row(code, str(n))
    out.print(codes)


def _scores_table(title: str, rows: dict[str, dict[str, Any]]) -> Table:
    t = Table(title=title)
    for col in ("", "n", "admit labels", "tp", "fp", "fn", "precision", "recall", "F1"):
        t.add_column(col, justify="left" if col == "" else "right")
    for name, s in rows.items():
        t.add_row(name, str(s["n"]), str(s["admit_labels"]), str(s["tp"]), str(s["fp"]), str(s["fn"]),
                  fmt(s["precision"]), fmt(s["recall"]), fmt(s["f1"]))
    return t
