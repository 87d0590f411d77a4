"""Text checks: cheap, run before any extractor call (DESIGN section 6, step 2).

Mechanical only (internal syntax, meta-commentary, the length budget, an answer identifier
leaked): nothing here tries to understand language; what the text says is the readers' to read.
"""

from __future__ import annotations

import re

from miscue.briefs import WriterBrief
from miscue.schema import Verdict
from miscue.writer_view import word_budget

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
