"""Composite text checks: the second pass repaired nothing, and the mechanical checks hold for k
faults at once (budget grows with k, every untouched requirement conveyed, each mark present)."""

from __future__ import annotations

from miscue.planning import AttemptPlan, CompositeAttemptPlan
from miscue.schema import Verdict
from miscue.taxonomy import ExtractionClass, fault_type, takes_slot
from miscue.writing import composite_word_budget
from verifiers.composite.extraction import composite_verdict
from verifiers.text import META, REQUEST_PHRASES, SNAKE_ASSIGN, contains, norm, words



def _occurrences(text: str, value: str) -> int:
    v = norm(value)
    return f" {norm(text)} ".count(f" {v} ") if v else 0


def _still_present(ap: AttemptPlan, text: str, hidden: set[str]) -> bool:
    """The target's true value occurs more often than the other requirements that are stated
    with it (or contain it) account for: another requirement may share the value."""
    b = ap.brief
    t = b.requirement(b.target)
    if t is None or not contains(text, t.spoken):
        return False
    shared = sum(_occurrences(r.spoken, t.spoken) for r in b.requirements if r.slot != t.slot and r.slot not in hidden)
    return _occurrences(text, t.spoken) > shared


def mark_failure(ap: AttemptPlan, text: str, strict: bool = False, hidden: set[str] | None = None) -> str | None:
    """The component's own mark in ``text`` (None: present), as the single-fault text rules
    read it; ``strict`` also asks for the marks a faithful rewrite must keep (the companion of
    a misplaced modifier, the pointer or subjective word, the word with two senses).
    ``hidden``: requirements whose true value other components keep out of the text."""
    b, m = ap.brief, ap.brief.materials
    ft = fault_type(b.fault_type)
    t = b.requirement(b.target)
    cls = ft.extraction
    hidden = hidden or set()
    if t is not None:
        if cls == ExtractionClass.substituted:
            if _still_present(ap, text, hidden):
                return "true_value_still_present"
            if not m.wrong_value or not contains(text, m.wrong_value):
                return "asserted_value_absent"
        elif cls == ExtractionClass.presupposed:
            if not contains(text, t.spoken):
                return "doubted_value_absent"
            if not m.fallback or not contains(text, m.fallback):
                return "fallback_value_absent"
        elif cls in (ExtractionClass.withheld, ExtractionClass.marked) or ft.id == "lexical_ambiguity":
            if _still_present(ap, text, hidden):
                return "withheld_value_present" if cls == ExtractionClass.withheld else "unresolved_value_present"
            if strict and ft.id == "referential_ambiguity" and m.pointer and not contains(text, m.pointer):
                return "pointer_absent"
            if strict and ft.id == "vagueness_subjectivity" and m.vague_word and not contains(text, m.vague_word):
                return "subjective_word_absent"
            if strict and ft.id == "lexical_ambiguity" and m.ambiguous_word and not contains(text, m.ambiguous_word):
                return "ambiguous_word_absent"
        elif ft.id == "syntactic_ambiguity":
            if not contains(text, t.spoken):
                return "requirement_not_conveyed"
            if strict and m.companion and not contains(text, m.companion):
                return "companion_absent"
    if cls == ExtractionClass.extras and (not m.extra or not contains(text, m.extra)):
        return "extra_detail_absent"
    if cls == ExtractionClass.mismatch and (not m.mismatch or not contains(text, m.mismatch)):
        return "mismatched_operation_absent"
    if cls == ExtractionClass.oblique:
        low = f" {norm(text)} "
        if any(f" {norm(p)} " in low for p in REQUEST_PHRASES):
            return "request_language_present"
    return None


def hidden_slots(plan: CompositeAttemptPlan) -> set[str]:
    """Requirements whose true value the plan keeps out of the text (wrong value, omitted,
    pointer, subjective description, word with two senses)."""
    keep_out = (ExtractionClass.substituted, ExtractionClass.withheld, ExtractionClass.marked)
    return {ap.component.target for ap in plan.components if ap.component.target
            and (fault_type(ap.component.fault_type).extraction in keep_out or ap.component.fault_type == "lexical_ambiguity")}


def repaired_by_transform(plan: CompositeAttemptPlan, first: str, final: str) -> Verdict | None:
    """A content component whose mark the first pass carried and the second pass lost."""
    hidden = hidden_slots(plan)
    for ap in plan.content:
        before = mark_failure(ap, first, strict=True, hidden=hidden)
        after = mark_failure(ap, final, strict=True, hidden=hidden)
        if before is None and after is not None:
            return composite_verdict("write", "composite:repaired_by_transform", f"{ap.component.fault_type}: {after}")
    return None


def check_composite_text(plan: CompositeAttemptPlan, text: str | None, leaks: list[str] | None = None) -> Verdict | None:
    """The mechanical checks of DESIGN section 6 step 2, adapted to k faults at once."""
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
    for leak in leaks or []:
        if leak and contains(text, leak):
            return composite_verdict("text", "text:answer_identifier_leaked", leak)
    touched = {ap.component.target for ap in plan.components if ap.component.target and takes_slot(ap.component.fault_type)}
    for r in reqs:
        if r.slot not in touched and not contains(text, r.spoken):
            return composite_verdict("text", "text:requirement_not_conveyed", r.phrase)
    hidden = hidden_slots(plan)
    for ap in plan.components:
        failure = mark_failure(ap, text, hidden=hidden)
        if failure:
            return composite_verdict("text", f"text:{failure}", f"component {ap.component.fault_type}")
    return None
