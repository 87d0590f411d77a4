"""The corpus commands: ``build``, ``regenerate``, ``report`` and ``verify-corpus``.

Each command imports what only it needs (the corpus tables, the report) when it runs, so that
``miscue`` starts quickly for the others.

Each of build, regenerate and report runs its Prefect flow (:mod:`miscue.flows.prefect_flows`) in this
process: against ``PREFECT_API_URL`` when set, else Prefect's ephemeral local server (which costs
a few seconds to start). Prefect is imported only when a flow runs, so other ``miscue`` commands
never pay for it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Optional

import typer
from rich import box
from rich.table import Table

from miscue.flows.cli.app import (ARTIFACTS, AS_JSON, COMPOSITE, LLM_CONFIG, MAX_COST, OFFLINE_REPLAY, PRICE, PROMPTS_OUT,
                                  QUIET, TASKS, app, artifacts_arg, default_ks, err, exit_codes, exported, fmt,
                                  models_or_fail, out, parse_tasks, pct, print_json)
from miscue.flows.cli.progress import progress, progress_mode
from miscue.flows.stages.benchmark import check_benchmarks, check_fault_types
from miscue.errors import BadInput
from miscue.runlock import run_lock


def _table4(title: str, rows: list[dict[str, Any]]) -> Table:
    """Table 4's shape: Benchmark | Tasks | Graphs | Cells | Rejection rate | Samples."""
    t = Table(title=title)
    cols = ["Benchmark", "Tasks", "Graphs", "Cells", "Rejection rate", "Samples"]
    for c in cols:
        t.add_column(c, justify="left" if c == "Benchmark" else "right", no_wrap=True)
    for r in rows:
        t.add_row(*[pct(r[c]) if c == "Rejection rate" else fmt(r[c]) for c in cols])
    return t


def _composite_table(rows: list[dict[str, Any]]) -> Table:
    """The report's composite coverage: admitted samples and distinct combinations per k, and the
    type most often in them with its share (of that k's samples)."""
    t = Table(title="composite faults (admitted)", box=box.SIMPLE_HEAD)
    cols = {"Benchmark": "Benchmark", "k": "k", "Samples": "Samples", "Combos": "Distinct combinations",
            "Top type": "Most frequent type", "Share": "Its share of samples"}
    for c in cols:
        t.add_column(c, justify="left" if c in ("Benchmark", "Top type") else "right", overflow="fold")
    for r in rows:
        t.add_row(*[pct(r[src]) if c == "Share" else fmt(r[src]) for c, src in cols.items()])
    return t


def _run_table(run: dict[str, Any]) -> Table:
    """What this run did per benchmark: model calls made, store hits, seconds in the stages."""
    t = Table(title="this run")
    for c in ("Benchmark", "Model calls", "Store hits", "Seconds"):
        t.add_column(c, justify="left" if c == "Benchmark" else "right", no_wrap=True)
    for b, p in run.get("benchmarks", {}).items():
        t.add_row(b, str(p["model_calls"]), str(p["store_hits"]), f"{sum(p['seconds'].values()):.1f}")
    return t


