"""Each requirement's state in a grounded text (DESIGN section 6a), host-agnostic:

- ``true``: the text gives the true value;
- ``other``: it gives one legal value other than the truth (one stated value);
- ``ambiguous``: its words fit several legal values, or could attach to several requirements;
- ``marked``: a pointer ("the usual one") or a subjective description ("a bigger one") stands
  where the value would;
- ``doubted``: the true value is named inside a premise taken for granted ("since X is sold out");
- ``partial``: a list value (items, flights, passengers) whose parts the text names only in part;
- ``unknown``: it says a value the requirement cannot take ("size 13" where sizes stop at 12);
- ``open``: the text gives nothing for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from miscue.language.domain import Domains, SlotDomain
from miscue.language.mentions import Grounding, Mention
from miscue.language.text import words

_APPOSITION = re.compile(r"\s*(?:[,:(]|\s-)\s*")

STATES = ("true", "other", "ambiguous", "marked", "doubted", "partial", "unknown", "open")


@dataclass(frozen=True)
class SlotReading:
    slot: str
    state: str
    values: tuple[str, ...] = ()  # value keys the text gives (other / ambiguous / doubted)
    mentions: tuple[Mention, ...] = ()

    @property
    def structural(self) -> bool:
        """Ambiguous by structure (how far a word reaches), not by a word's senses."""
        return self.state == "ambiguous" and any(m.scoped for m in self.mentions)

    def said(self) -> str:
        return " / ".join(m.text for m in self.mentions)


@dataclass
class TextReading:
    """A text's grounding and each requirement's state."""

    grounding: Grounding
    slots: dict[str, SlotReading] = field(default_factory=dict)
    truth_keys: dict[str, str] = field(default_factory=dict)

    def __getitem__(self, slot: str) -> SlotReading:
        return self.slots[slot]


def _list_state(g: Grounding, d: SlotDomain) -> SlotReading:
    """A list value said part by part: the legal value whose every part the text names (parts
    named by a flight number or a name count more than parts named by a shared date)."""
    whole = [m for m in g.touching(d.slot, "value") if not m.in_premise and _own(m, d) == (d.truth_key,)]
    if whole:  # said as a whole ("the same flights"), for it alone or for all alike
        return SlotReading(d.slot, "true", (d.truth_key,), tuple(whole))
    doubted = [m for m in g.touching(d.slot, "member") if m.in_premise and m.values
               and any(k in d.true_value.members for k in m.values)]
    # all of it, with another value settled for ("since the keyboard can't be returned anymore, ... the jacket")
    whole_doubted = [m for m in g.touching(d.slot, "value") if m.in_premise and _own(m, d) == (d.truth_key,)
                     and not _premise_names_another(g, m, d.slot)]
    found = [m for m in g.touching(d.slot, "member") if not m.in_premise]
    if doubted or whole_doubted:  # a part of the true value (or all of it) is named in a premise taken for granted
        others = [v.key for v in d.values[1:] if v.members and v.members <= {k for m in found for k in m.values}]
        if doubted or others:
            return SlotReading(d.slot, "doubted", tuple(others[:1]), tuple(doubted + whole_doubted + found))
    strong = {k for m in found if not m.weak and m.slots == (d.slot,) for k in m.values}
    weak = {k for m in found if m.weak or len(m.slots) > 1 for k in m.values} - strong
    marks = g.of(d.slot, "referring", "vague")
    if marks and not d.true_value.members <= strong:  # "change Mei's last name to the one we talked about"
        return SlotReading(d.slot, "marked", (), tuple(marks))
    if not found:
        return SlotReading(d.slot, "open")
    truth = d.true_value.members
    for m in found:  # "my travel certificate" (of two), the rest named: the truth, or it with the other one
        keys = set(m.values)
        mine, other = keys & truth, keys - truth
        if m.weak and len(keys) > 1 and len(mine) == 1 and other and truth - mine <= strong and not mine & strong:
            swapped = [v.key for v in d.values[1:] for o in other
                       if v.members in ((truth - mine) | {o}, frozenset({o}))]
            if swapped:
                return SlotReading(d.slot, "ambiguous", (d.truth_key, *swapped), (m,))
    full = [v for v in d.values if v.members and v.members <= strong | weak]
    if not full:
        return SlotReading(d.slot, "partial", (), tuple(found))
    score = {v.key: 2 * len(v.members & strong) + len(v.members & weak) - len(strong - v.members) for v in full}
    best = max(score.values())
    winners = [k for k, n in score.items() if n == best]
    if len(winners) > 1:
        return SlotReading(d.slot, "ambiguous", tuple(sorted(winners)), tuple(found))
    return SlotReading(d.slot, "true" if winners[0] == d.truth_key else "other", (winners[0],), tuple(found))


def _premise_names_another(g: Grounding, m: Mention, slot: str) -> bool:
    """Whether the premise ``m`` stands in also names a value of another requirement: then the
    premise doubts that value of the item ("since the keyboard with clicky switches is sold
    out"), not the item itself."""
    span = next(((a, b) for a, b in g.premises if a <= m.start < b), None)
    return span is not None and any(
        span[0] <= o.start < span[1] and o.kind in ("value", "member", "current") and slot not in o.slots
        for o in g.mentions)


