"""Composite extraction: what each component must be reported as, both extractors' multi-flaw
answers, missing and unplanned components, and components that claim the same slot or words."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from miscue.briefs import BlindExtraction, TargetedExtraction
from miscue.planning import AttemptPlan, CompositeAttemptPlan
from miscue.schema import Verdict
from miscue.taxonomy import fault_type, takes_slot



Key = tuple[str, "str | None"]


def composite_verdict(stage: str, code: str, detail: str = "") -> Verdict:
    """A composite verdict at ``stage`` (the code keeps its own prefix)."""
    return Verdict(stage=stage, code=code, detail=detail)  # type: ignore[arg-type]


def flaw_of(ap: AttemptPlan) -> str:
    return fault_type(ap.component.fault_type).extraction.value


def planned_key(ap: AttemptPlan) -> Key:
    """What an extractor must report for this component: its class, and the assigned
    requirement when the component takes one."""
    t = ap.component.fault_type
    return flaw_of(ap), (ap.component.target if takes_slot(t) else None)


def found_key(b: BlindExtraction) -> Key:
    slot_classes = ("substituted", "presupposed", "withheld", "marked", "ambiguous")
    return b.flaw, (b.requirement if b.flaw in slot_classes else None)


@dataclass
class CompositeExtraction:
    """Both extractors' answers on one composite text: the multi-flaw blind lists and the
    targeted form per planned component (keyed by fault type)."""

    blind_a: list[BlindExtraction] | None = None
    blind_b: list[BlindExtraction] | None = None
    targeted_a: dict[str, TargetedExtraction | None] = field(default_factory=dict)
    targeted_b: dict[str, TargetedExtraction | None] = field(default_factory=dict)


def missing_components(plan: CompositeAttemptPlan, found: list[BlindExtraction] | None, who: str) -> Verdict | None:
    """Every planned component must be in this extractor's multi-flaw blind answer."""
    if found is None:
        return composite_verdict("extract", "extract:unparseable", f"extractor {who} gave no usable multi-flaw answer")
    keys = {found_key(b) for b in found}
    for ap in plan.components:
        if planned_key(ap) not in keys:
            cls, slot = planned_key(ap)
            return composite_verdict("agree", "composite:component_missing",
                      f"extractor {who} did not find {ap.component.fault_type} ({cls} on {slot!r}); "
                      f"found {sorted(map(str, keys))}")
    return None


def unplanned(plan: CompositeAttemptPlan, a: list[BlindExtraction], b: list[BlindExtraction]) -> tuple[list[Key], list[Key]]:
    """Flaws outside the plan: (found by both extractors, found by one only)."""
    planned = {planned_key(ap) for ap in plan.components}
    ka = {found_key(x) for x in a} - planned
    kb = {found_key(x) for x in b} - planned
    return sorted(ka & kb, key=str), sorted(ka ^ kb, key=str)


def _intervals(text: str, needle: str | None) -> list[tuple[int, int]]:
    needle = (needle or "").strip().strip(".,;:!?")
    if not needle:
        return []
    pattern = r"(?<!\w)" + r"\s+".join(re.escape(p) for p in needle.split()) + r"(?!\w)"
    return [m.span() for m in re.finditer(pattern, text, re.IGNORECASE)]


def _inside(text: str, inner: str | None, outer: str | None) -> bool:
    """Every occurrence of ``inner`` overlaps an occurrence of ``outer`` (it cannot be read
    anywhere else in the text)."""
    spans_in, spans_out = _intervals(text, inner), _intervals(text, outer)
    if not spans_in or not spans_out:
        return False
    return all(any(s < oe and os_ < e for os_, oe in spans_out) for s, e in spans_in)


def _entangled(text: str, a: str | None, b: str | None) -> bool:
    """Both claims occur in the text and no occurrence of one is apart from an occurrence of
    the other: they cannot be read as two separate stretches of the text."""
    sa, sb = _intervals(text, a), _intervals(text, b)
    if not sa or not sb:
        return False
    return all(x < ye and y < xe for x, xe in sa for y, ye in sb)


def _claimed(ex: TargetedExtraction | None) -> list[str]:
    """The words a component's targeted answer claims in the text."""
    if ex is None:
        return []
    return [x for x in (ex.stated_value, ex.clause, ex.surface, ex.detail, ex.operation) if x]


def claims_conflict(plan: CompositeAttemptPlan, text: str, ex: CompositeExtraction) -> Verdict | None:
    """Two components on the same requirement or the same words; anything claimed, or a
    requirement's value, inside the off-topic passage."""
    owner: dict[str, str] = {}
    for ap in plan.components:
        t = ap.component.fault_type
        for who, answers in (("a", ex.targeted_a), ("b", ex.targeted_b)):
            got = answers.get(t)
            slot = got.requirement if got is not None and takes_slot(t) else None
            if slot is None:
                continue
            if slot in owner and owner[slot] != t:
                return composite_verdict("agree", "composite:same_slot",
                                         f"{owner[slot]} and {t} both on {slot!r} (extractor {who})")
            owner[slot] = t
    noise = [answers.get("contextual_irrelevance") for answers in (ex.targeted_a, ex.targeted_b)]
    spans = [n.span for n in noise if n is not None and n.span]
    comps = [ap for ap in plan.components if ap.component.fault_type != "contextual_irrelevance"]
    for span in spans:
        for ap in comps:
            for answers in (ex.targeted_a, ex.targeted_b):
                for claimed in _claimed(answers.get(ap.component.fault_type)):
                    if _inside(text, claimed, span):
                        return composite_verdict("agree", "composite:same_span",
                                  f"{ap.component.fault_type} claims {claimed!r} inside the off-topic passage")
        for r in plan.briefs[0].requirements:
            if _inside(text, r.spoken, span):
                return composite_verdict("agree", "composite:value_inside_off_topic", f"{r.phrase}: {r.spoken!r}")
    for i, x in enumerate(comps):
        for y in comps[i + 1:]:
            for answers in (ex.targeted_a, ex.targeted_b):
                for cx in _claimed(answers.get(x.component.fault_type)):
                    for cy in _claimed(answers.get(y.component.fault_type)):
                        if _entangled(text, cx, cy):
                            return composite_verdict("agree", "composite:same_span",
                                      f"{x.component.fault_type} {cx!r} and {y.component.fault_type} {cy!r}")
    return None