@app.command()
def build(
    benchmark: Optional[list[str]] = typer.Option(
        None, "--benchmark", "-b", help="restrict to these benchmarks (repeatable; default: every registered one)"),
    fault_type_: Optional[list[str]] = typer.Option(
        None, "--fault-type", "-t", help="restrict to these fault types (repeatable; default: all 11)"),
    attempts: int = typer.Option(4, min=1, help="attempts per cell"),
    task: Optional[list[str]] = TASKS,
    skip_unchanged: bool = typer.Option(
        False, "--skip-unchanged", help="publish nothing when every table equals a published version's"),
    composite: Optional[str] = COMPOSITE,
    workers: Optional[int] = typer.Option(
        None, "--workers", min=1,
        help="run the stages as shards on a local Dask cluster of N worker processes (default: in-process)"),
    dask_address: Optional[str] = typer.Option(
        None, "--dask-address",
        help="run the stages on an existing Dask cluster, e.g. tcp://HOST:8786 (artifacts on a shared filesystem)"),
    llm_config: Optional[Path] = LLM_CONFIG,
    max_cost: Optional[float] = MAX_COST,
    price: Optional[float] = PRICE,
    replay_only: bool = OFFLINE_REPLAY,
    prompts_out: Optional[Path] = PROMPTS_OUT,
    as_json: bool = AS_JSON,
    quiet: bool = QUIET,
    artifacts: Path = ARTIFACTS,
) -> None:
    """Build every configured benchmark and publish a corpus version (the Prefect flow miscue-build).

    Exit codes: 0 published (or nothing changed), 1 corpus error, 2 bad input, 3 stopped cleanly
    (budget reached, store miss in replay, terminal provider error: finished exchanges are kept,
    rerun to resume), 4 another run holds the artifacts directory, 5 --prompts-out wrote the
    requests the store lacks (import the replies, run again).

    --workers N / --dask-address: the same corpus (identical table content hashes), built by
    shards of graphs on a Dask cluster; one budget and one halt across every shard.
    """
    with exit_codes():
        if workers is not None and dask_address is not None:
            raise BadInput("give --workers (a local Dask cluster) or --dask-address (an existing one), not both")
        composite_ks = default_ks(composite, fault_type_)
        names = check_benchmarks(benchmark)
        types = check_fault_types(fault_type_)
        tasks = parse_tasks(task, names)
    models = models_or_fail(llm_config, max_cost, price, replay_only, prompts_out)
    started = time.perf_counter()
    from miscue.flows.prefect_flows import build_flow, run_flow

    # the lock is taken before the flow starts, so a refused build leaves no flow run behind
    with exit_codes(), run_lock(artifacts, command="miscue build"), progress(progress_mode(quiet, as_json)), \
            exported(models, artifacts):
        res = run_flow(build_flow, err.print, benchmarks=names, fault_types=types, attempts=attempts,
                         artifacts=artifacts_arg(artifacts), skip_unchanged=skip_unchanged,
                         composite_ks=composite_ks, models=models, workers=workers, dask_address=dask_address,
                       tasks=tasks)
    res["seconds"] = round(time.perf_counter() - started, 1)
    _print_result(res, as_json, "build")


def _print_result(res: dict[str, Any], as_json: bool, what: str) -> None:
    summary = {k: v for k, v in res.items() if k not in ("report", "summaries")}
    if res.get("report"):
        summary["report"] = {k: v for k, v in res["report"].items()}
    if as_json:
        print_json(summary)
        return
    if res.get("version") is None:
        out.print(f"[yellow]nothing changed[/]: every table's content hash equals {res['unchanged_from']}; "
                  f"no version published ({res['run']['model_calls']} model calls, {res['seconds']} s)")
        return
    rep = res["report"]
    title = f"{what}: published {res['version']}" + (f" (parent {res['parent']})" if res.get("parent") else "")
    out.print(_table4(title, rep["table4"]))
    if rep.get("composites"):
        out.print(_composite_table(rep["composites"]))
    out.print(_run_table(res["run"]))
    out.print(f"model calls made: {res['run']['model_calls']} of {res['run']['requests']} requests "
              f"(the rest answered from the exchange store); {res['seconds']} s")
    if res.get("regeneration"):
        r = res["regeneration"]
        out.print(f"regenerated {', '.join(r['fault_types'])} on {', '.join(r['benchmarks'])}; "
                  f"other rows carried over from {r['from']}")
        if r.get("note"):
            out.print(f"[yellow]note[/]: {r['note']}")
    if res.get("same_samples_as"):
        out.print(f"[yellow]note[/]: {res['version']}'s samples equal those of {', '.join(res['same_samples_as'])} "
                  "(the same content hash): the models wrote and admitted the same requests again")
    out.print(f"report: {rep['markdown']}  {rep['html']}")


