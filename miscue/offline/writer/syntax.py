"""Syntactic ambiguity as people make it: one modifier placed where it can attach to either of
two things (the planner's ``companion`` names the other one).

- a part: the companion is another requirement's value that names a part of the product
  ("mesh back", "crew neck"); the target's value is said as that part's modifier, "a chair
  with a white mesh back" (is the chair white, or only its back?);
- a negation's reach: the companion is another requirement said with a negator ("no checked
  bags"); the target follows it in one coordination, "no checked bags and travel insurance"
  (no insurance either?);
- old and new: the companion is the thing the customer has now ("the old hiking boots"); the
  target's value closes a coordination of the old and the new one, "take back the old hiking
  boots and send the new boots in size 8" (which pair is size 8?).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from miscue.briefs import Requirement
from miscue.offline.writer.voice import article

if TYPE_CHECKING:
    from miscue.offline.writer.message import Message

_NEGATED = re.compile(r"^(?:no|not|non|without)\b", re.IGNORECASE)
_OLD = re.compile(r"^(?:the|my) (?:old|current|original|existing|previous) ", re.IGNORECASE)


def _owner(m: "Message", companion: str, target: Requirement) -> Requirement | None:
    """The requirement whose true value the companion is."""
    c = companion.strip().lower()
    for r in m.brief.requirements:
        if r.slot != target.slot and c in [x.lower() for x in (r.spoken, *r.says)]:
            return r
    return None


def attach(m: "Message", t: Requirement, companion: str | None, modifier: str | None) -> None:
    """Set up the target ``t`` so its value (said as ``modifier``) can attach to it or to ``companion``."""
    v = m.v
    if not companion:
        return
    said = modifier or t.spoken
    owner = _owner(m, companion, t)
    if owner is not None and _NEGATED.match(companion):
        m.told.drop(t.slot)
        m.told.stand_in(owner.slot, f"{companion} and {said}")
        return
    if owner is not None:
        m.told.drop(t.slot)
        part = f"{said} {companion}"
        counted = article(part) if not companion.lower().endswith("s") or companion.lower().endswith("ss") else part
        m.told.stand_in(owner.slot, f"with {counted}")  # inside a "with" phrase, where a part's modifier reads
        return
    if _OLD.match(companion):
        m.told.drop(t.slot)
        thing = t.role.of or companion.split(" ", 2)[-1]
        lead = v.pick(("Basically, ", "To be clear, ", "In short, "))
        verb = v.pick((f"please take back {companion} and send the new {thing} {said}",
                       f"I'd like you to pick up {companion} and send the new {thing} {said}"))
        m.after.append(lead + verb + ".")
