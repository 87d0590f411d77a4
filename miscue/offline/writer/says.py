"""How a customer says each requirement, by its kind (the brief's :class:`~miscue.briefs.Role`).

:class:`Told` records, for one message, how each requirement is treated (said with its true
value, said with another value, replaced by a pointer or a vague phrase, or left out) and says
it: the value is chosen among the ways customers say it (the brief's ``spoken`` and ``says``,
the grounding layer's surface forms) and put in the words its kind takes ("size 8", "my Visa
ending in 1234", "order #W2378156", "I ordered it by mistake"). Never "the <field> is <value>".
"""

from __future__ import annotations

import re

from miscue.briefs import Requirement, WriterBrief
from miscue.offline.writer.phrases import IN_NAMES, Mod, feature_forms, option_mod, reason_clause
from miscue.offline.writer.voice import Voice, cased, join

_UNCHANGED = re.compile(r"\b(?:same|current|existing|unchanged|as booked|as is)\b")
_ODD = re.compile(r"^[a-z]+s \d+$|\bcard card\b|^ending\b|^(?:with|is|has|and|isnt)\b|\b(?:yes|no)$|\d{5,}|^an? \S+$|"
                  r"^\d+%$|^none$")


def _usable(form: str) -> bool:
    """A form a customer would write: no host ids, not a bare number or an id's digits, not a
    list of parts, not a fragment ("is waterproof", "waterproof yes", "ending in 2478")."""
    f = form.strip()
    return bool(f) and "_" not in f and not f.isdigit() and " and " not in f and not _ODD.search(f.lower())


_PLURAL_BAGS = re.compile(r"\b(?:bags|suitcases|pieces)\b")


def bag_counts(r: Requirement, forms: list[str]) -> list[str]:
    """The forms of a bag count that say the number and agree with it: "1 checked bag", "2
    suitcases", "no bags" (not "1 pieces of luggage", "no bag", "0 bags" or a bare "bags")."""
    counted = [f for f in forms if re.match(r"^(?:[1-9]\d*|no|a|one)\b", f)]
    one = bool(re.match(r"^(?:1|a|one)\b", r.spoken))
    return [f for f in counted if bool(_PLURAL_BAGS.search(f)) != one] or counted


