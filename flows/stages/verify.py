"""``miscue verify``: judge any request for a host task through the attempt pipeline.

Without a claim the verifier is plan-free: both extractors read the text (never told a plan) and
the fault type code derives from extractor A's reading becomes the plan; with ``--fault-type`` and
``--slot`` the claim is the plan. The request then goes through :meth:`AttemptPipeline.judge` like
any attempt: the mechanical text checks, agreement of the two readings, and the agreed reading
executed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from miscue.flows.stages.attempt import AttemptPipeline
from miscue.flows.stages.read import Read, read as read_text, settle
from miscue.flows.stages.single import SinglePlan
from miscue import stoppable
from miscue.briefs import ExtractionInput, WriterBrief
from miscue.errors import BadInput
from miscue.host import Adapter
from miscue.llm import Gateway
from miscue.planning import Planner
from miscue.reading import NO_VALUE, Departure, Reading, single_class
from miscue.schema import Attempt, GroundTruth, Intent, Verdict
from miscue.taxonomy import FAULT_TYPES, SLOT_TARGETS, ExtractionClass, fault_type


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
    found: dict[str, dict[str, Any]] = field(default_factory=dict)  # extractor -> type, slot, class, reading
    verdict: Verdict | None = None

    @property
    def admitted(self) -> bool:
        return self.verdict is None

    def as_dict(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark, "task_id": self.task_id, "text": self.text,
            "fault_type": self.fault_type, "slot": self.slot, "admitted": self.admitted, "found": self.found,
            "verdict": self.verdict.model_dump() if self.verdict else {"stage": "admit", "code": "admitted", "detail": ""},
            "steps": [{"name": s.name, "ok": s.ok, "detail": s.detail} for s in self.steps],
        }


def _json(value: str | None) -> Any:
    return json.loads(value) if value else None


def _seed(adapter: Adapter, task_id: str) -> Any:
    """The host task ``task_id`` (BadInput naming it); the seeds are indexed once per adapter."""
    seeds: dict[str, Any] | None = adapter.__dict__.get("_seeds_by_id")
    if seeds is None:
        seeds = adapter.__dict__["_seeds_by_id"] = {s.task_id: s for s in adapter.load_seeds()}
    if task_id not in seeds:
        raise BadInput(f"{adapter.benchmark} has no task {task_id!r}")
    return seeds[task_id]


def check_request(adapter: Adapter, task_id: str, text: str, claimed_type: str | None = None,
                  claimed_slot: str | None = None) -> None:
    """What ``verify`` is given, checked before anything heavy (models, ground truth): the text,
    the task, the claimed type and slot (BadInput naming the culprit)."""
    if not text or not text.strip():
        raise BadInput("the request text is empty")
    seed = _seed(adapter, task_id)
    if claimed_type is not None:
        fault_type(claimed_type)
    if claimed_slot is not None:
        check = adapter.validate(seed)
        if check.intent is not None:
            check_claim(check.intent, task_id, claimed_type, claimed_slot)


def task_intent(adapter: Adapter, task_id: str) -> tuple[Intent, GroundTruth]:
    """A host task's true intent and its executed ground truth (BadInput naming the task)."""
    check = adapter.validate(_seed(adapter, task_id))
    if not check.ok or check.intent is None:
        raise BadInput(f"task {task_id} has no verifiable intent ({check.code}: {check.detail})")
    return check.intent, adapter.ground_truth(check.intent)


def check_claim(intent: Intent, task_id: str, claimed_type: str | None, claimed_slot: str | None) -> None:
    if claimed_type is not None:
        fault_type(claimed_type)
    if claimed_slot is not None and intent.condition(claimed_slot) is None:
        raise BadInput(f"slot {claimed_slot!r} is not a requirement of task {task_id}; slots: {', '.join(intent.slots)}")


def steps_of(row: Attempt, truth_hash: str) -> list[Step]:
    """What each step of the pipeline decided, from the attempt's record."""
    out = []
    text_failed = row.stage == "text"
    out.append(Step("text_checks", not text_failed, {"code": row.code, "detail": row.detail} if text_failed else None))
    if row.stage in ("agree", "admit", "extract"):
        failed = row.stage in ("agree", "extract")
        out.append(Step("agreement", not failed, {"code": row.code, "detail": row.detail} if failed else None))
    if row.stage == "admit":
        out.append(Step("admission", row.admitted, {"readings": _json(row.readings_json) or [], "truth_hash": truth_hash}))
    return out


#: the fault type of a derived class whose class one type has (the others: :func:`type_of_reading`)
_TYPE_OF_CLASS = {t.extraction: t.id for t in FAULT_TYPES.values()
                  if sum(1 for u in FAULT_TYPES.values() if u.extraction == t.extraction) == 1}


