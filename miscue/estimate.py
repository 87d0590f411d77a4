"""A pre-run estimate of a build's model calls, tokens and cost (DESIGN section 8): the
single-fault cells (:func:`estimate`) and the composites (:func:`estimate_composite`).

``estimate(adapter, graphs, config, gateway)`` walks the plan: every planned cell (graph root x
applicable fault type) and each of its attempts, weighted by the probability that the attempt
happens at all (earlier attempts not admitted, ``READ_ATTEMPT_ADMIT_RATE`` per attempt). Per
attempt it prices the writer call and the extractor calls the attempt loop makes: one reading form
per extractor, B's when A's reading matches the plan (``READ_B_RATE``).

- Prompt tokens come from the rendered prompts, counted with the offline token count
  (:func:`miscue.llm.count_tokens`): exact for the writer; for the extractors exact when the
  writer's answer is already in the store, otherwise rendered over a stand-in text of the
  expected length.
- Calls already answered in the exchange store are free and are subtracted. An attempt whose
  writer request is stored ran before. When ``outcomes`` (a published version's cells) knows
  the cell, the same text took the same path: its extractor requests are the stored ones (an
  unstored one was not needed), and the cell ended there if it was admitted. So a rebuild of a
  published run predicts zero calls, and raising ``attempts`` predicts exactly the rejected
  cells' new attempts. Unknown (a run that stopped), the store is followed as far as it
  answers and the rest is expected as for a new attempt.
- Completion tokens are the mean of the store's answers for the same model and role when the
  store holds some, else ``PRIOR_COMPLETION_TOKENS``.
- Cost uses :meth:`miscue.llm.Gateway.price` (configured ``prices``, else litellm's cost map).

The estimate is an expectation, not a bound; the rates are the embedded offline models' observed
rates (all three hosts: 0.85 of attempts admitted, about 2.9 calls per attempt).
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from miscue import writing
from miscue.briefs import ExtractionInput
from miscue.llm import ROLES, Gateway, StoreCorrupt, count_tokens
from miscue.planning import PlanError, Planner
from miscue.reading import ReadingForm

# Composite attempts (per k): the attempt admit rate and the share of attempts where extractor B
# runs (one reading form per extractor for all k components; B asked when A's reading derives
# every planned component and nothing else), from an offline run of all three hosts with
# k = 2, 3, 4 (817 attempts, 2.84 calls per attempt).
COMPOSITE_READ_ADMIT_RATE = {2: 0.49, 3: 0.3, 4: 0.19}
COMPOSITE_READ_B_RATE = {2: 0.52, 3: 0.34, 4: 0.22}
PRIOR_COMPLETION_TOKENS = {"writer": 200, "extractor_a": 45, "extractor_b": 50}
# Single faults, from offline runs of retail tasks 0-9, the whole airline host and the
# whole WebShop host (2,427 attempts): 2,051 admitted, B asked after 2,271 of them.
READ_ATTEMPT_ADMIT_RATE = 0.85
READ_B_RATE = 0.93


def _completion_means(gateway: Gateway) -> dict[str, float]:
    """Mean completion tokens per role over the store's successful answers from each role's model
    (a role whose model the store has no answer from is missing)."""
    models = {role: gateway.config.role(role).model for role in ROLES}
    sums: dict[str, list[int]] = defaultdict(list)
    root = gateway.store.root
    if root.exists():
        for path in root.glob("*/*.json"):
            try:
                record = gateway.store.get(path.stem)
            except (StoreCorrupt, ValueError):
                continue
            if record is None or not record.ok:
                continue
            for role, model in models.items():
                if record.request.get("model") == model:
                    sums[role].append(record.usage.completion_tokens)
    return {role: sum(sums[role]) / len(sums[role]) for role in ROLES if sums[role]}


def _stored_text(gateway: Gateway, key: str) -> str | None:
    try:
        record = gateway.store.get(key)
    except StoreCorrupt:
        return None
    return record.text if record is not None and record.ok else None


def _readings(gateway: Gateway, tally: "_Tally", inp: ExtractionInput, form: ReadingForm, weight: float,
              replayed: bool, ended_known: bool) -> None:
    """The extractor requests of one attempt: each role's reading form (B's when A
    matched the plan). After a stored writer request (``replayed``) what the store holds is free
    and what it lacks was not needed when the cell's outcome is known; else they are to come."""
    messages, version = writing.render_read(inp, form)
    schema = form.schema()
    prompt = count_tokens(messages)
    expected = plain_reading_tokens(form)
    for role, rate in (("extractor_a", 1.0), ("extractor_b", READ_B_RATE)):
        stored = replayed and _stored_text(gateway, gateway.key(role, messages, version, schema)) is not None
        if stored:
            tally.add_tokens(role, 0, 1.0, True)
        elif not (replayed and ended_known):
            tally.add_tokens(role, prompt, weight * rate, False, completion=tally.observed.get(role, expected))