def _own(m: Mention, d: SlotDomain) -> tuple[str, ...]:
    """The value keys of a mention that are legal values of ``d`` (a mention several requirements
    share carries every candidate's keys)."""
    return tuple(k for k in m.values if d.value(k) is not None)


def state_of(g: Grounding, d: SlotDomain) -> SlotReading:
    slot, truth_key = d.slot, d.truth_key
    if d.parts:
        return _list_state(g, d)
    values = [m for m in g.of(slot, "value") if not m.in_premise and _own(m, d)]
    # a premise that names the true value ("since the clicky ones are sold out"), or only another one
    # as all there is ("I know the blue ones only come with IPX4")
    doubted = [m for m in g.touching(slot, "value", "current") if m.in_premise and _own(m, d)]
    tied = [m for m in g.touching(slot, "value") if len(m.slots) > 1 and not m.in_premise and _own(m, d)]
    marks = g.of(slot, "referring", "vague") or g.touching(slot, "referring", "vague")
    keys = {v for m in values for v in _own(m, d)}
    single = {_own(m, d)[0] for m in values if len(_own(m, d)) == 1}
    if truth_key in single and all(m.scoped for m in values if _own(m, d) == (truth_key,)):
        # said only where it may describe a part ("with a navy chest pocket")
        return SlotReading(slot, "ambiguous", (truth_key,), tuple(values))
    if truth_key in single:
        return SlotReading(slot, "true", (truth_key,), tuple(values))
    if doubted:
        others = tuple(sorted(single - {truth_key}))
        return SlotReading(slot, "doubted", others, tuple(doubted + values))
    if any(len(_own(m, d)) > 1 for m in values) or len(single) > 1:
        return SlotReading(slot, "ambiguous", tuple(sorted(keys)), tuple(values))
    if single:
        return SlotReading(slot, "other", tuple(sorted(single)), tuple(values))
    if tied:  # words several requirements share ("both to economy"): the true value for all of them is conveyed
        tied_keys = {v for m in tied for v in _own(m, d)}
        return SlotReading(slot, "true" if tied_keys == {truth_key} else "ambiguous", tuple(sorted(tied_keys)), tuple(tied))
    if marks:
        return SlotReading(slot, "marked", (), tuple(marks))
    if unknown := g.of(slot, "unknown"):  # a value it cannot take ("size 13" of sizes up to 12)
        return SlotReading(slot, "unknown", (), tuple(unknown))
    # its true value is said, but the words around attached it to another requirement: a
    # modifier that could attach either way ("the camera and the lamp ..., in black")
    could = [m for m in g.could_be(slot, "value") if slot not in m.slots and truth_key in _own(m, d) and not m.in_premise]
    if could:
        return SlotReading(slot, "ambiguous", (truth_key,), tuple(could))
    return SlotReading(slot, "open")


def states(g: Grounding, domains: Domains) -> TextReading:
    """Every requirement's state in one grounded text. A pointer or a vague word the words
    around attach to nothing stands for the one requirement the text leaves open, if only one is."""
    out = TextReading(g)
    for slot, d in domains.slots.items():
        out.slots[slot] = state_of(g, d)
        out.truth_keys[slot] = d.truth_key
    # a pointer attached to nothing, or to a requirement the text already gives ("cancel FDZ0T5,
    # and the other one I mentioned") -- unless the values it names follow it as an apposition:
    # then it restates them ("on the same flights as my trip, HAT097 and HAT251")
    loose = [m for m in g.mentions if m.kind in ("referring", "vague") and not m.in_premise and (
        (not m.slots and (m.kind == "referring" or m.comparative))
        or (m.kind == "referring" and all(out.slots[s].state in ("true", "other") for s in m.slots)
            and not _restated(m, g, domains)))]
    open_ = [s for s, st in out.slots.items() if st.state == "open"]
    if loose and len(open_) == 1:
        out.slots[open_[0]] = SlotReading(open_[0], "marked", (), tuple(loose))
    return out


def _restated(m: Mention, g: Grounding, domains: Domains) -> bool:
    """The pointer restates a value said next to it: the values of a requirement its words name follow
    it as an apposition, set off by a comma, a colon, a dash or a bracket, not joined by "and"
    ("on the same flights as my trip, HAT097 and HAT251"; "same flight as my May 10 trip
    (HAT271)"); or it opens a bracket right after a value, which it comments on ("ship it to
    380 Maple Drive, ..., CA 92101 (same as my old order)")."""
    said = set(words(m.text))
    named = [s for s, d in domains.slots.items() if said & {w for name in d.names for w in words(name)}]
    if any(n.start >= m.end and _apposed(g.text[m.end:n.start]) for s in named for n in g.touching(s, "value", "member")):
        return True
    return g.commented(m.start) is not None


def _apposed(between: str) -> bool:
    """The words between a pointer and a value set the value off as its apposition (a couple of
    the pointer's own words may come first: "as my May 10 trip (HAT271)")."""
    return _APPOSITION.fullmatch(between) is not None or (
        len(words(between)) <= 2 and between.rstrip().endswith(("(", ":", ",")) and "and" not in words(between))
