"""The materials of the expression faults, from host data: how a customer points at a value
("the card I used last time"), describes an ordered one subjectively ("a size up"), names one
with a word the host's own data make ambiguous, and which of a value's surface forms name it
alone (the forms a writer may say for a requirement stated accurately).

Every phrase proposed here is read back with the rule grammar (:mod:`miscue.grammar`) and the
intent's value domains before it is handed to a writer:
a pointer must read as a pointer, a vague phrase as vague and never as a legal value, an
ambiguous word as fitting exactly the true value and one other.
"""

from __future__ import annotations

import re
from typing import Any

from miscue.briefs import Role
from miscue.grammar import Grounder, grammar
from miscue.language import LegalValue, SlotDomain, words
from miscue.language.states import state_of

#: pointers to shared knowledge, per kind of requirement ({noun}: the requirement's noun)
POINTERS: dict[str, tuple[str, ...]] = {
    "option": ("the {noun} I mentioned before", "my usual {noun}", "the {noun} option I told you about",
               "the {noun} we talked about"),
    "payment": ("my usual card", "the card I used last time", "the card on file", "the payment method I used before"),
    "order": ("the order I mentioned", "the order I told you about", "the order we talked about"),
    "reservation": ("the reservation I mentioned", "the booking I told you about", "the reservation we talked about"),
    "address": ("the address I gave you before", "my usual address", "the address on file", "the address I mentioned"),
    "reason": ("the reason I mentioned earlier", "the reason I gave you before"),
    "items": ("the item I told you about", "the one I mentioned before"),
    "cabin": ("my usual cabin", "the same class as last time", "the cabin I mentioned"),
    "flights": ("the flights I mentioned", "the flights we talked about"),
    "passengers": ("the passengers I mentioned", "the people I told you about"),
    "bags": ("the number of bags I mentioned", "my usual number of bags", "the bags I told you about"),
    "paid_bags": ("the number of bags I mentioned", "the bags I told you about"),
    "insurance": ("the insurance option I mentioned", "my usual insurance choice", "the insurance I told you about"),
    "trip": ("the trip type I mentioned", "the same kind of trip as last time"),
    "origin": ("the airport I mentioned", "my usual airport", "the airport I told you about"),
    "destination": ("the city I mentioned", "the destination I told you about", "the airport we talked about"),
    "feature": ("the feature I mentioned before", "the feature I told you about"),
    "price": ("my usual budget", "the budget I mentioned", "the price we talked about"),
    "amount": ("the amount we discussed", "the amount I was told about"),
}
DEFAULT_POINTERS = ("the usual one", "the one I mentioned before", "the same one as last time", "the one I told you about")

#: subjective descriptions of an ordered value, by the direction from what the customer has now
_UP = ("a bigger {noun}", "a {noun} up", "a larger {noun}", "something a bit bigger")
_DOWN = ("a smaller {noun}", "a {noun} down", "something a bit smaller")
_MORE = ("more {noun}", "a bit more {noun}", "a lot more {noun}")
_VAGUE: dict[str, dict[str, tuple[str, ...]]] = {
    "cabin": {"up": ("a nicer cabin", "a better class", "something more comfortable"),
              "down": ("a cheaper cabin", "something cheaper", "a lower class"),
              "": ("a decent cabin", "a comfortable seat")},
    "bags": {"up": ("more bags", "a few more bags"), "down": ("fewer bags",), "": ("a few checked bags", "a couple of bags")},
    "paid_bags": {"up": ("more bags",), "down": ("fewer bags",), "": ("a few bags",)},
    "price": {"": ("a reasonable price", "something affordable", "nothing too pricey", "a budget-friendly price")},
    "amount": {"": ("a fair amount", "a reasonable amount", "something decent")},
}
_MEASURES = {"storage", "ram", "memory", "capacity", "pieces", "zoom", "battery life"}  # more of it, not bigger
_COMPARATIVES = {"brightness": ("brighter", "dimmer"), "length": ("longer", "shorter"), "resolution": ("sharper", "lower"),
                 "battery life": ("longer", "shorter"), "pressure": ("higher", "lower")}
_SUBJECTIVE = ("a decent {noun}", "a reasonable {noun}", "a good {noun}")
_SUBJECTIVE_COUNT = ("a decent number of {noun}", "a reasonable number of {noun}", "a good number of {noun}")

_SIZES = {"xxs": 0, "xs": 1, "s": 2, "small": 2, "m": 3, "medium": 3, "l": 4, "large": 4, "xl": 5, "xxl": 6, "2xl": 6, "xxxl": 7,
          "3xl": 7}
_CABINS = {"basic_economy": 0, "economy": 1, "business": 2}
_NUMBER = re.compile(r"(\d+(?:\.\d+)?)")
_UNITS = {"tb": 1000.0, "l": 1000.0, "kg": 1000.0}


def numbers(said: str) -> frozenset[str]:
    """The numbers written in a phrase, digits only ("24 ct" -> {"24"}; "the cheapest one" -> {})."""
    return frozenset(_NUMBER.findall(said))


