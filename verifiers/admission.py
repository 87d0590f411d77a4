"""Executable admission: the literal reading of the request, built from the extraction, is
executed in the host environment (DESIGN section 6, step 5). No reading, no admission.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from miscue.host import Adapter, NotExecutable
from miscue.briefs import TargetedExtraction, WriterBrief
from miscue.planning import value_from_spoken
from miscue.schema import GroundTruth, Intent, Verdict
from miscue.taxonomy import ExtractionClass, fault_type
from verifiers.agreement import overlap


@dataclass
class Reading:
    name: str
    intent: Intent | None
    truth: GroundTruth | None = None
    error: str | None = None

    def record(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "intent_id": self.intent.intent_id if self.intent else None,
            "conditions": [c.model_dump() for c in self.intent.conditions] if self.intent else None,
            "base": self.intent.base if self.intent else None,
            "gt_hash": self.truth.hash if self.truth else None,
            "gt_size": len(self.truth.value) if self.truth else None,
            "error": self.error,
        }


@dataclass
class Admission:
    verdict: Verdict | None  # None: admitted
    readings: list[Reading] = field(default_factory=list)

    @property
    def admitted(self) -> bool:
        return self.verdict is None

    @property
    def executed(self) -> int:
        return sum(1 for r in self.readings if r.truth is not None)


def _reject(code: str, detail: str = "") -> Verdict:
    return Verdict(stage="admit", code=f"admit:{code}", detail=detail)


def _run(adapter: Adapter, name: str, intent: Intent) -> Reading:
    try:
        return Reading(name, intent, adapter.ground_truth(intent))
    except NotExecutable as exc:
        return Reading(name, intent, None, f"{exc.code}: {exc.detail}")


def admit(adapter: Adapter, root: Intent, truth: GroundTruth, brief: WriterBrief, ex: TargetedExtraction) -> Admission:
    """Build the literal reading(s) from the extraction ``ex``, execute them, apply the class rule."""
    ft = fault_type(brief.fault_type)
    cls = ft.extraction
    slot = ex.requirement or brief.target
    cond = root.condition(slot) if slot else None

    if cls in (ExtractionClass.noise, ExtractionClass.oblique):
        r = _run(adapter, "as_stated", root)
        ok = r.truth is not None and r.truth.hash == truth.hash
        return Admission(None if ok else _reject("noise_changed_answer"), [r])

    if cls == ExtractionClass.extras:
        match = max(adapter.extras(root), key=lambda e: overlap(e.phrase, ex.detail), default=None)
        if match is None or overlap(match.phrase, ex.detail) < 0.5:
            return Admission(_reject("extra_not_compilable", repr(ex.detail)))
        r = _run(adapter, "truth_plus_extra", match.reading)
        if r.truth is None or r.truth.empty:
            return Admission(_reject("extra_not_executable", r.error or "empty answer"), [r])
        narrows = r.truth.issubset(truth) and len(r.truth.value) < len(truth.value)
        ok = narrows or r.truth.hash != truth.hash
        return Admission(None if ok else _reject("extra_did_not_narrow"), [r])

    if cls == ExtractionClass.mismatch:
        match = max(adapter.mismatches(root), key=lambda m: overlap(m.phrase, ex.operation), default=None)
        if match is None or overlap(match.phrase, ex.operation) < 0.5:
            return Admission(_reject("operation_not_compilable", repr(ex.operation)))
        r = _run(adapter, "mismatched_operation", match.reading)
        if r.truth is None and r.error is None:
            return Admission(_reject("reading_not_executed"), [r])
        refused = r.truth is None or r.truth.empty
        ok = not truth.empty and (refused or r.truth.hash != truth.hash)  # type: ignore[union-attr]
        return Admission(None if ok else _reject("mismatch_reaches_truth"), [r])

    if cond is None:
        return Admission(_reject("target_not_in_intent", repr(slot)))

    if cls == ExtractionClass.substituted:
        found, value = value_from_spoken(adapter, root, cond.slot, ex.stated_value)
        if not found:
            return Admission(_reject("stated_value_not_a_legal_value", repr(ex.stated_value)))
        r = _run(adapter, "stated_value", root.with_condition(cond.with_value(value)))
        ok = r.truth is not None and r.truth.hash != truth.hash
        return Admission(None if ok else _reject("substitution_without_consequence"), [r])

    if cls == ExtractionClass.presupposed:
        found, value = value_from_spoken(adapter, root, cond.slot, ex.fallback)
        reading = root.with_condition(cond.with_value(value)) if found else root.without(cond.slot)
        r = _run(adapter, "fallback" if found else "doubted_slot_dropped", reading)
        ok = r.truth is not None and r.truth.hash != truth.hash
        return Admission(None if ok else _reject("presupposition_without_consequence"), [r])

    if cls in (ExtractionClass.withheld, ExtractionClass.marked):
        if len(root.conditions) < 2:
            return Admission(_reject("nothing_retained"))
        r = _run(adapter, "slot_dropped", root.without(cond.slot))
        ok = r.truth is not None and not r.truth.empty and r.truth.hash != truth.hash
        return Admission(None if ok else _reject("withhold_did_not_widen"), [r])

    if cls == ExtractionClass.ambiguous:
        first = _run(adapter, "reading_1", root)
        if ex.second_reading is not None:
            found, value = value_from_spoken(adapter, root, cond.slot, ex.second_reading)
            if not found:
                return Admission(_reject("second_reading_not_a_legal_value", repr(ex.second_reading)), [first])
            second = _run(adapter, "reading_2", root.with_condition(cond.with_value(value)))
        else:
            second = _run(adapter, "reading_2_attached_elsewhere", root.without(cond.slot))
        readings = [first, second]
        if first.truth is None or second.truth is None:
            return Admission(_reject("reading_not_executable", first.error or second.error or ""), readings)
        if first.truth.hash == second.truth.hash:
            return Admission(_reject("readings_agree"), readings)
        matches = [r.truth.hash == truth.hash for r in readings if r.truth]
        return Admission(None if sum(matches) == 1 else _reject("no_reading_matches_truth"), readings)

    return Admission(_reject("no_rule_for_class", cls.value))
