"""How a customer says each requirement, by its kind (the brief's :class:`~miscue.briefs.Role`).

:class:`Told` records, for one message, how each requirement is treated (said with its true
value, said with another value, replaced by a pointer or a vague phrase, or left out) and says
it: the value is chosen among the ways customers say it (the brief's ``spoken`` and ``says``,
the grounding layer's surface forms) and put in the words its kind takes ("size 8", "my Visa
ending in 1234", "order #W2378156", "I ordered it by mistake"). Never "the <field> is <value>".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from miscue.briefs import Requirement, WriterBrief
from miscue.offline.writer.voice import Voice, cased, join

#: option names said after their value ("clicky switches", "16GB RAM"); colours and the like
#: are said alone ("black"), sizes before it ("size 8")
_BARE = {"color", "colour", "material", "style", "type", "brand", "features", "design", "theme", "flavor", "flavor name",
         "scent", "finish", "pattern"}
_HEADS = {"switch type": "switches", "lens type": "lenses", "power source": "power", "filter type": "filter",
          "difficulty level": "difficulty", "scent family": "scent", "battery type": "batteries", "piece count": "",
          "ram": "RAM", "compatibility": "compatibility", "strap material": "strap", "dial color": "dial",
          "deck material": "deck", "bagged/bagless": "", "backrest height": "backrest", "cover type": "cover"}
_FOR_WORDS = {"hair", "skin", "room", "sleep", "kids", "men", "women", "travel", "gaming", "office", "outdoor", "outdoors",
              "digestion", "energy", "acne", "relaxation", "immunity", "running", "workout", "hiking", "baby"}
_ADJ_ENDINGS = ("free", "proof", "lined", "resistant", "fit", "friendly", "weight", "less", "ed", "ic", "able", "ible", "al",
                "lasting", "dry", "waist", "sleeve", "grade", "gmo", "duty", "soft", "wide", "long")
_ADJECTIVES = {"vegan", "kosher", "organic", "pullover", "ergonomic", "industrial", "cordless", "portable", "foldable",
               "whole bean", "loose leaf", "fair trade", "non-gmo", "non gmo", "unscented", "natural", "wireless", "bluetooth"}
_UNCHANGED = re.compile(r"\b(?:same|current|existing|unchanged|as booked|as is)\b")


_ODD = re.compile(r"^[a-z]+s \d+$|\bcard card\b|^ending\b|^(?:with|is|has|and|isnt)\b|\b(?:yes|no)$|\d{5,}|^an? \S+$|"
                  r"^\d+%$|^none$")


def _usable(form: str) -> bool:
    """A form a customer would write: no host ids, not a bare number or an id's digits, not a
    list of parts, not a fragment ("is waterproof", "waterproof yes", "ending in 2478")."""
    f = form.strip()
    return bool(f) and "_" not in f and not f.isdigit() and " and " not in f and not _ODD.search(f.lower())


@dataclass(frozen=True)
class Mod:
    """An item's wanted option as a modifier, by where it goes in "a full-size one in black with
    clicky switches that's not waterproof": ``adj`` before "one", ``in`` / ``with`` after it,
    ``that`` in a closing clause, ``post`` right after ("without a backlight")."""

    text: str
    role: str


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
        for p in r.parts:
            dated = [a for a in p.also if " on " in a]
            f = self.v.pick(dated) if dated else p.say
            out.append(f if f.lower().startswith("flight") or self.v.chance(0.5) else f"flight {f}")
        return join(out)

    def _passengers(self, r: Requirement, forms: list[str]) -> str:
        if self.how(r.slot) != "value":
            return self.v.pick(forms)
        if len(r.parts) > 1 and " and " in r.spoken and r.spoken.count(" and ") > 1:  # "A, B and C", not "A and B and C"
            return join([p.say for p in r.parts]) if all(p.say in r.spoken for p in r.parts) else r.spoken
        return r.spoken

    def _cabin(self, r: Requirement, forms: list[str]) -> str:
        return self.v.pick(forms)

    def _bags(self, r: Requirement, forms: list[str]) -> str:
        counted = [f for f in forms if re.match(r"^(?:[1-9]\d*|no|a|one)\b", f)]
        one = bool(re.match(r"^(?:1|a|one)\b", r.spoken))
        agree = [f for f in counted if f.rstrip().endswith("s") != one or f.startswith("no ")] or counted
        return self.v.pick(agree or forms)

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
            return Mod(text or "", "in" if name in _IN_NAMES else "with")
        if how == "as":
            form = cased(text or "", r.spoken, r.phrase)
        else:
            forms = [cased(f, r.spoken, r.phrase, *r.says) for f in [r.spoken, *r.says] if _usable(f)] or [r.spoken]
            form = self.v.pick(forms[:5])
        return option_mod(name, form, self.v)

    def _feature(self, r: Requirement, forms: list[str]) -> str:
        return forms[0] if self.v.chance(0.7) else self.v.pick(forms[:4])

    def _price(self, r: Requirement, forms: list[str]) -> str:
        if self.how(r.slot) == "as" and re.match(r"[$\d]", forms[0]):  # another limit: "under $180", never a bare "$180"
            return f"under {forms[0]}"
        if self.how(r.slot) != "value":
            return forms[0]
        ceil = [f for f in forms if re.match(r"(?:under|less than|below|no more than|max)\b", f.lower())]
        return self.v.pick(ceil or forms)


# ------------------------------------------------------------------------------ English
_IN_NAMES = {"color", "colour", "size", "material", "finish", "shade", "pattern"}


def option_mod(name: str, form: str, v: Voice) -> Mod:
    """An option value as a modifier of its item (see :class:`Mod`)."""
    f = form.strip()
    low = f.lower()
    if low.startswith("no "):
        return Mod(f, "with")
    if low.startswith("without "):
        return Mod(f, "post")
    if low.startswith(("not ", "non ", "non-")):
        return Mod(f, "that")
    text = option_phrase(name, f, v)
    if text.lower().startswith("size "):
        return Mod(text, "in")
    if name in _IN_NAMES and text == f:
        return Mod(text, v.pick(("in", "adj")) if name != "size" else "adj")
    if text != f or name.split()[-1] in low.split()[-1:] and len(low.split()) > 1:
        return Mod(text, "with")  # a noun phrase: "clicky switches", "RGB backlight", "16GB RAM"
    return Mod(text, "adj")


def one(mods: Sequence[Mod], article_: bool = True) -> str:
    """An item described by its modifiers: "a full-size one with clicky switches and no backlight"."""
    adjs = [m.text for m in mods if m.role == "adj"]
    ins = [m.text for m in mods if m.role == "in"]
    withs = [m.text for m in mods if m.role == "with"]
    posts = [m.text for m in mods if m.role == "post"]
    thats = [m.text for m in mods if m.role == "that"]
    if adjs:
        head = ", ".join(adjs) + " one"
        head = (("an " if head[:1].lower() in "aeio" else "a ") + head) if article_ else head
    else:
        head = "one"
    if ins:
        head += " in " + join(ins)
    if withs:
        head += " with " + join(withs)
    if posts:
        head += " " + join(posts)
    if thats:
        head += " that's " + join(thats)
    return head


def option_phrase(name: str, form: str, v: Voice) -> str:
    """An option value said as a modifier that reads alone in a list: "size 8", "not waterproof",
    "clicky switches", "16GB RAM", "black"."""
    name_l = name.lower()
    f = form.strip()
    fw = set(re.findall(r"[a-z0-9]+", f.lower()))
    nw = set(re.findall(r"[a-z0-9]+", name_l))
    if fw & nw or any(w.startswith(n) for w in fw for n in nw if len(n) > 3) or name_l in _BARE \
            or f.lower().startswith(("no ", "not ", "non ", "without ", "with ")):
        return f
    if name_l == "size" or name_l.endswith(" size") and re.match(r"^\d", f):
        return f"size {f}" if name_l == "size" else f
    head = _HEADS.get(name_l, name_l)
    return f"{f} {head}".strip() if head else f


def feature_role(text: str) -> str:
    """How a product feature is said: "adj" (before the product: "squat proof leggings"), "for"
    ("for dry hair"), "that" ("that won't chip") or "with" ("with storage")."""
    t = text.lower().strip()
    last = t.split()[-1] if t.split() else t
    if t.split()[:1] and t.split()[0] in ("wont", "won't", "will", "doesnt", "doesn't", "does", "can", "cant", "can't"):
        return "that"
    if last in _FOR_WORDS:
        return "for"
    if t in _ADJECTIVES or last.endswith(_ADJ_ENDINGS) and not t.startswith(("with ", "no ")):
        return "adj"
    return "with"


def features(items: Sequence[str], v: Voice) -> tuple[list[str], list[str], list[str]]:
    """Product features split into (adjectives, with-phrases, for-phrases)."""
    adj: list[str] = []
    with_: list[str] = []
    for_: list[str] = []
    for f in items:
        role = feature_role(f)
        if role == "adj" and len(adj) < 2:
            adj.append(f)
        elif role == "that":
            with_.append(f)
        elif role == "for":
            for_.append(f)
        else:
            with_.append(f[5:] if f.lower().startswith("with ") else f)
    return adj, with_, for_


_REASONS = (
    (("no longer need", "dont need", "don't need", "do not need"), ("I {f} it", "I {f} it anymore", "I {f} it any more")),
    (("changed my mind",), ("I {f}", "I've {f}")),
    (("ordered by mistake", "ordered it wrong"), ("I {f}", "I {f}, honestly")),
    (("by mistake", "by accident", "accidentally", "mistakenly", "in error"), ("I ordered it {f}", "it was ordered {f}",
                                                                               "I placed it {f}")),
    (("no longer needed", "not needed", "no longer necessary", "not necessary", "not needed anymore"), ("it's {f}",)),
    (("no use for",), ("I have {f} it",)),
    (("no need",), ("I have {f} for it",)),
    (("no longer want", "dont want", "don't want"), ("I {f} it", "I {f} it anymore")),
)


def reason_clause(form: str, v: Voice) -> str:
    """A cancellation reason as the clause a customer gives it in ("I ordered it by mistake")."""
    f = form.strip()
    low = f.lower()
    for starts, templates in _REASONS:
        if any(low.startswith(s) or low == s for s in starts):
            if low.startswith("ordered by mistake") and "it" not in low:
                return v.pick(("I ordered it by mistake", "I placed it by mistake"))
            return v.pick(templates).format(f=f)
    return f"it's {f}"