def rank(value: Any) -> float | None:
    """A value's place on its requirement's order, when it has an obvious one: counts and
    amounts, letter sizes, cabins ("full size" and "60%" have none)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip().lower()
    if text in _CABINS:
        return float(_CABINS[text])
    if text in _SIZES:
        return float(_SIZES[text])
    m = _NUMBER.search(text)
    if m is None or "%" in text:
        return None
    unit = text[m.end():].strip().split(" ")[0] if text[m.end():].strip() else ""
    return float(m.group(1)) * _UNITS.get(unit, 1.0)


def direction(true: Any, current: Any) -> str:
    """"up", "down" or "" (no order, no current value, or no change)."""
    a, b = rank(true), rank(current)
    if a is None or b is None or a == b:
        return ""
    return "up" if a > b else "down"


def pointers(role: Role) -> list[str]:
    """Pointers for a requirement of this role that read as pointers."""
    noun = role.noun or "one"
    reads = grammar().reads_as_pointer
    out = [p.format(noun=noun) for p in POINTERS.get(role.kind, ()) if reads(p.format(noun=noun))]
    return out or [p for p in DEFAULT_POINTERS if reads(p)]


def vague_phrases(role: Role, true: Any, current: Any, grounder: Grounder | None = None, slot: str = "") -> list[str]:
    """Subjective descriptions of an ordered value, tied to its order where the customer has a
    value now (bigger than that one, a nicer cabin than the one booked); each reads as vague and
    names no legal value of the requirement."""
    noun = role.noun or "one"
    way = direction(true, current)
    if role.kind in _VAGUE:
        table = _VAGUE[role.kind]
        found = table.get(way) or table.get("", ())
    elif way and noun.lower() in _COMPARATIVES:
        more, less = _COMPARATIVES[noun.lower()]
        found = (f"a {more} one", f"something {more}") if way == "up" else (f"a {less} one", f"something {less}")
    elif way and noun.lower() in _MEASURES:
        plural = noun.lower().endswith("s")
        found = (("more {noun}", "a few more {noun}") if plural else _MORE) if way == "up" else \
            (("fewer {noun}",) if plural else ("a smaller {noun}", "less {noun}"))
    elif way:
        found = _UP if way == "up" else _DOWN
    elif noun.lower() in _MEASURES and noun.lower().endswith("s"):  # a count: "a decent number of pieces", not "a decent pieces"
        found = _SUBJECTIVE_COUNT
    else:
        found = _SUBJECTIVE
    out = []
    for p in found:
        phrase = p.format(noun=noun)
        if not grammar().reads_as_vague(phrase) or re.search(r"\d", phrase):
            continue
        if grounder is not None and slot and any(m.kind == "value" and slot in m.slots for m in grounder.ground(phrase).mentions):
            continue  # the words are a legal value's own ("large")
        out.append(phrase)
    return out


def plain_forms(d: SlotDomain, value: LegalValue) -> list[str]:
    """The forms of ``value`` no other legal value of its requirement shares: said alone, they
    name it and nothing else."""
    taken: dict[tuple[str, ...], set[str]] = {}
    for v in d.values:
        for f in v.forms:
            taken.setdefault(words(f), set()).add(v.key)
    return [f for f in value.forms if taken.get(words(f)) == {value.key}]


def _is_count(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def ambiguous_words(grounder: Grounder, d: SlotDomain, others: set[str]) -> list[tuple[str, str]]:
    """(word, other value key): forms of the true value that one or two other legal values of the
    requirement share, each pair for an other value in ``others`` (its reading executes to
    another answer): the host's own data make such a word fit two or three values. Each is
    checked by grounding it: the requirement must read as ambiguous between exactly those
    values, by the word's senses (not by structure)."""
    truth = d.true_value
    out: list[tuple[str, str]] = []
    seen: set[tuple[str, ...]] = set()
    for f in truth.forms:
        w = words(f)
        if not w or w in seen or "_" in f or all(x.isdigit() for x in w):
            continue
        seen.add(w)
        shared = [v for v in d.values if any(words(g) == w for g in v.forms)]
        sharing = {v.key for v in shared}
        if not 2 <= len(sharing) <= 3 or truth.key not in sharing or all(_is_count(v.value) for v in shared):
            continue  # counts that share a word share it by leaving the number out: an omission, not two senses
        st = state_of(grounder.ground(f), d)
        if st.state != "ambiguous" or set(st.values) != sharing or st.structural:
            continue
        for other in sorted(sharing - {truth.key}):  # a word three values share: each other one a planned sense
            if other in others:
                out.append((f, other))
    return out


#: how a companion is tried for a syntactic ambiguity: the minimal sentence a writer makes of it
#: ({t}: the target's value, {c}: the companion); the target must read as structurally
#: ambiguous in it and the companion's own requirement as stated
ATTACHMENTS = {
    "negation": "I'll have {c} and {t}.",
    "part": "I'd like one with {a} {t} {c}.",
    "old_new": "Basically, please take back {c} and send the new {of} {t}.",
}
_IN_NAMES = {"color", "colour", "size", "material", "finish", "shade", "pattern"}


