"""Composite faults on readings (DESIGN sections 6 and 7: models read, code checks).

Each extractor reads a composite text once, with the same reading form as a single fault; the k
components are the departures code derives from the reading. A composite is admitted only when

1. each extractor's reading holds (its quotes, values and statuses checked by
   :func:`miscue.reading.check`) and derives exactly the planned departures, no fewer
   (``composite:component_missing``) and no more (``composite:unplanned_fault``);
2. no requirement is said only inside the off-topic passage
   (``composite:value_inside_off_topic``);
3. both readings read every component alike (:func:`miscue.verifiers.agreement.read_alike`);
4. every component is admitted on its own: the agreed reading of that component, every other
   requirement at its true value, executed by the single-fault rule of its class
   (:func:`miscue.verifiers.admission.admit_reading`);
5. the merged reading (every component's executed reading applied at once) is executed and
   recorded (its failure is recorded, not fatal, unless no component reading was executed at
   all: ``composite:no_executed_reading``).
"""

from __future__ import annotations

from collections import Counter

from miscue.host import Adapter
from miscue.planning import CompositeAttemptPlan
from miscue.reading import Departure, Reading, ReadingForm, departures, normalise, planned_departure
from miscue.schema import GroundTruth, Intent, Verdict
from miscue.taxonomy import WHOLE_MESSAGE_TYPES
from miscue.verifiers.admission import admit_reading
from miscue.verifiers.agreement import agreed_reading, read_alike
from miscue.verifiers.composite.merged import merged_reading, moved_reading
from miscue.verifiers.composite.verdict import ComponentResult, CompositeResult, composite_verdict


def planned(plan: CompositeAttemptPlan) -> list[Departure]:
    """The departures the plan's components make, in the plan's order."""
    return [planned_departure(ap.component.fault_type, ap.component.target) for ap in plan.components]


def _said(d: Departure) -> str:
    return d.cls.value + (f" on {d.target}" if d.target else "")


def components_match(form: ReadingForm, reading: Reading, plan: CompositeAttemptPlan, who: str) -> Verdict | None:
    """Does one extractor's reading derive the plan's departures, all of them and nothing else?
    (The gate after extractor A: when it fails, B is not asked.)"""
    want, got = Counter(planned(plan)), Counter(departures(reading, form))
    if missing := want - got:
        return composite_verdict("agree", "composite:component_missing",
                                 f"extractor {who} does not read {', '.join(map(_said, missing))}; "
                                 f"it reads {', '.join(map(_said, got)) or 'a plain request'}")
    if extra := got - want:
        return composite_verdict("agree", "composite:unplanned_fault",
                                 f"extractor {who} also reads {', '.join(map(_said, extra))}")
    return None


def value_inside_off_topic(form: ReadingForm, reading: Reading, text: str) -> Verdict | None:
    """A requirement whose quote stands nowhere in the text but inside the off-topic passage."""
    off = normalise(reading.off_topic)
    if not off:
        return None
    rest = f" {normalise(text).replace(off, ' | ')} "
    for r in form.requirements:
        q = normalise(reading.requirements[r.slot].quote)
        if q and f" {q} " in f" {off} " and f" {q} " not in rest:
            return composite_verdict("agree", "composite:value_inside_off_topic", f"{r.phrase}: {q!r}")
    return None


def verify_composite_reading(adapter: Adapter, root: Intent, truth: GroundTruth, plan: CompositeAttemptPlan,
                             form: ReadingForm, text: str, a: Reading, b: Reading) -> CompositeResult:
    """Steps 1-5 of the module docstring on two readings that hold (checked by the caller)."""
    comps = [ComponentResult(ap) for ap in plan.components]
    result = CompositeResult(None, comps)

    def done(verdict: Verdict | None) -> CompositeResult:
        result.verdict = verdict
        return result

    verdict = components_match(form, a, plan, "a") or components_match(form, b, plan, "b") \
        or value_inside_off_topic(form, a, text) or value_inside_off_topic(form, b, text)
    if verdict is not None:
        return done(verdict)
    deps = planned(plan)
    for c, d in zip(comps, deps):
        if (verdict := read_alike(a, b, d)) is not None:
            c.verdict = verdict
            return done(verdict.model_copy(update={"detail": f"component {c.plan.component.fault_type}: {verdict.detail}"}))
    agreed = agreed_reading(a, b, deps)
    for c, d in zip(comps, deps):
        c.admission = admit_reading(adapter, root, truth, form, agreed, d)
        if not c.admission.admitted:
            c.verdict = c.admission.verdict
            assert c.verdict is not None
            return done(c.verdict.model_copy(update={"detail": f"component {c.plan.component.fault_type}: {c.verdict.detail}"}))
    moved = {c.plan.component.fault_type: moved_reading(c.admission, truth) for c in comps if c.admission}
    result.merged, result.merged_info = merged_reading(adapter, root, {t: r for t, r in moved.items()
                                                                        if t not in WHOLE_MESSAGE_TYPES})
    if result.merged.truth is not None:
        result.merged_info["moved"] = result.merged.truth.hash != truth.hash
    if sum(c.admission.executed for c in comps if c.admission) == 0:
        return done(composite_verdict("admit", "composite:no_executed_reading"))
    return done(None)
