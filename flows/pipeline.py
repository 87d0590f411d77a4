"""The corpus pipeline as plain functions: the stages of ``build`` and ``regenerate``.

The Prefect flows (:mod:`flows.prefect_flows`) are thin wrappers: one Prefect task per stage
and benchmark (load, graphs, plan, write/verify), then publish and report. Keeping the logic
here means it runs and is tested without a Prefect server, and the task grain is a choice made
in one place (see ``perf/bench_prefect_overhead.py``).

Caching: no Prefect caching. Every model exchange is cached by our own content-addressed
exchange store (``artifacts/store``, key = sha256 of the canonical request), so a rebuild with
nothing changed makes zero model calls; graphs are rebuilt from host data (a few seconds, and
rebuilding them *is* the check that their executed ground truth still holds). Prefect's cache
would pickle multi-megabyte stage results into its own storage, keyed by hashing pickled inputs.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Iterable

import pyarrow as pa
import pyarrow.compute as pc

from miscue.host import Adapter, Seed
from flows.registry import ADAPTERS, adapter_for
from miscue.errors import UnknownBenchmark, UnknownFaultType
from miscue import corpus, graph_store
from miscue.canonical import content_hash
from miscue.graphs import GraphBuild, GraphBuilder
from miscue.config import ModelOptions, recorded_llm, role_models
from miscue.llm import RUN_STOPS, Gateway, LLMConfig, LLMError
from miscue.planning import CellPlan, Planner
from miscue.taxonomy import FAULT_TYPES, fault_type

ROOT = Path(__file__).resolve().parent.parent
CODE_DIRS = ("miscue", "adapters", "verifiers", "flows", "prompts")

#: A progress sink: (label, done, total). The CLI sets one to draw progress bars; the stage
#: functions (also when called by Prefect tasks in the same process) report to it.
ProgressFn = Callable[[str, int, "int | None"], None]
_progress: ProgressFn | None = None


def set_progress(fn: ProgressFn | None) -> None:
    global _progress
    _progress = fn


def report_progress(label: str, done: int, total: int | None) -> None:
    if _progress is not None:
        _progress(label, done, total)


# ------------------------------------------------------------------------------ configuration


def check_benchmarks(benchmarks: Iterable[str] | None) -> list[str]:
    """The requested benchmarks (default: every registered one); unknown -> UnknownBenchmark."""
    names = list(benchmarks) if benchmarks else list(ADAPTERS)
    for b in names:
        if b not in ADAPTERS:
            raise UnknownBenchmark(f"unknown benchmark {b!r}; known: {', '.join(ADAPTERS)}")
    return list(dict.fromkeys(names))


def check_fault_types(types: Iterable[str] | None) -> list[str]:
    names = list(types) if types else list(FAULT_TYPES)
    for t in names:
        try:
            fault_type(t)
        except ValueError as exc:
            raise UnknownFaultType(str(exc)) from None
    return list(dict.fromkeys(names))


@lru_cache(maxsize=1)
def code_version() -> str:
    """Package version plus a hash of the source and prompt files (works without git, and
    changes with uncommitted edits)."""
    try:
        pkg = metadata.version("miscue")
    except metadata.PackageNotFoundError:  # pragma: no cover - not installed
        pkg = "0+unknown"
    h = hashlib.sha256()
    for d in CODE_DIRS:
        for p in sorted((ROOT / d).rglob("*")):
            if p.is_file() and p.suffix in (".py", ".j2") and "__pycache__" not in p.parts:
                h.update(str(p.relative_to(ROOT)).encode() + b"\0" + p.read_bytes() + b"\0")
    return f"miscue {pkg}+src.{h.hexdigest()[:12]}"


def card_versions() -> dict[str, str]:
    from miscue import writing

    return writing.card_versions()


def generate_config(attempts: int, fault_types: list[str], attempts_per_type: dict[str, int] | None = None) -> Any:
    from flows.generate import GenerateConfig

    return GenerateConfig(attempts=attempts, fault_types=fault_types, attempts_per_type=attempts_per_type or {})


def resolved_config(benchmarks: list[str], gen: Any, graph_configs: dict[str, Any], llm: LLMConfig) -> dict[str, Any]:
    """The resolved configuration recorded (and hashed) in the manifest: no secrets and no run
    controls (see :func:`miscue.config.recorded_llm`)."""
    return {"benchmarks": benchmarks, "generate": gen.model_dump(mode="json"), "llm": recorded_llm(llm),
            "graphs": graph_configs}


# ------------------------------------------------------------------------------------- stages


@dataclass
class BenchmarkRun:
    """One benchmark as it moves through the stages."""

    benchmark: str
    adapter: Adapter
    seeds: list[Seed]
    graphs: GraphBuild | None = None
    planner: Planner | None = None
    plans: dict[str, int] = field(default_factory=dict)
    result: Any = None  # flows.generate.RunResult
    seconds: dict[str, float] = field(default_factory=dict)
    composite_ks: list[int] = field(default_factory=list)
    #: set when the run stopped cleanly (budget, terminal provider error, replay miss): nothing
    #: of it is published; finished exchanges are in the store and a rerun resumes
    stopped: LLMError | None = None

    @property
    def splits(self) -> dict[str, str]:
        return {s.task_id: s.split for s in self.seeds}


def stage_load(benchmark: str) -> BenchmarkRun:
    """Load the host's tasks (fails fast on bad host data)."""
    t = time.perf_counter()
    adapter = adapter_for(benchmark)
    run = BenchmarkRun(benchmark, adapter, adapter.load_seeds())
    run.seconds["load"] = round(time.perf_counter() - t, 2)
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


