"""Value domains: what an adapter tells the grounder about each requirement of an intent.

For every requirement slot: its legal values in the host's data (the true value first, then
every alternative the host allows), each with the surface forms customers use for it; the words
that name the requirement ("switch type", "switches") and the words that anchor it to its object
("keyboard", "#W2378156"), so a mention found in a text can be attributed to one slot; and, for
ordered requirements, each value's rank (sizes, prices, dates, counts).

Besides the slots, an intent's domains name the operations a customer may ask for (the true
request kinds and their sibling operations, for the wrong-instrument class) and the extra
details a customer may volunteer (for the added-detail class), each with surface forms.
Everything here is data: the matching is the rule grammar's (:mod:`miscue.grammar`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from miscue.canonical import canonical_json


@dataclass(frozen=True)
class Member:
    """One part of a list value (an item of an order, a flight segment, a passenger): its key and
    how customers say it. ``strong`` forms identify it alone (a flight number); weak forms only
    with the others (a date several segments share)."""

    key: str
    forms: tuple[str, ...]
    weak: tuple[str, ...] = ()
    recognised: tuple[str, ...] = ()  # as for a :class:`LegalValue`: heard by readers, never offered to writers

    @property
    def heard(self) -> tuple[str, ...]:
        """Every strong form a text may use for the part: the offered ones, then the recognised ones."""
        return self.forms + self.recognised


@dataclass(frozen=True)
class LegalValue:
    """One legal value of a requirement and the ways customers say it (``forms[0]``: the
    canonical spoken form). A list value (items, flights, passengers) is said part by part: its
    ``members`` are keys of its slot's :class:`Member` parts."""

    value: Any
    forms: tuple[str, ...]
    available: bool = True
    rank: float | None = None  # position on the slot's order, for ordered slots
    members: frozenset[str] = frozenset()
    # forms a reader recognises but a writer is not offered: ways customers point at the value
    # through what it holds ("the portable charger order"), which a brief need not teach
    recognised: tuple[str, ...] = ()

    @cached_property
    def key(self) -> str:
        """The value's canonical encoding (computed once: grounding asks for it per form)."""
        return canonical_json(self.value)

    @property
    def heard(self) -> tuple[str, ...]:
        """Every form a text may use for the value: the offered ones, then the recognised ones."""
        return self.forms + self.recognised if self.recognised else self.forms

    @property
    def spoken(self) -> str:
        return self.forms[0] if self.forms else str(self.value)


@dataclass(frozen=True)
class SlotDomain:
    """One requirement of an intent as a text may express it."""

    slot: str
    truth: Any
    values: tuple[LegalValue, ...]  # the true value first
    names: tuple[str, ...] = ()  # words naming the requirement ("backlight", "lighting")
    anchors: tuple[str, ...] = ()  # words naming what it belongs to ("keyboard", "order #W2378156")
    ordered: bool = False
    # the value is a free text the host matches fuzzily (WebShop options and attributes): a
    # phrase close to a legal value is itself a legal reading
    open_text: bool = False
    parts: tuple[Member, ...] = ()  # the parts of list values (their LegalValue.members)
    # a customer may also name the value they have now ("instead of the black one"): an attribute
    # of an item, a cabin, an address; never an identifier (orders, cards, reservations)
    has_current: bool = False
    # the value is an identifier (an order, a reservation, a card): it names its own object, so a
    # mention belongs to the requirement whose true value it is when several could take it
    identifier: bool = False
    # an identifier of an instrument, not of the object operated on (a payment method): it
    # attaches to the operation it is said with, by position, like a modifier
    instrument: bool = False

    @property
    def truth_key(self) -> str:
        return canonical_json(self.truth)

    def value(self, key: str) -> LegalValue | None:
        return self._by_key.get(key)

    @cached_property
    def _by_key(self) -> dict[str, LegalValue]:
        by_key: dict[str, LegalValue] = {}
        for v in self.values:
            by_key.setdefault(v.key, v)  # the first of equal values, as a scan would find
        return by_key

    @property
    def true_value(self) -> LegalValue:
        return self.values[0]


@dataclass(frozen=True)
class Detail:
    """A thing a customer may say that is not a requirement: an operation (``kind`` "operation")
    or an extra detail (``kind`` "extra"). ``ref`` is the host's handle for its executable
    reading (a request label, an index into the adapter's extras or mismatches)."""

    kind: str
    ref: str
    forms: tuple[str, ...]
    true: bool = False  # an operation the customer truly asks for
    # words naming the object it is about (a reservation's id): a sentence naming another
    # detail's object is not about this one ("on LU15PA I have 4 bags" adds nothing to MSJ4OA)
    anchors: tuple[str, ...] = ()


@dataclass(frozen=True)
class Domains:
    """Every requirement of one intent, plus its operations and extra details."""

    slots: dict[str, SlotDomain]
    details: tuple[Detail, ...] = field(default=())
    # operation label -> the value key of the object it acts on when no requirement names it
    # (the one pending order a "change the laptop I just ordered" can mean): a text naming it
    # names that operation's object, not another requirement's value
    held: dict[str, str] = field(default_factory=dict)

    def __getitem__(self, slot: str) -> SlotDomain:
        return self.slots[slot]

    def __contains__(self, slot: object) -> bool:
        return slot in self.slots

    def operations(self) -> list[Detail]:
        return [d for d in self.details if d.kind == "operation"]

    def extras(self) -> list[Detail]:
        return [d for d in self.details if d.kind == "extra"]
