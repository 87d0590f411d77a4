"""THE attempt pipeline (DESIGN section 6): write -> text checks -> extractor A -> extractor B ->
agreement -> admission, written once for every plan of k >= 1 components.

A plan says *how* its components are written, checked, read and judged (the :class:`Plan`
protocol): :class:`miscue.flows.stages.single.SinglePlan` (k = 1: the type's card, one reading
per extractor, one admission) and :class:`miscue.flows.stages.composite.CompositePlan` (k >= 2:
every card in one call plus a transformation pass, one reading per extractor for all k
components, every component verified and the merged reading executed). The pipeline says *in what order* and what
each outcome records; it is the same for the single-fault stage, the composite stage and
``miscue verify`` (which enters at :meth:`AttemptPipeline.judge` with a text it did not write).

Every attempt, admitted or not, ends as one :class:`~miscue.schema.Attempt` record with a stable
verdict code; every model call as one :class:`~miscue.schema.LLMCall` record.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from miscue.briefs import ExtractionInput
from miscue.canonical import canonical_json
from miscue.host import Adapter
from miscue.llm import Exchange, Gateway, TransientProviderError
from miscue.config import role_models
from miscue.planning import PlanError, Planner
from miscue.schema import Attempt, Cell, GroundTruth, Intent, IntentGraph, LLMCall, Sample, Verdict

T = TypeVar("T")


async def gather_all(aws: Iterable[Awaitable[T]]) -> list[T]:
    """``asyncio.gather`` that lets every awaitable finish before raising the first error, so a
    run that stops (a terminal provider error halts the gateway: the others fail fast) leaves
    nothing running and no call cut off mid-flight."""
    results = await asyncio.gather(*aws, return_exceptions=True)
    for r in results:
        if isinstance(r, BaseException):
            raise r
    return results  # type: ignore[return-value]


class Caller:
    """The run's model calls: each goes through the gateway and becomes one ``llm_calls`` record."""

    def __init__(self, gateway: Gateway, benchmark: str) -> None:
        self.gateway = gateway
        self.benchmark = benchmark
        self.calls: list[LLMCall] = []

    async def __call__(self, role: str, messages: list[dict[str, Any]], version: str, call_ids: list[str],
                       schema: dict[str, Any] | None = None) -> Exchange:
        """One exchange; its id is appended to ``call_ids`` (the attempt's) once it succeeded.
        ``schema``: the JSON Schema the reply must follow (see :meth:`Gateway.complete`)."""
        ex = await self.gateway.complete(role, messages, version, schema)  # type: ignore[arg-type]
        self.calls.append(LLMCall(
            benchmark=self.benchmark, call_id=ex.call_id, role=role, model=ex.model, cached=ex.cached,
            prompt_tokens=ex.usage.prompt_tokens, completion_tokens=ex.usage.completion_tokens, cost=ex.cost,
            latency_s=ex.latency_s, attempts=ex.attempts, card_version=version))
        call_ids.append(ex.call_id)
        return ex


@dataclass
class RunResult:
    """A stage's records: the ledger tables of one benchmark (see :mod:`miscue.corpus.tables`)."""

    cells: list[Cell] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)
    calls: list[LLMCall] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    graphs: Any = None  # the GraphBuild the stage ran on, when it built it
    waiting: int = 0  # --prompts-out: cells and draws waiting for a reply the store does not hold

    def tables(self) -> dict[str, list[Any]]:
        return {"cells": self.cells, "attempts": self.attempts, "samples": self.samples, "llm_calls": self.calls}

    def merge(self, other: "RunResult") -> "RunResult":
        """Append another stage's records of the same benchmark (``k`` tells them apart)."""
        self.cells += other.cells
        self.attempts += other.attempts
        self.samples += other.samples
        self.calls += other.calls
        self.waiting += other.waiting
        return self


