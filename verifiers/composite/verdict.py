"""The composite verdict: every component agreed on and admitted on its own, the whole checked, the
merged reading executed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from miscue.planning import AttemptPlan
from miscue.schema import Verdict
from miscue.taxonomy import fault_type, takes_slot
from miscue.verifiers.admission import Admission, Reading


def composite_verdict(stage: str, code: str, detail: str = "") -> Verdict:
    """A composite verdict at ``stage`` (the code keeps its own prefix)."""
    return Verdict(stage=stage, code=code, detail=detail)  # type: ignore[arg-type]


def planned_key(ap: AttemptPlan) -> tuple[str, str | None]:
    """What the component is read as: its class, and the assigned requirement when it takes one."""
    t = ap.component.fault_type
    return fault_type(t).extraction.value, (ap.component.target if takes_slot(t) else None)


@dataclass
class ComponentResult:
    """One component of a composite: its plan, its own admission and the verdict that ended it."""

    plan: AttemptPlan
    admission: Admission | None = None
    verdict: Verdict | None = None

    def record(self) -> dict[str, Any]:
        """The component in a sample's evidence. A component is judged only once both readings
        derive it, so ``found_a``/``found_b`` hold; ``targeted_a``/``targeted_b`` (the retired
        forms path's answers) stay null, so every version's evidence has one shape."""
        c = self.plan.component
        cls, slot = planned_key(self.plan)
        return {
            "fault_type": c.fault_type, "target": c.target, "flaw": cls, "requirement": slot,
            "materials": self.plan.brief.materials.model_dump(exclude_none=True, exclude_defaults=True),
            "found_a": True, "found_b": True, "targeted_a": None, "targeted_b": None,
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
        """The components, and the unplanned faults found by both / one extractor: none, since a
        reading deriving an unplanned fault is rejected (the keys keep the evidence's shape)."""
        return {"components": [c.record() for c in self.components], "unplanned_both": [], "unplanned_one": []}