def stage_plan(run: BenchmarkRun, fault_types: list[str]) -> BenchmarkRun:
    """Plan one cell per graph and fault type (planned, skipped or unsupported). The warmed
    planner is handed to the write/verify stage, which asks it for the same cells."""
    assert run.graphs is not None
    t = time.perf_counter()
    run.planner = Planner(run.adapter)
    cells: list[CellPlan] = [c for g in run.graphs.graphs for c in run.planner.cells(g, fault_types)]
    run.plans = {s: sum(1 for c in cells if c.status == s) for s in ("planned", "skipped", "unsupported")}
    run.seconds["plan"] = round(time.perf_counter() - t, 2)
    return run


def stage_write_verify(run: BenchmarkRun, gen: Any, gateway: Gateway) -> BenchmarkRun:
    """Every planned cell: write, text checks, two extractors, agreement, admission (async,
    bounded concurrency inside this one stage)."""
    import asyncio

    from flows.generate import SingleFaultRun
    from miscue.reports import single_fault_summary

    assert run.graphs is not None
    t = time.perf_counter()
    sfr = SingleFaultRun(run.adapter, gateway, gen, run.splits)
    if run.planner is not None:
        sfr.planner = run.planner
    label = f"cells {run.benchmark}"
    try:
        result = asyncio.run(sfr.run(run.graphs.graphs, progress=lambda d, n: report_progress(label, d, n)))
    except RUN_STOPS as exc:
        run.stopped = exc
        return run
    result.graphs = run.graphs
    result.summary = {"benchmark": run.benchmark, **single_fault_summary(result.cells, result.attempts, result.calls)}
    run.result = result
    run.seconds["write_verify"] = round(time.perf_counter() - t, 2)
    return run


CompositeDefaults: dict[str, Any] = {}  # filled lazily with CompositeConfig's defaults


def stage_composite(run: BenchmarkRun, ks: list[int], gateway: Gateway) -> BenchmarkRun:
    """Composite faults (k in ``ks``) on the same graphs, merged into the run's ledger rows."""
    from flows.composite import CompositeConfig, merge_into, run_composites

    CompositeDefaults.update(CompositeConfig(ks=ks).model_dump(mode="json", exclude={"ks"}))
    assert run.graphs is not None and run.result is not None
    t = time.perf_counter()
    label = f"composites {run.benchmark}"
    try:
        comp = run_composites(run.adapter, run.graphs.graphs, gateway, CompositeConfig(ks=ks), run.splits,
                              progress=lambda d, n: report_progress(label, d, n), planner=run.planner)
    except RUN_STOPS as exc:
        run.stopped = exc
        return run
    merge_into(run.result, comp)
    run.composite_ks = list(ks)
    run.seconds["composite"] = round(time.perf_counter() - t, 2)
    return run


