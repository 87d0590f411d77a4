"""A pre-run estimate of a single-fault run's model calls, tokens and cost (DESIGN section 8).

``estimate(adapter, graphs, config, gateway)`` walks the plan: every planned cell (graph root x
applicable fault type) and each of its attempts, weighted by the probability that the attempt
happens at all (earlier attempts not admitted, ``ATTEMPT_ADMIT_RATE`` per attempt). Per attempt
it prices the writer call and the extractor calls the attempt loop makes (blind and targeted
forms of extractor A; extractor B when A matches the plan, ``B_RATE``).

- Prompt tokens come from the rendered prompts, counted with the offline token count
  (:func:`miscue.llm.count_tokens`): exact for the writer; for the extractors exact when the
  writer's answer is already in the store, otherwise rendered over a stand-in text of the
  expected length.
- Calls already answered in the exchange store are free and are subtracted: the writer call by
  its exact key, and the blind extractor A call when the writer's text is stored.
- Completion tokens are the mean of the store's answers for the same model and role when the
  store holds some, else ``PRIOR_COMPLETION_TOKENS``.
- Cost uses :meth:`miscue.llm.Gateway.price` (configured ``prices``, else litellm's cost map).

The estimate is an expectation, not a bound; the rates are the embedded offline models' observed
rates on the tau2 domains (about 1.05 attempts per planned cell, 4.9 calls per attempt).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from miscue import writing
from miscue.briefs import FLAWS, ExtractionInput
from miscue.llm import ROLES, Gateway, StoreCorrupt, count_tokens
from miscue.planning import PlanError, Planner

ATTEMPT_ADMIT_RATE = 0.9  # probability that one attempt is admitted
A_TARGETED_RATE = 1.0  # extractor A's blind answer names a flaw, so its targeted form follows
B_RATE = 0.93  # extractor A matched the plan, so extractor B runs (blind + targeted)
PRIOR_COMPLETION_TOKENS = {"writer": 200, "extractor_a": 45, "extractor_b": 50}


def _completion_means(gateway: Gateway) -> dict[str, float]:
    """Mean completion tokens per role over the store's successful answers from each role's model."""
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
    return {role: (sum(sums[role]) / len(sums[role]) if sums[role] else float(PRIOR_COMPLETION_TOKENS[role]))
            for role in ROLES}


def _stored_text(gateway: Gateway, key: str) -> str | None:
    try:
        record = gateway.store.get(key)
    except StoreCorrupt:
        return None
    return record.text if record is not None and record.ok else None


def estimate(adapter: Any, graphs: list[Any], config: Any, gateway: Gateway) -> dict[str, Any]:
    """Predicted calls, tokens and cost of a single-fault run of ``graphs`` under ``config``
    (a :class:`flows.generate.GenerateConfig`), minus what ``gateway``'s store already holds."""
    planner = Planner(adapter)
    completion = _completion_means(gateway)
    prices = {role: gateway.price(gateway.config.role(role).model) for role in ROLES}
    per_role = {role: {"calls": 0.0, "store_hits": 0.0, "prompt_tokens": 0.0, "completion_tokens": 0.0, "cost": 0.0}
                for role in ROLES}
    cells = planned = 0
    expected_attempts = 0.0

    def add(role: str, messages: list[dict[str, Any]], weight: float, stored: bool) -> None:
        slot = per_role[role]
        if stored:
            slot["store_hits"] += weight
            return
        prompt = count_tokens(messages)
        pin, pout = prices[role]
        slot["calls"] += weight
        slot["prompt_tokens"] += weight * prompt
        slot["completion_tokens"] += weight * completion[role]
        slot["cost"] += weight * (prompt * pin + completion[role] * pout)

    stand_in = " ".join(["word"] * int(round(completion["writer"])))
    for graph in graphs:
        for cell in planner.cells(graph, config.fault_types):
            cells += 1
            if cell.status != "planned":
                continue
            planned += 1
            weight = 1.0
            for index in range(config.attempts_for(cell.fault_type)):
                expected_attempts += weight
                try:
                    plan = planner.attempt(cell, graph, index)
                except PlanError:
                    weight *= 1 - ATTEMPT_ADMIT_RATE
                    continue
                brief = plan.brief
                messages, version = writing.render_writer(brief)
                key = gateway.key("writer", messages, version)
                text = _stored_text(gateway, key)
                add("writer", messages, weight, text is not None)
                inp = ExtractionInput(context=brief.context, request=brief.request,
                                      requirements=brief.requirements, text=(text or stand_in).strip())
                blind, blind_version = writing.render_blind(inp)
                for role, rate in (("extractor_a", 1.0), ("extractor_b", B_RATE)):
                    # follow the store as far as it answers: blind answer -> its flaw -> targeted form
                    blind_text = _stored_text(gateway, gateway.key(role, blind, blind_version)) if text else None
                    if role == "extractor_b" and blind_text is not None:
                        rate = 1.0  # B ran for this attempt before
                    add(role, blind, weight * rate, blind_text is not None)
                    parsed = writing.parse_blind(blind_text) if blind_text is not None else None
                    if blind_text is not None and (parsed is None or parsed.flaw == "none"):
                        continue  # no targeted form follows
                    flaw = parsed.flaw if parsed is not None else FLAWS[0]
                    targeted, targeted_version = writing.render_targeted(inp, flaw)
                    targeted_stored = parsed is not None and _stored_text(
                        gateway, gateway.key(role, targeted, targeted_version)) is not None
                    add(role, targeted, weight * rate * (1.0 if parsed is not None else A_TARGETED_RATE), targeted_stored)
                weight *= 1 - ATTEMPT_ADMIT_RATE

    total = {k: sum(r[k] for r in per_role.values()) for k in ("calls", "store_hits", "prompt_tokens", "completion_tokens", "cost")}
    rounded = {role: {k: round(v, 6 if k == "cost" else 1) for k, v in r.items()} for role, r in per_role.items()}
    return {
        "benchmark": getattr(adapter, "benchmark", None),
        "graphs": len(graphs), "cells": cells, "planned_cells": planned,
        "expected_attempts": round(expected_attempts, 1),
        "calls": round(total["calls"], 1), "store_hits": round(total["store_hits"], 1),
        "prompt_tokens": round(total["prompt_tokens"]), "completion_tokens": round(total["completion_tokens"]),
        "cost": round(total["cost"], 6),
        "per_role": rounded,
        "models": {role: gateway.config.role(role).model for role in ROLES},
        "assumptions": {"attempt_admit_rate": ATTEMPT_ADMIT_RATE, "a_targeted_rate": A_TARGETED_RATE,
                        "b_rate": B_RATE, "completion_tokens": {r: round(v, 1) for r, v in completion.items()}},
    }
