"""One benchmark through the stages of a build, as plain functions: load -> graphs -> plan ->
write/verify (single faults) -> composites. The Prefect flows (:mod:`miscue.flows.prefect_flows`) wrap
each as one task per stage and benchmark; :func:`miscue.flows.stages.build.build` runs them without
Prefect. Keeping the logic here means it runs and is tested without a Prefect server.

Caching: no Prefect caching. Every model exchange is cached by our own content-addressed
exchange store (``artifacts/store``, key = sha256 of the canonical request), so a rebuild with
nothing changed makes zero model calls; graphs are rebuilt from host data (a few seconds, and
rebuilding them *is* the check that their executed ground truth still holds).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from miscue.flows.registry import ADAPTERS, adapter_for, check_installed
from miscue.flows.stages.attempt import RunResult
from miscue.flows.stages.composite import run_composites
from miscue.flows.stages.single import SingleFaultStage
from miscue import stoppable
from miscue.config import CompositeConfig, GenerateConfig, GraphConfig, ModelOptions, RunConfig
from miscue.errors import UnknownBenchmark
from miscue.graphs import GraphBuild, GraphBuilder
from miscue.host import Adapter, Seed
from miscue.llm.outbox import Outbox
from miscue.llm import RUN_STOPS, Gateway, LLMConfig, LLMError, PromptsExported
from miscue.planning import CellPlan, Planner
from miscue.reports.summary import single_fault_summary
from miscue.taxonomy import FAULT_TYPES, fault_type

#: A progress sink: (label, done, total, **facts) -- facts are running counts a stage knows
#: (admitted, calls). The CLI sets one (bars, or log lines); the stage functions (also when called
#: by Prefect tasks in the same process) report to it.
ProgressFn = Callable[..., None]
_progress: ProgressFn | None = None


def set_progress(fn: ProgressFn | None) -> None:
    global _progress
    _progress = fn


def report_progress(label: str, done: int, total: int | None, **facts: int) -> None:
    if _progress is not None:
        _progress(label, done, total, **facts)


def check_benchmarks(benchmarks: Iterable[str] | None) -> list[str]:
    """The requested benchmarks (default: every registered one); unknown -> UnknownBenchmark."""
    names = list(benchmarks) if benchmarks else list(ADAPTERS)
    for b in names:
        if b not in ADAPTERS:
            raise UnknownBenchmark(f"unknown benchmark {b!r}; known: {', '.join(ADAPTERS)}")
    names = list(dict.fromkeys(names))
    check_installed(names)
    return names


def check_fault_types(types: Iterable[str] | None) -> list[str]:
    """The requested fault types (default: all 11); unknown -> UnknownFaultType naming the known ones."""
    names = list(types) if types else list(FAULT_TYPES)
    return list(dict.fromkeys(fault_type(t).id for t in names))


@dataclass
class BenchmarkRun:
    """One benchmark as it moves through the stages."""

    benchmark: str
    adapter: Adapter
    seeds: list[Seed]
    graphs: GraphBuild | None = None
    planner: Planner | None = None
    plans: dict[str, int] = field(default_factory=dict)
    result: RunResult | None = None
    seconds: dict[str, float] = field(default_factory=dict)
    composite_ks: list[int] = field(default_factory=list)
    #: set when the run stopped cleanly (budget, terminal provider error, replay miss): nothing
    #: of it is published; finished exchanges are in the store and a rerun resumes
    stopped: LLMError | None = None

    @property
    def halted(self) -> bool:
        """Stopped for good this round (not merely waiting for replies under --prompts-out, where
        the other stages and benchmarks still run to export their requests too)."""
        return self.stopped is not None and not isinstance(self.stopped, PromptsExported)

    @property
    def splits(self) -> dict[str, str]:
        return {s.task_id: s.split for s in self.seeds}

    @property
    def graph_config(self) -> GraphConfig:
        return GraphBuilder(self.adapter).config


def stage_load(benchmark: str, tasks: list[str] | None = None) -> BenchmarkRun:
    """Load the host's tasks, or the slice ``tasks`` of them (fails fast on bad host data)."""
    t = time.perf_counter()
    report_progress(f"load {benchmark}", 0, 1)
    adapter = adapter_for(benchmark, tasks=tasks)
    run = BenchmarkRun(benchmark, adapter, adapter.seeds())
    run.seconds["load"] = round(time.perf_counter() - t, 2)
    report_progress(f"load {benchmark}", 1, 1, tasks=len(run.seeds))
    return run


def stage_graphs(run: BenchmarkRun) -> BenchmarkRun:
    """Validate every seed and build its intent graph (every node executed)."""
    t = time.perf_counter()
    total, done = len(run.seeds), 0

    def tick(_task_id: str) -> None:
        nonlocal done
        done += 1
        report_progress(f"graphs {run.benchmark}", done, total)

    run.graphs = GraphBuilder(run.adapter).build(progress=tick)
    run.seconds["graphs"] = round(time.perf_counter() - t, 2)
    return run


