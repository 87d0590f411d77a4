"""How requests read, measured: the style figures a corpus is compared on with hand-written ones.

For a set of requests: mean words; distinct-2 and distinct-3 (unique word n-grams over all
n-grams); distinct sentence frames (a sentence with its content words masked, so "I'd like to
exchange the boots." and "I'd like to return the lamp." share one frame); the share that reads
as a form (a field enumerated: "the size of the new boots is 8", "the items is ...", slot
phrases such as "the most the user will pay"); and the share that says who the customer is.
Distinct counts grow with the number of texts, so sets are compared on equal-size samples
(:func:`sampled`), drawn with a fixed seed and averaged over draws.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

_WORD = re.compile(r"[a-z0-9#$%']+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
#: closed-class words a frame keeps (everything else is masked)
FUNCTION_WORDS = frozenset("""
a an the this that these those my your our his her their its me i you we he she it they them us him
i'm i'd i'll i've it's that's what's don't can't won't isn't aren't didn't doesn't i'd
to of in on at for from with without by about into onto over under after before than as like
and or but so because since if then also too either neither nor not no yes
is are was were be been being am do does did have has had will would can could should shall may might must
please thanks thank hi hello hey just only also any some all both each every other another
what which who when where how why there here
""".split())
#: words that read as a form read aloud: a field named and assigned, a slot's own phrase
FORM_PHRASES = re.compile(
    r"\bthe \w+ of the (?:new |old )?\w+(?: \w+)? (?:is|should be|would be)\b|"
    r"\bthe (?:items|flights|passengers) (?:is|should be)\b|"
    r"\bthe most the user will pay\b|\ba feature the product must have\b|\(\d+ times\)|\bthe price limit\b|"
    r"\bthe (?:refund|payment) method (?:is|should be|would be)\b|\bthe reason for cancelling is\b",
    re.IGNORECASE)
#: how a customer says who they are: an email, a host user id, a zip code, a name introduced
IDENTITY = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+|\b[a-z]+_[a-z]+_\d{3,}\b|\bzip(?: code)?(?: is)?\s*\d{5}\b|\buser ?id\b",
                      re.IGNORECASE)


def tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def distinct(texts: Sequence[str], n: int) -> float:
    """Unique word n-grams over all word n-grams of the texts (0 when there are none)."""
    grams = [tuple(t[i:i + n]) for text in texts for t in [tokens(text)] for i in range(len(t) - n + 1)]
    return len(set(grams)) / len(grams) if grams else 0.0


def frame(sentence: str) -> str:
    """A sentence's frame: its function words and punctuation, content words masked ("_")."""
    out: list[str] = []
    for tok in re.findall(r"[a-z0-9#$%']+|[,;:?!.()-]", sentence.lower()):
        word = tok if tok in FUNCTION_WORDS or not _WORD.fullmatch(tok) else "_"
        if not (word == "_" and out and out[-1] == "_"):
            out.append(word)
    return " ".join(out)


def frames(texts: Sequence[str]) -> int:
    """The number of distinct sentence frames over the texts."""
    return len({frame(s) for t in texts for s in _SENTENCE.split(t.strip()) if s})


def form_share(texts: Sequence[str]) -> float:
    return sum(1 for t in texts if FORM_PHRASES.search(t)) / len(texts) if texts else 0.0


def identity_share(texts: Sequence[str]) -> float:
    return sum(1 for t in texts if IDENTITY.search(t)) / len(texts) if texts else 0.0


@dataclass(frozen=True)
class Style:
    """The style figures of one set of requests (distinct figures on equal-size samples)."""

    texts: int
    sample: int
    mean_words: float
    distinct_2: float
    distinct_3: float
    frames: float
    form_share: float
    identity_share: float

    def row(self) -> dict[str, float | int]:
        return {"texts": self.texts, "sample": self.sample, "mean words": round(self.mean_words, 1),
                "distinct-2": round(self.distinct_2, 3), "distinct-3": round(self.distinct_3, 3),
                "frames": round(self.frames, 1), "form share": round(self.form_share, 3),
                "identity share": round(self.identity_share, 3)}


def sampled(texts: Sequence[str], size: int, measure: Callable[[Sequence[str]], float], draws: int = 20,
            seed: int = 13) -> float:
    """``measure`` averaged over ``draws`` random samples of ``size`` texts (all of them when fewer)."""
    texts = sorted(texts)
    if len(texts) <= size:
        return measure(texts)
    rng = random.Random(seed)
    return sum(measure(rng.sample(texts, size)) for _ in range(draws)) / draws


def style(texts: Sequence[str], size: int) -> Style:
    """The style figures of ``texts``, distinct ones on samples of ``size`` texts."""
    n = min(size, len(texts))
    return Style(
        texts=len(texts), sample=n,
        mean_words=sum(len(t.split()) for t in texts) / len(texts) if texts else 0.0,
        distinct_2=sampled(texts, n, lambda x: distinct(x, 2)), distinct_3=sampled(texts, n, lambda x: distinct(x, 3)),
        frames=sampled(texts, n, frames), form_share=form_share(texts), identity_share=identity_share(texts))
