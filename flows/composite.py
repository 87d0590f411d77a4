"""Composite faults (DESIGN section 7): the attempt loop, coverage control and the ledger.

Per benchmark and k, the run draws combinations (seeded by graph, k and draw index), writes each
draw's request with all k cards in one call (plus the transformation-only second call when
k >= 3 draws a whole-message fault with content faults), and verifies it per component
(:mod:`verifiers.composite`) until ``per_k`` samples are admitted or ``max_draws`` draws are spent.

Coverage control: the draws run in waves. For a graph's next draw index the planner collects
``candidates`` valid draws of distinct combinations from its seeded sequence and proposes the
one whose types occur least among the samples admitted in earlier waves (a combination already
admitted comes after every unseen one). A wave takes proposals from ``scan_factor`` x ``wave``
graphs (round-robin) and runs the ``wave`` best; a graph whose proposal is not taken keeps its
draw index for a later wave. So starved types and combinations are re-drawn, graphs whose only
combinations contain an over-represented type wait, no type dominates, and a graph never gets
the same combination twice. Everything depends only on (graph, k, draw index) and the samples
admitted in earlier waves, so a run is reproducible.

Ledger (the single-fault schemas of :mod:`miscue.ledger`): one cell row per draw (admitted,
rejected with the last attempt's verdict, or skipped with the draw's structural reason), one
attempt row per attempt (k, fault types, targets, per-component evidence), one sample per
admitted draw with ``sample_id`` = content hash of (graph_id, components, text).
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel, Field, field_validator

from miscue.host import Adapter
from flows.generate import RunResult, call_record, gather_all, offline_gateway, shift_options
from miscue import writing
from miscue.briefs import BlindExtraction, ExtractionInput, TargetedExtraction
from miscue.canonical import canonical_json, content_hash
from miscue.config import role_models
from miscue.graphs import GraphBuilder
from miscue.llm import Exchange, Gateway, TransientProviderError
from miscue.planning import CompositeAttemptPlan, CompositeDraw, CompositePlanner, PlanError, Planner
from miscue.schema import IntentGraph, Verdict
from miscue.taxonomy import FAULT_TYPES, fault_type
from verifiers.text import contains
from verifiers.composite import (
    CompositeExtraction,
    CompositeResult,
    check_composite_text,
    flaw_of,
    found_key,
    missing_components,
    planned_key,
    repaired_by_transform,
    verify_composite,
)

MAX_K = 4


class CompositeConfig(BaseModel):
    """What a composite run targets, per benchmark."""

    ks: list[int] = Field(default_factory=lambda: [2, 4])
    per_k: int = Field(25, ge=1)  # admitted samples targeted per benchmark and k
    attempts: int = Field(3, ge=1)  # attempts per draw
    max_draws: int = Field(300, ge=1)  # draws per benchmark and k (the budget)
    max_draws_per_graph: int = Field(8, ge=1)
    wave: int = Field(12, ge=1)  # draws run together between two coverage updates
    candidates: int = Field(8, ge=1)  # valid draws compared per draw index (1: no coverage control)
    scan_factor: int = Field(4, ge=1)  # graphs proposing per wave, as a multiple of the wave
    # a proposal that would put one type into more than this share of the admitted samples is
    # held back (once ``cap_after`` samples are admitted); None: no cap
    max_type_share: float | None = Field(0.6, gt=0, le=1)
    cap_after: int = Field(12, ge=1)
    fault_types: list[str] = Field(default_factory=lambda: list(FAULT_TYPES))
    max_concurrent: int = Field(16, ge=1)

    @field_validator("ks")
    @classmethod
    def _ks(cls, ks: list[int]) -> list[int]:
        bad = [k for k in ks if not 2 <= k <= MAX_K]
        if bad or not ks:
            raise ValueError(f"composite k must be in 2..{MAX_K}, got {ks}")
        return sorted(set(ks))

    @field_validator("fault_types")
    @classmethod
    def _types(cls, types: list[str]) -> list[str]:
        for t in types:
            fault_type(t)
        return list(types)


def parse_ks(value: str) -> list[int]:
    """``--composite 2,4`` -> [2, 4] (raises ValueError with a readable message)."""
    try:
        ks = [int(x) for x in value.replace(" ", "").split(",") if x]
    except ValueError:
        raise ValueError(f"--composite takes comma-separated k values in 2..{MAX_K}, got {value!r}") from None
    return CompositeConfig(ks=ks).ks


# ------------------------------------------------------------------------------- coverage


@dataclass
class Coverage:
    """Per-type occurrence and combinations among the admitted samples of one k."""

    k: int
    types: Counter = field(default_factory=Counter)
    combos: Counter = field(default_factory=Counter)
    stop: str = ""  # why the run of this k ended
    held: int = 0  # proposals held back by the type-share cap

    @property
    def admitted(self) -> int:
        return sum(self.combos.values())

    def add(self, combo: tuple[str, ...]) -> None:
        self.combos[combo] += 1
        self.types.update(combo)

    def score(self, combo: tuple[str, ...]) -> float:
        """Lower is better: first the occurrence of the combination's most frequent type among
        the admitted samples (so the largest share is what gets pushed down), then the
        occurrences of all its types; a combination already admitted comes after every unseen one."""
        counts = [self.types[t] for t in combo]
        n = self.admitted + 1
        return self.combos[combo] * n * n * (len(combo) + 1) + max(counts, default=0) * n * len(combo) + sum(counts)

    def over_cap(self, combo: tuple[str, ...], cap: float | None, after: int, pending: Counter | None = None) -> bool:
        """Admitting ``combo`` could put one of its types above ``cap`` of the admitted samples,
        in the worst case for that type: every pending draw containing it admitted, none of
        the others (so the cap holds whatever the wave's outcome)."""
        if cap is None or self.admitted + 1 < after:
            return False
        pending = pending or Counter()
        return any((self.types[t] + pending[t] + 1) / (self.admitted + pending[t] + 1) > cap for t in combo)

    def summary(self) -> dict[str, Any]:
        n, distinct = self.admitted, len(self.combos)
        per_type = dict(sorted(self.types.items()))
        in_combos = Counter(t for c in self.combos for t in c)
        share = {t: round(v / n, 4) for t, v in per_type.items()} if n else {}
        share_combos = {t: round(v / distinct, 4) for t, v in sorted(in_combos.items())} if distinct else {}
        return {
            "admitted": n, "distinct_combinations": distinct, "stopped": self.stop, "held_by_cap": self.held,
            "combinations": {"+".join(c): v for c, v in sorted(self.combos.items())},
            "per_type": per_type, "per_type_share": share, "per_type_share_of_combinations": share_combos,
            "max_type_share": max(share.values(), default=0.0),
            "max_type_share_of_combinations": max(share_combos.values(), default=0.0),
        }


# ------------------------------------------------------------------------------- the run


def _keep(plan: CompositeAttemptPlan, first: str) -> list[str]:
    """What the second pass must keep verbatim: every value and every mistake in the text."""
    touched = {ap.component.target for ap in plan.components if ap.component.target}
    out = [r.spoken for r in plan.briefs[0].requirements if r.slot not in touched]
    for ap in plan.content:
        m, t = ap.brief.materials, ap.brief.requirement(ap.brief.target)
        out += [x for x in (m.wrong_value, m.fallback, m.pointer, m.vague_word, m.ambiguous_word, m.companion, m.extra, m.mismatch) if x]
        if t is not None and ap.component.fault_type in ("false_presupposition", "syntactic_ambiguity"):
            out.append(t.spoken)
    seen: list[str] = []
    for x in out:
        if x not in seen and contains(first, x):
            seen.append(x)
    return seen


class CompositeRun:
    """Draws, writes and verifies composite requests for one adapter."""

    def __init__(self, adapter: Adapter, gateway: Gateway, config: CompositeConfig, splits: dict[str, str] | None = None,
                 planner: Planner | None = None) -> None:
        self.adapter = adapter
        self.gateway = gateway
        self.config = config
        self.planner = planner or Planner(adapter)
        self.composer = CompositePlanner(self.planner)
        self.splits = splits or {}
        self.result = RunResult()
        self.coverage: dict[int, Coverage] = {}
        self._sem = asyncio.Semaphore(config.max_concurrent)

    # ---------------------------------------------------------------------- model calls
    async def _call(self, role: str, messages: list[dict[str, Any]], version: str) -> Exchange:
        ex = await self.gateway.complete(role, messages, version)  # type: ignore[arg-type]
        self.result.calls.append(call_record(self.adapter.benchmark, role, ex, version))
        return ex

    async def _extract(self, role: str, inp: ExtractionInput, plan: CompositeAttemptPlan, calls: list[str]
                       ) -> tuple[list[BlindExtraction] | None, dict[str, TargetedExtraction | None]]:
        """The multi-flaw blind form, then the targeted form for every planned component found."""
        messages, version = writing.render_multi(inp)
        ex = await self._call(role, messages, version)
        calls.append(ex.call_id)
        found = writing.parse_multi(ex.text)
        targeted: dict[str, TargetedExtraction | None] = {}
        if found is None:
            return None, targeted
        keys = {found_key(b) for b in found}
        for ap in plan.components:
            if planned_key(ap) not in keys:
                continue
            messages, version = writing.render_component(inp, flaw_of(ap))
            ex = await self._call(role, messages, version)
            calls.append(ex.call_id)
            targeted[ap.component.fault_type] = writing.parse_targeted(ex.text)
        return found, targeted

    # -------------------------------------------------------------------------- attempt
    async def attempt(self, graph: IntentGraph, draw: CompositeDraw, index: int) -> tuple[dict[str, Any], CompositeResult | None]:
        """One attempt of one draw, recorded whatever happens."""
        plan = self.composer.attempt(draw, graph, index)
        row: dict[str, Any] = {
            "benchmark": graph.benchmark, "task_id": graph.task_id, "graph_id": graph.graph_id, "cell_id": draw.cell_id,
            "k": draw.k, "fault_types": draw.types, "families": [fault_type(t).family.value for t in draw.types],
            "targets": draw.targets, "attempt": index, "text": None,
            "materials_json": canonical_json({"two_pass": plan.two_pass, "first_pass": None, "components": [
                {"fault_type": ap.component.fault_type, "target": ap.component.target,
                 "materials": ap.brief.materials.model_dump(exclude_none=True, exclude_defaults=True)} for ap in plan.components]}),
            "blind_a": None, "blind_b": None, "targeted_a": None, "targeted_b": None, "readings_json": "{}",
            "readings_executed": 0, "truth_hash": graph.root.ground_truth.hash, "call_ids": [], "card_version": None,
            "admitted": False, "stage": None, "code": None, "detail": "",
        }
        calls: list[str] = row["call_ids"]
        outcome: CompositeResult | None = None

        def finish(verdict: Verdict | None, res: CompositeResult | None = None) -> tuple[dict[str, Any], CompositeResult | None]:
            if res is not None:
                row["readings_json"] = canonical_json(res.readings())
                row["readings_executed"] = res.executed
            if verdict is None:
                row.update(admitted=True, stage="admit", code="admitted", detail="")
            else:
                row.update(stage=verdict.stage, code=verdict.code, detail=verdict.detail)
            return row, res

        messages, version = writing.render_composite([ap.brief for ap in plan.content])
        row["card_version"] = version
        try:
            ex = await self._call("writer", messages, version)
            calls.append(ex.call_id)
            first = ex.text.strip()
            text = first
            if plan.two_pass:
                keep = _keep(plan, first)
                messages, v2 = writing.render_transform(first, plan.transform_briefs(), keep)
                row["card_version"] = f"{version}+{v2}"
                ex = await self._call("writer", messages, v2)
                calls.append(ex.call_id)
                text = ex.text.strip()
        except TransientProviderError as exc:
            return finish(Verdict(stage="write", code="write:provider_error", detail=str(exc)[:300]))
        row["text"] = text
        if plan.two_pass:
            materials = dict(json.loads(row["materials_json"]))
            materials["first_pass"] = first
            row["materials_json"] = canonical_json(materials)
            verdict = repaired_by_transform(plan, first, text)
            if verdict is not None:
                return finish(verdict)
        verdict = check_composite_text(plan, text, self.adapter.answer_identifiers(graph.root.intent))
        if verdict is not None:
            return finish(verdict)

        base = plan.briefs[0]
        inp = ExtractionInput(context=base.context, request=base.request, requirements=base.requirements, text=text)
        ext = CompositeExtraction()
        try:
            ext.blind_a, ext.targeted_a = await self._extract("extractor_a", inp, plan, calls)
            row["blind_a"] = canonical_json([b.model_dump() for b in ext.blind_a]) if ext.blind_a is not None else None
            row["targeted_a"] = canonical_json({t: x.model_dump(exclude_none=True) if x else None for t, x in ext.targeted_a.items()})
            verdict = missing_components(plan, ext.blind_a, "a")
            if verdict is not None:
                return finish(verdict)  # the second extractor is skipped: A already fails the plan
            ext.blind_b, ext.targeted_b = await self._extract("extractor_b", inp, plan, calls)
        except TransientProviderError as exc:
            return finish(Verdict(stage="extract", code="extract:provider_error", detail=str(exc)[:300]))
        row["blind_b"] = canonical_json([b.model_dump() for b in ext.blind_b]) if ext.blind_b is not None else None
        row["targeted_b"] = canonical_json({t: x.model_dump(exclude_none=True) if x else None for t, x in ext.targeted_b.items()})
        outcome = verify_composite(self.adapter, graph.root.intent, graph.root.ground_truth, plan, text, ext)
        return finish(outcome.verdict, outcome)

    # ----------------------------------------------------------------------------- draw
    async def run_draw(self, graph: IntentGraph, draw: CompositeDraw) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]:
        """Up to ``attempts`` attempts of one draw: (cell row, attempt rows, sample or None)."""
        base = {"benchmark": graph.benchmark, "task_id": graph.task_id, "graph_id": graph.graph_id,
                "cell_id": draw.cell_id, "k": draw.k, "fault_types": draw.types}
        rows: list[dict[str, Any]] = []
        async with self._sem:
            for i in range(self.config.attempts):
                try:
                    row, res = await self.attempt(graph, draw, i)
                except PlanError as exc:
                    row, res = {**base, "families": [fault_type(t).family.value for t in draw.types], "targets": draw.targets,
                                "attempt": i, "admitted": False, "stage": "plan", "code": exc.code, "detail": exc.detail}, None
                rows.append(row)
                if row.get("admitted"):
                    sample = self.sample(graph, draw, row, res)  # type: ignore[arg-type]
                    return ({**base, "status": "admitted", "code": "admitted", "detail": "", "attempts_used": i + 1,
                             "sample_id": sample["sample_id"]}, rows, sample)
        last = rows[-1]
        return ({**base, "status": "rejected", "code": last["code"], "detail": last.get("detail", ""),
                 "attempts_used": len(rows), "sample_id": None}, rows, None)

    def sample(self, graph: IntentGraph, draw: CompositeDraw, row: dict[str, Any], res: CompositeResult) -> dict[str, Any]:
        root = graph.root
        shifts = shift_options(self.adapter, graph)
        models = role_models(self.gateway.config)
        components = [c.model_dump() for c in draw.components]
        materials = json.loads(row["materials_json"])
        evidence = {"k": draw.k, "draw_index": draw.draw_index, "two_pass": draw.two_pass,
                    "first_pass": materials.get("first_pass"), **res.evidence(), "merged": res.readings()["merged"]}
        return {
            "sample_id": content_hash(graph.graph_id, components, row["text"]),
            "benchmark": graph.benchmark, "task_id": graph.task_id, "graph_id": graph.graph_id,
            "intent_id": root.intent.intent_id, "k": draw.k, "fault_types": row["fault_types"], "families": row["families"],
            "targets": row["targets"], "query": row["text"],
            "conditions_json": canonical_json([c.model_dump() for c in root.intent.conditions]),
            "gt_kind": root.ground_truth.kind, "gt_hash": root.ground_truth.hash, "gt_value": list(root.ground_truth.value),
            "shift_options": shifts, "evidence_json": canonical_json(evidence),
            "readings_json": row["readings_json"], "readings_executed": row["readings_executed"],
            "models_json": canonical_json(models), "card_version": row["card_version"], "attempt": row["attempt"],
            "split": self.splits.get(graph.task_id, "base"),
        }

    # ------------------------------------------------------------------------------ per k
    async def run_k(self, graphs: list[IntentGraph], k: int, progress: Callable[[int, int], None] | None = None) -> Coverage:
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
        stop = ""
        score = cov.score if cfg.candidates > 1 else None
        scan = cfg.wave * max(1, cfg.scan_factor) if score is not None else cfg.wave
        while cov.admitted < cfg.per_k and draws < cfg.max_draws and len(exhausted) < len(graphs):
            proposals: list[tuple[float, int, IntentGraph, CompositeDraw]] = []
            skipped: list[dict[str, Any]] = []
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
                    skipped.append({"benchmark": g.benchmark, "task_id": g.task_id, "graph_id": g.graph_id,
                                    "cell_id": content_hash(g.graph_id, k, index, "no_draw"), "k": k, "fault_types": [],
                                    "status": "skipped", "code": f"plan:{drawn}", "detail": f"draw {index}",
                                    "attempts_used": 0, "sample_id": None})
                    continue
                proposals.append((score(drawn.combo) if score else 0.0, len(proposals), g, drawn))
            # greedy: each pick counts as admitted for the picks after it, so one wave does not
            # spend itself on one combination
            pending = Coverage(k, Counter(cov.types), Counter(cov.combos))
            in_wave: Counter = Counter()
            held = 0
            picks: list[tuple[float, int, IntentGraph, CompositeDraw]] = []
            attempted = [c for c in self.result.cells if c["k"] == k and c["status"] in ("admitted", "rejected")]
            rate = max(0.2, cov.admitted / len(attempted)) if attempted else 0.5
            size = min(cfg.wave, cfg.max_draws - draws, math.ceil((cfg.per_k - cov.admitted) / rate))
            while proposals and len(picks) < max(0, size):
                best = min(proposals, key=lambda p: ((pending.score(p[3].combo) if score else 0.0), p[1]))
                proposals.remove(best)
                if score is not None and cov.over_cap(best[3].combo, cfg.max_type_share, cfg.cap_after, in_wave):
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
            outcomes = await gather_all(self.run_draw(g, d) for g, d in batch)
            for (g, d), (cell, rows, sample) in zip(batch, outcomes):
                self.result.cells.append(cell)
                self.result.attempts += rows
                if sample is not None:
                    self.result.samples.append(sample)
                    cov.add(d.combo)
            if progress:
                progress(min(cov.admitted, cfg.per_k), cfg.per_k)
            if batch or skipped:
                idle, idle_held = 0, 0
            else:  # a whole round of graphs without a draw: nothing more to draw for this k
                idle += looked
                idle_held += held
                if idle >= len(graphs):
                    stop = "coverage_cap" if idle_held else "no_proposal"
                    break
        else:
            stop = "target_reached" if cov.admitted >= cfg.per_k else (
                "max_draws" if draws >= cfg.max_draws else "graphs_exhausted")
        cov.stop = stop
        cov.held = held_total
        return cov

    async def run(self, graphs: list[IntentGraph], progress: Callable[[int, int], None] | None = None) -> RunResult:
        for k in self.config.ks:
            await self.run_k(graphs, k, progress)
        self.result.samples.sort(key=lambda r: (r["k"], r["sample_id"]))
        self.result.summary = {"benchmark": self.adapter.benchmark, "composite": composite_summary(self.result, self.coverage)}
        return self.result


