"""Prefect flows: ``build``, ``regenerate``, ``report``, ``audit`` (DESIGN section 10).

Task grain: one Prefect task per stage and benchmark (load, graphs, plan, write/verify), then
one publish and one report task. Never one task per model call: a Prefect task run costs
milliseconds of client time plus a server-side record (``perf/bench_prefect_overhead.py``
measures it against a plain call), while a full build makes thousands of model calls, which run
with bounded async concurrency *inside* the write/verify stage.

Caching: no Prefect caching (``cache_policy=NO_CACHE`` everywhere). Our own content-addressed
exchange store answers every repeated model request, so a rebuild with nothing changed makes
zero model calls; see :mod:`miscue.flows.stages.benchmark`.

The report tables are published as Prefect artifacts of the run (``report-<section>`` table
artifacts and a ``corpus-report`` Markdown artifact).

Scale-out (``workers`` / ``dask_address``): the build's stages run as the subflow
``miscue-build-shards`` on ``prefect-dask``'s ``DaskTaskRunner`` -- a local ``dask.distributed``
cluster of N worker processes, or an existing cluster's scheduler. Each benchmark's load ->
graphs -> plan is one task; write/verify is a task per shard of graphs and composites a task
per k (:mod:`miscue.flows.stages.shards`), all submitted at once so benchmarks run concurrently; the
shards are merged in the main process and published as the in-process build would. Without
either option the build runs in this process exactly as before (no Dask).
"""

from __future__ import annotations

from miscue.flows import prefect_env

prefect_env.apply()  # before prefect is imported: no telemetry, a quiet console

import os  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from contextlib import contextmanager, nullcontext  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Optional  # noqa: E402

from prefect import flow, get_run_logger, task  # noqa: E402
from prefect.artifacts import create_markdown_artifact, create_table_artifact  # noqa: E402
from prefect.cache_policies import NO_CACHE  # noqa: E402
from prefect.states import Failed  # noqa: E402
from prefect.utilities.annotations import quote  # noqa: E402

from miscue.flows.stages import benchmark as stages  # noqa: E402
from miscue.flows.stages import shards  # noqa: E402
from miscue.flows.stages.benchmark import BenchmarkRun  # noqa: E402
from miscue.flows.stages.publish import publish_build  # noqa: E402
from miscue.flows.stages.regenerate import (RegenerationPlan, check_parent_models, plan_regeneration,  # noqa: E402
                                            publish_regeneration as publish_child, salted_gateway)
from miscue import corpus, reports  # noqa: E402
from miscue.config import CompositeConfig, GenerateConfig, ModelOptions, RunConfig  # noqa: E402
from miscue.reports import audit  # noqa: E402
from miscue.runlock import run_lock  # noqa: E402


#: what Prefect raises when its ephemeral server did not answer in time (a first start on a new
#: machine creates its database and runs every migration; a busy machine is slower still)
EPHEMERAL_TIMEOUT = "Timed out while attempting to connect to ephemeral Prefect API server"


def run_flow(flow_fn: Any, on_retry: Callable[[str], None] | None = None, **parameters: Any) -> Any:
    """Call a flow; when Prefect's ephemeral server timed out starting, say so and try once more
    (a second start finds the database made and usually comes up in seconds)."""
    try:
        return flow_fn(**parameters)
    except RuntimeError as exc:
        if EPHEMERAL_TIMEOUT not in str(exc) or os.environ.get("PREFECT_API_URL"):
            raise
        if on_retry is not None:
            on_retry("Prefect's local server did not start in time (a first start creates its database); trying once more")
        return flow_fn(**parameters)


def _stage(name: str) -> Any:
    return task(name=name, task_run_name=name + "-{benchmark}", cache_policy=NO_CACHE, persist_result=False)


@_stage("load")
def load(benchmark: str, tasks: Optional[list[str]] = None) -> BenchmarkRun:
    return stages.stage_load(benchmark, tasks)


@_stage("graphs")
def graphs(benchmark: str, run: BenchmarkRun) -> BenchmarkRun:
    return stages.stage_graphs(run)


@_stage("plan")
def plan(benchmark: str, run: BenchmarkRun, fault_types: list[str], identity: bool = True) -> BenchmarkRun:
    return stages.stage_plan(run, fault_types, identity)


@_stage("write-verify")
def write_verify(benchmark: str, run: BenchmarkRun, gen: GenerateConfig, gateway: Any) -> BenchmarkRun:
    return stages.stage_write_verify(run, gen, gateway)


@_stage("composite")
def composite_stage(benchmark: str, run: BenchmarkRun, config: CompositeConfig, gateway: Any) -> BenchmarkRun:
    return stages.stage_composite(run, config, gateway)