class Told:
    """How each requirement of one message is said."""

    def __init__(self, brief: WriterBrief, v: Voice) -> None:
        self.brief = brief
        self.v = v
        self.reqs = list(brief.requirements)
        self.mode: dict[str, tuple[str, str | None]] = {}  # slot -> (how, words)
        self._memo: dict[str, str | None] = {}
        self.voiced: set[str] = set()  # the slots said so far (by value, stand-in or modifier)

    # ------------------------------------------------------------------ treatments
    def drop(self, slot: str) -> None:
        self.mode[slot] = ("drop", None)

    def say_as(self, slot: str, value: str) -> None:
        """Say ``value`` (another legal value, a word with two senses) in the slot's place."""
        self.mode[slot] = ("as", value)

    def stand_in(self, slot: str, phrase: str) -> None:
        """A pointer or a vague phrase stands where the value would."""
        self.mode[slot] = ("stand_in", phrase)

    def how(self, slot: str) -> str:
        return self.mode.get(slot, ("value", None))[0]

    def dropped(self, slot: str) -> bool:
        return self.how(slot) == "drop"

    # -------------------------------------------------------------------- lookups
    def of(self, act: str | None = None, *kinds: str) -> list[Requirement]:
        return [r for r in self.reqs if (act is None or r.role.act == act) and (not kinds or r.role.kind in kinds)]

    def one(self, act: str | None, kind: str) -> Requirement | None:
        found = self.of(act, kind)
        return found[0] if found else None

    def said(self, r: Requirement | None) -> str | None:
        """The words for requirement ``r`` in this message (None: left out)."""
        if r is None or self.dropped(r.slot):
            return None
        self.voiced.add(r.slot)
        if r.slot not in self._memo:
            self._memo[r.slot] = self._say(r)
        return self._memo[r.slot]

    def _say(self, r: Requirement) -> str:
        how, text = self.mode.get(r.slot, ("value", None))
        if how == "stand_in":
            return text or ""
        kind = r.role.kind
        if how == "as":
            forms = [cased(text or "", r.spoken, r.phrase)]
        else:
            forms = [cased(f, r.spoken, r.phrase, *r.says) for f in [r.spoken, *r.says] if _usable(f)] or [r.spoken]
        say = getattr(self, f"_{kind}", None)
        return say(r, forms) if say is not None else self.v.pick(forms)

    def unsaid(self) -> list[Requirement]:
        """The requirements of no known kind that no sentence plan said (nor the fault left out)."""
        return [r for r in self.reqs if not r.role.kind and r.slot not in self.voiced and not self.dropped(r.slot)]

    def unchanged(self, r: Requirement | None) -> bool:
        """The value is the one the customer has now ("the same flights")."""
        return r is not None and self.how(r.slot) == "value" and any(_UNCHANGED.search(f.lower()) for f in r.says)

    # ----------------------------------------------------------------- by kind
    def _order(self, r: Requirement, forms: list[str]) -> str:
        f = self.v.pick([x for x in forms if "#" in x or x.lower().startswith("order")] or forms)
        if f.lower().startswith("order"):
            return f
        return self.v.pick((f"order {f}", f"my order {f}", f"order {f}", f))

    def _reservation(self, r: Requirement, forms: list[str]) -> str:
        f = self.v.pick([x for x in forms if not x.lower().startswith("booking")] or forms)
        if f.lower().startswith(("reservation", "confirmation")):
            return f
        return self.v.pick((f"reservation {f}", f, f"my reservation {f}"))

    def _payment(self, r: Requirement, forms: list[str]) -> str:
        if r.parts and self.how(r.slot) == "value":
            parts = [self.v.pick([p.say, *[a for a in p.also if _usable(a)]]) for p in r.parts]
            parts = [cased(p, r.spoken) for p in parts]
            parts = [p if p.lower().startswith("my ") else f"my {p}" for p in parts]
            return self.v.pick((f"{parts[0]} first, then {join(parts[1:])}", join(parts))) if len(parts) > 1 else parts[0]
        if self.how(r.slot) != "value":
            return forms[0]
        named = [f for f in forms if re.search(r"\d{4}", f) and re.search(r"[a-z]{4} ending", f.lower())] or forms
        f = self.v.pick([forms[0], *named])
        return f if f.lower().startswith(("my ", "the ")) or self.v.chance(0.3) else f"my {f}"

    def _reason(self, r: Requirement, forms: list[str]) -> str:
        return reason_clause(self.v.pick(forms), self.v)

    def _items(self, r: Requirement, forms: list[str]) -> str:
        if self.how(r.slot) != "value" or not r.parts:
            return self.v.pick(forms)
        return join([f"the {self.item(r, i)}" for i in range(len(r.parts))])

    def item(self, r: Requirement, i: int) -> str:
        """How part ``i`` of an items list is named ("mechanical keyboard", "keyboard")."""
        p = r.parts[i]
        head = p.say.lower().split()[-1] if p.say.split() else ""
        short = [a for a in p.also if _usable(a) and not a.endswith("s") and len(a) < len(p.say)
                 and a.lower().split()[-1:] == [head]]  # "keyboard" for "mechanical keyboard", never "black"
        return self.v.pick([p.say, p.say, *short[:2]])

    def _flights(self, r: Requirement, forms: list[str]) -> str:
        if self.how(r.slot) != "value" or not r.parts:
            return self.v.pick(forms)
        if self.unchanged(r):
            return self.v.pick(("the same flights", "my current flights", "the flights I already have"))
        out = []
        style = self.v.rng.randrange(8)  # one way of saying the dates for every flight of the list
        for p in r.parts:
            dated = [a for a in p.also if " on " in a]
            out.append(dated[style % len(dated)] if dated else p.say)
        numbers, _, dates = zip(*(f.rpartition(" on ") for f in out))
        if len(out) > 1 and all(numbers) and len(set(dates)) == 1 and self.v.chance(0.7):  # one date for all of them
            return f"{self.v.pick(('flights ', ''))}{join(list(numbers))}, {'both' if len(out) == 2 else 'all'} on {dates[0]}"
        return join([f if f.lower().startswith("flight") or self.v.chance(0.5) else f"flight {f}" for f in out])

    def _passengers(self, r: Requirement, forms: list[str]) -> str:
        if self.how(r.slot) != "value":
            return self.v.pick(forms)
        if len(r.parts) > 1 and " and " in r.spoken and r.spoken.count(" and ") > 1:  # "A, B and C", not "A and B and C"
            return join([p.say for p in r.parts]) if all(p.say in r.spoken for p in r.parts) else r.spoken
        return r.spoken

    def _cabin(self, r: Requirement, forms: list[str]) -> str:
        return self.v.pick(forms)

    def _bags(self, r: Requirement, forms: list[str]) -> str:
        return self.v.pick(bag_counts(r, forms) or forms)

    _paid_bags = _bags

    def _address(self, r: Requirement, forms: list[str]) -> str:
        if self.how(r.slot) != "value":
            return forms[0]
        full = re.sub(r",( (?:Suite|Apt|Apartment|Unit) )", r"\1", r.spoken)  # "12 Elm Street Suite 4, ..."
        return self.v.pick((full, full.removesuffix(", USA"), full.removesuffix(", USA")))

    def _origin(self, r: Requirement, forms: list[str]) -> str:
        return self.v.pick(forms)

    _destination = _origin

    def _option(self, r: Requirement, forms: list[str]) -> str:
        return self.mod(r).text

    def mod(self, r: Requirement) -> Mod:
        """An option of an item as a modifier (see :class:`Mod`)."""
        how, text = self.mode.get(r.slot, ("value", None))
        name = r.role.noun.lower()
        self.voiced.add(r.slot)
        if how == "stand_in":
            return Mod(text or "", "in" if name in IN_NAMES else "with")
        if how == "as":
            form = cased(text or "", r.spoken, r.phrase)
        else:
            forms = [cased(f, r.spoken, r.phrase, *r.says) for f in [r.spoken, *r.says] if _usable(f)] or [r.spoken]
            form = self.v.pick(forms[:5])
        return option_mod(name, form, self.v)

    def _feature(self, r: Requirement, forms: list[str]) -> str:
        return forms[0] if self.v.chance(0.7) else self.v.pick(feature_forms(forms)[:4])

    def _price(self, r: Requirement, forms: list[str]) -> str:
        if self.how(r.slot) == "as" and re.match(r"[$\d]", forms[0]):  # another limit: "under $180", never a bare "$180"
            return f"under {forms[0]}"
        if self.how(r.slot) != "value":
            return forms[0]
        ceil = [f for f in forms if re.match(r"(?:under|less than|below|no more than|max)\b", f.lower())]
        return self.v.pick(ceil or forms)
