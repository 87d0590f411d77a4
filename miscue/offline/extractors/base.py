"""What the two offline extractors share: the reading form answered on top of their own evidence.

An extractor reads an :class:`~miscue.briefs.ExtractionInput` into its own view, finds what the
text says by its own algorithm (the evidence hooks: each requirement's grounded state, a premise,
the operation asked, an added detail, an off-topic passage, whether it asks), and answers the
reading form through :meth:`Extractor.read`, which knows the reading's fields and nothing about
how the evidence is found.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Generic, TypeVar

from miscue.briefs import ExtractionInput
from miscue.language import Domains
from miscue.language.states import SlotReading, TextReading
from miscue.reading import NO_VALUE, Extra, FormRequirement, Reading, ReadingForm, RequirementReading, normalise

View = TypeVar("View")


@dataclass(frozen=True)
class Premise:
    """A premise the text doubts a requirement in: the requirement, and the clause that says it."""

    requirement: str
    clause: str | None


_BREAK = re.compile(r"[,;.!?()]|\s[-–—]\s")


def _clause_around(text: str, start: int, end: int) -> str:
    """The clause a span stands in (between punctuation breaks), stripped of a leading "and"."""
    left = max((m.end() for m in _BREAK.finditer(text, 0, start)), default=0)
    right = next((m.start() for m in _BREAK.finditer(text, end)), len(text))
    return re.sub(r"^\s*(?:and|or|but)\s+", "", text[left:right]).strip()


def pointing_units(units: list[tuple[int, int]], reading: TextReading) -> list[bool]:
    """Per unit (a sentence, a clause), whether it speaks of a requirement without naming its value:
    a pointer the grounder attributes to one ("to my usual address"), or the vague word a
    requirement is left to ("a modest certificate"; not "I spend a lot of time on trains" when the
    price is said: those words are not how the text speaks of it)."""
    marked = {s for s, st in reading.slots.items() if st.state == "marked"}
    spots = [m.start for m in reading.grounding.mentions
             if m.slots and (m.kind == "referring" or (m.kind == "vague" and set(m.slots) & marked))]
    return [any(a <= p < b for p in spots) for a, b in units]


def naming_units(units: list[tuple[int, int]], reading: TextReading, domains: Domains, apart: int = 1) -> list[bool]:
    """Which units of a text (sentences, clauses) name something of the request: a value, or a
    part of the true value, that no other unit names, or two things at once. A word said in
    passing in chatter ("I've started labeling my bottles", "a smoky eye") of something the
    request names elsewhere (in units at least ``apart`` away from every unit of this stretch:
    one thing said over a few clauses in a row -- "Mei's last name is wrong: it should read Mei
    Garcia, not Mei Lee, born 1989-12-13" -- is said, not passed) does not make the chatter part
    of the request."""
    found: list[set[tuple[str, str | None]]] = []  # (slot, None): its value as a whole; (slot, part): one part
    for a, b in units:
        keys: set[tuple[str, str | None]] = set()
        for m in reading.grounding.mentions:
            if not a <= m.start < b:
                continue
            if m.kind in ("value", "current"):
                keys |= {(s, None) for s in m.slots}
            elif m.kind == "member":
                keys |= {(s, k) for s in m.slots for k in m.values if k in domains[s].true_value.members}
        found.append(keys)

    def stretches(key: tuple[str, str | None]) -> list[list[int]]:
        """The units naming ``key`` (a part is named by its part or its whole value), grouped into
        stretches whose neighbours are less than ``apart`` units apart."""
        out: list[list[int]] = []
        for j, other in enumerate(found):
            if key in other or (key[0], None) in other:
                if out and j - out[-1][-1] < apart:
                    out[-1].append(j)
                else:
                    out.append([j])
        return out

    named = [len(keys) >= 2 or any(len(stretches(k)) == 1 for k in keys) for keys in found]
    # a thing said more than once and by no naming unit is named where it is last asked for ("The
    # bicycle in order W3916020 arrived damaged. Please cancel the bicycle ...")
    asks = [any(a <= r < b for r, _ in reading.grounding.requests) for a, b in units]
    for key in {k for keys in found for k in keys}:
        if not any(n and (key in keys or (key[0], None) in keys) for n, keys in zip(named, found)):
            last = max((j for j, keys in enumerate(found) if key in keys and asks[j]), default=None)
            if last is not None:
                named[last] = True
    return named


class Extractor(ABC, Generic[View]):
    """One offline extractor: ``read(inp, form)`` answers the reading form from the evidence hooks."""

    name: str

    @abstractmethod
    def view(self, inp: ExtractionInput) -> View:
        """The extractor's reading of the input, which every hook below takes."""

    @abstractmethod
    def reading(self, v: View) -> tuple[TextReading, Domains]:
        """Each requirement's state in the text as this extractor grounded it, with the domains."""

    @abstractmethod
    def request_stated(self, v: View) -> bool:
        """Whether the text states a request at all."""

    @abstractmethod
    def noise(self, v: View) -> str | None:
        """The off-topic passage, quoted, when there is one long enough."""

    @abstractmethod
    def presupposed(self, v: View) -> Premise | None:
        """The requirement a false premise doubts, and its clause, when the text has one."""

    @abstractmethod
    def operation(self, v: View) -> str | None:
        """The operation asked for instead of the request, quoted."""

    @abstractmethod
    def extra(self, v: View) -> str | None:
        """An added detail the requirements do not account for, quoted."""

    def read(self, inp: ExtractionInput, form: ReadingForm) -> Reading:
        """The reading form answered from this extractor's own evidence (DESIGN section 6a: the
        offline readers return the same reading object as a model): each requirement's grounded
        state as a status, the value and candidates it names among the form's legal values, the
        words it was said with; the operation named instead of the request (the form's operation
        its words share most with), an added detail, an off-topic passage, whether it asks."""
        v = self.view(inp)
        text_reading, domains = self.reading(v)
        premise = self.presupposed(v)
        requirements = {}
        for req in form.requirements:
            st = text_reading.slots.get(req.slot)
            spoken = _spoken(domains, req.slot, st, req.values)
            if premise is not None and premise.requirement == req.slot:
                fallback = next((s for s in spoken if s != req.truth), NO_VALUE)
                requirements[req.slot] = RequirementReading(status="doubted", value=fallback, quote=premise.clause or "")
            else:
                requirements[req.slot] = _requirement(st, req.truth, spoken, domains, req.slot, text_reading.grounding.text)
            if requirements[req.slot].status == "not_said" and (named := _named_by_id(req, inp.text)) is not None:
                value, said = named  # words said nothing, a host id in the text names the value (DESIGN 6a)
                requirements[req.slot] = RequirementReading(status="stated" if value == req.truth else "stated_other",
                                                            value=value, quote=said)
        said_op = self.operation(v)
        others = sorted((o for o in form.operations if o != form.operation), key=lambda o: -_shared(o, said_op or ""))
        operation = others[0] if said_op and others and _shared(others[0], said_op) > 0 else form.operation
        detail, off_topic = self.extra(v), _before_quotes(self.noise(v) or "", [r.quote for r in requirements.values()])
        # a detail is an extra only outside what the reading already accounts for: the operation
        # asked for, the off-topic passage, the words said for a requirement
        accounted = [said_op or "", off_topic, *(r.quote for r in requirements.values())]
        extras = [Extra(quote=detail, condition=detail)] \
            if detail and not any(detail.lower() in a.lower() or _shared(detail, a) > 0.5 for a in accounted if a) else []
        return Reading(requirements=requirements, operation=operation, extras=extras, off_topic=off_topic,
                       asks=self.request_stated(v))


def _spoken(domains: Domains, slot: str, st: SlotReading | None, legal: tuple[str, ...]) -> list[str]:
    """The form's values (spoken) among the value keys the text gives for ``slot``."""
    if st is None or slot not in domains.slots:
        return []
    d = domains[slot]
    out = []
    for key in st.values:
        value = d.value(key)
        if value is not None and value.spoken in legal and value.spoken not in out:
            out.append(value.spoken)
    return out


def _requirement(st: SlotReading | None, truth: str, spoken: list[str], domains: Domains, slot: str,
                 text: str) -> RequirementReading:
    """One requirement's grounded state as a reading's status, value, candidates and quote (for an
    ambiguity of structure, the clause around the words: how far they reach is the ambiguity)."""
    quote = st.mentions[0].text if st is not None and st.mentions else ""
    if st is not None and st.structural and st.mentions:
        quote = _clause_around(text, st.mentions[0].start, st.mentions[0].end)
    if st is None or st.state in ("open", "partial"):
        return RequirementReading(status="not_said")
    if st.state == "true":
        return RequirementReading(status="stated", value=truth, quote=quote)
    if st.state in ("other", "unknown"):
        other = next((s for s in spoken if s != truth), NO_VALUE)
        return RequirementReading(status="stated_other", value=other, quote=quote)
    if st.state == "ambiguous":  # an attachment read the other way leaves the requirement unsaid
        return RequirementReading(status="ambiguous", candidates=spoken + [NO_VALUE] * bool(st.structural),
                                  ambiguity="structure" if st.structural else "word", quote=quote)
    if st.state == "marked":
        ordered = slot in domains.slots and domains[slot].ordered
        return RequirementReading(status="vague" if ordered else "pointer", candidates=spoken, quote=quote)
    if st.state == "doubted":
        return RequirementReading(status="doubted", value=next((s for s in spoken if s != truth), NO_VALUE), quote=quote)
    return RequirementReading(status="not_said")


def _shared(a: str, b: str) -> float:
    """Share of the shorter phrase's words the other one has (0 when either is empty)."""
    wa, wb = set(a.lower().split()), set(b.lower().split())
    return len(wa & wb) / min(len(wa), len(wb)) if wa and wb else 0.0


def _before_quotes(passage: str, quotes: list[str]) -> str:
    """The off-topic passage up to the first words this reading says a requirement with: a reader
    never claims the same words as off topic and as saying a requirement."""
    folded = passage.casefold()
    cut = min((i for q in quotes if q and (i := folded.find(q.casefold())) >= 0), default=len(passage))
    return passage[:cut].rstrip()


def _named_by_id(req: FormRequirement, text: str) -> tuple[str, str] | None:
    """The one legal value the host ids standing in ``text`` name for ``req``, with the id as the
    text has it (an id is found by its token with digits: "item 7624783998", "credit_card_7901829");
    None when no id stands there or they name different values."""
    tokens = set(normalise(text).split())
    named: dict[str, str] = {}
    for said, value in req.ids:
        core = [t for t in normalise(said).split() if any(ch.isdigit() for ch in t)]
        if value in req.values and core and all(t in tokens for t in core):
            named.setdefault(value, said)
    return next(iter(named.items())) if len(named) == 1 else None
