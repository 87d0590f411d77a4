"""``miscue serve``: the nightly-rebuild deployment, served against a real Prefect server."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional

import typer

from miscue.flows import deployment
from miscue.flows.cli.app import (ARTIFACTS, COMPOSITE, LLM_CONFIG, MAX_COST, PRICE, TASKS, app, artifacts_arg,
                                  default_ks, err, exit_codes, models_or_fail, parse_tasks)
from miscue.flows.stages.benchmark import check_benchmarks, check_fault_types
from miscue.errors import BadInput


@app.command()
def serve(
    cron: str = typer.Option("0 2 * * *", help="the rebuild's cron schedule"),
    name: str = typer.Option("nightly", help="deployment name (the flow is miscue-build)"),
    benchmark: Optional[list[str]] = typer.Option(None, "--benchmark", "-b", help="default benchmarks of scheduled runs"),
    fault_type_: Optional[list[str]] = typer.Option(None, "--fault-type", "-t", help="default fault types of scheduled runs"),
    attempts: int = typer.Option(4, min=1),
    task: Optional[list[str]] = TASKS,
    composite: Optional[str] = COMPOSITE,
    workers: Optional[int] = typer.Option(None, "--workers", min=1, help="scheduled runs: a local Dask cluster of N workers"),
    dask_address: Optional[str] = typer.Option(None, "--dask-address", help="scheduled runs use this existing Dask cluster"),
    llm_config: Optional[Path] = LLM_CONFIG,
    max_cost: Optional[float] = MAX_COST,
    price: Optional[float] = PRICE,
    artifacts: Path = ARTIFACTS,
) -> None:
    """Serve the nightly-rebuild deployment (cron) against the Prefect server in PREFECT_API_URL.

    The ephemeral server never fires schedules, so a real server is required. --workers /
    --dask-address become the deployment's parameters: every scheduled build runs its shards there.
    """
    with exit_codes():
        deployment.require_server()
        if workers is not None and dask_address is not None:
            raise BadInput("give --workers (a local Dask cluster) or --dask-address (an existing one), not both")
        params: dict[str, Any] = {"attempts": attempts, "artifacts": artifacts_arg(artifacts)}
        if workers is not None:
            params["workers"] = workers
        if dask_address is not None:
            params["dask_address"] = dask_address
        if llm_config is not None or max_cost is not None or price is not None:
            # only the configuration's path is a deployment parameter: keys in it stay out of Prefect
            params["models"] = models_or_fail(llm_config, max_cost, price).model_dump()
        if benchmark:
            params["benchmarks"] = check_benchmarks(benchmark)
        if fault_type_:
            params["fault_types"] = check_fault_types(fault_type_)
        if task:
            params["tasks"] = parse_tasks(task, check_benchmarks(benchmark))
        if ks := default_ks(composite, fault_type_):
            params["composite_ks"] = ks
        deployment.check_cron(cron)  # a bad cron string is an input error, not a traceback
    err.print(f"serving {deployment.FLOW_NAME}/{name} on cron {cron!r} against {os.environ['PREFECT_API_URL']} (Ctrl-C to stop)")
    deployment.serve(cron, params, name)