@_stage("prepare")
def prepare(benchmark: str, fault_types: list[str], tasks: Optional[list[str]] = None) -> shards.Prepared:
    return shards.stage_prepare(benchmark, fault_types, tasks)


@task(name="shard", task_run_name="{kind}-{benchmark}-{index}", cache_policy=NO_CACHE, persist_result=False)
def shard(benchmark: str, kind: str, index: int, spec: bytes) -> shards.ShardResult:
    """One shard; ``spec`` is the pickled :class:`~miscue.flows.stages.shards.ShardSpec` (one payload:
    neither Prefect nor Dask walks its graphs looking for futures, and Dask, which reads tuples
    in arguments as tasks, cannot mistake a wrapper for one)."""
    return shards.run_shard(shards.unpack(spec))


#: Dask settings of the local cluster (its scheduler and nannies in this process, its workers in
#: theirs). Dask's defaults sample a worker's task stack every 10 ms and check its event loop every
#: 20 ms, its memory every 100 ms and the host every 500 ms: on a 2-core machine that housekeeping
#: made a shard's work 7-14% slower than in a plain process (the airline write/verify, side by
#: side: 54.0 s on a worker vs 46.8 s; with these settings 49.3 s vs 50.7 s). A remote cluster
#: keeps the settings its owner gave it.
LOCAL_CLUSTER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.admin.system-monitor.gil.enabled": False,
    "distributed.worker.memory.monitor-interval": "1s",
}


def dask_runner(workers: Optional[int], dask_address: Optional[str]) -> Any:
    """prefect-dask's task runner: an existing cluster's scheduler, else a local cluster of
    ``workers`` single-threaded worker processes (each shard's model calls are async inside)."""
    from prefect_dask import DaskTaskRunner

    if dask_address:
        return DaskTaskRunner(address=dask_address)
    return DaskTaskRunner(cluster_kwargs={"n_workers": workers or 1, "threads_per_worker": 1, "processes": True,
                                          "dashboard_address": None})


@contextmanager
def workers_report_here() -> Iterator[None]:
    """Local Dask workers report their task runs to the Prefect server this process uses. Workers
    take the flow's settings, and with no ``PREFECT_API_URL`` (ephemeral mode) those name no
    server: each worker process started a temporary server of its own (~220 MB and ~10 s of CPU
    each, every one writing the same SQLite file). Inside this block the settings name this
    process's server. (An existing cluster's workers may be on other machines, where this
    process's loopback server is out of reach: they use the ``PREFECT_API_URL`` they are given.)"""
    from prefect.client.orchestration import get_client
    from prefect.settings import PREFECT_API_URL, temporary_settings

    if PREFECT_API_URL.value():
        yield  # a configured server: the workers are given it already
        return
    url = str(get_client(sync_client=True).api_url).rstrip("/")
    with temporary_settings(updates={PREFECT_API_URL: url}):
        yield


@contextmanager
def local_cluster() -> Iterator[None]:
    """What a local cluster started inside this block runs with: its workers report to this
    process's Prefect server (:func:`workers_report_here`), and it, its nannies and (through
    them) its workers take :data:`LOCAL_CLUSTER_CONFIG`."""
    import dask

    with workers_report_here(), dask.config.set(LOCAL_CLUSTER_CONFIG):
        yield


@flow(name="miscue-build-shards", flow_run_name="shards")
def sharded_stages(benchmarks: list[str], gen: GenerateConfig, composite: Optional[CompositeConfig], artifacts: str,
                   models: ModelOptions, control: str,
                   tasks: Optional[dict[str, list[str]]] = None) -> tuple[list[BenchmarkRun], list[Any]]:
    """Every benchmark's stages as tasks on the Dask cluster (see the module docstring): the
    merged runs and each shard's per-role usage. (No gateway parameter: a flow's parameters are
    stored by the Prefect server, and only the model configuration's path may be.)"""
    prepared = {b: prepare.submit(b, gen.fault_types, (tasks or {}).get(b)) for b in benchmarks}
    runs: dict[str, BenchmarkRun] = {}
    pending: list[tuple[str, str, Any]] = []
    for b in benchmarks:
        run = runs[b] = shards.adopt(prepared[b].result())
        specs = [("write-verify", s) for s in shards.write_verify_specs(run, gen, artifacts, models, control)]
        if composite is not None:
            specs += [("composite", s) for s in shards.composite_specs(run, composite, artifacts, models, control)]
        pending += [(b, kind, shard.submit(b, kind, s.index, shards.pack(s))) for kind, s in specs]
    results: dict[tuple[str, str], list[shards.ShardResult]] = {}
    usage: list[Any] = []
    for done, (b, kind, future) in enumerate(pending, 1):
        part = future.result()
        usage.append(part.usage)
        results.setdefault((b, kind), []).append(part)
        stages.report_progress("shards", done, len(pending))
    for b, run in runs.items():
        shards.merge_write_verify(run, results.get((b, "write-verify"), []))
        if composite is not None and not run.halted:
            shards.merge_composite(run, composite, results.get((b, "composite"), []))
    return list(runs.values()), usage