@app.command()
def regenerate(
    fault_type_: str = typer.Option(..., "--fault-type", "-t", help="the fault type to regenerate"),
    benchmark: Optional[str] = typer.Option(None, "--benchmark", "-b", help="only this benchmark (default: all in the parent)"),
    parent: Optional[str] = typer.Option(None, "--parent", help="the version to regenerate from (default: the latest)"),
    llm_config: Optional[Path] = LLM_CONFIG,
    max_cost: Optional[float] = MAX_COST,
    price: Optional[float] = PRICE,
    replay_only: bool = OFFLINE_REPLAY,
    prompts_out: Optional[Path] = PROMPTS_OUT,
    as_json: bool = AS_JSON,
    quiet: bool = QUIET,
    artifacts: Path = ARTIFACTS,
) -> None:
    """Regenerate one fault type into a child version; every other row is carried over.

    Only that type's cells make (fresh) model calls; the manifest names the parent.
    """
    from miscue.flows.stages.regenerate import check_parent_models, plan_regeneration

    models = models_or_fail(llm_config, max_cost, price, replay_only, prompts_out)
    with exit_codes():  # fail fast, before Prefect starts
        plan = plan_regeneration(artifacts, fault_type_, benchmark, parent)
        check_parent_models(plan, models.resolve())
    if plan.note:
        err.print(f"[yellow]note[/]: {plan.note}", soft_wrap=True)
    started = time.perf_counter()
    from miscue.flows.prefect_flows import regenerate_flow, run_flow

    with exit_codes(), run_lock(artifacts, command=f"miscue regenerate {fault_type_}"), \
            progress(progress_mode(quiet, as_json)), exported(models, artifacts):
        res = run_flow(regenerate_flow, err.print, fault_type=fault_type_, benchmark=benchmark, parent=parent,
                              artifacts=artifacts_arg(artifacts), models=models)
    res["seconds"] = round(time.perf_counter() - started, 1)
    _print_result(res, as_json, "regenerate")


@app.command()
def report(
    version: Optional[str] = typer.Argument(None, help="the version (default: the latest)"),
    flow: bool = typer.Option(False, "--flow/--no-flow",
                              help="run as the Prefect flow miscue-report, its tables as artifacts (starts Prefect)"),
    as_json: bool = AS_JSON,
    artifacts: Path = ARTIFACTS,
) -> None:
    """Write artifacts/reports/<version>/report.md and report.html (a build writes them too)."""
    from miscue import corpus, reports

    with exit_codes():
        version = corpus.resolve(artifacts, version)
        if flow:
            from miscue.flows.prefect_flows import report_flow, run_flow

            res = run_flow(report_flow, err.print, version=version, artifacts=artifacts_arg(artifacts))
        else:
            res = reports.report_summary(Path(artifacts_arg(artifacts)), version)
    if as_json:
        print_json(res)
        return
    out.print(_table4(f"corpus {version}", res["table4"]))
    if res.get("composites"):
        out.print(_composite_table(res["composites"]))
    out.print(f"report: {res['markdown']}  {res['html']}")


@app.command("verify-corpus")
def verify_corpus(
    version: str = typer.Argument(..., help="the version to verify (or 'latest')"),
    as_json: bool = AS_JSON,
    artifacts: Path = ARTIFACTS,
) -> None:
    """Recompute every file's sha256 and every table's content hash; exit 1 on any mismatch."""
    from miscue import corpus

    with exit_codes():
        if version == "latest":
            version = corpus.resolve(artifacts, None)
        elif not corpus.version_dir(artifacts, version).is_dir():
            corpus.resolve(artifacts, version)
    res = corpus.verify_corpus(version, artifacts)
    if as_json:
        print_json(res.as_dict())
    elif res.ok:
        out.print(f"[green]ok[/] {version}: {res.checked_files} files and {res.checked_tables} tables match the manifest")
    else:
        t = Table(title=f"verify-corpus {version}: {len(res.problems)} problem(s)")
        for c in ("what", "name", "detail"):
            t.add_column(c)
        for p in res.problems:
            t.add_row(p["what"], p["name"], p["detail"])
        out.print(t)
    raise typer.Exit(0 if res.ok else 1)
