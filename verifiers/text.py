"""Mechanical text checks: cheap, run before any extractor call (DESIGN section 6, step 2)."""

from __future__ import annotations

import re

from miscue.briefs import WriterBrief
from miscue.schema import Verdict
from miscue.taxonomy import ExtractionClass, fault_type

MAX_WORDS = 130
MAX_WORDS_NOISE = 220
WORDS_PER_EXTRA_REQUIREMENT = 18  # beyond the fourth: long intents need more words (reference: tau2)
SNAKE_ASSIGN = re.compile(r"\b[a-z]+_[a-z_]+\s*[=:]\s*\S")
META = re.compile(
    r"\b(as an ai|language model|the instructions|the card|fault type|this request contains|"
    r"let me rephrase|here is the (?:request|message)|factual[_ ]error|presupposition|ambiguity)\b",
    re.IGNORECASE,
)
REQUEST_PHRASES = (
    "i want", "i need", "i would like", "i'd like", "please", "can you", "could you", "would you",
    "looking for", "help me", "i'm looking", "i am looking", "i wish to", "let me",
)


def norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9#$]+(?:[.'][a-z0-9]+)*", text.lower()))


def contains(text: str, value: str) -> bool:
    """Word-boundary, case- and punctuation-insensitive containment."""
    v = norm(value)
    return bool(v) and f" {v} " in f" {norm(text)} "


def words(text: str) -> int:
    return len(text.split())


def _fail(code: str, detail: str = "") -> Verdict:
    return Verdict(stage="text", code=f"text:{code}", detail=detail)


def check_text(brief: WriterBrief, text: str | None, leaks: list[str] | None = None) -> Verdict | None:
    """None when the text passes every mechanical check for its planned fault."""
    if text is None or not text.strip():
        return _fail("empty")
    ft = fault_type(brief.fault_type)
    slots = [r.slot for r in brief.requirements]
    if any(s in text for s in slots if "." in s or ":" in s) or SNAKE_ASSIGN.search(text):
        return _fail("internal_syntax")
    if META.search(text):
        return _fail("meta_commentary", META.search(text).group(0))  # type: ignore[union-attr]
    budget = (MAX_WORDS_NOISE if ft.extraction == ExtractionClass.noise else MAX_WORDS) + \
        WORDS_PER_EXTRA_REQUIREMENT * max(0, len(brief.requirements) - 4) + words(brief.materials.extra or "")
    if words(text) > budget:
        return _fail("too_long", f"{words(text)} words > {budget}")
    for leak in leaks or []:
        if leak and contains(text, leak):
            return _fail("answer_identifier_leaked", leak)
    target = brief.requirement(brief.target)
    m = brief.materials
    for r in brief.requirements:
        if r.slot == brief.target:
            continue
        if not contains(text, r.spoken):
            return _fail("requirement_not_conveyed", r.phrase)
    if target is not None:
        if ft.extraction == ExtractionClass.substituted:
            if contains(text, target.spoken):
                return _fail("true_value_still_present", target.spoken)
            if not m.wrong_value or not contains(text, m.wrong_value):
                return _fail("asserted_value_absent", m.wrong_value or "")
        elif ft.extraction == ExtractionClass.presupposed:
            if not contains(text, target.spoken):
                return _fail("doubted_value_absent", target.spoken)
            if not m.fallback or not contains(text, m.fallback):
                return _fail("fallback_value_absent", m.fallback or "")
        elif ft.extraction in (ExtractionClass.withheld, ExtractionClass.marked) or ft.id == "lexical_ambiguity":
            if contains(text, target.spoken):
                code = "withheld_value_present" if ft.extraction == ExtractionClass.withheld else "unresolved_value_present"
                return _fail(code, target.spoken)
        elif ft.id == "syntactic_ambiguity" and not contains(text, target.spoken):
            return _fail("requirement_not_conveyed", target.phrase)
    if ft.extraction == ExtractionClass.extras and (not m.extra or not contains(text, m.extra)):
        return _fail("extra_detail_absent", m.extra or "")
    if ft.extraction == ExtractionClass.mismatch and (not m.mismatch or not contains(text, m.mismatch)):
        return _fail("mismatched_operation_absent", m.mismatch or "")
    if ft.extraction == ExtractionClass.oblique:
        low = f" {norm(text)} "
        hit = next((p for p in REQUEST_PHRASES if f" {norm(p)} " in low), None)
        if hit:
            return _fail("request_language_present", hit)
    return None
