"""A build split into shards for a Dask cluster (``miscue build --workers N`` / ``--dask-address``;
DESIGN section 10), as plain functions: the Prefect flow submits each as a task to the cluster.

- **prepare** (per benchmark, on a worker): load -> graphs -> plan, returned as :class:`Prepared`
  (seeds, graphs, plan counts: plain records, no adapter, so it pickles).
- **write/verify shards**: a benchmark's graphs are dealt into ``ceil(graphs / SHARD_GRAPHS)``
  shards in the order of ``sha256(graph_id)`` (graph i of that order goes to shard i mod n), so
  the assignment depends on the graph ids only, never on the number of workers. Every cell of a
  graph is in its graph's shard; cells do not depend on each other, so a shard's records are
  exactly those the in-process stage makes for its graphs.
- **composite shards**: one per k. Coverage control (DESIGN section 7) steers each draw by the
  samples admitted so far on *every* graph of the benchmark, so splitting a k by graphs would
  change which combinations are drawn and make the corpus depend on the split; the values of k
  are independent of each other, so each k is one shard.

Each shard runs its own gateway (bounded async concurrency inside) on the shared exchange store,
with the run's :class:`~miscue.llm.control.RunControl` (halt on the first terminal error, global
budget). :func:`merge_write_verify` and :func:`merge_composite` put the shards' records back in
the order the in-process stages produce, so the published tables have identical content hashes
for any number of workers and for the in-process build.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import pickle
import shutil
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from miscue.flows.registry import adapter_for
from miscue.flows.stages.attempt import RunResult
from miscue.flows.stages.benchmark import BenchmarkRun, make_gateway, stage_graphs, stage_load, stage_plan, waiting_round
from miscue.flows.stages.composite import run_composites
from miscue.flows.stages.single import SingleFaultStage
from miscue import stoppable
from miscue.config import CompositeConfig, GenerateConfig, ModelOptions
from miscue.graphs import GraphBuild
from miscue.host import Adapter, Seed
from miscue.llm import RUN_STOPS, Gateway, LLMError
from miscue.llm.control import RunControl
from miscue.llm.limits import RoleUsage
from miscue.planning import Planner
from miscue.reports import single_fault_summary
from miscue.schema import IntentGraph

#: graphs per write/verify shard (a webshop shard of 12 graphs is ~100 cells, ~6 s offline)
SHARD_GRAPHS = 12
#: the run's shared state (halt, budget ledger) lives in ``<artifacts>/.run/<token>/``
CONTROL_DIR = ".run"


@dataclass
class Prepared:
    """One benchmark after load -> graphs -> plan, as a worker hands it back."""

    benchmark: str
    seeds: list[Seed]
    graphs: GraphBuild
    plans: dict[str, int]
    seconds: dict[str, float]
    tasks: tuple[str, ...] | None = None  # the task slice it was built on


@dataclass
class ShardSpec:
    """What a shard task needs: its graphs and the run's settings (no gateway object: the
    shard builds its own from ``models``, so provider keys never travel as task parameters)."""

    benchmark: str
    index: int
    count: int
    graphs: list[IntentGraph]
    splits: dict[str, str]
    artifacts: str
    models: ModelOptions
    control: str
    gen: GenerateConfig | None = None
    composite: CompositeConfig | None = None  # one k


@dataclass
class ShardResult:
    benchmark: str
    index: int
    result: RunResult | None
    usage: dict[str, RoleUsage] = field(default_factory=dict)
    stopped: LLMError | None = None
    seconds: float = 0.0


@lru_cache(maxsize=None)
def cached_adapter(benchmark: str, tasks: tuple[str, ...] | None = None) -> Adapter:
    """One adapter per benchmark (and task slice) and worker process (its host data is read once)."""
    return adapter_for(benchmark, tasks=tasks)


def stage_prepare(benchmark: str, fault_types: list[str], tasks: list[str] | None = None) -> Prepared:
    """load -> graphs -> plan of one benchmark (on a worker)."""
    run = stage_plan(stage_graphs(stage_load(benchmark, tasks)), fault_types)
    assert run.graphs is not None
    return Prepared(benchmark, run.seeds, run.graphs, run.plans, run.seconds, run.adapter.task_slice)


def adopt(prepared: Prepared) -> BenchmarkRun:
    """The main process's :class:`BenchmarkRun` of a prepared benchmark (its adapter loaded here:
    publishing asks it for the input hashes and its graph configuration)."""
    adapter = cached_adapter(prepared.benchmark, prepared.tasks)
    return BenchmarkRun(prepared.benchmark, adapter, prepared.seeds, graphs=prepared.graphs,
                        plans=dict(prepared.plans), seconds=dict(prepared.seconds))


def shard_graphs(graphs: list[IntentGraph], size: int = SHARD_GRAPHS) -> list[list[IntentGraph]]:
    """The graphs dealt into ``ceil(len / size)`` shards in the order of sha256(graph_id)."""
    if not graphs:
        return []
    count = math.ceil(len(graphs) / size)
    ordered = sorted(graphs, key=lambda g: hashlib.sha256(g.graph_id.encode()).hexdigest())
    return [ordered[i::count] for i in range(count)]


def write_verify_specs(run: BenchmarkRun, gen: GenerateConfig, artifacts: str, models: ModelOptions,
                       control: str) -> list[ShardSpec]:
    assert run.graphs is not None
    parts = shard_graphs(run.graphs.graphs)
    return [ShardSpec(run.benchmark, i, len(parts), part, run.splits, artifacts, models, control, gen=gen)
            for i, part in enumerate(parts)]


def composite_specs(run: BenchmarkRun, config: CompositeConfig, artifacts: str, models: ModelOptions,
                    control: str) -> list[ShardSpec]:
    assert run.graphs is not None
    return [ShardSpec(run.benchmark, i, len(config.ks), run.graphs.graphs, run.splits, artifacts, models, control,
                      composite=config.model_copy(update={"ks": [k]})) for i, k in enumerate(config.ks)]


def pack(spec: ShardSpec) -> bytes:
    return pickle.dumps(spec, protocol=pickle.HIGHEST_PROTOCOL)


def unpack(payload: bytes) -> ShardSpec:
    spec = pickle.loads(payload)
    if not isinstance(spec, ShardSpec):
        raise TypeError(f"not a shard spec: {type(spec).__name__}")
    return spec


def shard_gateway(spec: ShardSpec) -> Gateway:
    gateway = make_gateway(Path(spec.artifacts), spec.models)
    gateway.control = RunControl(spec.control)
    return gateway


def run_shard(spec: ShardSpec) -> ShardResult:
    """One shard (on a worker): the single-fault cells of its graphs, or one k of composites."""
    started = time.perf_counter()
    adapter = cached_adapter(spec.benchmark)
    gateway = shard_gateway(spec)
    planner = Planner(adapter)
    try:
        if spec.composite is not None:
            result = run_composites(adapter, spec.graphs, gateway, spec.composite, spec.splits, planner=planner)
        else:
            assert spec.gen is not None
            stage = SingleFaultStage(adapter, gateway, spec.gen, spec.splits, planner)
            result = stoppable.run(stage.run(spec.graphs))
    except RUN_STOPS as exc:
        return ShardResult(spec.benchmark, spec.index, None, gateway.usage_summary(), exc,
                           round(time.perf_counter() - started, 2))
    return ShardResult(spec.benchmark, spec.index, result, gateway.usage_summary(), None,
                       round(time.perf_counter() - started, 2))


def first_stop(parts: list[ShardResult]) -> LLMError | None:
    return next((p.stopped for p in sorted(parts, key=lambda p: p.index) if p.stopped is not None), None)


def merge_write_verify(run: BenchmarkRun, parts: list[ShardResult]) -> BenchmarkRun:
    """The shards' single-fault records in the in-process order: cells by graph (planner order
    within a graph), attempts by cell then attempt, samples by id."""
    assert run.graphs is not None
    if (stop := first_stop(parts)) is not None:
        run.stopped = stop
        return run
    position = {g.graph_id: i for i, g in enumerate(run.graphs.graphs)}
    parts = sorted(parts, key=lambda p: p.index)
    result = RunResult(
        cells=sorted((c for p in parts for c in p.result.cells), key=lambda c: position[c.graph_id]),  # type: ignore[union-attr]
        attempts=sorted((a for p in parts for a in p.result.attempts), key=lambda a: position[a.graph_id]),  # type: ignore[union-attr]
        samples=sorted((s for p in parts for s in p.result.samples), key=lambda s: s.sample_id),  # type: ignore[union-attr]
        calls=[c for p in parts for c in p.result.calls],  # type: ignore[union-attr]
        waiting=sum(p.result.waiting for p in parts))  # type: ignore[union-attr]
    result.graphs = run.graphs
    result.summary = {"benchmark": run.benchmark, **single_fault_summary(result.cells, result.attempts, result.calls)}
    run.result = result
    run.seconds["write_verify"] = round(sum(p.seconds for p in parts), 2)
    return waiting_round(run)


def merge_composite(run: BenchmarkRun, config: CompositeConfig, parts: list[ShardResult]) -> BenchmarkRun:
    """The composite shards (one per k, in the order of ``config.ks``) merged into the run."""
    if (stop := first_stop(parts)) is not None:
        run.stopped = stop
        return run
    assert run.result is not None
    summary: dict[str, Any] = {}
    for part in sorted(parts, key=lambda p: p.index):
        assert part.result is not None
        part.result.samples.sort(key=lambda s: (s.k, s.sample_id))
        run.result.merge(part.result)
        summary.update(part.result.summary.get("composite", {}))
    run.result.summary["composite"] = summary
    run.composite_ks = list(config.ks)
    run.seconds["composite"] = round(sum(p.seconds for p in parts), 2)
    return waiting_round(run)


@contextlib.contextmanager
def run_control(artifacts: str | Path) -> Iterator[str]:
    """A fresh shared-state directory for one sharded run (the caller holds the run lock),
    removed when the run ends however it ends."""
    root = Path(artifacts) / CONTROL_DIR
    shutil.rmtree(root, ignore_errors=True)  # a killed run's leftovers: this run holds the lock
    path = root / uuid.uuid4().hex[:12]
    RunControl(path)
    try:
        yield str(path)
    finally:
        shutil.rmtree(root, ignore_errors=True)