@dataclass
class Judgement:
    """What the last step (agreement and admission) decided, and the readings it executed
    (``readings_json`` None: nothing was executed, the attempt keeps its empty readings)."""

    verdict: Verdict | None
    readings_json: str | None = None
    executed: int = 0
    outcome: Any = None  # the plan's own result, handed to its sample evidence


class Plan(Protocol):
    """How the components of one attempt are written, checked, extracted and judged."""

    def record(self, graph: IntentGraph, index: int) -> Attempt:
        """The attempt's record before anything ran (plan, materials, empty readings)."""

    async def write(self, call: Caller, row: Attempt) -> str:
        """The request text (one or two writer calls; records the card version)."""

    def check_text(self, adapter: Adapter, root: Intent, truth: GroundTruth, text: str, row: Attempt) -> Verdict | None:
        """The mechanical checks before any extractor call."""

    def extraction_input(self, text: str) -> ExtractionInput:
        """What the extractors see: the true requirements and the text, never the plan."""

    async def extract(self, call: Caller, role: str, inp: ExtractionInput, call_ids: list[str]) -> Any:
        """One extractor's reading of the text."""

    def settle(self, adapter: Adapter, root: Intent, truth: GroundTruth, found: Any) -> Any:
        """One extractor's reading without what execution shows to agree with the truth."""

    def record_extraction(self, row: Attempt, who: str, found: Any) -> None:
        """Put one extractor's reading into the record (``reading_<who>``)."""

    def gate(self, found: Any, who: str) -> Verdict | None:
        """Does one extractor's reading hold and match the plan? (A failing: B is not asked.)"""

    def judge(self, adapter: Adapter, root: Intent, truth: GroundTruth, text: str, a: Any, b: Any) -> Judgement:
        """Agreement of both extractors with each other and the plan, then executable admission."""


class Unit(Protocol):
    """One cell of a stage: a fault plan on one graph, tried up to ``attempts`` times."""

    graph: IntentGraph
    cell_id: str
    k: int
    fault_types: list[str]
    attempts: int

    def plan(self, index: int) -> Plan:
        """Attempt ``index``'s plan (raises PlanError when the cell cannot be planned)."""

    def refused(self, index: int, error: PlanError) -> Attempt:
        """The record of an attempt refused at planning."""

    def sample_id(self, row: Attempt) -> str: ...

    def evidence(self, row: Attempt, outcome: Any) -> str:
        """The sample's ``evidence_json``."""