def composite_summary(result: RunResult, coverage: dict[int, Coverage]) -> dict[str, Any]:
    """Per k: draws, admitted combinations, per-type occurrence and share, the verdicts of
    rejected draws and attempts, second-pass repairs, merged readings."""
    out: dict[str, Any] = {}
    for k, cov in sorted(coverage.items()):
        cells = [c for c in result.cells if c["k"] == k]
        attempts = [a for a in result.attempts if a["k"] == k]
        samples = [s for s in result.samples if s["k"] == k]
        merged = [json.loads(s["readings_json"]).get("merged") or {} for s in samples]
        out[str(k)] = {
            "draws": len(cells),
            "draws_attempted": sum(1 for c in cells if c["status"] in ("admitted", "rejected")),
            "draws_skipped": sum(1 for c in cells if c["status"] == "skipped"),
            "draws_rejected": sum(1 for c in cells if c["status"] == "rejected"),
            **cov.summary(),
            "rejected_draw_verdicts": dict(Counter(c["code"] for c in cells if c["status"] != "admitted").most_common()),
            "attempts": len(attempts),
            "attempt_verdicts": dict(Counter(a["code"] for a in attempts if not a.get("admitted")).most_common()),
            "two_pass_attempts": sum(1 for a in attempts if "+" in (a.get("card_version") or "")),
            "merged_executed": sum(1 for m in merged if m.get("gt_hash")),
            "merged_moved": sum(1 for m in merged if m.get("moved")),
        }
    return out


