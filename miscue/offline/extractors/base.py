"""What the two offline extractors share: the forms built on top of their own evidence.

An extractor reads an :class:`~miscue.briefs.ExtractionInput` into its own view, finds flaws in
it by its own algorithm (:meth:`Extractor.blind`, :meth:`Extractor.findings` and the evidence
hooks), and answers the targeted and composite forms through the plumbing here, which knows
which fields each flaw's targeted form carries and nothing about how a flaw is found.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from typing import Generic, TypeVar

from miscue.briefs import BlindExtraction, ExtractionInput, TargetedExtraction
from miscue.language import Domains
from miscue.language.states import SlotReading, TextReading
from miscue.reading import NO_VALUE, Extra, FormRequirement, Reading, ReadingForm, RequirementReading, normalise

View = TypeVar("View")

#: The flaws that sit on one requirement and are judged by the words stated for it.
REQUIREMENT_FLAWS = ("substituted", "withheld", "marked", "ambiguous")
#: the order in which the blind form reports one flaw when it sees several
PRIORITY = ("noise", "oblique", "presupposed", "mismatch", "substituted", "ambiguous", "marked", "extras", "withheld")


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
    """One offline extractor. ``blind(inp)`` answers the blind form (the first flaw found),
    ``targeted(inp, flaw)`` the targeted form for one flaw class; for composite texts
    ``blind_multi(inp)`` reports every flaw and ``targeted_multi(inp, flaw)`` the targeted form
    among several."""

    name: str

    @abstractmethod
    def view(self, inp: ExtractionInput) -> View:
        """The extractor's reading of the input, which every hook below takes."""

    @abstractmethod
    def reading(self, v: View) -> tuple[TextReading, Domains]:
        """Each requirement's state in the text as this extractor grounded it, with the domains."""

    def blind(self, inp: ExtractionInput) -> BlindExtraction:
        """The blind form: the first flaw this extractor finds (or none)."""
        found = self.findings(inp)
        if not found:
            return BlindExtraction(flaw="none")
        return BlindExtraction(flaw=found[0].flaw, requirement=found[0].requirement)

    def findings(self, inp: ExtractionInput) -> list[TargetedExtraction]:
        """Every flaw this extractor finds, each with the fields its targeted form asks for, in
        the order the blind form reports them (:data:`PRIORITY`)."""
        v = self.view(inp)
        if not (inp.text or "").strip():
            return []
        out: list[TargetedExtraction] = []
        if not self.request_stated(v):
            out.append(TargetedExtraction(flaw="oblique", request_stated=False))
        if (span := self.noise(v)) is not None:
            out.append(TargetedExtraction(flaw="noise", span=span))
        if (prem := self.presupposed(v)) is not None:
            out.append(prem)
        if (op := self.operation(v)) is not None:
            out.append(TargetedExtraction(flaw="mismatch", operation=op))
        out += [f for f in self.requirement_flaws(v) if not (prem and f.requirement == prem.requirement)]
        # "sort by price and grab the first one": a detail inside the operation asked for is part of it
        if (detail := self.extra(v)) is not None and not (op and detail.lower() in op.lower()):
            out.append(TargetedExtraction(flaw="extras", detail=detail))
        return sorted(out, key=lambda f: PRIORITY.index(f.flaw))

    @abstractmethod
    def request_stated(self, v: View) -> bool:
        """Whether the text states a request at all."""

    @abstractmethod
    def noise(self, v: View) -> str | None:
        """The off-topic passage, quoted, when there is one long enough."""

    @abstractmethod
    def presupposed(self, v: View) -> TargetedExtraction | None:
        """The targeted form of a false premise, when the text has one."""

    @abstractmethod
    def operation(self, v: View) -> str | None:
        """The operation asked for instead of the request, quoted."""

    @abstractmethod
    def extra(self, v: View) -> str | None:
        """An added detail the requirements do not account for, quoted."""

    def requirement_flaw(self, v: View, flaw: str) -> TargetedExtraction | None:
        """The targeted form of ``flaw`` (one of :data:`REQUIREMENT_FLAWS`) on a requirement."""
        return next((f for f in self.requirement_flaws(v) if f.flaw == flaw), None)

    def requirement_flaws(self, v: View) -> list[TargetedExtraction]:
        """The diff of the text's states against the truth: another legal value (or none that
        exists) is substituted, words that fit several values or attachments are ambiguous, a
        pointer or a vague word is marked, nothing (or a list said in part) is withheld."""
        reading, domains = self.reading(v)
        out = []
        for slot, st in reading.slots.items():
            said = st.mentions[0].text if st.mentions else None
            if st.state in ("other", "unknown"):
                out.append(self.on_requirement("substituted", slot, said))
            elif st.state == "ambiguous":
                if st.structural and st.mentions:  # the construction, not the value alone
                    said = _clause_around(reading.grounding.text, st.mentions[0].start, st.mentions[0].end)
                d = domains[slot]
                others = [] if st.structural else [d.value(k) for k in st.values if k != d.truth_key and d.value(k)]
                second = others[0].spoken if others else None  # type: ignore[union-attr]
                out.append(TargetedExtraction(flaw="ambiguous", requirement=slot, surface=said, second_reading=second))
            elif st.state == "marked":
                out.append(self.on_requirement("marked", slot, said))
            elif st.state in ("open", "partial"):
                out.append(self.on_requirement("withheld", slot, None))
        return out

    @staticmethod
    def on_requirement(kind: str, slot: str, stated: str | None) -> TargetedExtraction:
        """The targeted form of a requirement flaw ``kind`` on ``slot`` with the words ``stated``
        for it: a substituted value, a withheld requirement, or a marked or ambiguous surface."""
        if kind == "substituted":
            return TargetedExtraction(flaw="substituted", requirement=slot, stated_value=stated)
        if kind == "withheld":
            return TargetedExtraction(flaw="withheld", requirement=slot)
        if kind == "marked":
            return TargetedExtraction(flaw="marked", requirement=slot, surface=stated)
        return TargetedExtraction(flaw="ambiguous", requirement=slot, surface=stated, second_reading=None)

    def targeted(self, inp: ExtractionInput, flaw: str) -> TargetedExtraction:
        """The targeted form for ``flaw``: its fields, or ``none`` when the flaw is not found."""
        v = self.view(inp)
        none = TargetedExtraction(flaw="none")
        if flaw == "oblique":
            return TargetedExtraction(flaw="oblique", request_stated=self.request_stated(v))
        if flaw == "noise":
            span = self.noise(v)
            return TargetedExtraction(flaw="noise", span=span) if span else none
        if flaw == "presupposed":
            found = self.presupposed(v)
            return found if found is not None else none
        if flaw == "mismatch":
            op = self.operation(v)
            return TargetedExtraction(flaw="mismatch", operation=op) if op else none
        if flaw == "extras":
            detail = self.extra(v)
            return TargetedExtraction(flaw="extras", detail=detail) if detail else none
        if flaw in REQUIREMENT_FLAWS:
            found = self.requirement_flaw(v, flaw)
            return found if found is not None else none
        return none

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

    def blind_multi(self, inp: ExtractionInput) -> list[BlindExtraction]:
        """The multi-flaw blind form: every flaw found, on its requirement."""
        return [BlindExtraction(flaw=f.flaw, requirement=f.requirement) for f in self.findings(inp)]

    def targeted_multi(self, inp: ExtractionInput, flaw: str) -> TargetedExtraction:
        """The targeted form for ``flaw`` on a text that may carry several flaws."""
        for found in self.findings(inp):
            if found.flaw == flaw:
                return found
        if flaw == "oblique":
            return TargetedExtraction(flaw="oblique", request_stated=True)
        return TargetedExtraction(flaw="none")


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
        return RequirementReading(status="ambiguous", candidates=spoken + [NO_VALUE] * bool(st.structural), quote=quote)
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