def plain_reading_tokens(form: ReadingForm) -> int:
    """The size of a reading of the plain request (every requirement stated): what a reply to the
    form is expected to cost when the store has none to measure."""
    plain = {"requirements": {r.slot: {"status": "stated", "value": r.truth, "candidates": [], "quote": r.truth}
                              for r in form.requirements},
             "operation": form.operation, "extras": [], "off_topic": "", "asks": True}
    return count_tokens([{"role": "assistant", "content": json.dumps(plain)}])


class _Tally:
    """Expected calls, store hits, tokens and cost per role."""

    def __init__(self, gateway: Gateway) -> None:
        self.observed = _completion_means(gateway)  # what the store's answers say, per role
        self.completion = {role: self.observed.get(role, float(PRIOR_COMPLETION_TOKENS[role])) for role in ROLES}
        self.prices = {role: gateway.price(gateway.config.role(role).model) for role in ROLES}
        self.per_role = {role: {"calls": 0.0, "store_hits": 0.0, "prompt_tokens": 0.0, "completion_tokens": 0.0,
                                "cost": 0.0} for role in ROLES}

    def add(self, role: str, messages: list[dict[str, Any]], weight: float, stored: bool) -> None:
        self.add_tokens(role, 0 if stored else count_tokens(messages), weight, stored)

    def add_tokens(self, role: str, prompt: float, weight: float, stored: bool,
                   completion: float | None = None) -> None:
        """``weight`` expected calls of ``role`` with ``prompt`` tokens and ``completion`` tokens
        (default: the role's mean); stored ones are free and only counted."""
        slot = self.per_role[role]
        if stored:
            slot["store_hits"] += weight
            return
        completion = self.completion[role] if completion is None else completion
        pin, pout = self.prices[role]
        slot["calls"] += weight
        slot["prompt_tokens"] += weight * prompt
        slot["completion_tokens"] += weight * completion
        slot["cost"] += weight * (prompt * pin + completion * pout)

    def totals(self) -> dict[str, Any]:
        total = {k: sum(r[k] for r in self.per_role.values())
                 for k in ("calls", "store_hits", "prompt_tokens", "completion_tokens", "cost")}
        return {
            "calls": round(total["calls"], 1), "store_hits": round(total["store_hits"], 1),
            "prompt_tokens": round(total["prompt_tokens"]), "completion_tokens": round(total["completion_tokens"]),
            "cost": round(total["cost"], 6),
            "per_role": {role: {k: round(v, 6 if k == "cost" else 1) for k, v in r.items()}
                         for role, r in self.per_role.items()},
        }


