"""What an extraction form tells an extractor about each requirement, as value domains.

The form lists every true requirement with the ways customers say its value, its parts (for
lists: items, flights, passengers) and the other legal values the host allows (host data, the
same any model is shown). This turns them into :class:`~miscue.language.Domains` so the
grounder can read a text against them; the requirement's own phrase gives its names and the
object it belongs to ("the size of the new hiking boots": size, hiking boots).
"""

from __future__ import annotations

import re
from functools import lru_cache

from miscue.briefs import ExtractionInput, Requirement
from miscue.language import Domains, LegalValue, Member, SlotDomain, words

_OF_NEW = re.compile(r"\bof the (?:new |old )?(.+?)(?: for | to |$)")
_FOR = re.compile(r"\bfor (?:order|reservation) (#?\w+)")
_ID_PHRASE = re.compile(r"^the (?:order|reservation|payment method|refund method|card)\b")  # "the order to cancel ..."
#: requirements a customer may also name the present value of ("instead of the black one")
_CURRENT = re.compile(r"\bof the new\b|\bnew address\b|\bcabin\b|\bchecked bags\b")
_INSTRUMENT_WORDS = ("payment", "refund method", "card")  # what pays, not what is operated on
_NAME_STOP = {"the", "a", "an", "of", "new", "old", "for", "to", "number", "method", "user", "will", "most", "must",
              "have", "that", "product", "feature", "pay"}


def _say(r: Requirement) -> str:
    return f"say:{r.slot}:{r.spoken}"


#: everyday words for what a requirement is about (English, not a host's)
_NAME_SYNONYMS = {
    "payment": ("pay", "charge", "card", "bill", "put it on", "difference", "paid"), "refund": ("refund", "money back", "card"),
    "bags": ("bag", "luggage", "suitcase", "baggage"), "cabin": ("class", "seat", "fare"),
    "price": ("under", "budget", "cost", "priced", "pricey", "cheap", "expensive", "spend", "afford", "dollars"),
    "size": ("sized", "big", "small", "large", "bigger", "smaller", "little", "huge", "tiny"),
    "reason": ("because", "since", "as"), "address": ("ship", "deliver", "live", "moved"), "passengers": ("name", "traveller"),
    "reservation": ("booking", "trip"), "certificate": ("voucher", "compensation"),
    "flights": ("flight", "fly", "itinerary"), "insurance": ("insured", "cover"),
}


def _names(r: Requirement) -> tuple[str, ...]:
    """The words naming what the requirement is (its phrase's content words, its product aside)."""
    product = set(w for a in _anchors(r) for w in words(a))
    own = [w for w in words(r.phrase) if w not in _NAME_STOP and w not in product and not any(c.isdigit() for c in w)]
    extra = [x for w in own for x in _NAME_SYNONYMS.get(w, ())]
    return tuple(dict.fromkeys(own + extra))


def _anchors(r: Requirement) -> tuple[str, ...]:
    low = r.phrase.lower()
    out = []
    if (m := _OF_NEW.search(low)) is not None:
        product = m.group(1).strip()
        out += [product, product.split()[-1]]
    if (m := _FOR.search(low)) is not None:
        out.append(m.group(1))
    return tuple(dict.fromkeys(out))


def requirement_domain(r: Requirement) -> SlotDomain:
    truth = LegalValue(r.spoken, (r.spoken, *r.says), members=frozenset(f"part:{i}" for i in range(len(r.parts))))
    parts = tuple(Member(f"part:{i}", (p.say, *p.also), tuple(p.partly)) for i, p in enumerate(r.parts))
    if r.parts:  # a list's options are its other parts (another card, another flight)
        others = tuple(LegalValue(f"option:{o.say}", (o.say,), members=frozenset({f"alt:{i}"})) for i, o in enumerate(r.options))
        parts += tuple(Member(f"alt:{i}", (o.say, *o.also), tuple(o.partly)) for i, o in enumerate(r.options))
    else:
        others = tuple(LegalValue(f"option:{o.say}", (o.say, *o.also)) for o in r.options)
    low = r.phrase.lower()
    identifier = _ID_PHRASE.match(low) is not None
    return SlotDomain(r.slot, r.spoken, (truth, *others), _names(r), _anchors(r), ordered=r.ordered, parts=parts,
                      has_current=_CURRENT.search(low) is not None, identifier=identifier,
                      instrument=identifier and any(w in low for w in _INSTRUMENT_WORDS))


@lru_cache(maxsize=512)
def _cached(key: str) -> Domains:
    inp = ExtractionInput.model_validate_json(key)
    return Domains({r.slot: requirement_domain(r) for r in inp.requirements})


def domains_of(inp: ExtractionInput) -> Domains:
    """The domains of every requirement of an extraction form (cached per requirement list)."""
    return _cached(ExtractionInput(context="", request="", requirements=inp.requirements, text="").model_dump_json())
