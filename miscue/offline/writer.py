"""The embedded offline writer (DESIGN section 8): a deterministic baseline, not a model.

``write(brief)`` realises the fault card's operation from the brief alone: the requirement
phrases and spoken values, the request, and the planner's materials. ``brief.attempt`` picks the
opening, the clause shape and the order of the requirements, so a retried attempt reads
differently. ``write_plain(brief)`` states the request and every requirement accurately.

Every sentence frame below is host-agnostic: the host's domain enters only through the brief's
own words. The texts are honest baselines for running and testing the pipeline, not corpora.
"""

from __future__ import annotations

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


def _contextual(f: _Frame) -> str:
    brief = f.brief
    request_part = write_plain(brief)
    topic = (brief.materials.off_topic or "something that happened to me last week").strip().rstrip(".")
    values = [r.spoken for r in brief.requirements] + [r.phrase for r in brief.requirements]

    def clean(sentence: str) -> bool:
        return not any(_contains(sentence, v) for v in values)

    need = max(25, _words(request_part) + 1)
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
    return " ".join(sentences) + " " + request_part


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