def estimate(adapter: Any, graphs: list[Any], config: Any, gateway: Gateway, planner: Planner | None = None,
             outcomes: dict[str, str] | None = None) -> dict[str, Any]:
    """Predicted calls, tokens and cost of a single-fault run of ``graphs`` under ``config``
    (a :class:`miscue.config.GenerateConfig`), minus what ``gateway``'s store already holds.
    ``outcomes``: cell id -> ``admitted`` / ``rejected`` from an earlier run with the same cards
    and models (a published version's ``cells``), which says whether a cell whose stored
    attempts ran before ended there."""
    outcomes = outcomes or {}
    planner = planner or Planner(adapter)
    tally = _Tally(gateway)
    admit_rate = READ_ATTEMPT_ADMIT_RATE
    cells = planned = 0
    expected_attempts = 0.0
    stand_in = " ".join(["word"] * int(round(tally.completion["writer"])))
    for graph in graphs:
        for cell in planner.cells(graph, config.fault_types):
            cells += 1
            if cell.status != "planned":
                continue
            planned += 1
            weight, replayed = 1.0, False
            for index in range(config.attempts_for(cell.fault_type)):
                try:
                    plan = planner.attempt(cell, graph, index)
                except PlanError:
                    expected_attempts += weight
                    weight *= 1 - admit_rate
                    continue
                brief = plan.brief
                messages, version = writing.render_writer(brief)
                text = _stored_text(gateway, gateway.key("writer", messages, version))
                if text is None and replayed:
                    status = outcomes.get(cell.cell_id)
                    if status == "admitted":
                        break  # the stored attempt before this one ended the cell
                    # rejected: this attempt runs; unknown (e.g. a stopped run): it may
                    weight = 1.0 if status == "rejected" else 1 - admit_rate
                    replayed = False
                expected_attempts += weight
                tally.add("writer", messages, weight, text is not None)
                inp = ExtractionInput(context=brief.context, request=brief.request,
                                      requirements=brief.requirements, text=(text or stand_in).strip())
                inp = inp.model_copy(update={"requirements": plan.extraction})
                _readings(gateway, tally, inp, planner.reading_form(graph.root.intent), weight, text is not None,
                          cell.cell_id in outcomes)
                replayed = replayed or text is not None
                if text is None:
                    weight *= 1 - admit_rate
    return {
        "benchmark": getattr(adapter, "benchmark", None),
        "graphs": len(graphs), "cells": cells, "planned_cells": planned,
        "expected_attempts": round(expected_attempts, 1),
        **tally.totals(),
        "models": {role: gateway.config.role(role).model for role in ROLES},
        "assumptions": {"path": "reading", "attempt_admit_rate": admit_rate, "b_rate": READ_B_RATE,
                        "completion_tokens": {r: round(v, 1) for r, v in tally.completion.items()}},
    }