def run_composites(adapter: Adapter, graphs: list[IntentGraph], gateway: Gateway, config: CompositeConfig,
                   splits: dict[str, str] | None = None, progress: Callable[[int, int], None] | None = None,
                   planner: Planner | None = None) -> RunResult:
    """Composite draws for every k of ``config`` on ``graphs``; the summary (under
    ``"composite"``) shows admitted combinations and per-type occurrence per k."""
    started = time.perf_counter()
    run = CompositeRun(adapter, gateway, config, splits, planner)
    result = asyncio.run(run.run(graphs, progress))
    result.summary["seconds"] = round(time.perf_counter() - started, 2)
    return result


def run_composite_benchmark(adapter: Adapter, artifacts: Path, config: CompositeConfig, gateway: Gateway | None = None,
                            replay_only: bool = False, progress: Callable[[int, int], None] | None = None) -> RunResult:
    """What ``miscue build --composite 2,4`` runs per benchmark: build the graphs, run the
    composites (offline models with the store under ``artifacts/store`` unless a gateway is
    given). Write the ledger with ``miscue.ledger.write_tables(result.tables(), dir, result.summary)``,
    or append ``result.cells/attempts/samples/calls`` to a build's rows (same schemas)."""
    build = GraphBuilder(adapter).build()
    gateway = gateway or offline_gateway(Path(artifacts) / "store", replay_only)
    splits = {s.task_id: s.split for s in adapter.load_seeds()}
    result = run_composites(adapter, build.graphs, gateway, config, splits, progress)
    result.graphs = build
    return result


def merge_into(single: RunResult, composite: RunResult) -> RunResult:
    """Append a composite run's rows to a single-fault run of the same benchmark (the corpus
    tables carry both: ``k`` tells them apart) and put its summary under ``"composite"``."""
    single.cells += composite.cells
    single.attempts += composite.attempts
    single.samples += composite.samples
    single.calls += composite.calls
    single.summary["composite"] = composite.summary.get("composite", {})
    return single
