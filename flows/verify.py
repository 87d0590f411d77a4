"""`miscue verify`: run the checks, both extractions, agreement and admission on any request.

For auditing a corpus or checking a hand-written request: the plan is the claim (fault type and
slot) when given, else what extractor A found; the materials the text checks need are taken from
the extractions, so nothing about the request has to come from the pipeline's own writer.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from miscue.host import Adapter
from miscue import writing
from miscue.briefs import BlindExtraction, ExtractionInput, Materials, TargetedExtraction, WriterBrief
from miscue.llm import Gateway
from miscue.planning import Planner
from miscue.schema import Intent, Verdict
from miscue.taxonomy import FAULT_TYPES, ExtractionClass, fault_type
from verifiers.admission import admit
from verifiers.agreement import blind_matches_plan, targeted_agree
from verifiers.text import check_text


@dataclass
class Step:
    name: str
    ok: bool
    detail: Any = None


@dataclass
class Verification:
    benchmark: str
    task_id: str
    text: str
    fault_type: str | None = None
    slot: str | None = None
    steps: list[Step] = field(default_factory=list)
    verdict: Verdict | None = None

    @property
    def admitted(self) -> bool:
        return self.verdict is None

    def as_dict(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark, "task_id": self.task_id, "text": self.text,
            "fault_type": self.fault_type, "slot": self.slot, "admitted": self.admitted,
            "verdict": self.verdict.model_dump() if self.verdict else {"stage": "admit", "code": "admitted", "detail": ""},
            "steps": [{"name": s.name, "ok": s.ok, "detail": s.detail} for s in self.steps],
        }


def infer_type(blind: BlindExtraction, targeted: TargetedExtraction | None, intent: Intent, adapter: Adapter) -> str | None:
    """The fault type an extraction points to (classes shared by two types are told apart)."""
    candidates = [t for t in FAULT_TYPES.values() if t.extraction.value == blind.flaw]
    if not candidates:
        return None
    if len(candidates) == 1:
        return candidates[0].id
    if blind.flaw == ExtractionClass.ambiguous.value:
        return "lexical_ambiguity" if targeted is not None and targeted.second_reading else "syntactic_ambiguity"
    ordered = blind.requirement is not None and adapter.is_ordered_slot(intent, blind.requirement)
    return "vagueness_subjectivity" if ordered else "referential_ambiguity"


def _materials(ft_id: str, t: TargetedExtraction | None, brief: WriterBrief) -> Materials:
    if t is None:
        return Materials()
    target = brief.requirement(brief.target)
    return Materials(
        wrong_value=t.stated_value, fallback=t.fallback, pointer=t.surface, vague_word=t.surface,
        ambiguous_word=t.surface, senses=[target.spoken, t.second_reading] if (target and t.second_reading) else [],
        extra=t.detail, mismatch=t.operation, off_topic=t.span,
    )


async def verify(adapter: Adapter, gateway: Gateway, task_id: str, text: str,
                 claimed_type: str | None = None, claimed_slot: str | None = None) -> Verification:
    result = Verification(adapter.benchmark, task_id, text, claimed_type, claimed_slot)
    seed = next((s for s in adapter.load_seeds() if s.task_id == task_id), None)
    if seed is None:
        raise ValueError(f"{adapter.benchmark} has no task {task_id!r}")
    check = adapter.validate(seed)
    if not check.ok or check.intent is None:
        raise ValueError(f"task {task_id} has no verifiable intent ({check.code}: {check.detail})")
    intent = check.intent
    truth = adapter.ground_truth(intent)
    if claimed_type is not None:
        fault_type(claimed_type)
    if claimed_slot is not None and intent.condition(claimed_slot) is None:
        raise ValueError(f"slot {claimed_slot!r} is not a requirement of task {task_id}; slots: {', '.join(intent.slots)}")
    planner = Planner(adapter)
    reqs = planner.requirements(intent)
    result.steps.append(Step("intent", True, {r.slot: r.spoken for r in reqs}))
    inp = ExtractionInput(context=adapter.context_line(intent), request=adapter.request_phrase(intent), requirements=reqs, text=text)

    answers: dict[str, tuple[BlindExtraction | None, TargetedExtraction | None]] = {}
    for role, who in (("extractor_a", "a"), ("extractor_b", "b")):
        messages, version = writing.render_blind(inp)
        blind = writing.parse_blind((await gateway.complete(role, messages, version)).text)  # type: ignore[arg-type]
        targeted = None
        if blind is not None and blind.flaw != "none":
            messages, version = writing.render_targeted(inp, blind.flaw)
            targeted = writing.parse_targeted((await gateway.complete(role, messages, version)).text)  # type: ignore[arg-type]
        answers[who] = (blind, targeted)
        result.steps.append(Step(f"extract_{who}", blind is not None, {
            "blind": blind.model_dump() if blind else None, "targeted": targeted.model_dump(exclude_none=True) if targeted else None}))

    blind_a, targeted_a = answers["a"]
    if claimed_type is None:
        if blind_a is None or blind_a.flaw == "none":
            result.verdict = Verdict(stage="extract", code="extract:no_fault_found", detail="extractor A finds no miscommunication")
            return result
        claimed_type = infer_type(blind_a, targeted_a, intent, adapter)
        claimed_slot = claimed_slot or blind_a.requirement
    assert claimed_type is not None
    ft = fault_type(claimed_type)
    target = claimed_slot if ft.target.value in ("slot", "ordered_slot", "about_slot") else None
    result.fault_type, result.slot = claimed_type, target
    brief = WriterBrief(benchmark=adapter.benchmark, context=inp.context, request=inp.request, requirements=reqs,
                        fault_type=claimed_type, target=target)
    brief = brief.model_copy(update={"materials": _materials(claimed_type, targeted_a, brief)})

    verdict = check_text(brief, text, adapter.answer_identifiers(intent))
    result.steps.append(Step("text_checks", verdict is None, verdict.model_dump() if verdict else None))
    if verdict is None:
        verdict = blind_matches_plan(brief, answers["a"][0], "a") or blind_matches_plan(brief, answers["b"][0], "b")
        if verdict is None:
            verdict = targeted_agree(brief, targeted_a, answers["b"][1])
        result.steps.append(Step("agreement", verdict is None, verdict.model_dump() if verdict else None))
    if verdict is None:
        admission = admit(adapter, intent, truth, brief, targeted_a)  # type: ignore[arg-type]
        verdict = admission.verdict
        if verdict is None and admission.executed == 0:
            verdict = Verdict(stage="admit", code="admit:no_executed_reading")
        result.steps.append(Step("admission", verdict is None, {"readings": [r.record() for r in admission.readings],
                                                                 "truth_hash": truth.hash}))
    result.verdict = verdict
    return result


def verify_sync(*args: Any, **kwargs: Any) -> Verification:
    return asyncio.run(verify(*args, **kwargs))
