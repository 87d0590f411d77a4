"""Single-fault generate-then-verify (DESIGN section 6): the attempt loop and its ledger.

Per cell (graph root x applicable fault type), up to ``attempts`` tries. Each attempt: plan
(target and materials) -> write -> mechanical text checks -> extractor A (blind, then the
targeted form of the class it found) -> extractor B only if A matches the plan -> agreement ->
executable admission. Every attempt, admitted or not, becomes a ledger row with a stable code.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterable, TypeVar

from pydantic import BaseModel, Field

from miscue.host import Adapter
from miscue import writing
from miscue.briefs import ExtractionInput, TargetedExtraction, WriterBrief
from miscue.canonical import canonical_json, content_hash
from miscue.graphs import GraphBuild, GraphBuilder
from miscue.config import offline_llm_config, role_models
from miscue.llm import Exchange, Gateway, TransientProviderError
from miscue.planning import AttemptPlan, CellPlan, PlanError, Planner
from miscue.reports import single_fault_summary
from miscue.schema import IntentGraph, Operator, Verdict
from miscue.taxonomy import FAULT_TYPES, fault_type
from verifiers.admission import Admission, admit
from verifiers.agreement import blind_matches_plan, targeted_agree
from verifiers.text import check_text

T = TypeVar("T")


def offline_gateway(store_dir: Path, replay_only: bool = False) -> Gateway:
    """A gateway on the embedded offline models (registered with litellm as provider ``offline``)."""
    from miscue.offline.provider import register

    register()
    return Gateway(offline_llm_config(replay_only=replay_only), store_dir)


async def gather_all(aws: Iterable[Awaitable[T]]) -> list[T]:
    """``asyncio.gather`` that lets every awaitable finish before raising the first error, so a
    run that stops (a terminal provider error halts the gateway: the others fail fast) leaves
    nothing running and no call cut off mid-flight."""
    results = await asyncio.gather(*aws, return_exceptions=True)
    for r in results:
        if isinstance(r, BaseException):
            raise r
    return results  # type: ignore[return-value]


class GenerateConfig(BaseModel):
    attempts: int = Field(4, ge=1)
    attempts_per_type: dict[str, int] = Field(default_factory=dict)
    fault_types: list[str] = Field(default_factory=lambda: list(FAULT_TYPES))
    max_concurrent_cells: int = Field(16, ge=1)

    def attempts_for(self, fault: str) -> int:
        return self.attempts_per_type.get(fault, self.attempts)


@dataclass
class RunResult:
    cells: list[dict[str, Any]] = field(default_factory=list)
    attempts: list[dict[str, Any]] = field(default_factory=list)
    samples: list[dict[str, Any]] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    graphs: GraphBuild | None = None

    def tables(self) -> dict[str, list[dict[str, Any]]]:
        """The ledger tables (see miscue.ledger.SCHEMAS)."""
        return {"cells": self.cells, "attempts": self.attempts, "samples": self.samples, "llm_calls": self.calls}


def call_record(benchmark: str, role: str, ex: Exchange, card_version: str) -> dict[str, Any]:
    """One ``llm_calls`` ledger row (miscue.ledger.SCHEMAS["llm_calls"])."""
    return {
        "benchmark": benchmark, "call_id": ex.call_id, "role": role, "model": ex.model,
        "cached": ex.cached, "prompt_tokens": ex.usage.prompt_tokens, "completion_tokens": ex.usage.completion_tokens,
        "cost": ex.cost, "latency_s": ex.latency_s, "attempts": ex.attempts, "card_version": card_version,
    }


def shift_options(adapter: Adapter, graph: IntentGraph) -> list[dict[str, Any]]:
    """A sample's ``shift_options``: every child goal with its executed truth and announcement."""
    return [
        {"operator": e.operator.value, "delta_json": canonical_json(e.delta), "to_intent": c.intent.intent_id,
         "gt_hash": c.ground_truth.hash, "gt_moved": e.gt_moved, "announcement": announcement(adapter, graph, i)}
        for i, (c, e) in enumerate(zip(graph.children, graph.edges))
    ]


def announcement(adapter: Adapter, graph: IntentGraph, child_index: int) -> str:
    """The user's scripted line when drifting to a child goal."""
    child, edge = graph.children[child_index], graph.edges[child_index]
    root = graph.root.intent
    if edge.operator == Operator.pivot:
        return f"Actually, I've changed my mind: I'd rather {adapter.request_phrase(child.intent)}."
    if edge.operator == Operator.relax:
        slots = [d["slot"] for d in edge.delta.get("removed", [])]
        return "Actually, " + " and ".join(adapter.slot_phrase(root, s) for s in slots) + " doesn't matter after all."
    if edge.operator == Operator.refine:
        parts = [f"{adapter.slot_phrase(child.intent, d['slot'])} needs to be {adapter.spoken_value(child.intent, d['slot'], d['value'])}"
                 for d in edge.delta.get("added", [])]
        return "Also, " + " and ".join(parts) + "."
    parts = [f"{adapter.slot_phrase(root, s)} {adapter.spoken_value(child.intent, s, new)} instead of {adapter.spoken_value(root, s, old)}"
             for s, _op, old, new in edge.delta.get("changed", [])]
    return "Actually, make " + " and ".join(parts) + "."