def make_gateway(artifacts: Path, options: ModelOptions | None = None, salt: str | None = None) -> Gateway:
    """The run's gateway: the models of ``options`` (default: the embedded offline models) with
    the exchange store under ``artifacts/store``. With a ``salt`` every request key also carries
    it (see :class:`SaltedGateway`)."""
    config = (options or ModelOptions()).resolve()
    if salt is None:
        return Gateway(config, Path(artifacts) / "store")
    return SaltedGateway(config, Path(artifacts) / "store", salt)


class SaltedGateway(Gateway):
    """A gateway whose store keys also carry a regeneration salt: the requests sent to the
    models are unchanged, but none is answered by an exchange stored for another version, so
    a regenerated fault type really asks the models again, and the parent's exchanges stay in
    the store untouched (the parent remains replayable). The salt is in the manifest, so the
    regeneration itself is replayable from the store."""

    def __init__(self, config: Any, store_dir: Path, salt: str) -> None:
        super().__init__(config, store_dir)
        self.salt = salt

    def _salted(self, card_version: str) -> str:
        return f"{card_version}|regenerate:{self.salt}"

    def key(self, role: Any, messages: list[dict[str, Any]], card_version: str) -> str:
        return super().key(role, messages, self._salted(card_version))

    async def complete(self, role: Any, messages: list[dict[str, Any]], card_version: str) -> Any:
        return await super().complete(role, messages, self._salted(card_version))


# ------------------------------------------------------------------------------------- tables


def run_tables(runs: list[BenchmarkRun]) -> dict[str, list[dict[str, Any]]]:
    """The corpus rows of finished benchmark runs (``run_version`` left null: publish fills it)."""
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in corpus.TABLES}
    for run in runs:
        assert run.result is not None and run.graphs is not None
        res = run.result
        types_of: dict[str, set[str]] = {}
        for a in res.attempts:
            for cid in a.get("call_ids") or []:
                types_of.setdefault(cid, set()).update(a.get("fault_types") or [])
        out["cells"] += res.cells
        out["attempts"] += res.attempts
        out["samples"] += res.samples
        out["llm_calls"] += [{**c, "fault_types": sorted(types_of.get(c["call_id"], ())), "run_version": None}
                             for c in res.calls]
        g = graph_store.rows(run.graphs)
        bench_of = {r["graph_id"]: r["benchmark"] for r in g["graphs"]}
        out["graphs"] += g["graphs"]
        out["nodes"] += g["nodes"]
        out["edges"] += [{**e, "benchmark": bench_of[e["graph_id"]]} for e in g["edges"]]
        out["graph_ledger"] += g["ledger"]
    return out


def arrow_tables(rows: dict[str, list[dict[str, Any]]]) -> dict[str, pa.Table]:
    return {name: corpus.table(name, r) for name, r in rows.items()}


def run_stats(runs: list[BenchmarkRun], gateway: Gateway) -> dict[str, Any]:
    """What this run did (manifest ``run``): model calls made vs answered from the store, and
    what they cost against the run's cap."""
    per = {}
    for r in runs:
        calls = r.result.calls if r.result is not None else []
        made = [c for c in calls if not c.get("cached")]
        per[r.benchmark] = {"requests": len(calls), "model_calls": len(made), "store_hits": len(calls) - len(made),
                            "plans": r.plans, "seconds": r.seconds}
    return {"benchmarks": per, "model_calls": sum(v["model_calls"] for v in per.values()),
            "requests": sum(v["requests"] for v in per.values()),
            "budget": {"spent": round(gateway.spent, 6), "max_cost": gateway.config.max_cost}}


def graph_configs(runs: list[BenchmarkRun]) -> dict[str, Any]:
    return {r.benchmark: {"adapter": r.adapter.adapter_id, **GraphBuilder(r.adapter).config.model_dump(mode="json")}
            for r in runs}


# ------------------------------------------------------------------------------------ publish