#: what a colour or a material can describe: a part of a product ("a white mesh back")
PART_NOUNS = {"back", "backrest", "neck", "neckline", "pocket", "pockets", "frame", "strap", "dial", "switches", "shelves",
              "shelf", "legs", "seat", "armrest", "armrests", "footrest", "hood", "sleeve", "sleeves", "collar", "lid",
              "handle", "cover", "case", "buttons", "keys", "lights", "slats", "edges", "cushion", "base", "drawer",
              "drawers", "doors", "zipper", "trim", "sole", "soles", "laces", "band", "bezel", "cord", "cable", "mesh",
              "hooks", "mirror", "headboard", "headrest", "leg", "shades", "microphone", "waist", "cuffs", "lining", "pad",
              "pads", "wheels", "tray", "canopy", "bristles", "tips", "panel", "panels", "screen", "shade", "rim"}
#: sizes said as adjectives, which can describe a part as well as the whole ("a large front pocket")
_WORD_SIZES = {"small", "medium", "large", "x-large", "xx-large", "extra large", "extra small", "oversized"}
_MODIFIERS = {"color", "colour", "material", "finish", "pattern", "shade", "strap material", "dial color"}


def said_form(forms: list[str], noun: str = "") -> str:
    """The form a writer says a value by when it places it as a modifier: its first usable one,
    or the first naming the requirement when the value alone says nothing ("none", "yes")."""
    usable = [f for f in forms if "_" not in f and "," not in f] or forms
    if usable[0].lower() in ("none", "yes", "no") and noun:
        return next((f for f in usable if noun.lower().split()[-1] in f.lower()), usable[0])
    return usable[0]


_HEAD_NOUNS = {"power source": "power", "switch type": "switches", "lens type": "lenses", "filter type": "filter",
               "battery type": "batteries", "scent family": "scent", "difficulty level": "difficulty"}


def _new_item(noun: str, said: str) -> str:
    """A value said of a new item ("in size 8", "with no backlight", "that's not waterproof")."""
    low = said.lower()
    if noun.lower() in _IN_NAMES or low.startswith("size"):
        return f"in {said}"
    if low.startswith("no "):
        return f"with {said}"
    if low.startswith(("not ", "non ", "without ")):
        return f"that's {said}" if not low.startswith("without ") else said
    if " " not in said:  # "high" -> "with high brightness", "battery" -> "with battery power"
        head = _HEAD_NOUNS.get(noun.lower(), noun.lower())
        return f"with {said} {head}" if head and head not in low else f"that's {said}"
    return f"with {said}"


def _bare(said: str) -> str:
    """The value said without its negator ("checked bags" of "no checked bags")."""
    negator = grammar().negator(said)
    return said[len(negator):].strip() if negator else said


def companions(grounder: Grounder, slot: str, said: str, role: Role,
               siblings: list[tuple[str, str, Role]]) -> list[tuple[str, str]]:
    """(companion, modifier): what the target's value can attach to besides its own requirement,
    and the words the value is said by there, each checked by grounding its minimal sentence:
    another requirement said with a negator whose reach may cover the target ("no checked bags
    and travel insurance"), another requirement's value naming a part the value may describe
    ("a white mesh back"), or the item the customer has now ("the old hiking boots").
    ``siblings``: (slot, said value, role) of the other requirements."""
    d = grounder.domains[slot]
    out: list[tuple[str, str]] = []

    def ok(text: str, other: str | None) -> bool:
        g = grounder.ground(text)
        st = state_of(g, d)
        if st.state != "ambiguous" or not st.structural or d.truth_key not in st.values:
            return False
        return other is None or state_of(g, grounder.domains[other]).state == "true"

    bare = _bare(said)
    describes = role.noun.lower() in _MODIFIERS or role.noun.lower() == "size" and bare.lower() in _WORD_SIZES
    for other, value, r in siblings:
        if r.act != role.act or (role.part >= 0 and r.part != role.part):
            continue
        if grammar().negator(value) and ok(ATTACHMENTS["negation"].format(c=value, t=bare), other):
            out.append((value, bare))
        elif (role.kind == "option" and describes
              and r.kind in ("option", "feature")
              and value.lower().split()[-1:] and value.lower().split()[-1] in PART_NOUNS and not grammar().negator(said)):
            plural = value.lower().endswith("s") and not value.lower().endswith("ss")
            a = "" if plural else "an" if said[:1].lower() in "aeio" else "a"
            if ok(" ".join(ATTACHMENTS["part"].format(a=a, t=said, c=value).split()), other):
                out.append((value, said))
    if role.kind == "option" and role.of:
        old, new = f"the old {role.of}", _new_item(role.noun, said)
        if ok(ATTACHMENTS["old_new"].format(c=old, of=role.of, t=new), None):
            out.append((old, new))
    return out
