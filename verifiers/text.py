"""Text checks: cheap, run before any extractor call (DESIGN section 6, step 2).

Mechanical checks (internal syntax, meta-commentary, the length budget, an answer identifier
leaked), then the grounded ones (section 6a): every requirement the plan does not target is
*conveyed* (the text's value, or its silence, executes to the true outcome), and the target is
stated the way its class demands: another legal value (substituted), the true value doubted in a
premise (presupposed), nothing (withheld), a pointer or a vague word (marked), words that fit
several values or attachments (ambiguous); an extra detail, a mismatched operation or no request
language where the class is about those. Never a verbatim-phrase test: people paraphrase.
"""

from __future__ import annotations

import re

from miscue.briefs import WriterBrief
from miscue.host import Adapter
from miscue.schema import GroundTruth, Intent, Verdict
from miscue.taxonomy import ExtractionClass, fault_type
from miscue.writer_view import word_budget
from miscue.verifiers.reading import TextReading, conveyed, read

SNAKE_ASSIGN = re.compile(r"\b[a-z]+_[a-z_]+\s*[=:]\s*\S")
META = re.compile(
    r"\b(as an ai|language model|the instructions|fault card|the brief|fault type|this request contains|"
    r"let me rephrase|here is the (?:request|message)|factual[_ ]error|presupposition|ambiguity)\b",
    re.IGNORECASE,
)


def norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9#$]+(?:[.'][a-z0-9]+)*", text.lower()))


def contains(text: str, value: str) -> bool:
    """Word-boundary, case- and punctuation-insensitive containment."""
    v = norm(value)
    return bool(v) and f" {v} " in f" {norm(text)} "


def words(text: str) -> int:
    return len(text.split())


def fail(code: str, detail: str = "") -> Verdict:
    return Verdict(stage="text", code=f"text:{code}", detail=detail)


def mechanical(brief: WriterBrief, text: str | None, leaks: list[str]) -> Verdict | None:
    """The checks that need no host data."""
    if text is None or not text.strip():
        return fail("empty")
    slots = [r.slot for r in brief.requirements]
    if any(s in text for s in slots if "." in s or ":" in s) or SNAKE_ASSIGN.search(text):
        return fail("internal_syntax")
    if (meta := META.search(text)) is not None:
        return fail("meta_commentary", meta.group(0))
    if words(text) > (budget := word_budget(brief)):
        return fail("too_long", f"{words(text)} words > {budget}")
    for leak in leaks:
        if leak and contains(text, leak):
            return fail("answer_identifier_leaked", leak)
    return None


def check_text(adapter: Adapter, root: Intent, truth: GroundTruth, brief: WriterBrief, text: str | None,
               reading: TextReading | None = None) -> Verdict | None:
    """None when the text passes every check for its planned fault."""
    verdict = mechanical(brief, text, adapter.answer_identifiers(root))
    if verdict is not None:
        return verdict
    assert text is not None
    reading = reading or read(adapter, root, text)
    for r in brief.requirements:
        if r.slot != brief.target and not conveyed(adapter, root, truth, reading[r.slot]):
            st = reading[r.slot]
            said = f": the text says {st.said()!r}" if st.mentions else ""
            return fail("requirement_not_conveyed", f"{r.phrase}{said}")
    return target_check(brief, reading)


def target_check(brief: WriterBrief, reading: TextReading) -> Verdict | None:
    """The target is treated as its class demands (whole-message classes: the text as a whole)."""
    ft = fault_type(brief.fault_type)
    cls = ft.extraction
    target = brief.requirement(brief.target)
    if target is not None:
        st = reading[target.slot]
        if cls == ExtractionClass.substituted and st.state != "other":
            code = {"true": "true_value_still_present",
                    "ambiguous": "asserted_value_ambiguous"}.get(st.state, "asserted_value_absent")
            return fail(code, target.phrase)
        if cls == ExtractionClass.presupposed and st.state != "doubted":
            return fail("doubted_value_absent", target.phrase)
        if cls == ExtractionClass.withheld and st.state != "open":
            return fail("withheld_value_present", f"{target.phrase}: {st.said()}")
        if cls == ExtractionClass.marked and st.state != "marked":
            code = "unresolved_value_present" if st.state in ("true", "other", "ambiguous") else "marker_absent"
            return fail(code, target.phrase)
        if ft.id == "lexical_ambiguity" and not (st.state == "ambiguous" and len(st.values) > 1 and not st.structural):
            code = "unresolved_value_present" if st.state == "true" else "ambiguous_word_absent"
            return fail(code, target.phrase)
        if ft.id == "syntactic_ambiguity" and st.state != "true" and not any(
                m.kind == "member" or reading.truth_keys.get(target.slot) in m.values or m.slots != (target.slot,)
                for m in reading.grounding.could_be(target.slot, "value", "member")):
            return fail("requirement_not_conveyed", target.phrase)  # the true value, attached anywhere
    if cls == ExtractionClass.extras and not reading.extras():
        return fail("extra_detail_absent", brief.materials.extra or "")
    if cls == ExtractionClass.mismatch and not [m for m in reading.operations() if m.ref != "request"]:
        return fail("mismatched_operation_absent", brief.materials.mismatch or "")
    if cls == ExtractionClass.oblique and reading.grounding.requests:
        a, b = reading.grounding.requests[0]
        return fail("request_language_present", reading.grounding.text[a:b])
    if cls == ExtractionClass.oblique and "?" in reading.grounding.text:
        return fail("request_language_present", "a question")  # the card forbids any question
    return None
