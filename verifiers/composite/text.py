"""Composite text checks (DESIGN sections 6 and 7): the mechanical checks, for k faults at once,
before any extractor call. Nothing here reads the words: the readers do."""

from __future__ import annotations

from miscue.host import Adapter
from miscue.planning import CompositeAttemptPlan
from miscue.schema import Intent, Verdict
from miscue.writing import composite_word_budget
from miscue.verifiers.composite.verdict import composite_verdict
from miscue.verifiers.text import META, SNAKE_ASSIGN, contains, words


def mechanical_composite(adapter: Adapter, root: Intent, plan: CompositeAttemptPlan, text: str | None) -> Verdict | None:
    """The checks that need no reading of the words, for k faults at once: not empty, no internal
    syntax or meta-commentary, within the budget for k faults, no answer identifier leaked."""
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
