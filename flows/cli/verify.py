"""``miscue verify``: judge one request for a host task (any text, not only the pipeline's own)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from flows.cli.app import ARTIFACTS, AS_JSON, app, exit_codes, out, print_json
from flows.registry import adapter_for
from flows.stages.benchmark import offline_gateway
from flows.stages.verify import verify_sync


@app.command()
def verify(
    text: str = typer.Argument(..., help="the request text to check"),
    benchmark: str = typer.Option(..., "--benchmark", "-b"),
    task: str = typer.Option(..., "--task", help="the host task id whose true intent the text is about"),
    fault_type_: Optional[str] = typer.Option(None, "--fault-type", "-t", help="the claimed fault type"),
    slot: Optional[str] = typer.Option(None, "--slot", help="the claimed target slot"),
    as_json: bool = AS_JSON,
    artifacts: Path = ARTIFACTS,
) -> None:
    """Run text checks, both extractions, agreement and admission on one request (exit 0 when admitted)."""
    with exit_codes():
        adapter = adapter_for(benchmark)
        result = verify_sync(adapter, offline_gateway(artifacts / "store"), task, text, fault_type_, slot)
    if as_json:
        print_json(result.as_dict())
    else:
        for step in result.steps:
            mark = "[green]ok[/]" if step.ok else "[red]fail[/]"
            out.print(f"{mark} {step.name}: {json.dumps(step.detail)[:400]}")
        v = result.as_dict()["verdict"]
        colour = "green" if result.admitted else "red"
        out.print(f"[bold {colour}]verdict:[/] {v['code']} {v['detail']} (fault type {result.fault_type}, slot {result.slot})")
    raise typer.Exit(0 if result.admitted else 1)
