"""Composites (DESIGN section 7): k faults in one message, and the second pass.

``write_composite(briefs)`` realises k components in one message: each brief is one component
(its fault type, assigned target and materials; all share the request and the requirements).
``write_transform(text, briefs)`` is the second, transformation-only pass: it applies the
whole-message components (off-topic passage, hearsay framing) to an already written message.
Like a real model, the second pass sometimes slips: for about one text in four it paraphrases
the message from the true requirements instead of keeping it verbatim, which silently repairs
the content faults (the composite verifier must catch that).
"""

from __future__ import annotations

import hashlib
import re

from miscue.briefs import WriterBrief
from miscue.errors import BadInput, UnknownFaultType
from miscue.offline.writer.frames import (
    ATTACHMENTS,
    CLAUSES,
    INDIRECT,
    OPENERS,
    PREMISES,
    PREPOSITIONS,
    Frame,
    capitalised,
    contains,
    join_phrases,
    off_topic,
    verb_phrase,
    word_count,
)
from miscue.offline.writer.single import OPERATIONS, stand_in

_CONTENT_ONLY = frozenset(OPERATIONS) - {"contextual_irrelevance", "indirect_intent"}


def _base_frame(briefs: list[WriterBrief]) -> Frame:
    if not briefs:
        raise BadInput("a composite needs at least one component")
    for b in briefs:
        if b.fault_type not in OPERATIONS:
            raise UnknownFaultType(f"the offline writer has no card for fault type {b.fault_type!r}")
    return Frame(briefs[0].model_copy(update={"target": None, "fault_type": "none"}))


def _avoid(briefs: list[WriterBrief]) -> list[str]:
    reqs = briefs[0].requirements
    out = [r.spoken for r in reqs] + [r.phrase for r in reqs]
    for b in briefs:
        m = b.materials
        out += [x for x in (m.wrong_value, m.fallback, m.pointer, m.ambiguous_word, m.companion, m.extra, m.mismatch) if x]
    return out


def _bare_hearsay(request: str) -> str:
    """Hearsay about the request with no requirement to report."""
    return INDIRECT[0].split(". ")[0].format(request=request) + "."


def write_composite(briefs: list[WriterBrief]) -> str:
    """One message carrying every component of ``briefs`` (one brief per component)."""
    f = _base_frame(briefs)
    replace: dict[str, str] = {}
    drop: set[str] = set()
    request: str | None = None
    extras: list[str] = []
    attach = premise = None
    noise = indirect = None
    for b in briefs:
        t, m, ft = b.requirement(b.target), b.materials, b.fault_type
        value = stand_in(ft, m)
        if value is not None and t:
            replace[t.slot] = value
        elif ft == "insufficient_information" and t:
            drop.add(t.slot)
        elif ft == "syntactic_ambiguity" and t and m.companion:
            drop.add(t.slot)
            attach = ATTACHMENTS[f.variant].format(phrase=t.phrase, companion=m.companion, value=t.spoken)
        elif ft == "false_presupposition" and t and m.fallback:
            drop.add(t.slot)
            premise = PREMISES[f.variant].format(value=t.spoken, phrase=t.phrase, fallback=m.fallback)
        elif ft == "irrelevant_information" and m.extra:
            extras.append(m.extra.strip().rstrip("."))
        elif ft == "tool_capability_mismatch" and m.mismatch:
            request = verb_phrase(m.mismatch.strip().rstrip(".!?"))
        elif ft == "contextual_irrelevance":
            noise = b
        elif ft == "indirect_intent":
            indirect = b

    clause = CLAUSES[0] if indirect is not None else None
    parts = [f.state(r, replace.get(r.slot), clause) for r in f.ordered() if r.slot not in drop]
    if attach:
        parts.append(attach)
    if indirect is not None:
        listing = join_phrases(parts + extras)
        if premise:
            listing = f"{listing}; {premise}" if listing else premise
        if not listing:
            message = _bare_hearsay(request or f.request)
        else:
            message = INDIRECT[f.variant].format(request=request or f.request, list=listing, List=capitalised(listing))
    else:
        opening = f.open(request)
        tail = ""
        for extra in extras:
            prepositional = extra.split()[0].lower() in PREPOSITIONS
            if f.variant in (0, 2):
                if prepositional:
                    tail += f" ({extra})"
                else:
                    parts.append(extra)
            else:
                opening = f"{opening[:-1]} ({extra}){opening[-1]}"
        body = join_phrases(parts)
        message = opening
        if body:
            message += f" {capitalised(body)}{tail}"
        if premise:
            message += f"; {premise}" if body else f" {capitalised(premise)}"
        if body or premise:
            message += "."
    if noise is not None:
        message = off_topic(f, noise.materials.off_topic, word_count(message), _avoid(briefs)) + " " + message
    return message


def _opener_match(text: str) -> re.Match[str] | None:
    """The request-carrying opening sentence of a message, with the request as group ``req``."""
    for template in OPENERS:
        before, after = template.split("{request}")
        m = re.match(re.escape(before) + r"(?P<req>.+?)" + re.escape(after) + r"(?:\s+|$)", text)
        if m:
            return m
    return None


def slips(text: str, attempt: int) -> bool:
    """Whether this second pass paraphrases instead of transforming (deterministic, ~1 in 4)."""
    digest = hashlib.sha256(f"{attempt}|{text}".encode("utf-8")).hexdigest()
    return int(digest[:8], 16) % 4 == 0


def _restated(f: Frame, text: str) -> str:
    """The message paraphrased from the true requirements: every requirement the text mentions,
    with its true value (mistakes, pointers, added details and premises are lost)."""
    mentioned = [r for r in f.ordered() if contains(text, r.phrase) or contains(text, r.spoken)]
    m = _opener_match(text)
    opening = text[:m.end()].strip() if m else f.open()
    body = join_phrases([f.state(r) for r in mentioned])
    return f"{opening} {capitalised(body)}." if body else opening


def _hearsay(f: Frame, text: str) -> str:
    """The message recast as a situation report that asks for nothing."""
    m = _opener_match(text)
    if m is None:
        return text  # nothing recognisable to recast: the request stays (the text checks catch it)
    rest = text[m.end():].strip().rstrip(".").strip()
    if len(rest) > 1 and rest[0].isupper() and not rest[1].isupper():
        rest = rest[0].lower() + rest[1:]
    if not rest:
        return _bare_hearsay(m.group("req"))
    return INDIRECT[f.variant].format(request=m.group("req"), list=rest, List=capitalised(rest))


def write_transform(text: str, briefs: list[WriterBrief], keep: list[str] | None = None) -> str:
    """The second pass: apply only the whole-message components of ``briefs`` to ``text``,
    keeping every value and every mistake verbatim (``keep`` lists them; this writer keeps the
    text's own words anyway, except when it slips)."""
    f = _base_frame(briefs)
    types = {b.fault_type for b in briefs}
    if types & _CONTENT_ONLY:
        raise BadInput(f"the transformation pass applies whole-message faults only, got {sorted(types & _CONTENT_ONLY)}")
    out = text.strip()
    if slips(out, f.attempt):
        out = _restated(f, out)
    if "indirect_intent" in types:
        out = _hearsay(f, out)
    noise = next((b for b in briefs if b.fault_type == "contextual_irrelevance"), None)
    if noise is not None:
        out = off_topic(f, noise.materials.off_topic, word_count(out), _avoid(briefs) + list(keep or [])) + " " + out
    return out