@task(name="publish", cache_policy=NO_CACHE, persist_result=False)
def publish(runs: list[BenchmarkRun], artifacts: str, config: RunConfig, gateway: Any, skip_unchanged: bool) -> dict[str, Any]:
    return publish_build(runs, artifacts=Path(artifacts), config=config, gateway=gateway, skip_unchanged=skip_unchanged)


@task(name="publish-regeneration", cache_policy=NO_CACHE, persist_result=False)
def publish_regeneration(plan_: RegenerationPlan, runs: list[BenchmarkRun], artifacts: str,
                         gateway: Any) -> dict[str, Any]:
    return publish_child(plan_, runs, artifacts=Path(artifacts), gateway=gateway)


@task(name="report", task_run_name="report-{version}", cache_policy=NO_CACHE, persist_result=False)
def report(version: str, artifacts: str) -> dict[str, Any]:
    """Write the Markdown and HTML report files and publish the tables as Prefect artifacts."""
    out = reports.write_report(Path(artifacts), version)
    rep: reports.Report = out["report"]
    for s in rep.sections:
        if s.rows:
            create_table_artifact(key=f"report-{s.key}", table=s.records(),
                                  description=f"{s.title} (corpus {version})")
    create_markdown_artifact(key="corpus-report", markdown=reports.render_markdown(rep),
                             description=f"miscue corpus report {version}")
    return reports.summary_of(out)


def _stages(benchmarks: list[str], gen: GenerateConfig, gateway: Any, composite: CompositeConfig | None = None,
            tasks: dict[str, list[str]] | None = None) -> list[BenchmarkRun]:
    runs = []
    for b in benchmarks:
        # quote(): Prefect must not walk these objects (host data, graphs) looking for futures
        run = load(b, (tasks or {}).get(b))
        run = graphs(b, quote(run))
        run = plan(b, quote(run), gen.fault_types, gen.identity)
        run = write_verify(b, quote(run), quote(gen), quote(gateway))
        if composite is not None and not run.halted:
            run = composite_stage(b, quote(run), composite, quote(gateway))
        runs.append(run)
        if run.halted:
            break  # the gateway is halted: the other benchmarks would stop at their first call
    return runs


def _stopped(runs: list[BenchmarkRun]) -> Any:
    """The flow's end when a run stopped cleanly: a Failed state carrying the error (raised to a
    caller of the flow, e.g. the CLI, which exits 3), without a task traceback in the log."""
    stop = stages.first_stop(runs)
    if stop is None:
        return None
    return Failed(message=f"stopped cleanly before publishing (finished exchanges are in the store; "
                          f"rerun to resume): {stop}", data=stop)


@flow(name="miscue-build", flow_run_name="build-{attempts}-attempts", validate_parameters=True)
def build_flow(benchmarks: Optional[list[str]] = None, fault_types: Optional[list[str]] = None, attempts: int = 4,
               artifacts: str = "artifacts", skip_unchanged: bool = False,
               composite_ks: Optional[list[int]] = None, models: Optional[ModelOptions] = None,
               workers: Optional[int] = None, dask_address: Optional[str] = None,
               tasks: Optional[dict[str, list[str]]] = None) -> dict[str, Any]:
    """All configured benchmarks: load -> graphs -> plan -> write/verify -> publish -> report.
    ``models``: the model configuration's path and the run's limits (default: offline models).
    ``workers`` / ``dask_address``: the stages run as shards on a local Dask cluster of that many
    worker processes / on the existing cluster at that scheduler address. ``tasks``: a benchmark's
    task slice (a small build of those tasks alone)."""
    with run_lock(Path(artifacts), command="miscue build"):  # one run per artifacts directory
        return _build(benchmarks, fault_types, attempts, artifacts, skip_unchanged, composite_ks, models,
                      workers, dask_address, tasks)


