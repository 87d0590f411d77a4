"""The single-fault stage (DESIGN section 6): every cell (graph root x applicable fault type) of a
set of graphs, each tried up to ``attempts`` times through the attempt pipeline.

:class:`SinglePlan` is how a k = 1 plan is written (the type's card), read (one reading form per
extractor) and judged (the class derived from each reading, agreement, then the admission rule
of its class).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from miscue.flows.stages.attempt import Judgement, RunResult, Stage, gather_all, refused_record, sample_record
from miscue.flows.stages.read import Read, ReadingSteps
from miscue.flows.stages.shifts import shift_options
from miscue import writing
from miscue.briefs import ExtractionInput, Requirement, WriterBrief
from miscue.canonical import canonical_json, content_hash
from miscue.config import GenerateConfig
from miscue.host import Adapter
from miscue.llm import Deferred
from miscue.planning import AttemptPlan, CellPlan, PlanError, Planner
from miscue.reading import Departure, Reading, ReadingForm, planned_departure, single_class
from miscue.schema import Attempt, Cell, GroundTruth, Intent, IntentGraph, Verdict
from miscue.taxonomy import fault_type
from miscue.verifiers.admission import admit_reading
from miscue.verifiers.agreement import agreed_reading, reading_matches_plan, readings_agree
from miscue.verifiers.text import mechanical


@dataclass
class SinglePlan(ReadingSteps):
    """One attempt of a k = 1 cell (DESIGN section 6, steps 1-6: models read, code checks): the
    type's card; the mechanical text checks; one reading form per extractor (:func:`read`), its
    quotes, values and statuses checked by code; the class derived from each reading and held to
    the plan (A failing: B is not asked), then to the other reading; admission executes the reading."""

    brief: WriterBrief
    cell_id: str = ""
    requirements: list[Requirement] | None = None  # the extractors' view (default: the brief's)
    form: ReadingForm | None = None

    def record(self, graph: IntentGraph, index: int) -> Attempt:
        b = self.brief
        return Attempt(
            benchmark=graph.benchmark, task_id=graph.task_id, graph_id=graph.graph_id, cell_id=self.cell_id, k=1,
            fault_types=[b.fault_type], families=[fault_type(b.fault_type).family.value], targets=[b.target],
            attempt=index, materials_json=b.materials.model_dump_json(exclude_none=True), readings_json="[]",
            readings_executed=0, truth_hash=graph.root.ground_truth.hash, call_ids=[])

    async def write(self, call: Any, row: Attempt) -> str:
        messages, version = writing.render_writer(self.brief)
        row.card_version = version
        return writing.parse_writer((await call("writer", messages, version, row.call_ids)).text)

    def extraction_input(self, text: str) -> ExtractionInput:
        b = self.brief
        return ExtractionInput(context=b.context, request=b.request, requirements=self.requirements or b.requirements,
                               text=text)

    @property
    def departure(self) -> Departure:
        """What the plan says the text departs from the plain request in."""
        return planned_departure(self.brief.fault_type, self.brief.target)

    def check_text(self, adapter: Adapter, root: Intent, truth: GroundTruth, text: str, row: Attempt) -> Verdict | None:
        return mechanical(self.brief, text, adapter.answer_identifiers(root))

    def matches(self, reading: Reading, who: str) -> Verdict | None:
        assert self.form is not None
        return reading_matches_plan(self.form, reading, self.departure, who)

    def judge(self, adapter: Adapter, root: Intent, truth: GroundTruth, text: str, a: Read, b: Read) -> Judgement:
        assert self.form is not None
        verdict = self.gate(b, "b")
        if verdict is None:
            verdict = readings_agree(self.form, a.reading, b.reading, self.departure)  # type: ignore[arg-type]
        if verdict is not None:
            return Judgement(verdict)
        found = single_class(a.reading, self.form)  # the class A's reading derives (agreed with B's and the plan's)
        agreed = agreed_reading(a.reading, b.reading, found)  # type: ignore[arg-type]
        admission = admit_reading(adapter, root, truth, self.form, agreed, found)  # type: ignore[arg-type]
        verdict = admission.verdict
        if admission.admitted and admission.executed == 0:
            verdict = Verdict(stage="admit", code="admit:no_executed_reading")
        return Judgement(verdict, canonical_json([r.record() for r in admission.readings]), admission.executed, admission)


@dataclass
class SingleCell:
    """A planned single-fault cell as a unit of the attempt pipeline."""

    graph: IntentGraph
    cell: CellPlan
    planner: Planner
    attempts: int

    @property
    def cell_id(self) -> str:
        return self.cell.cell_id

    k = 1

    @property
    def fault_types(self) -> list[str]:
        return [self.cell.fault_type]

    def plan(self, index: int) -> SinglePlan:
        planned: AttemptPlan = self.planner.attempt(self.cell, self.graph, index)
        return SinglePlan(planned.brief, self.cell_id, planned.extraction,
                          form=self.planner.reading_form(self.graph.root.intent))

    def refused(self, index: int, error: PlanError) -> Attempt:
        return refused_record(self.graph, self.cell_id, 1, self.fault_types, index, error)

    def sample_id(self, row: Attempt) -> str:
        return content_hash(self.graph.graph_id, row.fault_types, row.targets, row.query)

    def evidence(self, row: Attempt, outcome: Any) -> str:
        return canonical_json({k: getattr(row, k) for k in ("reading_a", "reading_b", "materials_json")})


class SingleFaultStage(Stage):
    """Runs every cell of a set of graphs for one adapter."""

    config: GenerateConfig

    async def cell(self, graph: IntentGraph, cell: CellPlan) -> None:
        if cell.status != "planned":
            self.result.cells.append(Cell(
                benchmark=graph.benchmark, task_id=graph.task_id, graph_id=graph.graph_id, cell_id=cell.cell_id, k=1,
                fault_types=[cell.fault_type], status=cell.status, code=f"plan:{cell.status}",  # type: ignore[arg-type]
                detail=cell.reason, attempts_used=0))
            return
        unit = SingleCell(graph, cell, self.planner, self.config.attempts_for(cell.fault_type))
        try:
            record, rows, admitted = await self.pipeline.cell(unit)
        except Deferred:  # --prompts-out: the cell waits for a reply the store does not hold yet
            self.result.waiting += 1
            return
        self.result.cells.append(record)
        self.result.attempts += rows
        if admitted is not None:
            row, outcome = admitted
            self.result.samples.append(sample_record(
                graph, row, sample_id=unit.sample_id(row), evidence_json=unit.evidence(row, outcome),
                shifts=shift_options(self.adapter, graph), models_json=self.models_json,
                split=self.splits.get(graph.task_id, "base")))

    async def run(self, graphs: list[IntentGraph], progress: Callable[..., None] | None = None) -> RunResult:
        """Every cell of ``graphs``; ``progress(done, total, admitted=, calls=)`` after each cell."""
        sem = asyncio.Semaphore(self.config.max_concurrent_cells)
        cells = [(g, c) for g in graphs for c in self.planner.cells(g, self.config.fault_types)]
        done = 0

        async def one(g: IntentGraph, c: CellPlan) -> None:
            nonlocal done
            async with sem:
                await self.cell(g, c)
            done += 1
            if progress:
                progress(done, len(cells), admitted=len(self.result.samples), calls=len(self.result.calls))

        await gather_all(one(g, c) for g, c in cells)
        order = {c.cell_id: i for i, (_, c) in enumerate(cells)}
        self.result.cells.sort(key=lambda r: order[r.cell_id])
        self.result.attempts.sort(key=lambda r: (order[r.cell_id], r.attempt))
        self.result.samples.sort(key=lambda r: r.sample_id)
        return self.result