class SingleFaultRun:
    """Runs every cell of a set of graphs for one adapter."""

    def __init__(self, adapter: Adapter, gateway: Gateway, config: GenerateConfig, splits: dict[str, str] | None = None) -> None:
        self.adapter = adapter
        self.gateway = gateway
        self.config = config
        self.planner = Planner(adapter)
        self.splits = splits or {}
        self.result = RunResult()

    # ---------------------------------------------------------------------- model calls
    async def _call(self, role: str, messages: list[dict[str, Any]], version: str) -> Exchange:
        ex = await self.gateway.complete(role, messages, version)  # type: ignore[arg-type]
        self.result.calls.append(call_record(self.adapter.benchmark, role, ex, version))
        return ex

    async def _extract(self, role: str, inp: ExtractionInput, calls: list[str]) -> tuple[Any, TargetedExtraction | None]:
        messages, version = writing.render_blind(inp)
        ex = await self._call(role, messages, version)
        calls.append(ex.call_id)
        blind = writing.parse_blind(ex.text)
        if blind is None or blind.flaw == "none":
            return blind, None
        messages, version = writing.render_targeted(inp, blind.flaw)
        ex = await self._call(role, messages, version)
        calls.append(ex.call_id)
        return blind, writing.parse_targeted(ex.text)

    # -------------------------------------------------------------------------- attempt
    async def attempt(self, graph: IntentGraph, cell: CellPlan, index: int) -> dict[str, Any]:
        """One attempt of one cell, recorded whatever happens."""
        plan: AttemptPlan = self.planner.attempt(cell, graph, index)
        brief: WriterBrief = plan.brief
        row: dict[str, Any] = {
            "benchmark": graph.benchmark, "task_id": graph.task_id, "graph_id": graph.graph_id, "cell_id": cell.cell_id,
            "k": 1, "fault_types": [cell.fault_type], "families": [fault_type(cell.fault_type).family.value],
            "targets": [brief.target], "attempt": index, "text": None, "materials_json": brief.materials.model_dump_json(exclude_none=True),
            "blind_a": None, "blind_b": None, "targeted_a": None, "targeted_b": None, "readings_json": "[]",
            "readings_executed": 0, "truth_hash": graph.root.ground_truth.hash, "call_ids": [], "card_version": None,
            "admitted": False, "stage": None, "code": None, "detail": "",
        }
        calls: list[str] = row["call_ids"]

        def finish(verdict: Verdict | None, admission: Admission | None = None) -> dict[str, Any]:
            if admission is not None:
                row["readings_json"] = canonical_json([r.record() for r in admission.readings])
                row["readings_executed"] = admission.executed
            if verdict is None:
                row.update(admitted=True, stage="admit", code="admitted", detail="")
            else:
                row.update(stage=verdict.stage, code=verdict.code, detail=verdict.detail)
            return row

        messages, card_version = writing.render_writer(brief)
        row["card_version"] = card_version
        try:
            ex = await self._call("writer", messages, card_version)
        except TransientProviderError as exc:
            return finish(Verdict(stage="write", code="write:provider_error", detail=str(exc)[:300]))
        calls.append(ex.call_id)
        text = ex.text.strip()
        row["text"] = text
        verdict = check_text(brief, text, self.adapter.answer_identifiers(graph.root.intent))
        if verdict is not None:
            return finish(verdict)

        inp = ExtractionInput(context=brief.context, request=brief.request, requirements=brief.requirements, text=text)
        try:
            blind_a, targeted_a = await self._extract("extractor_a", inp, calls)
            row["blind_a"] = blind_a.model_dump_json() if blind_a else None
            row["targeted_a"] = targeted_a.model_dump_json() if targeted_a else None
            verdict = blind_matches_plan(brief, blind_a, "a")
            if verdict is not None:
                return finish(verdict)  # the second extractor is skipped: A already fails the plan
            blind_b, targeted_b = await self._extract("extractor_b", inp, calls)
        except TransientProviderError as exc:
            return finish(Verdict(stage="extract", code="extract:provider_error", detail=str(exc)[:300]))
        row["blind_b"] = blind_b.model_dump_json() if blind_b else None
        row["targeted_b"] = targeted_b.model_dump_json() if targeted_b else None
        verdict = blind_matches_plan(brief, blind_b, "b") or targeted_agree(brief, targeted_a, targeted_b)
        if verdict is not None:
            return finish(verdict)
        admission = admit(self.adapter, graph.root.intent, graph.root.ground_truth, brief, targeted_a)  # type: ignore[arg-type]
        if admission.admitted and admission.executed == 0:
            return finish(Verdict(stage="admit", code="admit:no_executed_reading"), admission)
        return finish(admission.verdict, admission)

    # ----------------------------------------------------------------------------- cell
    async def cell(self, graph: IntentGraph, cell: CellPlan) -> None:
        base = {"benchmark": graph.benchmark, "task_id": graph.task_id, "graph_id": graph.graph_id,
                "cell_id": cell.cell_id, "k": 1, "fault_types": [cell.fault_type]}
        if cell.status != "planned":
            self.result.cells.append({**base, "status": cell.status, "code": f"plan:{cell.status}", "detail": cell.reason,
                                      "attempts_used": 0, "sample_id": None})
            return
        last: dict[str, Any] | None = None
        for i in range(self.config.attempts_for(cell.fault_type)):
            try:
                last = await self.attempt(graph, cell, i)
            except PlanError as exc:
                last = {**base, "attempt": i, "admitted": False, "stage": "plan", "code": exc.code, "detail": exc.detail}
            self.result.attempts.append(last)
            if last.get("admitted"):
                sample = self.sample(graph, cell, last)
                self.result.samples.append(sample)
                self.result.cells.append({**base, "status": "admitted", "code": "admitted", "detail": "",
                                          "attempts_used": i + 1, "sample_id": sample["sample_id"]})
                return
        assert last is not None
        self.result.cells.append({**base, "status": "rejected", "code": last["code"], "detail": last.get("detail", ""),
                                  "attempts_used": self.config.attempts_for(cell.fault_type), "sample_id": None})

    def sample(self, graph: IntentGraph, cell: CellPlan, row: dict[str, Any]) -> dict[str, Any]:
        root = graph.root
        shifts = shift_options(self.adapter, graph)
        models = role_models(self.gateway.config)
        return {
            "sample_id": content_hash(graph.graph_id, row["fault_types"], row["targets"], row["text"]),
            "benchmark": graph.benchmark, "task_id": graph.task_id, "graph_id": graph.graph_id,
            "intent_id": root.intent.intent_id, "k": 1, "fault_types": row["fault_types"], "families": row["families"],
            "targets": row["targets"], "query": row["text"],
            "conditions_json": canonical_json([c.model_dump() for c in root.intent.conditions]),
            "gt_kind": root.ground_truth.kind, "gt_hash": root.ground_truth.hash, "gt_value": list(root.ground_truth.value),
            "shift_options": shifts,
            "evidence_json": canonical_json({k: row[k] for k in ("blind_a", "blind_b", "targeted_a", "targeted_b", "materials_json")}),
            "readings_json": row["readings_json"], "readings_executed": row["readings_executed"],
            "models_json": canonical_json(models), "card_version": row["card_version"], "attempt": row["attempt"],
            "split": self.splits.get(graph.task_id, "base"),
        }

    async def run(self, graphs: list[IntentGraph], progress: Callable[[int, int], None] | None = None) -> RunResult:
        sem = asyncio.Semaphore(self.config.max_concurrent_cells)
        cells = [(g, c) for g in graphs for c in self.planner.cells(g, self.config.fault_types)]
        done = 0

        async def one(g: IntentGraph, c: CellPlan) -> None:
            nonlocal done
            async with sem:
                await self.cell(g, c)
            done += 1
            if progress:
                progress(done, len(cells))

        await gather_all(one(g, c) for g, c in cells)
        order = {c.cell_id: i for i, (_, c) in enumerate(cells)}
        self.result.cells.sort(key=lambda r: order[r["cell_id"]])
        self.result.attempts.sort(key=lambda r: (order[r["cell_id"]], r["attempt"]))
        self.result.samples.sort(key=lambda r: r["sample_id"])
        return self.result




