"""The composite stage (DESIGN section 7): composite draws through the attempt pipeline, with
coverage control.

Per benchmark and k, the run draws combinations (seeded by graph, k and draw index), writes each
draw's request with all k cards in one call (plus the transformation-only second call when
k >= 3 draws a whole-message fault with content faults), and verifies it per component
(:mod:`miscue.verifiers.composite`: one reading per extractor, the components derived from it)
until ``per_k`` samples are admitted or ``max_draws`` draws are spent.

Coverage control: the draws run in waves. For a graph's next draw index the planner collects
``candidates`` valid draws of distinct combinations from its seeded sequence and proposes the
one whose types occur least among the samples admitted in earlier waves (a combination already
admitted comes after every unseen one). A wave takes proposals from ``scan_factor`` x ``wave``
graphs (round-robin) and runs the ``wave`` best; a graph whose proposal is not taken keeps its
draw index for a later wave. So starved types and combinations are re-drawn, graphs whose only
combinations contain an over-represented type wait, no type dominates, and a graph never gets
the same combination twice. When a whole round of graphs is held by the cap (a host whose valid
combinations nearly all carry one type), the next wave's best proposal goes through regardless
(``cap_relaxed``), so the cap slows a dominant type down but never ends a run short. Everything
depends only on (graph, k, draw index) and the samples admitted in earlier waves, so a run is
reproducible.

Records (the same tables as single faults): one cell record per draw (admitted,
rejected with the last attempt's verdict, or skipped with the draw's structural reason), one
attempt record per attempt (k, fault types, targets, per-component evidence), one sample per
admitted draw with ``sample_id`` = content hash of (graph_id, components, text).
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from miscue.flows.stages.attempt import Judgement, RunResult, Stage, gather_all, refused_record, sample_record
from miscue.flows.stages.coverage import Coverage
from miscue.flows.stages.read import Read, ReadingSteps
from miscue.flows.stages.shifts import shift_options
from miscue import stoppable, writing
from miscue.briefs import ExtractionInput
from miscue.canonical import canonical_json, content_hash
from miscue.config import CompositeConfig
from miscue.host import Adapter
from miscue.llm import Deferred, Gateway
from miscue.planning import CompositeAttemptPlan, CompositeDraw, CompositePlanner, PlanError, Planner
from miscue.reading import Reading, ReadingForm
from miscue.schema import Attempt, Cell, GroundTruth, Intent, IntentGraph, Verdict
from miscue.taxonomy import fault_type
from miscue.verifiers.composite import components_match, mechanical_composite, verify_composite_reading
from miscue.verifiers.text import contains


def keep_verbatim(plan: CompositeAttemptPlan, first: str) -> list[str]:
    """What the second pass must keep verbatim: every value and every mistake in the text."""
    touched = {ap.component.target for ap in plan.components if ap.component.target}
    out = [r.spoken for r in plan.briefs[0].requirements if r.slot not in touched]
    for ap in plan.content:
        m, t = ap.brief.materials, ap.brief.requirement(ap.brief.target)
        out += [x for x in (m.wrong_value, m.fallback, m.pointer, m.vague_word, m.ambiguous_word, m.companion, m.extra,
                            m.mismatch) if x]
        if t is not None and ap.component.fault_type in ("false_presupposition", "syntactic_ambiguity"):
            out.append(t.spoken)
    seen: list[str] = []
    for x in out:
        if x not in seen and contains(first, x):
            seen.append(x)
    return seen


@dataclass
class CompositePlan(ReadingSteps):
    """One attempt of a composite draw (DESIGN sections 6 and 7): every card in one writer call
    (plus the transformation pass for k >= 3 with a whole-message fault), the mechanical text
    checks for k faults, one reading form per extractor for all k components, the components
    derived from each reading by code (:mod:`miscue.verifiers.composite.readings`), each admitted
    on its own and the merged reading executed."""

    plan: CompositeAttemptPlan
    form: ReadingForm | None = None

    @property
    def draw(self) -> CompositeDraw:
        return self.plan.draw

    def record(self, graph: IntentGraph, index: int) -> Attempt:
        draw, plan = self.draw, self.plan
        materials = {"two_pass": plan.two_pass, "first_pass": None, "components": [
            {"fault_type": ap.component.fault_type, "target": ap.component.target,
             "materials": ap.brief.materials.model_dump(exclude_none=True, exclude_defaults=True)} for ap in plan.components]}
        return Attempt(
            benchmark=graph.benchmark, task_id=graph.task_id, graph_id=graph.graph_id, cell_id=draw.cell_id, k=draw.k,
            fault_types=draw.types, families=[fault_type(t).family.value for t in draw.types], targets=draw.targets,
            attempt=index, materials_json=canonical_json(materials), readings_json="{}", readings_executed=0,
            truth_hash=graph.root.ground_truth.hash, call_ids=[])

    async def write(self, call: Any, row: Attempt) -> str:
        plan = self.plan
        messages, version = writing.render_composite([ap.brief for ap in plan.content])
        row.card_version = version
        first = writing.parse_writer((await call("writer", messages, version, row.call_ids)).text)
        if not plan.two_pass:
            return first
        messages, v2 = writing.render_transform(first, plan.transform_briefs(), keep_verbatim(plan, first))
        row.card_version = f"{version}+{v2}"
        text = writing.parse_writer((await call("writer", messages, v2, row.call_ids)).text)
        materials = dict(json.loads(row.materials_json or "{}"))
        materials["first_pass"] = first
        row.materials_json = canonical_json(materials)
        return text

    def check_text(self, adapter: Adapter, root: Intent, truth: GroundTruth, text: str, row: Attempt) -> Verdict | None:
        return mechanical_composite(adapter, root, self.plan, text)

    def extraction_input(self, text: str) -> ExtractionInput:
        base = self.plan.briefs[0]
        requirements = self.plan.components[0].extraction or base.requirements
        return ExtractionInput(context=base.context, request=base.request, requirements=requirements, text=text)

    def matches(self, reading: Reading, who: str) -> Verdict | None:
        assert self.form is not None
        return components_match(self.form, reading, self.plan, who)

    def judge(self, adapter: Adapter, root: Intent, truth: GroundTruth, text: str, a: Read, b: Read) -> Judgement:
        assert self.form is not None
        verdict = self.gate(b, "b")
        if verdict is not None:
            return Judgement(verdict)
        res = verify_composite_reading(adapter, root, truth, self.plan, self.form, text, a.reading, b.reading)  # type: ignore[arg-type]
        return Judgement(res.verdict, canonical_json(res.readings()), res.executed, res)


@dataclass
class DrawUnit:
    """A composite draw as a unit of the attempt pipeline."""

    graph: IntentGraph
    draw: CompositeDraw
    composer: CompositePlanner
    attempts: int

    @property
    def cell_id(self) -> str:
        return self.draw.cell_id

    @property
    def k(self) -> int:
        return self.draw.k

    @property
    def fault_types(self) -> list[str]:
        return self.draw.types

    def plan(self, index: int) -> CompositePlan:
        planned = self.composer.attempt(self.draw, self.graph, index)
        return CompositePlan(planned, form=self.composer.planner.reading_form(self.graph.root.intent))

    def refused(self, index: int, error: PlanError) -> Attempt:
        return refused_record(self.graph, self.cell_id, self.k, self.fault_types, index, error,
                              families=[fault_type(t).family.value for t in self.draw.types], targets=self.draw.targets)

    def sample_id(self, row: Attempt) -> str:
        return content_hash(self.graph.graph_id, [c.model_dump() for c in self.draw.components], row.query)

    def evidence(self, row: Attempt, outcome: Any) -> str:
        materials = json.loads(row.materials_json or "{}")
        return canonical_json({"k": self.draw.k, "draw_index": self.draw.draw_index, "two_pass": self.draw.two_pass,
                               "first_pass": materials.get("first_pass"), **outcome.evidence(),
                               "merged": outcome.readings()["merged"]})


class CompositeStage(Stage):
    """Draws, writes and verifies composite requests for one adapter."""

    config: CompositeConfig

    def __init__(self, adapter: Adapter, gateway: Gateway, config: CompositeConfig, splits: dict[str, str] | None = None,
                 planner: Planner | None = None) -> None:
        super().__init__(adapter, gateway, config, splits, planner)
        self.composer = CompositePlanner(self.planner)
        self.coverage: dict[int, Coverage] = {}
        self._sem = asyncio.Semaphore(config.max_concurrent)

    async def run_draw(self, graph: IntentGraph, draw: CompositeDraw) -> tuple[Cell, list[Attempt], Any]:
        """Up to ``attempts`` attempts of one draw: (cell record, attempt records, sample or None)."""
        unit = DrawUnit(graph, draw, self.composer, self.config.attempts)
        async with self._sem:
            cell, rows, admitted = await self.pipeline.cell(unit)  # Deferred (--prompts-out): see run_k
        if admitted is None:
            return cell, rows, None
        row, outcome = admitted
        sample = sample_record(graph, row, sample_id=unit.sample_id(row), evidence_json=unit.evidence(row, outcome),
                               shifts=shift_options(self.adapter, graph), models_json=self.models_json,
                               split=self.splits.get(graph.task_id, "base"))
        return cell, rows, sample

    @staticmethod
    async def _waiting_or(draw: Any) -> Any:
        try:
            return await draw
        except Deferred:
            return None

    async def run_k(self, graphs: list[IntentGraph], k: int, progress: Callable[..., None] | None = None) -> Coverage:
        """Waves of draws until ``per_k`` samples are admitted or the budget is spent. Each wave
        proposes one draw per graph for up to ``scan`` graphs (round-robin), and runs the
        ``wave`` proposals whose combinations are least represented among the samples admitted
        so far; a graph whose proposal is not taken keeps its draw index for a later wave."""
        cfg = self.config
        cov = self.coverage.setdefault(k, Coverage(k))
        pool = list(cfg.fault_types)
        next_index = {g.graph_id: 0 for g in graphs}
        tried: dict[str, set[tuple[str, ...]]] = {g.graph_id: set() for g in graphs}
        exhausted: set[str] = set()
        draws, cursor, held_total, idle, idle_held = 0, 0, 0, 0, 0
        relax = False  # the cap lets the next best proposal through (see below)
        stop = ""
        score = cov.score if cfg.candidates > 1 else None
        scan = cfg.wave * max(1, cfg.scan_factor) if score is not None else cfg.wave
        while cov.admitted < cfg.per_k and draws < cfg.max_draws and len(exhausted) < len(graphs):
            proposals: list[tuple[float, int, IntentGraph, CompositeDraw]] = []
            skipped: list[Cell] = []
            looked = 0
            while len(proposals) < scan and looked < len(graphs) and draws + len(proposals) < cfg.max_draws:
                g = graphs[cursor % len(graphs)]
                cursor += 1
                looked += 1
                if g.graph_id in exhausted:
                    continue
                index = next_index[g.graph_id]
                drawn = self.composer.draw(g, k, index, pool, avoid=tried[g.graph_id], score=score, candidates=cfg.candidates)
                if isinstance(drawn, str):  # the draw index is spent: ledgered with its reason
                    next_index[g.graph_id] += 1
                    draws += 1
                    exhausted.add(g.graph_id)  # no valid combination left on this graph
                    skipped.append(Cell(benchmark=g.benchmark, task_id=g.task_id, graph_id=g.graph_id,
                                        cell_id=content_hash(g.graph_id, k, index, "no_draw"), k=k, fault_types=[],
                                        status="skipped", code=f"plan:{drawn}", detail=f"draw {index}"))
                    continue
                proposals.append((score(drawn.combo) if score else 0.0, len(proposals), g, drawn))
            # greedy: each pick counts as admitted for the picks after it, so one wave does not
            # spend itself on one combination
            pending = Coverage(k, Counter(cov.types), Counter(cov.combos))
            in_wave: Counter = Counter()
            held = 0
            picks: list[tuple[float, int, IntentGraph, CompositeDraw]] = []
            attempted = [c for c in self.result.cells if c.k == k and c.status in ("admitted", "rejected")]
            rate = max(0.2, cov.admitted / len(attempted)) if attempted else 0.5
            size = min(cfg.wave, cfg.max_draws - draws, math.ceil((cfg.per_k - cov.admitted) / rate))
            while proposals and len(picks) < max(0, size):
                best = min(proposals, key=lambda p: ((pending.score(p[3].combo) if score else 0.0), p[1]))
                proposals.remove(best)
                if score is not None and cov.over_cap(best[3].combo, cfg.max_type_share, cfg.cap_after, in_wave):
                    if relax:  # a whole round was held: the cap cannot hold here, the best proposal goes
                        relax = False
                        cov.relaxed += 1
                    else:
                        held += 1
                        continue  # held back: the graph keeps its draw index
                picks.append(best)
                pending.add(best[3].combo)
                in_wave.update(best[3].combo)
            held_total += held
            batch: list[tuple[IntentGraph, CompositeDraw]] = []
            for _, _, g, drawn in picks:
                next_index[g.graph_id] += 1
                draws += 1
                tried[g.graph_id].add(drawn.combo)
                if next_index[g.graph_id] >= cfg.max_draws_per_graph:
                    exhausted.add(g.graph_id)
                batch.append((g, drawn))
            self.result.cells += skipped
            outcomes = await gather_all(self._waiting_or(self.run_draw(g, d)) for g, d in batch)
            if any(o is None for o in outcomes):
                # --prompts-out: a draw waits for a reply, so the wave's outcome (and every later
                # wave's plan) is unknown; the run of this k ends here and resumes next round
                self.result.waiting += sum(1 for o in outcomes if o is None)
                stop = "waiting"
                break
            for (g, d), (cell, rows, sample) in zip(batch, outcomes):  # type: ignore[misc]
                self.result.cells.append(cell)
                self.result.attempts += rows
                if sample is not None:
                    self.result.samples.append(sample)
                    cov.add(d.combo)
            if progress:
                progress(min(cov.admitted, cfg.per_k), cfg.per_k, draws=len(self.result.cells), calls=len(self.result.calls))
            if batch or skipped:
                idle, idle_held = 0, 0
            else:  # a whole round of graphs without a draw: nothing more to draw for this k
                idle += looked
                idle_held += held
                if idle >= len(graphs):
                    if idle_held and not relax:
                        # every graph's proposal was held by the cap: the host's valid combinations
                        # carry a type above it (WebShop's k = 4 draws hold an off-topic passage in
                        # four of five), so the next wave lets its best proposal through
                        relax, idle, idle_held = True, 0, 0
                        continue
                    stop = "coverage_cap" if idle_held else "no_proposal"
                    break
        else:
            stop = "target_reached" if cov.admitted >= cfg.per_k else (
                "max_draws" if draws >= cfg.max_draws else "graphs_exhausted")
        cov.stop = stop
        cov.held = held_total
        return cov

    async def run(self, graphs: list[IntentGraph], progress: Callable[..., None] | None = None) -> RunResult:
        """Every k in turn; ``progress`` sees one count over all of them (a k that stops short of
        its target counts as done when it stops)."""
        per_k, total = self.config.per_k, self.config.per_k * len(self.config.ks)
        for i, k in enumerate(self.config.ks):
            step = (lambda done, _n, base=i * per_k, **facts: progress(base + done, total, **facts)) if progress else None
            await self.run_k(graphs, k, step)
        if progress:
            progress(total, total, draws=len(self.result.cells), calls=len(self.result.calls))
        self.result.samples.sort(key=lambda r: (r.k, r.sample_id))
        self.result.summary = {"benchmark": self.adapter.benchmark, "composite": composite_summary(self.result, self.coverage)}
        return self.result


def composite_summary(result: RunResult, coverage: dict[int, Coverage]) -> dict[str, Any]:
    """Per k: draws, admitted combinations, per-type occurrence and share, the verdicts of
    rejected draws and attempts, second-pass repairs, merged readings."""
    out: dict[str, Any] = {}
    for k, cov in sorted(coverage.items()):
        cells = [c for c in result.cells if c.k == k]
        attempts = [a for a in result.attempts if a.k == k]
        samples = [s for s in result.samples if s.k == k]
        merged = [json.loads(s.readings_json).get("merged") or {} for s in samples]
        out[str(k)] = {
            "draws": len(cells),
            "draws_attempted": sum(1 for c in cells if c.status in ("admitted", "rejected")),
            "draws_skipped": sum(1 for c in cells if c.status == "skipped"),
            "draws_rejected": sum(1 for c in cells if c.status == "rejected"),
            **cov.summary(),
            "rejected_draw_verdicts": dict(Counter(c.code for c in cells if c.status != "admitted").most_common()),
            "attempts": len(attempts),
            "attempt_verdicts": dict(Counter(a.code for a in attempts if not a.admitted).most_common()),
            "two_pass_attempts": sum(1 for a in attempts if "+" in (a.card_version or "")),
            "merged_executed": sum(1 for m in merged if m.get("gt_hash")),
            "merged_moved": sum(1 for m in merged if m.get("moved")),
        }
    return out


def run_composites(adapter: Adapter, graphs: list[IntentGraph], gateway: Gateway, config: CompositeConfig,
                   splits: dict[str, str] | None = None, progress: Callable[..., None] | None = None,
                   planner: Planner | None = None) -> RunResult:
    """Composite draws for every k of ``config`` on ``graphs``; the summary (under
    ``"composite"``) shows admitted combinations and per-type occurrence per k."""
    started = time.perf_counter()
    result = stoppable.run(CompositeStage(adapter, gateway, config, splits, planner).run(graphs, progress))
    result.summary["seconds"] = round(time.perf_counter() - started, 2)
    return result
