"""The offline writer's choices and small text helpers.

:class:`Voice` holds the choices one message makes: every choice is drawn from a random
generator seeded by the brief and its attempt number, so one (cell, attempt) always reads the
same (a rebuild is byte-identical) and a retried attempt reads differently; and the small text
helpers every sentence plan uses (capitals, lists, articles, a form's casing).
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Sequence
from typing import TypeVar

from miscue.briefs import WriterBrief

T = TypeVar("T")


class Voice:
    """The choices of one message (seeded by the brief and its attempt)."""

    def __init__(self, brief: WriterBrief, salt: str = "") -> None:
        self.brief = brief
        self.attempt = max(0, int(brief.attempt))
        digest = hashlib.sha256(f"{brief.model_dump_json()}|{salt}".encode("utf-8")).hexdigest()
        self.rng = random.Random(int(digest[:16], 16))

    def pick(self, options: Sequence[T]) -> T:
        return options[self.rng.randrange(len(options))]

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def shuffled(self, items: Sequence[T]) -> list[T]:
        out = list(items)
        self.rng.shuffle(out)
        return out


def cap(text: str) -> str:
    """The first letter upper-cased, unless the first word is an identifier ("anya_garcia_5901",
    an email address): its case is part of it."""
    first = text.split(" ", 1)[0]
    if any(ch in first for ch in "_@"):
        return text
    return text[:1].upper() + text[1:] if text else text


def low(text: str) -> str:
    """The first letter lower-cased, unless the first word is an acronym or a name-like token."""
    if re.match(r"I\b", text):
        return text
    if len(text) > 1 and text[0].isupper() and not text[1].isupper() and not re.match(r"[A-Z][a-z]+ [A-Z]", text):
        return text[0].lower() + text[1:]
    return text


def join(parts: Sequence[str], word: str = "and", oxford: bool = False) -> str:
    parts = [p for p in parts if p]
    if len(parts) <= 1:
        return parts[0] if parts else ""
    if len(parts) == 2:
        return f"{parts[0]} {word} {parts[1]}"
    return ", ".join(parts[:-1]) + ("," if oxford else "") + f" {word} {parts[-1]}"


def sentence(text: str) -> str:
    """A capitalised sentence with its final stop (a question keeps its mark)."""
    text = text.strip()
    if not text:
        return ""
    if text[-1] not in ".!?":
        text += "."
    return cap(text)


def words_of(text: str) -> int:
    return len(text.split())


def cased(form: str, *references: str) -> str:
    """``form`` with the capitalisation its words have in the references ("paypal" -> "PayPal"
    when a reference says "my PayPal account")."""
    known: dict[str, str] = {}
    for ref in references:
        for w in re.findall(r"[\w#'-]+", ref):
            if w != w.lower():
                known.setdefault(w.lower(), w)
    return re.sub(r"[\w#'-]+", lambda m: known.get(m.group(0).lower(), m.group(0)), form)


def article(noun: str) -> str:
    low_ = noun.lower()
    vowel = (low_[:1] in "aeio" and not low_.startswith(("one", "once"))  # "a one-way flight"
             or low_[:1] == "u" and not low_.startswith(("us", "uni", "ut", "uk")))
    return ("an " if vowel else "a ") + noun
