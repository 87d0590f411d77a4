"""Composite text checks: the second pass repaired nothing, and the text checks hold for k faults
at once (the budget grows with k, every requirement no component touches is conveyed, each
component's target is stated the way its class demands), all grounded in the host's data."""

from __future__ import annotations

from miscue.briefs import WriterBrief
from miscue.host import Adapter
from miscue.planning import CompositeAttemptPlan
from miscue.schema import GroundTruth, Intent, Verdict
from miscue.taxonomy import takes_slot
from miscue.writing import composite_word_budget
from miscue.verifiers.composite.extraction import composite_verdict
from miscue.verifiers.reading import TextReading, conveyed, read
from miscue.verifiers.text import META, SNAKE_ASSIGN, contains, target_check, words


def mark_failure(brief: WriterBrief, reading: TextReading) -> str | None:
    """Why the component's own mark is missing from the text (None: present)."""
    verdict = target_check(brief, reading)
    return verdict.code.removeprefix("text:") if verdict is not None else None


def repaired_by_transform(adapter: Adapter, root: Intent, plan: CompositeAttemptPlan, first: str,
                          final: str) -> Verdict | None:
    """A content component whose mark the first pass carried and the second pass lost."""
    before_reading, after_reading = read(adapter, root, first), read(adapter, root, final)
    for ap in plan.content:
        before, after = mark_failure(ap.brief, before_reading), mark_failure(ap.brief, after_reading)
        if before is None and after is not None:
            return composite_verdict("write", "composite:repaired_by_transform", f"{ap.component.fault_type}: {after}")
    return None


def check_composite_text(adapter: Adapter, root: Intent, truth: GroundTruth, plan: CompositeAttemptPlan,
                         text: str | None) -> Verdict | None:
    """The text checks of DESIGN section 6 step 2, adapted to k faults at once."""
    verdict = mechanical_composite(adapter, root, plan, text)
    if verdict is not None or text is None:
        return verdict
    reading = read(adapter, root, text)
    touched = {ap.component.target for ap in plan.components if ap.component.target and takes_slot(ap.component.fault_type)}
    for r in plan.briefs[0].requirements:
        if r.slot not in touched and not conveyed(adapter, root, truth, reading[r.slot]):
            return composite_verdict("text", "text:requirement_not_conveyed", r.phrase)
    for ap in plan.components:
        failure = mark_failure(ap.brief, reading)
        if failure:
            return composite_verdict("text", f"text:{failure}", f"component {ap.component.fault_type}")
    return None


def mechanical_composite(adapter: Adapter, root: Intent, plan: CompositeAttemptPlan, text: str | None) -> Verdict | None:
    """The checks that need no reading of the words, for k faults at once (the reading path's
    only text checks): not empty, no internal syntax or meta-commentary, within the budget for
    k faults, no answer identifier leaked."""
    if text is None or not text.strip():
        return composite_verdict("text", "text:empty")
    reqs = plan.briefs[0].requirements
    slots = [r.slot for r in reqs]
    if any(s in text for s in slots if "." in s or ":" in s) or SNAKE_ASSIGN.search(text):
        return composite_verdict("text", "text:internal_syntax")
    meta = META.search(text)
    if meta:
        return composite_verdict("text", "text:meta_commentary", meta.group(0))
    types = [ap.component.fault_type for ap in plan.components]
    budget = composite_word_budget(plan.k, len(reqs), "contextual_irrelevance" in types,
                                   sum(words(ap.brief.materials.extra or "") for ap in plan.components))
    if words(text) > budget:
        return composite_verdict("text", "text:too_long", f"{words(text)} words > {budget}")
    for leak in adapter.answer_identifiers(root):
        if leak and contains(text, leak):
            return composite_verdict("text", "text:answer_identifier_leaked", leak)
    return None
