"""The embedded offline writer (DESIGN section 8): a deterministic baseline, not a model.

``write(brief)`` realises the fault card's operation from the brief alone: the requirement
phrases and spoken values, the request, and the planner's materials. ``brief.attempt`` picks the
opening, the clause shape and the order of the requirements, so a retried attempt reads
differently. ``write_plain(brief)`` states the request and every requirement accurately.

Every sentence frame below is host-agnostic: the host's domain enters only through the brief's
own words. The texts are honest baselines for running and testing the pipeline, not corpora.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

from miscue.briefs import Requirement, WriterBrief

# -- sentence frames ---------------------------------------------------------------------------

# The opening sentence that carries the request (or, for the wrong-instrument fault, the
# mismatched operation). Indexed by attempt.
_OPENERS = (
    "Hi, I'd like to {request}.",
    "Could you help me {request}?",
    "I need to {request}.",
    "Hello, please {request}.",
)

# How one requirement is stated: its phrase and its spoken value.
_CLAUSES = (
    "{phrase} is {value}",
    "{phrase} should be {value}",
    "{phrase} would be {value}",
    "{value} for {phrase}",
)

# Syntactic ambiguity: the value trails (or leads) a coordination of the target's phrase and the
# companion, so it can attach to either.
_ATTACHMENTS = (
    "{phrase} and {companion} should be {value}",
    "{value} for {companion} and {phrase}",
    "{companion} and {phrase} would be {value}",
    "{value} for {phrase} and {companion}",
)

# False presupposition: a premise naming the target's true value as unavailable or already dealt
# with, then the fallback the user settles for.
_PREMISES = (
    "since {value} is no longer available for {phrase}, I'll settle for {fallback}",
    "given that {phrase} can't be {value} anymore, I'll make do with {fallback} instead",
    "now that {value} has already been used up for {phrase}, I'll go with {fallback} instead",
    "because {value} isn't offered for {phrase} anymore, I'll accept {fallback} instead",
)

# Indirect intent: a situation or hearsay; never a request.
_INDIRECT = (
    "A friend told me that people can {request} through this service. {List}.",
    "{List}. I was told that this is where someone can {request}.",
    "So here is the situation: {list}. Apparently it is possible to {request} here.",
    "My sister mentioned that you can {request} with this service. For the record, {list}.",
)

# Contextual irrelevance: an off-topic passage, built sentence by sentence until it is at least
# 25 words and at least as long as the request that follows it.
_OFF_TOPIC_OPENINGS = (
    "Lately I have been spending a lot of my free time on {topic}.",
    "I cannot stop thinking about {topic}.",
    "These days my head is full of {topic}.",
    "My whole week has revolved around {topic}.",
)
_OFF_TOPIC_FILLERS = (
    "It started as a small thing a few months ago and slowly turned into a real hobby.",
    "My friends tease me about how often it comes up whenever we meet for dinner.",
    "Last weekend I spent almost the whole afternoon reading about it and completely lost track of time.",
    "Every time I think I understand it, some new detail shows up and sends me off in another direction.",
    "Honestly, it has been a pleasant distraction from work and everything else going on.",
    "My neighbours have started asking me questions about it, which I rather enjoy.",
    "There is a small group in town that meets on Thursdays to talk about exactly this.",
    "I even bought a notebook just to keep track of everything I have learned so far.",
)
_OFF_TOPIC_CLOSERS = (
    "Anyway, that is not why I am writing today.",
    "But enough about that.",
    "Anyway, back to the reason for this message.",
    "That is a story for another time, though.",
)

_PREPOSITIONS = frozenset({
    "with", "without", "in", "on", "at", "for", "by", "near", "from", "into", "under", "over",
    "before", "after", "during", "via", "through", "including", "plus",
})

# Defaults when the planner left a material out (the verifiers judge the result as usual).
_DEFAULT_POINTER = "the usual one"
_DEFAULT_VAGUE = "a reasonable"


# -- helpers -------------------------------------------------------------------------------------


def _request(text: str) -> str:
    """The request as a verb phrase that fits after "I'd like to": no final stop, lower-case
    first letter unless it starts an acronym or a name-like token."""
    text = text.strip().rstrip(".!?").strip()
    if len(text) > 1 and text[0].isupper() and not text[1].isupper():
        text = text[0].lower() + text[1:]
    return text


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _join(parts: list[str]) -> str:
    if not parts:
        return ""
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:
        return f"{parts[0]} and {parts[1]}"
    return ", ".join(parts[:-1]) + ", and " + parts[-1]


def _rotated(reqs: list[Requirement], attempt: int) -> list[Requirement]:
    if not reqs:
        return []
    k = attempt % len(reqs)
    return reqs[k:] + reqs[:k]


def _words(text: str) -> int:
    return len(text.split())


def _contains(text: str, needle: str) -> bool:
    if not needle:
        return False
    return re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", text, re.IGNORECASE) is not None


def _vague_value(vague: str) -> str:
    """A subjective stand-in for a value: "a reasonable" -> "a reasonable one"."""
    vague = vague.strip()
    low = vague.lower()
    words = low.split()
    if words and words[0] in ("something", "anything", "whatever", "somewhere", "sometime", "one"):
        return vague
    if words and words[0] in ("a", "an", "the", "some") and len(words) <= 2:
        return f"{vague} one"
    if len(words) == 1:
        return f"something {vague}"
    return vague


class _Frame:
    """The attempt's choices: opener, clause shape, order."""

    def __init__(self, brief: WriterBrief) -> None:
        self.brief = brief
        self.attempt = max(0, int(brief.attempt))
        self.variant = self.attempt % 4
        self.opener = _OPENERS[(self.attempt + self.attempt // 4) % len(_OPENERS)]
        self.clause = _CLAUSES[self.variant]
        self.target = brief.requirement(brief.target)
        self.request = _request(brief.request)

    def ordered(self) -> list[Requirement]:
        return _rotated(list(self.brief.requirements), self.attempt)

    def others(self) -> list[Requirement]:
        return [r for r in self.ordered() if self.target is None or r.slot != self.target.slot]

    def state(self, req: Requirement, value: str | None = None, clause: str | None = None) -> str:
        return (clause or self.clause).format(phrase=req.phrase, value=req.spoken if value is None else value)

    def listing(self, replace: dict[str, str] | None = None, drop: str | None = None,
                clause: str | None = None) -> list[str]:
        replace = replace or {}
        return [self.state(r, replace.get(r.slot), clause) for r in self.ordered() if r.slot != drop]

    def open(self, request: str | None = None) -> str:
        return self.opener.format(request=request if request is not None else self.request)

    def message(self, parts: list[str], request: str | None = None) -> str:
        body = _join(parts)
        if not body:
            return self.open(request)
        return f"{self.open(request)} {_cap(body)}."


# -- the eleven operations ------------------------------------------------------------------------


def write_plain(brief: WriterBrief) -> str:
    """The request and every requirement, stated accurately (no fault)."""
    f = _Frame(brief)
    return f.message(f.listing())


def _factual_error(f: _Frame) -> str:
    t, wrong = f.target, f.brief.materials.wrong_value
    if t is None or not wrong:
        return write_plain(f.brief)
    return f.message(f.listing({t.slot: wrong}))


def _insufficient(f: _Frame) -> str:
    t = f.target
    if t is None:
        return write_plain(f.brief)
    return f.message(f.listing(drop=t.slot))


def _referential(f: _Frame) -> str:
    t = f.target
    if t is None:
        return write_plain(f.brief)
    return f.message(f.listing({t.slot: f.brief.materials.pointer or _DEFAULT_POINTER}))


def _vagueness(f: _Frame) -> str:
    t = f.target
    if t is None:
        return write_plain(f.brief)
    vague = _vague_value(f.brief.materials.vague_word or _DEFAULT_VAGUE)
    return f.message(f.listing({t.slot: vague}))


def _lexical(f: _Frame) -> str:
    t, word = f.target, f.brief.materials.ambiguous_word
    if t is None or not word:
        return write_plain(f.brief)
    return f.message(f.listing({t.slot: word}))


def _syntactic(f: _Frame) -> str:
    t, companion = f.target, f.brief.materials.companion
    if t is None or not companion:
        return write_plain(f.brief)
    parts = [f.state(r) for r in f.others()]
    parts.append(_ATTACHMENTS[f.variant].format(phrase=t.phrase, companion=companion, value=t.spoken))
    return f.message(parts)


def _false_presupposition(f: _Frame) -> str:
    t, fallback = f.target, f.brief.materials.fallback
    if t is None or not fallback:
        return write_plain(f.brief)
    premise = _PREMISES[f.variant].format(value=t.spoken, phrase=t.phrase, fallback=fallback)
    body = _join([f.state(r) for r in f.others()])
    if not body:
        return f"{f.open()} {_cap(premise)}."
    return f"{f.open()} {_cap(body)}; {premise}."


def _irrelevant(f: _Frame) -> str:
    extra = (f.brief.materials.extra or "").strip().rstrip(".")
    if not extra:
        return write_plain(f.brief)
    parts = f.listing()
    prepositional = extra.split()[0].lower() in _PREPOSITIONS
    if f.variant in (0, 2):
        if prepositional:  # a bare modifier reads as an aside, not as a list item
            return f"{f.open()} {_cap(_join(parts))} ({extra})."
        return f.message(parts + [extra])
    opening = f.open()
    opening = f"{opening[:-1]} ({extra}){opening[-1]}"
    return f"{opening} {_cap(_join(parts))}."


def _mismatch(f: _Frame) -> str:
    operation = (f.brief.materials.mismatch or "").strip().rstrip(".!?")
    if not operation:
        return write_plain(f.brief)
    return f.message(f.listing(), request=_request(operation))


def _indirect(f: _Frame) -> str:
    parts = f.listing(clause=_CLAUSES[0])
    listing = _join(parts)
    return _INDIRECT[f.variant].format(request=f.request, list=listing, List=_cap(listing))


def _off_topic(f: _Frame, topic: str | None, rest_words: int, avoid: list[str]) -> str:
    """An off-topic passage of at least 25 words and longer than the ``rest_words`` that follow
    it, touching none of the strings in ``avoid`` (values and phrases)."""
    topic = (topic or "something that happened to me last week").strip().rstrip(".")

    def clean(sentence: str) -> bool:
        return not any(_contains(sentence, v) for v in avoid)

    need = max(25, rest_words + 1)
    opening = _OFF_TOPIC_OPENINGS[f.variant].format(topic=topic)
    closer = _OFF_TOPIC_CLOSERS[f.variant]
    sentences = [opening] if clean(opening) else []
    k = f.attempt % len(_OFF_TOPIC_FILLERS)
    fillers = [s for s in _OFF_TOPIC_FILLERS[k:] + _OFF_TOPIC_FILLERS[:k] if clean(s)]
    for sentence in fillers:
        if _words(" ".join(sentences + [closer])) >= need:
            break
        sentences.append(sentence)
    sentences.append(closer)
    return " ".join(sentences)


def _contextual(f: _Frame) -> str:
    brief = f.brief
    request_part = write_plain(brief)
    values = [r.spoken for r in brief.requirements] + [r.phrase for r in brief.requirements]
    return _off_topic(f, brief.materials.off_topic, _words(request_part), values) + " " + request_part


_OPS: dict[str, Callable[[_Frame], str]] = {
    "indirect_intent": _indirect,
    "contextual_irrelevance": _contextual,
    "factual_error": _factual_error,
    "false_presupposition": _false_presupposition,
    "tool_capability_mismatch": _mismatch,
    "insufficient_information": _insufficient,
    "irrelevant_information": _irrelevant,
    "lexical_ambiguity": _lexical,
    "syntactic_ambiguity": _syntactic,
    "referential_ambiguity": _referential,
    "vagueness_subjectivity": _vagueness,
}

OPERATIONS = tuple(_OPS)  # the fault types this writer realises


def write(brief: WriterBrief) -> str:
    """The opening message carrying the brief's planned fault (``"none"``: no fault)."""
    if brief.fault_type in ("none", ""):
        return write_plain(brief)
    op = _OPS.get(brief.fault_type)
    if op is None:
        raise ValueError(f"the offline writer has no card for fault type {brief.fault_type!r}")
    return op(_Frame(brief))


# -- composites (DESIGN section 7) ------------------------------------------------------------------
#
# ``write_composite(briefs)`` realises k components in one message: each brief is one component
# (its fault type, assigned target and materials; all share the request and the requirements).
# ``write_transform(text, briefs)`` is the second, transformation-only pass: it applies the
# whole-message components (off-topic passage, hearsay framing) to an already written message.
# Like a real model, the second pass sometimes slips: for about one text in four it paraphrases
# the message from the true requirements instead of keeping it verbatim, which silently repairs
# the content faults (the composite verifier must catch that).

_CONTENT_ONLY = frozenset(_OPS) - {"contextual_irrelevance", "indirect_intent"}


def _base_frame(briefs: list[WriterBrief]) -> _Frame:
    if not briefs:
        raise ValueError("a composite needs at least one component")
    for b in briefs:
        if b.fault_type not in _OPS:
            raise ValueError(f"the offline writer has no card for fault type {b.fault_type!r}")
    return _Frame(briefs[0].model_copy(update={"target": None, "fault_type": "none"}))


def _avoid(briefs: list[WriterBrief]) -> list[str]:
    reqs = briefs[0].requirements
    out = [r.spoken for r in reqs] + [r.phrase for r in reqs]
    for b in briefs:
        m = b.materials
        out += [x for x in (m.wrong_value, m.fallback, m.pointer, m.ambiguous_word, m.companion, m.extra, m.mismatch) if x]
    return out


def _bare_hearsay(request: str) -> str:
    """Hearsay about the request with no requirement to report."""
    return _INDIRECT[0].split(". ")[0].format(request=request) + "."


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
        if ft == "factual_error" and t and m.wrong_value:
            replace[t.slot] = m.wrong_value
        elif ft == "referential_ambiguity" and t:
            replace[t.slot] = m.pointer or _DEFAULT_POINTER
        elif ft == "vagueness_subjectivity" and t:
            replace[t.slot] = _vague_value(m.vague_word or _DEFAULT_VAGUE)
        elif ft == "lexical_ambiguity" and t and m.ambiguous_word:
            replace[t.slot] = m.ambiguous_word
        elif ft == "insufficient_information" and t:
            drop.add(t.slot)
        elif ft == "syntactic_ambiguity" and t and m.companion:
            drop.add(t.slot)
            attach = _ATTACHMENTS[f.variant].format(phrase=t.phrase, companion=m.companion, value=t.spoken)
        elif ft == "false_presupposition" and t and m.fallback:
            drop.add(t.slot)
            premise = _PREMISES[f.variant].format(value=t.spoken, phrase=t.phrase, fallback=m.fallback)
        elif ft == "irrelevant_information" and m.extra:
            extras.append(m.extra.strip().rstrip("."))
        elif ft == "tool_capability_mismatch" and m.mismatch:
            request = _request(m.mismatch.strip().rstrip(".!?"))
        elif ft == "contextual_irrelevance":
            noise = b
        elif ft == "indirect_intent":
            indirect = b

    clause = _CLAUSES[0] if indirect is not None else None
    parts = [f.state(r, replace.get(r.slot), clause) for r in f.ordered() if r.slot not in drop]
    if attach:
        parts.append(attach)
    if indirect is not None:
        listing = _join(parts + extras)
        if premise:
            listing = f"{listing}; {premise}" if listing else premise
        if not listing:
            message = _bare_hearsay(request or f.request)
        else:
            message = _INDIRECT[f.variant].format(request=request or f.request, list=listing, List=_cap(listing))
    else:
        opening = f.open(request)
        tail = ""
        for extra in extras:
            prepositional = extra.split()[0].lower() in _PREPOSITIONS
            if f.variant in (0, 2):
                if prepositional:
                    tail += f" ({extra})"
                else:
                    parts.append(extra)
            else:
                opening = f"{opening[:-1]} ({extra}){opening[-1]}"
        body = _join(parts)
        message = opening
        if body:
            message += f" {_cap(body)}{tail}"
        if premise:
            message += f"; {premise}" if body else f" {_cap(premise)}"
        if body or premise:
            message += "."
    if noise is not None:
        message = _off_topic(f, noise.materials.off_topic, _words(message), _avoid(briefs)) + " " + message
    return message


def _opener_match(text: str) -> re.Match[str] | None:
    """The request-carrying opening sentence of a message, with the request as group ``req``."""
    for template in _OPENERS:
        before, after = template.split("{request}")
        m = re.match(re.escape(before) + r"(?P<req>.+?)" + re.escape(after) + r"(?:\s+|$)", text)
        if m:
            return m
    return None


def _slips(text: str, attempt: int) -> bool:
    """Whether this second pass paraphrases instead of transforming (deterministic, ~1 in 4)."""
    digest = hashlib.sha256(f"{attempt}|{text}".encode("utf-8")).hexdigest()
    return int(digest[:8], 16) % 4 == 0


def _restated(f: _Frame, text: str) -> str:
    """The message paraphrased from the true requirements: every requirement the text mentions,
    with its true value (mistakes, pointers, added details and premises are lost)."""
    mentioned = [r for r in f.ordered() if _contains(text, r.phrase) or _contains(text, r.spoken)]
    m = _opener_match(text)
    opening = text[:m.end()].strip() if m else f.open()
    body = _join([f.state(r) for r in mentioned])
    return f"{opening} {_cap(body)}." if body else opening


def _hearsay(f: _Frame, text: str) -> str:
    """The message recast as a situation report that asks for nothing."""
    m = _opener_match(text)
    if m is None:
        return text  # nothing recognisable to recast: the request stays (the text checks catch it)
    rest = text[m.end():].strip().rstrip(".").strip()
    if len(rest) > 1 and rest[0].isupper() and not rest[1].isupper():
        rest = rest[0].lower() + rest[1:]
    if not rest:
        return _bare_hearsay(m.group("req"))
    return _INDIRECT[f.variant].format(request=m.group("req"), list=rest, List=_cap(rest))


def write_transform(text: str, briefs: list[WriterBrief], keep: list[str] | None = None) -> str:
    """The second pass: apply only the whole-message components of ``briefs`` to ``text``,
    keeping every value and every mistake verbatim (``keep`` lists them; this writer keeps the
    text's own words anyway, except when it slips)."""
    f = _base_frame(briefs)
    types = {b.fault_type for b in briefs}
    if types & _CONTENT_ONLY:
        raise ValueError(f"the transformation pass applies whole-message faults only, got {sorted(types & _CONTENT_ONLY)}")
    out = text.strip()
    if _slips(out, f.attempt):
        out = _restated(f, out)
    if "indirect_intent" in types:
        out = _hearsay(f, out)
    noise = next((b for b in briefs if b.fault_type == "contextual_irrelevance"), None)
    if noise is not None:
        out = _off_topic(f, noise.materials.off_topic, _words(out), _avoid(briefs) + list(keep or [])) + " " + out
    return out