def run_benchmark(adapter: Adapter, artifacts: Path, config: GenerateConfig, gateway: Gateway | None = None,
                  replay_only: bool = False, progress: Callable[[int, int], None] | None = None,
                  lock_wait: bool = False) -> RunResult:
    """Build one benchmark's graphs and run every single-fault cell on them.

    ``gateway`` defaults to the embedded offline models with the exchange store under
    ``artifacts/store``; the result carries the ledger rows, the graphs and a summary.
    The whole run holds the artifacts directory's run lock (:mod:`miscue.runlock`): a second
    run on the same directory raises :class:`miscue.runlock.RunLocked` at once (or waits, with
    ``lock_wait``). The lock is re-entrant, so a caller may hold it around this call too.
    """
    from miscue.runlock import run_lock

    with run_lock(artifacts, command=f"run_benchmark {adapter.benchmark}", wait=lock_wait):
        return _run_benchmark(adapter, artifacts, config, gateway, replay_only, progress)


def _run_benchmark(adapter: Adapter, artifacts: Path, config: GenerateConfig, gateway: Gateway | None,
                   replay_only: bool, progress: Callable[[int, int], None] | None) -> RunResult:
    import time

    started = time.perf_counter()
    build = GraphBuilder(adapter).build()
    gateway = gateway or offline_gateway(artifacts / "store", replay_only)
    splits = {s.task_id: s.split for s in adapter.load_seeds()}
    run = SingleFaultRun(adapter, gateway, config, splits)
    result = asyncio.run(run.run(build.graphs, progress=progress))
    result.graphs = build
    result.summary = {"benchmark": adapter.benchmark, **single_fault_summary(result.cells, result.attempts, result.calls),
                      "seconds": round(time.perf_counter() - started, 2)}
    return result