def stage_plan(run: BenchmarkRun, fault_types: list[str], identity: bool = True) -> BenchmarkRun:
    """Plan one cell per graph and fault type (planned, skipped or unsupported). The warmed
    planner is handed to the write/verify stage, which asks it for the same cells."""
    assert run.graphs is not None
    t = time.perf_counter()
    run.planner = Planner(run.adapter, identity=identity)
    cells: list[CellPlan] = [c for g in run.graphs.graphs for c in run.planner.cells(g, fault_types)]
    run.plans = {s: sum(1 for c in cells if c.status == s) for s in ("planned", "skipped", "unsupported")}
    run.seconds["plan"] = round(time.perf_counter() - t, 2)
    report_progress(f"plan {run.benchmark}", 1, 1, **run.plans)
    return run


def stage_write_verify(run: BenchmarkRun, gen: GenerateConfig, gateway: Gateway) -> BenchmarkRun:
    """Every planned cell: write, text checks, two extractors, agreement, admission (async,
    bounded concurrency inside this one stage)."""
    assert run.graphs is not None
    t = time.perf_counter()
    stage = SingleFaultStage(run.adapter, gateway, gen, run.splits, run.planner)
    label = f"cells {run.benchmark}"
    try:
        result = stoppable.run(stage.run(run.graphs.graphs, progress=lambda d, n, **f: report_progress(label, d, n, **f)))
    except RUN_STOPS as exc:
        run.stopped = exc
        return run
    result.graphs = run.graphs
    result.summary = {"benchmark": run.benchmark, **single_fault_summary(result.cells, result.attempts, result.calls)}
    run.result = result
    run.seconds["write_verify"] = round(time.perf_counter() - t, 2)
    return waiting_round(run)


def waiting_round(run: BenchmarkRun) -> BenchmarkRun:
    """A --prompts-out round whose cells or draws wait for replies stops cleanly: nothing of it is
    published (the replies go into the store, and the next round goes on from there)."""
    if run.result is not None and run.result.waiting and run.stopped is None:
        run.stopped = PromptsExported(run.result.waiting)
    return run


def stage_composite(run: BenchmarkRun, config: CompositeConfig, gateway: Gateway) -> BenchmarkRun:
    """Composite faults (k in ``config.ks``) on the same graphs, merged into the run's records."""
    assert run.graphs is not None and run.result is not None
    t = time.perf_counter()
    label = f"composites {run.benchmark}"
    try:
        comp = run_composites(run.adapter, run.graphs.graphs, gateway, config, run.splits,
                              progress=lambda d, n, **f: report_progress(label, d, n, **f), planner=run.planner)
    except RUN_STOPS as exc:
        run.stopped = exc
        return run
    run.result.merge(comp)
    run.result.summary["composite"] = comp.summary.get("composite", {})
    run.composite_ks = list(config.ks)
    run.seconds["composite"] = round(time.perf_counter() - t, 2)
    return waiting_round(run)


def make_gateway(artifacts: Path, options: ModelOptions | None = None) -> Gateway:
    """The run's gateway: the models of ``options`` (default: the embedded offline models) with
    the exchange store under ``artifacts/store``."""
    options = options or ModelOptions()
    gateway = Gateway(options.resolve(), Path(artifacts) / "store")
    if options.prompts_out is not None:
        gateway.outbox = Outbox(Path(artifacts) / "store" / "outbox")
    return gateway


def run_config(runs: list[BenchmarkRun], gen: GenerateConfig, composite: CompositeConfig | None, llm: LLMConfig) -> RunConfig:
    """The run's configuration as the manifest records it."""
    return RunConfig(benchmarks=[r.benchmark for r in runs], adapters={r.benchmark: r.adapter.adapter_id for r in runs},
                     graphs={r.benchmark: r.graph_config for r in runs}, generate=gen,
                     composite=composite if any(r.composite_ks for r in runs) else None, llm=llm)


def offline_gateway(store_dir: Path, replay_only: bool = False) -> Gateway:
    """A gateway on the embedded offline models with its exchange store in ``store_dir``."""
    return Gateway(ModelOptions(replay_only=replay_only).resolve(), Path(store_dir))


def first_stop(runs: list[BenchmarkRun]) -> LLMError | None:
    """Why a build stopped before publishing: the first run halted, else the replies every
    run waits for under --prompts-out (one count), else None."""
    halted = next((r.stopped for r in runs if r.halted), None)
    if halted is not None:
        return halted
    waiting = sum(r.result.waiting for r in runs if r.result is not None)
    return PromptsExported(waiting) if any(r.stopped is not None for r in runs) else None