def publish_build(runs: list[BenchmarkRun], *, artifacts: Path, gen: Any, gateway: Gateway,
                  skip_unchanged: bool = False) -> dict[str, Any]:
    """Publish the runs as a new version whose parent is the latest one (or, with
    ``skip_unchanged``, publish nothing when every table's content hash equals the latest's)."""
    artifacts = Path(artifacts)
    swept = corpus.sweep_staging(artifacts)  # the build holds the run lock
    tables = arrow_tables(run_tables(runs))
    parent = corpus.latest(artifacts)
    benchmarks = [r.benchmark for r in runs]
    config = resolved_config(benchmarks, gen, graph_configs(runs), gateway.config)
    config["composite"] = {r.benchmark: {"ks": r.composite_ks, **CompositeDefaults} for r in runs if r.composite_ks}
    stats = {**run_stats(runs, gateway), "swept_staging": swept}
    hashes = {n: corpus.content_hash_table(n, t) for n, t in tables.items()}
    if parent is not None and skip_unchanged:
        pman = corpus.manifest(artifacts, parent)
        if ({n: m["content_hash"] for n, m in pman["tables"].items()} == hashes
                and pman.get("config_hash") == content_hash(config, length=64)):
            return {"version": None, "unchanged_from": parent, "parent": parent, "content_hashes": hashes, "run": stats}
    version = corpus.publish(
        tables, artifacts=artifacts, parent=parent, config=config, code_version=code_version(),
        input_hashes={r.benchmark: r.adapter.input_hashes() for r in runs}, models=role_models(gateway.config),
        card_versions=card_versions(), extra={"kind": "build", "run": stats})
    return {"version": version, "parent": parent, "content_hashes": hashes, "run": stats}


# ---------------------------------------------------------------------------------- regenerate


@dataclass
class RegenerationPlan:
    parent: str
    fault_type: str
    benchmarks: list[str]
    gen: Any
    salt: str
    parent_manifest: dict[str, Any]


def plan_regeneration(artifacts: Path, fault_type_: str, benchmark: str | None, parent: str | None) -> RegenerationPlan:
    """Check the request against the parent version and fix the salt."""
    artifacts = Path(artifacts)
    check_fault_types([fault_type_])
    if benchmark is not None:
        check_benchmarks([benchmark])
    parent = corpus.resolve(artifacts, parent)
    pman = corpus.manifest(artifacts, parent)
    in_parent = list(pman["config"]["benchmarks"])
    if benchmark is not None and benchmark not in in_parent:
        raise UnknownBenchmark(f"benchmark {benchmark!r} is not in version {parent} (it has: {', '.join(in_parent)})")
    scope = [benchmark] if benchmark else in_parent
    pg = pman["config"]["generate"]
    types = list(dict.fromkeys(list(pg["fault_types"]) + [fault_type_]))
    gen = generate_config(pg["attempts"], types, pg.get("attempts_per_type"))
    salt = f"{parent}+{corpus.next_version(artifacts)}:{fault_type_}"
    return RegenerationPlan(parent, fault_type_, scope, gen, salt, pman)


def check_parent_models(plan: RegenerationPlan, llm: LLMConfig) -> None:
    """A regeneration runs the parent's models (same model strings and recorded parameters), so
    the child version's manifest stays true of every row; ValueError naming the difference."""
    theirs = plan.parent_manifest["config"].get("llm", {})
    mine = recorded_llm(llm)
    diff = {role: (theirs.get(role, {}), mine[role]) for role in role_models(llm) if theirs.get(role) != mine[role]}
    if diff:
        detail = "; ".join(f"{role}: {a.get('model')} {a.get('params', {})} in {plan.parent}, now {b['model']} {b['params']}"
                           for role, (a, b) in diff.items())
        raise ValueError(f"regenerate must use the models of version {plan.parent} ({detail}); "
                         "run `miscue build` to build a corpus with other models")


def _replaced(parent: pa.Table, name: str, fault_type_: str, scope: list[str]) -> pa.Table:
    """The parent's rows that are carried over: everything except the regenerated type's rows
    of the benchmarks in scope (for ``llm_calls``: calls issued only by that type's attempts)."""
    in_scope = pc.is_in(parent.column("benchmark"), value_set=pa.array(scope, pa.string())).to_pylist()
    types = [set(t or ()) for t in parent.column("fault_types").to_pylist()]
    if name == "llm_calls":
        of_type = [bool(t) and t <= {fault_type_} for t in types]
    else:
        of_type = [fault_type_ in t for t in types]
    keep = [not (s and t) for s, t in zip(in_scope, of_type)]
    return parent.filter(pa.array(keep, pa.bool_()))