def _build(benchmarks: Optional[list[str]], fault_types: Optional[list[str]], attempts: int, artifacts: str,
           skip_unchanged: bool, composite_ks: Optional[list[int]], models: Optional[ModelOptions],
           workers: Optional[int] = None, dask_address: Optional[str] = None,
           tasks: Optional[dict[str, list[str]]] = None) -> dict[str, Any]:
    names = stages.check_benchmarks(benchmarks)
    gen = GenerateConfig(attempts=attempts, fault_types=stages.check_fault_types(fault_types))
    comp = CompositeConfig(ks=composite_ks) if composite_ks else None
    gateway = stages.make_gateway(Path(artifacts), models)
    if workers or dask_address:
        with shards.run_control(artifacts) as control, (local_cluster() if not dask_address else nullcontext()):
            subflow = sharded_stages.with_options(task_runner=dask_runner(workers, dask_address))
            runs, usage = subflow(names, gen, comp, artifacts, models or ModelOptions(), control, tasks)
        for part in usage:
            gateway.absorb(part)
    else:
        runs = _stages(names, gen, gateway, comp, tasks)
    if (stopped := _stopped(runs)) is not None:
        return stopped
    config = stages.run_config(runs, gen, comp, gateway.config)
    out = publish(quote(runs), artifacts, quote(config), quote(gateway), skip_unchanged)
    out["summaries"] = [r.result.summary for r in runs]
    if out["version"]:
        out["report"] = report(out["version"], artifacts)
    else:
        create_markdown_artifact(key="corpus-report", markdown=f"Nothing changed: identical to {out['unchanged_from']}; "
                                                              "no version published.")
    return out


@flow(name="miscue-regenerate", flow_run_name="regenerate-{fault_type}", validate_parameters=True)
def regenerate_flow(fault_type: str, benchmark: Optional[str] = None, parent: Optional[str] = None,
                    artifacts: str = "artifacts", models: Optional[ModelOptions] = None) -> dict[str, Any]:
    """One fault type (optionally one benchmark) regenerated into a child version of ``parent``
    (default: the latest) with the parent's models; every other row is carried over unchanged."""
    with run_lock(Path(artifacts), command=f"miscue regenerate {fault_type}"):
        return _regenerate(fault_type, benchmark, parent, artifacts, models)


def _regenerate(fault_type: str, benchmark: Optional[str], parent: Optional[str], artifacts: str,
                models: Optional[ModelOptions]) -> dict[str, Any]:
    plan_ = plan_regeneration(Path(artifacts), fault_type, benchmark, parent)
    gateway = salted_gateway(Path(artifacts), models, plan_.salt)
    check_parent_models(plan_, gateway.config)
    if plan_.note:  # a forms-path parent: its type is regenerated on the reading path
        get_run_logger().warning(plan_.note)
    runs = _stages(plan_.benchmarks, plan_.gen.model_copy(update={"fault_types": [fault_type]}), gateway,
                   tasks=plan_.tasks)
    if (stopped := _stopped(runs)) is not None:
        return stopped
    out = publish_regeneration(quote(plan_), quote(runs), artifacts, quote(gateway))
    out["summaries"] = [r.result.summary for r in runs]
    out["report"] = report(out["version"], artifacts)
    return out


@flow(name="miscue-report", flow_run_name="report-{version}")
def report_flow(version: Optional[str] = None, artifacts: str = "artifacts") -> dict[str, Any]:
    return report(corpus.resolve(Path(artifacts), version), artifacts)


@flow(name="miscue-audit", flow_run_name="audit")
def audit_flow(report_name: Optional[str] = "rejections", by: Optional[list[str]] = None, sql: Optional[str] = None,
               versions: Optional[list[str]] = None, artifacts: str = "artifacts") -> dict[str, Any]:
    """DuckDB over every published version: a canned report or any SQL; the result is also a
    table artifact (``audit-<report>`` or ``audit-sql``)."""
    columns, rows = audit.run(Path(artifacts), report_name, by, sql, versions)
    key = "audit-sql" if sql else f"audit-{report_name}"
    create_table_artifact(key=key, table=[dict(zip(columns, [_jsonable(v) for v in r])) for r in rows[:1000]],
                          description=sql or audit.canned_sql(report_name or "rejections", by))
    return {"columns": columns, "rows": rows}


def _jsonable(v: Any) -> Any:
    return v if v is None or isinstance(v, (str, int, float, bool)) else str(v)


def valid_cron(cron: str) -> bool:
    """Whether Prefect's cron schedule accepts ``cron``."""
    from prefect.client.schemas.schedules import CronSchedule

    try:
        CronSchedule(cron=cron)
    except ValueError:
        return False
    return True


def serve_deployment(name: str, cron: str, parameters: dict[str, Any]) -> None:
    """Serve ``miscue-build/<name>`` on ``cron`` with ``parameters`` (the nightly deployment of
    :mod:`miscue.flows.deployment`) until interrupted."""
    from prefect import serve as prefect_serve
    from prefect.deployments.runner import EntrypointType

    deployment = build_flow.to_deployment(
        name=name, cron=cron, parameters=parameters, tags=["miscue", "nightly"],
        description="Nightly rebuild of every configured benchmark; publishes a new corpus version when anything changed.",
        entrypoint_type=EntrypointType.MODULE_PATH,
    )
    prefect_serve(deployment, print_starting_message=True)
