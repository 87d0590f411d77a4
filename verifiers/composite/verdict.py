"""The composite verdict: every component agreed on and admitted on its own, the whole checked, the
merged reading executed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from miscue.briefs import TargetedExtraction
from miscue.host import Adapter
from miscue.planning import AttemptPlan, CompositeAttemptPlan
from miscue.schema import GroundTruth, Intent, Verdict
from miscue.taxonomy import WHOLE_MESSAGE_TYPES, takes_slot
from miscue.verifiers.admission import Admission, Reading, admit
from miscue.verifiers.agreement import grounded_values, targeted_agree
from miscue.verifiers.reading import read
from miscue.verifiers.composite.extraction import (CompositeExtraction, Key, claims_conflict, composite_verdict, found_key,
                                                   missing_components, planned_key, unplanned)
from miscue.verifiers.composite.merged import merged_reading, moved_reading



@dataclass
class ComponentResult:
    plan: AttemptPlan
    found_a: bool = False
    found_b: bool = False
    targeted_a: TargetedExtraction | None = None
    targeted_b: TargetedExtraction | None = None
    admission: Admission | None = None
    verdict: Verdict | None = None

    def record(self) -> dict[str, Any]:
        c = self.plan.component
        cls, slot = planned_key(self.plan)
        return {
            "fault_type": c.fault_type, "target": c.target, "flaw": cls, "requirement": slot,
            "materials": self.plan.brief.materials.model_dump(exclude_none=True, exclude_defaults=True),
            "found_a": self.found_a, "found_b": self.found_b,
            "targeted_a": self.targeted_a.model_dump(exclude_none=True) if self.targeted_a else None,
            "targeted_b": self.targeted_b.model_dump(exclude_none=True) if self.targeted_b else None,
            "admitted": bool(self.admission and self.admission.admitted),
            "readings": [r.record() for r in self.admission.readings] if self.admission else [],
            "verdict": self.verdict.code if self.verdict else None,
        }


@dataclass
class CompositeResult:
    verdict: Verdict | None
    components: list[ComponentResult]
    merged: Reading | None = None
    merged_info: dict[str, Any] = field(default_factory=dict)
    unplanned_both: list[Key] = field(default_factory=list)
    unplanned_one: list[Key] = field(default_factory=list)

    @property
    def admitted(self) -> bool:
        return self.verdict is None

    @property
    def executed(self) -> int:
        n = sum(c.admission.executed for c in self.components if c.admission)
        return n + (1 if self.merged is not None and self.merged.truth is not None else 0)

    def readings(self) -> dict[str, Any]:
        merged = None
        if self.merged is not None:
            merged = {**self.merged.record(), **self.merged_info}
        return {"components": {c.plan.component.fault_type: [r.record() for r in c.admission.readings] if c.admission else []
                               for c in self.components},
                "merged": merged}

    def evidence(self) -> dict[str, Any]:
        return {"components": [c.record() for c in self.components],
                "unplanned_both": [list(k) for k in self.unplanned_both],
                "unplanned_one": [list(k) for k in self.unplanned_one]}


def verify_composite(adapter: Adapter, root: Intent, truth: GroundTruth, plan: CompositeAttemptPlan, text: str,
                     ex: CompositeExtraction) -> CompositeResult:
    """Steps 3-6 of the module docstring on the final ``text`` (steps 1-2 run before any
    extractor call, in :func:`repaired_by_transform` and :func:`check_composite_text`)."""
    comps = [ComponentResult(ap) for ap in plan.components]
    result = CompositeResult(None, comps)
    for c in comps:
        key = planned_key(c.plan)
        c.found_a = ex.blind_a is not None and key in {found_key(b) for b in ex.blind_a}
        c.found_b = ex.blind_b is not None and key in {found_key(b) for b in ex.blind_b}
        c.targeted_a = ex.targeted_a.get(c.plan.component.fault_type)
        c.targeted_b = ex.targeted_b.get(c.plan.component.fault_type)

    def done(verdict: Verdict | None) -> CompositeResult:
        result.verdict = verdict
        return result

    verdict = missing_components(plan, ex.blind_a, "a") or missing_components(plan, ex.blind_b, "b")
    if verdict is not None:
        return done(verdict)
    result.unplanned_both, result.unplanned_one = unplanned(plan, ex.blind_a or [], ex.blind_b or [])
    if result.unplanned_both:
        return done(composite_verdict("agree", "composite:unplanned_fault",
                       "found by both extractors: " + ", ".join(f"{f} on {s!r}" if s else f for f, s in result.unplanned_both)))
    verdict = claims_conflict(plan, text, ex)
    if verdict is not None:
        return done(verdict)
    for c in comps:
        t = c.plan.component.fault_type
        verdict = targeted_agree(c.plan.brief, c.targeted_a, c.targeted_b, grounded_values(adapter, root, c.plan.brief.target))
        if verdict is not None:
            c.verdict = verdict
            return done(verdict.model_copy(update={"detail": f"component {t}: {verdict.detail}"}))
        for who, got in (("a", c.targeted_a), ("b", c.targeted_b)):
            if got is not None and takes_slot(t) and got.requirement not in (None, c.plan.component.target):
                c.verdict = composite_verdict("agree", "agree:slot_mismatch",
                                                 f"component {t}: extractor {who}'s targeted answer on {got.requirement!r}, "
                                                 f"plan {c.plan.component.target!r}")
                return done(c.verdict)
    reading = read(adapter, root, text)
    for c in comps:
        c.admission = admit(adapter, root, truth, c.plan.brief, c.targeted_a, reading)  # type: ignore[arg-type]
        if not c.admission.admitted:
            c.verdict = c.admission.verdict
            assert c.verdict is not None
            return done(c.verdict.model_copy(update={"detail": f"component {c.plan.component.fault_type}: {c.verdict.detail}"}))
        if c.admission.executed == 0:
            c.verdict = composite_verdict("admit", "admit:no_executed_reading", f"component {c.plan.component.fault_type}")
            return done(c.verdict)
    readings = {c.plan.component.fault_type: moved_reading(c.admission, truth) for c in comps if c.admission}  # type: ignore[arg-type]
    readings = {t: r for t, r in readings.items() if t not in WHOLE_MESSAGE_TYPES}
    result.merged, result.merged_info = merged_reading(adapter, root, readings)
    if result.merged.truth is not None:
        result.merged_info["moved"] = result.merged.truth.hash != truth.hash
    if sum(c.admission.executed for c in comps if c.admission) == 0:
        return done(composite_verdict("admit", "composite:no_executed_reading"))
    return done(None)