def publish_regeneration(plan: RegenerationPlan, runs: list[BenchmarkRun], *, artifacts: Path,
                         gateway: Gateway) -> dict[str, Any]:
    """A child version: the parent's rows with the regenerated type's rows of the benchmarks in
    scope replaced by the new run's; graph tables carried over (the run's graphs must be the
    parent's, else the parent is stale and a full build is needed)."""
    artifacts = Path(artifacts)
    swept = corpus.sweep_staging(artifacts)  # the regeneration holds the run lock
    new = run_tables(runs)
    parent_graphs = corpus.read_table(artifacts, plan.parent, "graphs")
    for r in runs:
        assert r.graphs is not None
        mine = {g.graph_id for g in r.graphs.graphs}
        theirs = {row["graph_id"] for row in parent_graphs.to_pylist() if row["benchmark"] == r.benchmark}
        if mine != theirs:
            raise corpus.CorpusError(
                f"{r.benchmark}: the graphs built now differ from version {plan.parent}'s "
                f"({len(mine - theirs)} new, {len(theirs - mine)} gone): host data, code or graph config changed; "
                "run `miscue build` instead of regenerate")
    tables: dict[str, pa.Table] = {}
    for name in corpus.TABLES:
        path = corpus.version_dir(artifacts, plan.parent) / f"{name}.parquet"
        if not path.exists():
            continue
        old = corpus.read_table(artifacts, plan.parent, name)
        if name in ("cells", "attempts", "samples", "llm_calls"):
            kept = _replaced(old, name, plan.fault_type, plan.benchmarks)
            tables[name] = pa.concat_tables([kept, corpus.table(name, new[name]).cast(kept.schema)])
        else:
            tables[name] = old
    stats = {**run_stats(runs, gateway), "swept_staging": swept}
    pman = plan.parent_manifest
    config = {**pman["config"], "generate": plan.gen.model_dump(mode="json")}
    inputs = {**pman.get("input_hashes", {}), **{r.benchmark: r.adapter.input_hashes() for r in runs}}
    regeneration = {"fault_types": [plan.fault_type], "benchmarks": plan.benchmarks, "salt": plan.salt,
                    "from": plan.parent}
    version = corpus.publish(
        tables, artifacts=artifacts, parent=plan.parent, config=config, code_version=code_version(),
        input_hashes=inputs, models=role_models(gateway.config), card_versions=card_versions(),
        extra={"kind": "regenerate", "regeneration": regeneration, "run": stats})
    return {"version": version, "parent": plan.parent, "regeneration": regeneration, "run": stats}


# ------------------------------------------------------------------------- whole runs (no Prefect)


def build(benchmarks: list[str] | None = None, fault_types: list[str] | None = None, attempts: int = 4,
          artifacts: Path = Path("artifacts"), skip_unchanged: bool = False, composite_ks: list[int] | None = None,
          models: ModelOptions | None = None) -> dict[str, Any]:
    """The whole build without Prefect (the flow runs the same stages as tasks)."""
    from miscue import reports
    from miscue.runlock import run_lock

    with run_lock(Path(artifacts), command="miscue build (no flow)"):
        return _build(benchmarks, fault_types, attempts, Path(artifacts), skip_unchanged, composite_ks, models, reports)


def _build(benchmarks: list[str] | None, fault_types: list[str] | None, attempts: int, artifacts: Path,
           skip_unchanged: bool, composite_ks: list[int] | None, models: ModelOptions | None, reports: Any) -> dict[str, Any]:
    names, types = check_benchmarks(benchmarks), check_fault_types(fault_types)
    gen = generate_config(attempts, types)
    gateway = make_gateway(Path(artifacts), models)
    runs = []
    for b in names:
        run = stage_load(b)
        stage_graphs(run)
        stage_plan(run, types)
        stage_write_verify(run, gen, gateway)
        if composite_ks and not run.stopped:
            stage_composite(run, composite_ks, gateway)
        if run.stopped:
            raise run.stopped
        runs.append(run)
    out = publish_build(runs, artifacts=Path(artifacts), gen=gen, gateway=gateway, skip_unchanged=skip_unchanged)
    if out["version"]:
        out["report"] = reports.write_report(Path(artifacts), out["version"])
    return out
