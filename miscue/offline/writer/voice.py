"""The offline writer's choices and small text helpers.

:class:`Voice` holds the choices one message makes: every choice is drawn from a random
generator seeded by the brief and its attempt number, so one (cell, attempt) always reads the
same (a rebuild is byte-identical) and a retried attempt reads differently. It also says who the
customer is, the way the host's users identify themselves (the brief's :class:`Identity`).
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Sequence
from typing import TypeVar

from miscue.briefs import Identity, WriterBrief

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


# --------------------------------------------------------------------------------- text helpers
def cap(text: str) -> str:
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
    vowel = low_[:1] in "aeio" or low_[:1] == "u" and not low_.startswith(("us", "uni", "ut", "uk"))
    return ("an " if vowel else "a ") + noun


# ------------------------------------------------------------------------------------- identity
_IDENTIFY = {
    ("name", "zip"): ("Hi, this is {name}, zip code {zip}.", "Hi, I'm {name} (zip {zip}).", "{name} here, zip code {zip}.",
                      "Hello, I'm {name} and my zip code is {zip}."),
    ("email",): ("Hi, my email is {email}.", "Hello, the email on my account is {email}.", "Hi, my account email is {email}.",
                 "Hello, my email address is {email}."),
    ("name", "email"): ("Hi, this is {name} ({email}).", "Hello, I'm {name}, email {email}."),
    ("user id",): ("Hi, my user id is {user id}.", "Hello, user ID {user id} here.", "Hi, {user id} here.",
                   "User id: {user id}.", "Hi, it's {user id}."),
    ("name", "user id"): ("Hi, this is {name}, user id {user id}.", "Hello, I'm {name}, user ID {user id}."),
}
_IDENTIFY_LATE = {
    ("name", "zip"): ("I'm {name}, zip {zip}.", "This is {name}, zip code {zip}."),
    ("email",): ("My account email is {email}.", "The email on my account is {email}."),
    ("name", "email"): ("I'm {name}, {email}.",),
    ("user id",): ("User ID: {user id}.", "(User id {user id}.)"),
    ("name", "user id"): ("I'm {name}, user id {user id}.",),
}


def identify(v: Voice, who: Identity | None, avoid: Sequence[str] = (), late: bool = False) -> str:
    """How the customer says who they are (one of the host's ways), or "" without an identity.
    A way that gives the name is skipped when the name is one of the request's own values (a
    passenger), so saying who you are never states a requirement."""
    if who is None or not who.ways:
        return ""
    ways = [w for w in who.ways if "name" not in w or not any(who.name.lower() in a.lower() for a in avoid if a)]
    if not ways:
        return ""
    way = tuple(v.pick(ways))
    table = _IDENTIFY_LATE if late else _IDENTIFY
    templates = table.get(way) or _IDENTIFY.get(way)
    if not templates:
        return ""
    facts = {"name": who.name, **who.facts}
    text = v.pick(templates)
    for key, value in facts.items():
        text = text.replace("{" + key + "}", value)
    return "" if "{" in text else text
