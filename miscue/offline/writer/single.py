"""The eleven operations: how the offline writer realises one fault type in one message.

``write(brief)`` realises the fault card's operation from the brief alone: the requirement
phrases and spoken values, the request, and the planner's materials. ``brief.attempt`` picks the
opening, the clause shape and the order of the requirements, so a retried attempt reads
differently. ``write_plain(brief)`` states the request and every requirement accurately.
"""

from __future__ import annotations

from collections.abc import Callable

from miscue.briefs import Materials, WriterBrief
from miscue.errors import UnknownFaultType
from miscue.offline.writer.frames import (
    ATTACHMENTS,
    CLAUSES,
    DEFAULT_POINTER,
    DEFAULT_VAGUE,
    INDIRECT,
    PREMISES,
    PREPOSITIONS,
    Frame,
    capitalised,
    join_phrases,
    off_topic,
    vague_value,
    verb_phrase,
    word_count,
)


def write_plain(brief: WriterBrief) -> str:
    """The request and every requirement, stated accurately (no fault)."""
    f = Frame(brief)
    return f.message(f.listing())


def stand_in(fault_type: str, materials: Materials) -> str | None:
    """The words said in place of the target's true value by the four faults that replace it
    (a wrong value, a pointer, a subjective description, a word with two senses), or None: the
    fault replaces no value, or its material is missing."""
    if fault_type == "factual_error":
        return materials.wrong_value or None
    if fault_type == "referential_ambiguity":
        return materials.pointer or DEFAULT_POINTER
    if fault_type == "vagueness_subjectivity":
        return vague_value(materials.vague_word or DEFAULT_VAGUE)
    if fault_type == "lexical_ambiguity":
        return materials.ambiguous_word or None
    return None


def _replacing(f: Frame) -> str:
    """Every requirement stated, the target's value replaced by its :func:`stand_in` (the plain
    message when the brief has no target or no material)."""
    value = stand_in(f.brief.fault_type, f.brief.materials)
    if f.target is None or value is None:
        return write_plain(f.brief)
    return f.message(f.listing({f.target.slot: value}))


def _insufficient(f: Frame) -> str:
    t = f.target
    if t is None:
        return write_plain(f.brief)
    return f.message(f.listing(drop=t.slot))


def _syntactic(f: Frame) -> str:
    t, companion = f.target, f.brief.materials.companion
    if t is None or not companion:
        return write_plain(f.brief)
    parts = [f.state(r) for r in f.others()]
    parts.append(ATTACHMENTS[f.variant].format(phrase=t.phrase, companion=companion, value=t.spoken))
    return f.message(parts)


def _false_presupposition(f: Frame) -> str:
    t, fallback = f.target, f.brief.materials.fallback
    if t is None or not fallback:
        return write_plain(f.brief)
    premise = PREMISES[f.variant].format(value=t.spoken, phrase=t.phrase, fallback=fallback)
    body = join_phrases([f.state(r) for r in f.others()])
    if not body:
        return f"{f.open()} {capitalised(premise)}."
    return f"{f.open()} {capitalised(body)}; {premise}."


def _irrelevant(f: Frame) -> str:
    extra = (f.brief.materials.extra or "").strip().rstrip(".")
    if not extra:
        return write_plain(f.brief)
    parts = f.listing()
    prepositional = extra.split()[0].lower() in PREPOSITIONS
    if f.variant in (0, 2):
        if prepositional:  # a bare modifier reads as an aside, not as a list item
            return f"{f.open()} {capitalised(join_phrases(parts))} ({extra})."
        return f.message(parts + [extra])
    opening = f.open()
    opening = f"{opening[:-1]} ({extra}){opening[-1]}"
    return f"{opening} {capitalised(join_phrases(parts))}."


def _mismatch(f: Frame) -> str:
    operation = (f.brief.materials.mismatch or "").strip().rstrip(".!?")
    if not operation:
        return write_plain(f.brief)
    return f.message(f.listing(), request=verb_phrase(operation))


def _indirect(f: Frame) -> str:
    parts = f.listing(clause=CLAUSES[0])
    listing = join_phrases(parts)
    return INDIRECT[f.variant].format(request=f.request, list=listing, List=capitalised(listing))


def _contextual(f: Frame) -> str:
    brief = f.brief
    request_part = write_plain(brief)
    values = [r.spoken for r in brief.requirements] + [r.phrase for r in brief.requirements]
    return off_topic(f, brief.materials.off_topic, word_count(request_part), values) + " " + request_part


_OPS: dict[str, Callable[[Frame], str]] = {
    "indirect_intent": _indirect,
    "contextual_irrelevance": _contextual,
    "factual_error": _replacing,
    "false_presupposition": _false_presupposition,
    "tool_capability_mismatch": _mismatch,
    "insufficient_information": _insufficient,
    "irrelevant_information": _irrelevant,
    "lexical_ambiguity": _replacing,
    "syntactic_ambiguity": _syntactic,
    "referential_ambiguity": _replacing,
    "vagueness_subjectivity": _replacing,
}

OPERATIONS = tuple(_OPS)  # the fault types this writer realises


def write(brief: WriterBrief) -> str:
    """The opening message carrying the brief's planned fault (``"none"``: no fault)."""
    if brief.fault_type in ("none", ""):
        return write_plain(brief)
    op = _OPS.get(brief.fault_type)
    if op is None:
        raise UnknownFaultType(f"the offline writer has no card for fault type {brief.fault_type!r}")
    return op(Frame(brief))

