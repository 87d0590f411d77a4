"""The offline writer's vocabulary: host-agnostic sentence frames, the small text helpers that
fill them, and :class:`Frame`, the choices one attempt makes (opener, clause shape, order).

Every sentence frame below is host-agnostic: the host's domain enters only through the brief's
own words.
"""

from __future__ import annotations

import re

from miscue.briefs import Requirement, WriterBrief

# The opening sentence that carries the request (or, for the wrong-instrument fault, the
# mismatched operation). Indexed by attempt.
OPENERS = (
    "Hi, I'd like to {request}.",
    "Could you help me {request}?",
    "I need to {request}.",
    "Hello, please {request}.",
)

# How one requirement is stated: its phrase and its spoken value.
CLAUSES = (
    "{phrase} is {value}",
    "{phrase} should be {value}",
    "{phrase} would be {value}",
    "{value} for {phrase}",
)

# Syntactic ambiguity: the value trails (or leads) a coordination of the target's phrase and the
# companion, so it can attach to either.
ATTACHMENTS = (
    "{phrase} and {companion} should be {value}",
    "{value} for {companion} and {phrase}",
    "{companion} and {phrase} would be {value}",
    "{value} for {phrase} and {companion}",
)

# False presupposition: a premise naming the target's true value as unavailable or already dealt
# with, then the fallback the user settles for.
PREMISES = (
    "since {value} is no longer available for {phrase}, I'll settle for {fallback}",
    "given that {phrase} can't be {value} anymore, I'll make do with {fallback} instead",
    "now that {value} has already been used up for {phrase}, I'll go with {fallback} instead",
    "because {value} isn't offered for {phrase} anymore, I'll accept {fallback} instead",
)

# Indirect intent: a situation or hearsay; never a request.
INDIRECT = (
    "A friend told me that people can {request} through this service. {List}.",
    "{List}. I was told that this is where someone can {request}.",
    "So here is the situation: {list}. Apparently it is possible to {request} here.",
    "My sister mentioned that you can {request} with this service. For the record, {list}.",
)

# Contextual irrelevance: an off-topic passage, built sentence by sentence until it is at least
# 25 words and at least as long as the request that follows it.
OFF_TOPIC_OPENINGS = (
    "Lately I have been spending a lot of my free time on {topic}.",
    "I cannot stop thinking about {topic}.",
    "These days my head is full of {topic}.",
    "My whole week has revolved around {topic}.",
)
OFF_TOPIC_FILLERS = (
    "It started as a small thing a few months ago and slowly turned into a real hobby.",
    "My friends tease me about how often it comes up whenever we meet for dinner.",
    "Last weekend I spent almost the whole afternoon reading about it and completely lost track of time.",
    "Every time I think I understand it, some new detail shows up and sends me off in another direction.",
    "Honestly, it has been a pleasant distraction from work and everything else going on.",
    "My neighbours have started asking me questions about it, which I rather enjoy.",
    "There is a small group in town that meets on Thursdays to talk about exactly this.",
    "I even bought a notebook just to keep track of everything I have learned so far.",
)
OFF_TOPIC_CLOSERS = (
    "Anyway, that is not why I am writing today.",
    "But enough about that.",
    "Anyway, back to the reason for this message.",
    "That is a story for another time, though.",
)

PREPOSITIONS = frozenset({
    "with", "without", "in", "on", "at", "for", "by", "near", "from", "into", "under", "over",
    "before", "after", "during", "via", "through", "including", "plus",
})

# Defaults when the planner left a material out (the verifiers judge the result as usual).
DEFAULT_POINTER = "the usual one"
DEFAULT_VAGUE = "a reasonable"


def verb_phrase(text: str) -> str:
    """The request as a verb phrase that fits after "I'd like to": no final stop, lower-case
    first letter unless it starts an acronym or a name-like token."""
    text = text.strip().rstrip(".!?").strip()
    if len(text) > 1 and text[0].isupper() and not text[1].isupper():
        text = text[0].lower() + text[1:]
    return text


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def join_phrases(parts: list[str]) -> str:
    if not parts:
        return ""
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:
        return f"{parts[0]} and {parts[1]}"
    return ", ".join(parts[:-1]) + ", and " + parts[-1]


def rotated(reqs: list[Requirement], attempt: int) -> list[Requirement]:
    if not reqs:
        return []
    k = attempt % len(reqs)
    return reqs[k:] + reqs[:k]


def word_count(text: str) -> int:
    return len(text.split())


def contains(text: str, needle: str) -> bool:
    if not needle:
        return False
    return re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", text, re.IGNORECASE) is not None


def vague_value(vague: str) -> str:
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


class Frame:
    """The attempt's choices: opener, clause shape, order."""

    def __init__(self, brief: WriterBrief) -> None:
        self.brief = brief
        self.attempt = max(0, int(brief.attempt))
        self.variant = self.attempt % 4
        self.opener = OPENERS[(self.attempt + self.attempt // 4) % len(OPENERS)]
        self.clause = CLAUSES[self.variant]
        self.target = brief.requirement(brief.target)
        self.request = verb_phrase(brief.request)

    def ordered(self) -> list[Requirement]:
        return rotated(list(self.brief.requirements), self.attempt)

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
        body = join_phrases(parts)
        if not body:
            return self.open(request)
        return f"{self.open(request)} {capitalised(body)}."


def off_topic(f: Frame, topic: str | None, rest_words: int, avoid: list[str]) -> str:
    """An off-topic passage of at least 25 words and longer than the ``rest_words`` that follow
    it, touching none of the strings in ``avoid`` (values and phrases)."""
    topic = (topic or "something that happened to me last week").strip().rstrip(".")

    def clean(sentence: str) -> bool:
        return not any(contains(sentence, v) for v in avoid)

    need = max(25, rest_words + 1)
    opening = OFF_TOPIC_OPENINGS[f.variant].format(topic=topic)
    closer = OFF_TOPIC_CLOSERS[f.variant]
    sentences = [opening] if clean(opening) else []
    k = f.attempt % len(OFF_TOPIC_FILLERS)
    fillers = [s for s in OFF_TOPIC_FILLERS[k:] + OFF_TOPIC_FILLERS[:k] if clean(s)]
    for sentence in fillers:
        if word_count(" ".join(sentences + [closer])) >= need:
            break
        sentences.append(sentence)
    sentences.append(closer)
    return " ".join(sentences)