def estimate_composite(adapter: Any, graphs: list[Any], config: Any, gateway: Gateway,
                       planner: Planner | None = None) -> dict[str, Any]:
    """Predicted calls, tokens and cost of the composite part of a build (``config``: a
    :class:`miscue.config.CompositeConfig`), minus what the store holds.

    Which draws a composite run makes depends on the samples it admits (coverage control), so
    this is a model, not a walk: per k, every graph's first draw is planned as the run's first
    wave plans it and its prompts are rendered (writer, second pass when the draw needs one, then
    one reading form per extractor); the run is expected to make
    ``per_k / P(draw admitted)`` draws (capped by ``max_draws`` and the graphs' draw limits),
    each with the sampled mean calls and tokens. The share of sampled writer requests already in
    the store is taken as the share of the run the store answers.
    """
    from miscue.planning import CompositePlanner

    composer = CompositePlanner(planner or Planner(adapter))
    tally = _Tally(gateway)
    stand_in = " ".join(["word"] * int(round(tally.completion["writer"])))
    per_k: dict[int, dict[str, Any]] = {}
    admit_rates, b_rates = COMPOSITE_READ_ADMIT_RATE, COMPOSITE_READ_B_RATE
    for k in config.ks:
        p = admit_rates[k]
        attempts_per_draw = sum((1 - p) ** i for i in range(config.attempts))
        p_draw = 1 - (1 - p) ** config.attempts
        sampled = stored = 0
        tokens: dict[str, list[float]] = {"writer": [], "transform": [], "read": [], "read_reply": []}
        two_pass = 0
        for graph in graphs:
            draw = composer.draw(graph, k, 0, list(config.fault_types))
            if isinstance(draw, str):
                continue
            try:
                plan = composer.attempt(draw, graph, 0)
            except PlanError:
                continue
            sampled += 1
            messages, version = writing.render_composite([ap.brief for ap in plan.content])
            text = _stored_text(gateway, gateway.key("writer", messages, version))
            stored += text is not None
            tokens["writer"].append(count_tokens(messages))
            if plan.two_pass:
                two_pass += 1
                transform, _ = writing.render_transform(text or stand_in, plan.transform_briefs(), [])
                tokens["transform"].append(count_tokens(transform))
            base = plan.briefs[0]
            inp = ExtractionInput(context=base.context, request=base.request, requirements=base.requirements,
                                  text=(text or stand_in).strip())
            form = composer.planner.reading_form(graph.root.intent)
            read_inp = inp.model_copy(update={"requirements": plan.components[0].extraction or base.requirements})
            tokens["read"].append(count_tokens(writing.render_read(read_inp, form)[0]))
            tokens["read_reply"].append(plain_reading_tokens(form))
        if not sampled:
            per_k[k] = {"drawable_graphs": 0, "expected_draws": 0.0}
            continue
        mean = {name: (sum(v) / len(v) if v else 0.0) for name, v in tokens.items()}
        draws = min(float(config.max_draws), float(sampled * config.max_draws_per_graph), config.per_k / p_draw)
        attempts = draws * attempts_per_draw
        share_stored = stored / sampled
        for in_store, weight in ((False, attempts * (1 - share_stored)), (True, attempts * share_stored)):
            tally.add_tokens("writer", mean["writer"], weight, in_store)
            tally.add_tokens("writer", mean["transform"], weight * two_pass / sampled, in_store)
            for role, rate in (("extractor_a", 1.0), ("extractor_b", b_rates[k])):  # one reading form for all k
                tally.add_tokens(role, mean["read"], weight * rate, in_store,
                                 completion=tally.observed.get(role, mean["read_reply"]))
        per_k[k] = {"drawable_graphs": sampled, "expected_draws": round(draws, 1),
                    "expected_attempts": round(attempts, 1), "two_pass_share": round(two_pass / sampled, 3),
                    "stored_share": round(share_stored, 3)}
    return {
        "benchmark": getattr(adapter, "benchmark", None), "ks": list(config.ks), "per_k": per_k,
        "expected_attempts": round(sum(v.get("expected_attempts", 0.0) for v in per_k.values()), 1),
        **tally.totals(),
        "assumptions": {"path": "reading",
                        "attempt_admit_rate": {k: admit_rates[k] for k in config.ks},
                        "b_rate": {k: b_rates[k] for k in config.ks},
                        "completion_tokens": {r: round(v, 1) for r, v in tally.completion.items()}},
    }


def estimate_replay(benchmark: str, calls: dict[int, list[dict[str, Any]]], attempts: int,
                    gateway: Gateway) -> dict[str, Any]:
    """The composite estimate when a published version was built by this same code, cards and
    composite configuration: the run then makes exactly that version's composite requests again
    (draws depend only on the graphs and the admitted samples), so ``calls`` (per k: its
    ``llm_calls`` rows with ``role``, ``call_id`` and tokens) is the run, and each request the
    store holds is free. Exact, not a model."""
    tally = _Tally(gateway)
    per_k: dict[int, dict[str, Any]] = {}
    for k, rows in sorted(calls.items()):
        stored = 0
        for row in rows:
            hit = _stored_text(gateway, row["call_id"]) is not None
            stored += hit
            tally.add_tokens(row["role"], row["prompt_tokens"], 1.0, hit, completion=row["completion_tokens"])
        per_k[k] = {"requests": len(rows), "stored_share": round(stored / len(rows), 3) if rows else 1.0}
    return {"benchmark": benchmark, "ks": sorted(calls), "per_k": per_k, "method": "replay of a published version",
            "expected_attempts": float(attempts), **tally.totals()}


def combine(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The sum of several estimates (benchmarks, single-fault and composite parts)."""
    digits = {"calls": 1, "store_hits": 1, "prompt_tokens": None, "completion_tokens": None, "cost": 6,
              "expected_attempts": 1}
    return {key: round(sum(p.get(key, 0) for p in parts), n) for key, n in digits.items()}