class AttemptPipeline:
    """Runs attempts and cells of one benchmark against one gateway."""

    def __init__(self, adapter: Adapter, gateway: Gateway) -> None:
        self.adapter = adapter
        self.gateway = gateway
        self.call = Caller(gateway, adapter.benchmark)

    async def attempt(self, graph: IntentGraph, plan: Plan, index: int) -> tuple[Attempt, Any]:
        """One attempt: write it, then judge it; recorded whatever happens."""
        row = plan.record(graph, index)
        try:
            text = await plan.write(self.call, row)
        except TransientProviderError as exc:
            return row.decide(Verdict(stage="write", code="write:provider_error", detail=str(exc)[:300])), None
        row.query = text
        return await self.judge(plan, graph.root.intent, graph.root.ground_truth, text, row)

    async def judge(self, plan: Plan, root: Intent, truth: GroundTruth, text: str, row: Attempt,
                    known_a: Any = None, known_b: Any = None) -> tuple[Attempt, Any]:
        """Text checks, extractor A, extractor B (only when A matches the plan), agreement and
        admission, on any text. ``known_a``/``known_b``: an extractor's answers when the caller
        already has them."""
        verdict = plan.check_text(self.adapter, root, truth, text, row)
        if verdict is not None:
            return row.decide(verdict), None
        inp = plan.extraction_input(text)
        calls = row.call_ids if row.call_ids is not None else []
        try:
            a = known_a if known_a is not None else await plan.extract(self.call, "extractor_a", inp, calls)
            a = plan.settle(self.adapter, root, truth, a)
            plan.record_extraction(row, "a", a)
            verdict = plan.gate(a, "a")
            if verdict is not None:
                return row.decide(verdict), None  # the second extractor is skipped: A already fails the plan
            b = known_b if known_b is not None else await plan.extract(self.call, "extractor_b", inp, calls)
        except TransientProviderError as exc:
            return row.decide(Verdict(stage="extract", code="extract:provider_error", detail=str(exc)[:300])), None
        b = plan.settle(self.adapter, root, truth, b)
        plan.record_extraction(row, "b", b)
        judged = plan.judge(self.adapter, root, truth, text, a, b)
        if judged.readings_json is not None:
            row.readings_json, row.readings_executed = judged.readings_json, judged.executed
        return row.decide(judged.verdict), judged.outcome

    async def cell(self, unit: Unit) -> tuple[Cell, list[Attempt], tuple[Attempt, Any] | None]:
        """Up to ``unit.attempts`` attempts until one is admitted: (cell record, attempt records,
        the admitted attempt and its outcome, or None)."""
        graph = unit.graph
        base = dict(benchmark=graph.benchmark, task_id=graph.task_id, graph_id=graph.graph_id, cell_id=unit.cell_id,
                    k=unit.k, fault_types=unit.fault_types)
        rows: list[Attempt] = []
        for i in range(unit.attempts):
            try:
                plan = unit.plan(i)
            except PlanError as exc:
                rows.append(unit.refused(i, exc))
                continue
            row, outcome = await self.attempt(graph, plan, i)
            rows.append(row)
            if row.admitted:
                cell = Cell(**base, status="admitted", code="admitted", attempts_used=i + 1,
                            sample_id=unit.sample_id(row))
                return cell, rows, (row, outcome)
        last = rows[-1]
        return Cell(**base, status="rejected", code=last.code or "", detail=last.detail, attempts_used=len(rows)), rows, None


def refused_record(graph: IntentGraph, cell_id: str, k: int, fault_types: list[str], index: int, error: PlanError,
                   **planned: Any) -> Attempt:
    """The record of an attempt the planner refused (``planned``: what is known of the plan)."""
    return Attempt(benchmark=graph.benchmark, task_id=graph.task_id, graph_id=graph.graph_id, cell_id=cell_id, k=k,
                   fault_types=fault_types, attempt=index, stage="plan", code=error.code, detail=error.detail, **planned)


def sample_record(graph: IntentGraph, row: Attempt, *, sample_id: str, evidence_json: str, shifts: Sequence[Any],
                  models_json: str, split: str) -> Sample:
    """An admitted attempt plus its graph context."""
    root = graph.root
    return Sample(
        sample_id=sample_id, benchmark=graph.benchmark, task_id=graph.task_id, graph_id=graph.graph_id,
        intent_id=root.intent.intent_id, k=row.k, fault_types=row.fault_types, families=row.families or [],
        targets=row.targets or [], query=row.query or "",
        conditions_json=canonical_json([c.model_dump() for c in root.intent.conditions]),
        gt_kind=root.ground_truth.kind, gt_hash=root.ground_truth.hash, gt_value=list(root.ground_truth.value),
        shift_options=list(shifts), evidence_json=evidence_json, readings_json=row.readings_json or "",
        readings_executed=row.readings_executed or 0, models_json=models_json, card_version=row.card_version or "",
        attempt=row.attempt, split=split,
    )


class Stage:
    """What a single-fault and a composite stage share: one adapter's planner, its attempt
    pipeline on one gateway, the models in use and the records being built."""

    def __init__(self, adapter: Adapter, gateway: Gateway, config: Any, splits: dict[str, str] | None = None,
                 planner: Planner | None = None) -> None:
        self.adapter = adapter
        self.config = config
        self.planner = planner or Planner(adapter)
        self.splits = splits or {}
        self.pipeline = AttemptPipeline(adapter, gateway)
        self.models_json = canonical_json(role_models(gateway.config))
        self.result = RunResult(calls=self.pipeline.call.calls)
