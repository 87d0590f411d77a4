"""The corpus commands of ``miscue``: build, regenerate, audit, report, verify-corpus, serve.

They are registered on the ``app`` of :mod:`flows.cli` (which imports this module). Each of
build, regenerate, report and audit runs its Prefect flow (:mod:`flows.prefect_flows`) in this
process: against ``PREFECT_API_URL`` when set, else Prefect's ephemeral local server (which
costs a few seconds to start). Prefect is imported lazily, after the environment defaults
below, so other ``miscue`` commands never pay for it.
"""

from __future__ import annotations

from flows import prefect_env

prefect_env.apply()  # before anything imports prefect

import contextlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Iterator, Optional  # noqa: E402

import typer  # noqa: E402
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn  # noqa: E402
from rich.table import Table  # noqa: E402

from flows import pipeline  # noqa: E402
from flows.cli import (DEFAULT_ARTIFACTS, LLM_CONFIG, MAX_COST, OFFLINE_REPLAY, PRICE, _fail, app, err,  # noqa: E402
                       model_options_or_fail, out, run_exit_codes)
from flows.registry import UnknownBenchmark  # noqa: E402
from miscue import corpus  # noqa: E402
from miscue.runlock import run_lock  # noqa: E402


@contextlib.contextmanager
def _progress(enabled: bool) -> Iterator[None]:
    """Progress bars (stderr) for every stage label the pipeline reports."""
    with Progress(TextColumn("{task.description:<28}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, disable=not enabled, transient=False) as bar:
        tasks: dict[str, Any] = {}

        def sink(label: str, done: int, total: int | None) -> None:
            if label not in tasks:
                tasks[label] = bar.add_task(label, total=total)
            bar.update(tasks[label], completed=done, total=total)

        pipeline.set_progress(sink)
        try:
            yield
        finally:
            pipeline.set_progress(None)


def _fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _table4(title: str, rows: list[dict[str, Any]]) -> Table:
    """Table 4's shape: Benchmark | Tasks | Graphs | Cells | Rejection rate | Samples."""
    t = Table(title=title)
    cols = ["Benchmark", "Tasks", "Graphs", "Cells", "Rejection rate", "Samples"]
    for c in cols:
        t.add_column(c, justify="left" if c == "Benchmark" else "right", no_wrap=True)
    for r in rows:
        t.add_row(*[_fmt(r[c]) if c != "Rejection rate" or r[c] is None else f"{r[c] * 100:.1f}%" for c in cols])
    return t


def _run_table(run: dict[str, Any]) -> Table:
    """What this run did per benchmark: model calls made, store hits, seconds in the stages."""
    t = Table(title="this run")
    for c in ("Benchmark", "Model calls", "Store hits", "Seconds"):
        t.add_column(c, justify="left" if c == "Benchmark" else "right", no_wrap=True)
    for b, p in run.get("benchmarks", {}).items():
        t.add_row(b, str(p["model_calls"]), str(p["store_hits"]), f"{sum(p['seconds'].values()):.1f}")
    return t


def _artifacts_arg(artifacts: Path) -> str:
    return str(Path(artifacts).resolve())


def _json(obj: Any) -> None:
    out.print_json(json.dumps(obj, default=str))


@app.command()
def build(
    benchmark: Optional[list[str]] = typer.Option(None, "--benchmark", "-b", help="restrict to these benchmarks (repeatable; default: every registered one)"),
    fault_type_: Optional[list[str]] = typer.Option(None, "--fault-type", "-t", help="restrict to these fault types (repeatable; default: all 11)"),
    attempts: int = typer.Option(4, min=1, help="attempts per cell"),
    skip_unchanged: bool = typer.Option(False, "--skip-unchanged", help="publish nothing when every table equals the latest version's"),
    composite: Optional[str] = typer.Option(None, "--composite", help="also compose k faults per request, e.g. 2,4 (k in 2..4)"),
    llm_config: Optional[Path] = LLM_CONFIG,
    max_cost: Optional[float] = MAX_COST,
    price: Optional[float] = PRICE,
    replay_only: bool = OFFLINE_REPLAY,
    as_json: bool = typer.Option(False, "--json", help="print one JSON object instead of tables"),
    artifacts: Path = typer.Option(DEFAULT_ARTIFACTS, help="the artifacts directory"),
) -> None:
    """Build every configured benchmark and publish a corpus version (the Prefect flow miscue-build).

    Exit codes: 0 published (or nothing changed), 1 corpus error, 2 bad input, 3 stopped cleanly
    (budget reached, store miss in replay, terminal provider error: finished exchanges are kept,
    rerun to resume), 4 another run holds the artifacts directory.
    """
    from flows.composite import parse_ks

    try:
        composite_ks = parse_ks(composite) if composite else None
    except ValueError as exc:
        _fail(str(exc))
    try:
        names = pipeline.check_benchmarks(benchmark)
        types = pipeline.check_fault_types(fault_type_)
    except (UnknownBenchmark, pipeline.UnknownFaultType) as exc:
        _fail(str(exc))
    models = model_options_or_fail(llm_config, max_cost, price, replay_only)
    started = time.perf_counter()
    from flows.prefect_flows import build_flow

    # the lock is taken before the flow starts, so a refused build leaves no flow run behind
    with run_exit_codes(), run_lock(artifacts, command="miscue build"), _progress(not as_json and err.is_terminal):
        res = build_flow(benchmarks=names, fault_types=types, attempts=attempts,
                         artifacts=_artifacts_arg(artifacts), skip_unchanged=skip_unchanged,
                         composite_ks=composite_ks, models=models)
    res["seconds"] = round(time.perf_counter() - started, 1)
    _print_result(res, as_json, "build")


def _print_result(res: dict[str, Any], as_json: bool, what: str) -> None:
    summary = {k: v for k, v in res.items() if k not in ("report", "summaries")}
    if res.get("report"):
        summary["report"] = {k: v for k, v in res["report"].items()}
    if as_json:
        _json(summary)
        return
    if res.get("version") is None:
        out.print(f"[yellow]nothing changed[/]: every table's content hash equals {res['unchanged_from']}; "
                  f"no version published ({res['run']['model_calls']} model calls, {res['seconds']} s)")
        return
    rep = res["report"]
    title = f"{what}: published {res['version']}" + (f" (parent {res['parent']})" if res.get("parent") else "")
    out.print(_table4(title, rep["table4"]))
    out.print(_run_table(res["run"]))
    out.print(f"model calls made: {res['run']['model_calls']} of {res['run']['requests']} requests "
              f"(the rest answered from the exchange store); {res['seconds']} s")
    if res.get("regeneration"):
        r = res["regeneration"]
        out.print(f"regenerated {', '.join(r['fault_types'])} on {', '.join(r['benchmarks'])}; other rows carried over from {r['from']}")
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
    as_json: bool = typer.Option(False, "--json"),
    artifacts: Path = typer.Option(DEFAULT_ARTIFACTS),
) -> None:
    """Regenerate one fault type into a child version; every other row is carried over.

    Only that type's cells make (fresh) model calls; the manifest names the parent.
    """
    models = model_options_or_fail(llm_config, max_cost, price, replay_only)
    try:  # fail fast, before Prefect starts
        plan = pipeline.plan_regeneration(artifacts, fault_type_, benchmark, parent)
        pipeline.check_parent_models(plan, models.resolve())
    except (UnknownBenchmark, pipeline.UnknownFaultType, corpus.UnknownVersion, ValueError) as exc:
        _fail(str(exc))
    started = time.perf_counter()
    from flows.prefect_flows import regenerate_flow

    with run_exit_codes(), run_lock(artifacts, command=f"miscue regenerate {fault_type_}"), \
            _progress(not as_json and err.is_terminal):
        res = regenerate_flow(fault_type=fault_type_, benchmark=benchmark, parent=parent,
                              artifacts=_artifacts_arg(artifacts), models=models)
    res["seconds"] = round(time.perf_counter() - started, 1)
    _print_result(res, as_json, "regenerate")


@app.command()
def report(
    version: Optional[str] = typer.Argument(None, help="the version (default: the latest)"),
    as_json: bool = typer.Option(False, "--json"),
    artifacts: Path = typer.Option(DEFAULT_ARTIFACTS),
) -> None:
    """Write artifacts/reports/<version>/report.md and report.html (the Prefect flow miscue-report)."""
    try:
        version = corpus.resolve(artifacts, version)
    except corpus.UnknownVersion as exc:
        _fail(str(exc))
    from flows.prefect_flows import report_flow

    res = report_flow(version=version, artifacts=_artifacts_arg(artifacts))
    if as_json:
        _json(res)
        return
    out.print(_table4(f"corpus {version}", res["table4"]))
    out.print(f"report: {res['markdown']}  {res['html']}")


@app.command()
def audit(
    report_name: Optional[str] = typer.Option(None, "--report", "-r", help="canned report: rejections | funnel | calls"),
    by: Optional[str] = typer.Option(None, "--by", help="group-by columns, comma-separated (e.g. benchmark,fault_type,stage)"),
    sql: Optional[str] = typer.Option(None, "--sql", help="any SQL over the views samples, attempts, cells, llm_calls, graphs, nodes, edges, graph_ledger"),
    shell: bool = typer.Option(False, "--shell", help="an interactive SQL shell over the views"),
    version: Optional[list[str]] = typer.Option(None, "--version", "-v", help="only these versions (repeatable; default: all)"),
    no_flow: bool = typer.Option(False, "--no-flow", help="query directly, without a Prefect flow run"),
    as_json: bool = typer.Option(False, "--json"),
    artifacts: Path = typer.Option(DEFAULT_ARTIFACTS),
) -> None:
    """DuckDB over every published version (each view has version and benchmark columns)."""
    import duckdb

    from miscue import audit as audit_mod

    groups = [b.strip() for b in by.split(",") if b.strip()] if by else None
    try:
        con = audit_mod.connect(artifacts, version)
        if not sql and not shell:
            audit_mod.canned_sql(report_name or "rejections", groups)  # validate before any flow starts
    except (corpus.UnknownVersion, ValueError) as exc:
        _fail(str(exc))
    if shell:
        _shell(con, artifacts, version)
        return
    con.close()
    try:
        if no_flow:
            columns, rows = audit_mod.run(artifacts, report_name, groups, sql, version)
        else:
            from flows.prefect_flows import audit_flow

            res = audit_flow(report_name=report_name or "rejections", by=groups, sql=sql, versions=version,
                             artifacts=_artifacts_arg(artifacts))
            columns, rows = res["columns"], res["rows"]
    except duckdb.Error as exc:
        _fail(f"SQL error: {exc}")
    if as_json:
        _json([dict(zip(columns, r)) for r in rows])
        return
    t = Table(title=f"audit: {'sql' if sql else report_name or 'rejections'}")
    for c in columns:
        t.add_column(c)
    for r in rows[:500]:
        t.add_row(*[_fmt(v) for v in r])
    out.print(t)
    if len(rows) > 500:
        out.print(f"({len(rows)} rows; first 500 shown; use --json for all)")


def _shell(con: Any, artifacts: Path, versions: Optional[list[str]]) -> None:
    """The DuckDB CLI when it is installed and stdin is a terminal (views created by an init
    script); otherwise the built-in line REPL of miscue.audit (also for piped input)."""
    from miscue import audit as audit_mod

    exe = shutil.which("duckdb")
    if exe and sys.stdin.isatty():
        views = con.execute("select view_name, sql from duckdb_views() where not internal").fetchall()
        con.close()
        with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as fh:
            fh.write("\n".join(sql.rstrip(";") + ";" for _name, sql in views) + "\n")
        try:
            raise typer.Exit(subprocess.call([exe, "-init", fh.name]))
        finally:
            os.unlink(fh.name)
    failures = audit_mod.shell(con, sys.stdin, sys.stdout)
    con.close()
    raise typer.Exit(1 if failures else 0)


@app.command("verify-corpus")
def verify_corpus(
    version: str = typer.Argument(..., help="the version to verify (or 'latest')"),
    as_json: bool = typer.Option(False, "--json"),
    artifacts: Path = typer.Option(DEFAULT_ARTIFACTS),
) -> None:
    """Recompute every file's sha256 and every table's content hash; exit 1 on any mismatch."""
    try:
        if version == "latest":
            version = corpus.resolve(artifacts, None)
        elif not corpus.version_dir(artifacts, version).is_dir():
            corpus.resolve(artifacts, version)
    except corpus.UnknownVersion as exc:
        _fail(str(exc))
    res = corpus.verify_corpus(version, artifacts)
    if as_json:
        _json(res.as_dict())
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


@app.command()
def serve(
    cron: str = typer.Option("0 2 * * *", help="the rebuild's cron schedule"),
    name: str = typer.Option("nightly", help="deployment name (the flow is miscue-build)"),
    benchmark: Optional[list[str]] = typer.Option(None, "--benchmark", "-b", help="default benchmarks of scheduled runs"),
    fault_type_: Optional[list[str]] = typer.Option(None, "--fault-type", "-t", help="default fault types of scheduled runs"),
    attempts: int = typer.Option(4, min=1),
    llm_config: Optional[Path] = LLM_CONFIG,
    max_cost: Optional[float] = MAX_COST,
    price: Optional[float] = PRICE,
    artifacts: Path = typer.Option(DEFAULT_ARTIFACTS),
) -> None:
    """Serve the nightly-rebuild deployment (cron) against the Prefect server in PREFECT_API_URL.

    The ephemeral server never fires schedules, so a real server is required.
    """
    from flows import deployment

    try:
        deployment.require_server()
        params: dict[str, Any] = {"attempts": attempts, "artifacts": _artifacts_arg(artifacts)}
        if llm_config is not None or max_cost is not None or price is not None:
            # only the configuration's path is a deployment parameter: keys in it stay out of Prefect
            params["models"] = model_options_or_fail(llm_config, max_cost, price).model_dump()
        if benchmark:
            params["benchmarks"] = pipeline.check_benchmarks(benchmark)
        if fault_type_:
            params["fault_types"] = pipeline.check_fault_types(fault_type_)
        from prefect.client.schemas.schedules import CronSchedule

        CronSchedule(cron=cron)  # a bad cron string is an input error, not a traceback
    except (deployment.NoPrefectServer, UnknownBenchmark, pipeline.UnknownFaultType, ValueError) as exc:
        _fail(str(exc))
    err.print(f"serving {deployment.FLOW_NAME}/{name} on cron {cron!r} against {os.environ['PREFECT_API_URL']} (Ctrl-C to stop)")
    deployment.serve(cron, params, name)