def type_of_reading(reading: Reading, found: Departure) -> str:
    """The fault type a reading's derived class names: a pointer or a vague description (the
    requirement's status tells), a word with two senses or the sentence's structure (the reading
    says which; a modifier that may leave the requirement unsaid, a '(no value)' candidate, is
    structure), else the class's one type."""
    said = reading.requirements.get(found.target or "")
    if found.cls == ExtractionClass.marked:
        return "vagueness_subjectivity" if said is not None and said.status == "vague" else "referential_ambiguity"
    if found.cls == ExtractionClass.ambiguous:
        structural = said is not None and (said.ambiguity == "structure" or NO_VALUE in said.candidates)
        return "syntactic_ambiguity" if structural else "lexical_ambiguity"
    return _TYPE_OF_CLASS[found.cls]


def _read_finding(r: Read, form: Any) -> dict[str, Any]:
    if r.reading is None:
        return {"class": None, "fault_type": None, "slot": None, "reading": None,
                "verdicts": [v.code for v in r.verdicts]}
    d = single_class(r.reading, form)
    derived = d if isinstance(d, Departure) else None
    return {"class": derived.cls.value if derived else ("two_faults" if isinstance(d, Verdict) else "none"),
            "slot": derived.target if derived else None,
            "fault_type": type_of_reading(r.reading, derived) if derived else None,
            "reading": r.reading.model_dump(), "verdicts": [v.code for v in r.verdicts]}


def reading_input(adapter: Adapter, planner: Planner, intent: Intent, text: str) -> tuple[ExtractionInput, Any]:
    """What each extractor is asked about ``text`` on the reading path: the extraction input (the
    true requirements with every other legal value) and the task's reading form."""
    inp = ExtractionInput(context=adapter.context_line(intent), request=adapter.request_phrase(intent),
                          requirements=planner.requirements(intent, options=True), text=text)
    return inp, planner.reading_form(intent)


async def verify(adapter: Adapter, gateway: Gateway, task_id: str, text: str,
                 claimed_type: str | None = None, claimed_slot: str | None = None) -> Verification:
    """Judge ``text`` for ``task_id`` (DESIGN section 6): each extractor reads the text once;
    without a claim, the class code derives from extractor A's reading (and its target) is the
    plan; then the attempt pipeline judges the text as any attempt."""
    if not text or not text.strip():
        raise BadInput("the request text is empty")
    result = Verification(adapter.benchmark, task_id, text, claimed_type, claimed_slot)
    intent, truth = task_intent(adapter, task_id)
    check_claim(intent, task_id, claimed_type, claimed_slot)
    planner = Planner(adapter)
    reqs = planner.requirements(intent)
    inp, form = reading_input(adapter, planner, intent, text)
    result.steps.append(Step("intent", True, {r.slot: r.spoken for r in reqs}))
    pipeline = AttemptPipeline(adapter, gateway)
    row = Attempt(benchmark=adapter.benchmark, task_id=task_id, graph_id="", cell_id="", k=1, fault_types=[], attempt=0,
                  query=text, call_ids=[], readings_json="[]", readings_executed=0, truth_hash=truth.hash)
    a = settle(adapter, intent, truth, form, await read_text(pipeline.call, "extractor_a", inp, form, row.call_ids or []))
    b = settle(adapter, intent, truth, form, await read_text(pipeline.call, "extractor_b", inp, form, row.call_ids or []))
    result.found = {"a": _read_finding(a, form), "b": _read_finding(b, form)}
    for who, r in (("a", a), ("b", b)):
        result.steps.append(Step(f"extract_{who}", r.holds, result.found[who]))
    derived = single_class(a.reading, form) if a.reading is not None else None
    if claimed_type is None:
        if not a.holds:
            result.verdict = a.verdicts[0] if a.verdicts else None
            return result
        if isinstance(derived, Verdict):
            result.verdict = derived
            return result
        if derived is None:
            result.verdict = Verdict(stage="extract", code="extract:no_fault_found",
                                     detail="extractor A reads every requirement as stated, the task's operation asked")
            return result
        claimed_type = type_of_reading(a.reading, derived)  # type: ignore[arg-type]
    ft = fault_type(claimed_type)
    if claimed_slot is None and isinstance(derived, Departure):  # a claim without its slot: the one A reads
        claimed_slot = derived.target
    target = claimed_slot if ft.target in SLOT_TARGETS else None
    result.fault_type, result.slot = claimed_type, target
    brief = WriterBrief(benchmark=adapter.benchmark, context=inp.context, request=inp.request, requirements=reqs,
                        fault_type=claimed_type, target=target)
    row.fault_types, row.targets = [claimed_type], [target]
    plan = SinglePlan(brief, requirements=inp.requirements, form=form)
    row, _ = await pipeline.judge(plan, intent, truth, text, row, known_a=a, known_b=b)
    result.steps += steps_of(row, truth.hash)
    result.verdict = None if row.admitted else Verdict(stage=row.stage, code=row.code or "", detail=row.detail)  # type: ignore[arg-type]
    return result


def verify_sync(*args: Any, **kwargs: Any) -> Verification:
    return stoppable.run(verify(*args, **kwargs))
