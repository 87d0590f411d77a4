"""Who the customer is, said the way the host's users identify themselves to its agent (the
brief's :class:`~miscue.briefs.Identity`: name and zip code or email on retail, user id on
airline), at the start of a message or, now and then, at its end. Phrasings the offline
extractors misread as an added detail are left out."""

from __future__ import annotations

from collections.abc import Sequence

from miscue.briefs import Identity
from miscue.offline.writer.voice import Voice

_IDENTIFY = {
    ("name", "zip"): ("Hi, this is {name}, zip code {zip}.", "Hi, I'm {name} (zip {zip}).", "{name} here, zip code {zip}.",
                      "Hello, I'm {name} and my zip code is {zip}.", "My name is {name}, zip code {zip}.",
                      "Hey, {name} here - zip {zip}."),
    ("email",): ("Hi, my email is {email}.", "Hello, the email on my account is {email}.", "Hi, my account email is {email}.",
                 "Hello, my email address is {email}.", "Hey, my email's {email}."),
    ("name", "email"): ("Hi, this is {name} ({email}).", "Hello, I'm {name}, email {email}.",
                        "My name is {name} and my email is {email}.", "Hey, it's {name} ({email})."),
    ("user id",): ("Hi, my user id is {user id}.", "Hello, user ID {user id} here.", "Hi, {user id} here.",
                   "User id: {user id}.", "Hi, it's {user id}.", "Hello, this is {user id}.", "Hey there, I'm {user id}.",
                   "Good morning, {user id} here.", "Hi, I'm {user id} on your system."),
    ("name", "user id"): ("Hi, this is {name}, user id {user id}.", "Hello, I'm {name}, user ID {user id}.",
                          "Hi, this is {name} ({user id}).", "Hello, {name} here - {user id} on your system."),
}
_IDENTIFY_LATE = {
    ("name", "zip"): ("I'm {name}, zip {zip}.", "This is {name}, zip code {zip}."),
    ("email",): ("My account email is {email}.", "The email on my account is {email}."),
    ("name", "email"): ("I'm {name}, {email}.",),
    ("user id",): ("User ID: {user id}.", "(User id {user id}.)", "(Account: {user id}.)", "I'm {user id}."),
    ("name", "user id"): ("I'm {name}, user id {user id}.", "This is {name} ({user id})."),
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
