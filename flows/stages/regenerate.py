"""Regenerating one fault type into a child version (``miscue regenerate``, DESIGN section 10):
the models are asked again for that type only (fresh calls under a salted store key), every
other row is carried over from the parent unchanged, and the manifest names the parent.

A parent built on the retired forms path (blind and targeted extraction forms) is regenerated on
the reading path, the only one there is: the child's manifest says so
(``regeneration.parent_path``, ``regeneration.note``) and so does the command."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from miscue.flows.stages.benchmark import BenchmarkRun, check_benchmarks
from miscue.flows.stages.publish import card_versions, code_version, run_stats, run_tables
from miscue import corpus
from miscue.config import GenerateConfig, ModelOptions, recorded_llm, role_models
from miscue.errors import ConfigError, CorpusError, UnknownBenchmark
from miscue.llm import Gateway, LLMConfig
from miscue.llm.outbox import Outbox
from miscue.taxonomy import fault_type


@dataclass
class RegenerationPlan:
    parent: str
    fault_type: str
    benchmarks: list[str]
    gen: GenerateConfig
    salt: str
    parent_manifest: dict[str, Any]

    @property
    def parent_path(self) -> str:
        """The verification path the parent was built on: ``reading`` or ``forms``."""
        return built_on(self.parent_manifest)

    @property
    def note(self) -> str | None:
        """What a regeneration from a forms-path parent does differently (None: nothing)."""
        if self.parent_path != "forms":
            return None
        return (f"{self.parent} was built on the retired forms path; {self.fault_type} is regenerated on the "
                "reading path, every other row is carried over as the forms path verified it")

    @property
    def tasks(self) -> dict[str, list[str]]:
        """The task slice each benchmark of the parent was built on (none: every task)."""
        graphs = self.parent_manifest["config"].get("graphs", {})
        return {b: graphs[b]["tasks"] for b in self.benchmarks if graphs.get(b, {}).get("tasks")}


def built_on(manifest: dict[str, Any]) -> str:
    """The verification path a version was built on: ``forms`` when its generate configuration says
    ``reading: false``, or has no ``reading`` and its cards include the forms path's
    (``extract_blind``: a version from before the reading path); else ``reading``."""
    gen = manifest.get("config", {}).get("generate") or {}
    if "reading" in gen:
        return "reading" if gen["reading"] else "forms"
    return "forms" if "extract_blind" in (manifest.get("card_versions") or {}) else "reading"


def plan_regeneration(artifacts: Path, fault_type_: str, benchmark: str | None, parent: str | None) -> RegenerationPlan:
    """Check the request against the parent version and fix the salt."""
    artifacts = Path(artifacts)
    fault_type(fault_type_)
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
    gen = GenerateConfig(attempts=pg["attempts"], fault_types=types, attempts_per_type=pg.get("attempts_per_type") or {},
                         identity=pg.get("identity", True))
    salt = f"{parent}+{corpus.next_version(artifacts)}:{fault_type_}"
    return RegenerationPlan(parent, fault_type_, scope, gen, salt, pman)


def check_parent_models(plan: RegenerationPlan, llm: LLMConfig) -> None:
    """A regeneration runs the parent's models (same model strings and recorded parameters), so
    the child version's manifest stays true of every row; ConfigError naming the difference."""
    theirs = plan.parent_manifest["config"].get("llm", {})
    mine = recorded_llm(llm)
    diff = {role: (theirs.get(role, {}), mine[role]) for role in role_models(llm) if theirs.get(role) != mine[role]}
    if diff:
        detail = "; ".join(f"{role}: {a.get('model')} {a.get('params', {})} in {plan.parent}, now {b['model']} {b['params']}"
                           for role, (a, b) in diff.items())
        raise ConfigError(f"regenerate must use the models of version {plan.parent} ({detail}); "
                          "run `miscue build` to build a corpus with other models")


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

    def key(self, role: Any, messages: list[dict[str, Any]], card_version: str, schema: dict[str, Any] | None = None) -> str:
        return super().key(role, messages, self._salted(card_version), schema)

    async def complete(self, role: Any, messages: list[dict[str, Any]], card_version: str,
                       schema: dict[str, Any] | None = None) -> Any:
        return await super().complete(role, messages, self._salted(card_version), schema)


def salted_gateway(artifacts: Path, options: ModelOptions | None, salt: str) -> SaltedGateway:
    options = options or ModelOptions()
    gateway = SaltedGateway(options.resolve(), Path(artifacts) / "store", salt)
    if options.prompts_out is not None:  # --prompts-out: what the store lacks waits in the outbox
        gateway.outbox = Outbox(Path(artifacts) / "store" / "outbox")
    return gateway


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
            raise CorpusError(
                f"{r.benchmark}: the graphs built now differ from version {plan.parent}'s "
                f"({len(mine - theirs)} new, {len(theirs - mine)} gone): host data, code or graph config changed; "
                "run `miscue build` instead of regenerate")
    tables: dict[str, pa.Table] = {}
    for name in corpus.TABLES:
        path = corpus.version_dir(artifacts, plan.parent) / f"{name}.parquet"
        if not path.exists():
            continue
        old = corpus.read_table(artifacts, plan.parent, name)
        if name in corpus.PER_TYPE_TABLES:
            kept = corpus.carried_over(old, name, plan.fault_type, plan.benchmarks)
            tables[name] = pa.concat_tables([kept, corpus.table(name, new[name]).cast(kept.schema)])
        else:
            tables[name] = old
    stats = {**run_stats(runs, gateway), "swept_staging": swept}
    pman = plan.parent_manifest
    config = {**pman["config"], "generate": plan.gen.model_dump(mode="json")}
    inputs = {**pman.get("input_hashes", {}), **{r.benchmark: r.adapter.input_hashes() for r in runs}}
    regeneration = {"fault_types": [plan.fault_type], "benchmarks": plan.benchmarks, "salt": plan.salt,
                    "from": plan.parent, "parent_path": plan.parent_path, "path": "reading",
                    **({"note": plan.note} if plan.note else {})}
    same_samples = corpus.same_content(artifacts, {"samples": corpus.content_hash_table("samples", tables["samples"])},
                                       tables=("samples",))
    version = corpus.publish(
        tables, artifacts=artifacts, parent=plan.parent, config=config, code_version=code_version(),
        input_hashes=inputs, models=role_models(gateway.config), card_versions=card_versions(),
        extra={"kind": "regenerate", "regeneration": regeneration, "run": stats})
    return {"version": version, "parent": plan.parent, "regeneration": regeneration, "run": stats,
            "same_samples_as": same_samples}
