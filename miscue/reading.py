"""A reading: what one extractor says a request states, and the code that checks it
(DESIGN section 6, steps 3 and 4: models read, code checks).

An extractor is asked one thing per attempt: a :class:`Reading` of the text against the task's
true requirements -- per requirement a ``status``, the legal ``value`` the words commit to, the
``candidates`` they leave open and the verbatim ``quote`` that says it; the ``operation`` the
words point at, ``extras``, an ``off_topic`` passage and whether the text ``asks`` for anything.
It is never asked for a class label: the class is derived here, by one table, from the reading.

:class:`ReadingForm` is one task's form: its JSON Schema puts each requirement's legal values in
an enum (never a nullable enum -- some providers refuse ``Optional[Enum]``; a requirement whose
words commit to no value has the value :data:`NO_VALUE`, and "not said" is a status), and it
validates a reply against the same enums. :func:`check` then holds every reading to the text:
every quote occurs in it, every value is legal, a requirement read as not said is not said, and
the status agrees with the value. :func:`departures` lists what the reading departs from the
plain request in, and :func:`single_class` derives a single-fault attempt's class (two
departures are two faults, rejected).

Nothing here matches English: quotes are compared after a mechanical normalisation (unicode,
case, punctuation, whitespace), with a fuzzy fallback for long quotes whose threshold is
measured (``perf/quote_threshold.py``) and which never lets a number differ; the surface forms a
value is said by are host data.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from rapidfuzz import fuzz

from miscue.briefs import Requirement
from miscue.language.domain import Domains
from miscue.schema import Verdict
from miscue.taxonomy import ExtractionClass, fault_type, takes_slot

Status = Literal["stated", "stated_other", "not_said", "pointer", "vague", "ambiguous", "doubted"]
STATUSES: tuple[str, ...] = Status.__args__  # type: ignore[attr-defined]
#: what an ambiguous requirement is ambiguous by: a word or description two values share, or the
#: sentence's structure (a modifier that may belong to two things, a word whose reach is open); ''
#: for any other status
Ambiguity = Literal["", "word", "structure"]
#: the value of a requirement whose words commit to no legal value (an enum member, not a null)
NO_VALUE = "(no value)"
#: quotes this long (normalised) or longer may match fuzzily; shorter ones must match exactly
FUZZY_MIN_CHARS = 15
#: rapidfuzz ``partial_ratio`` at or above which a long quote counts as found (measured:
#: ``perf/quote_threshold.py``, results in ``perf/results/quote_threshold.txt``)
FUZZY_THRESHOLD = 90.0

#: the table of DESIGN section 6: a requirement's status -> the extraction class it departs by
CLASS_OF_STATUS: dict[str, ExtractionClass] = {
    "stated_other": ExtractionClass.substituted,
    "doubted": ExtractionClass.presupposed,
    "not_said": ExtractionClass.withheld,
    "pointer": ExtractionClass.marked,
    "vague": ExtractionClass.marked,
    "ambiguous": ExtractionClass.ambiguous,
}


class RequirementReading(BaseModel):
    """One true requirement as the text states it."""

    model_config = ConfigDict(extra="forbid")

    status: Status
    value: str = NO_VALUE
    candidates: list[str] = Field(default_factory=list)
    ambiguity: Ambiguity = ""
    quote: str = ""


class Extra(BaseModel):
    """A detail the text adds that the task does not need: its words, and the condition it adds."""

    model_config = ConfigDict(extra="forbid")

    quote: str
    condition: str


class Reading(BaseModel):
    """What one extractor read in one text (the same object for a model and an offline reader)."""

    model_config = ConfigDict(extra="forbid")

    requirements: dict[str, RequirementReading]
    operation: str
    extras: list[Extra] = Field(default_factory=list)
    off_topic: str = ""
    asks: bool = True


class FormRequirement(BaseModel):
    """One requirement of the task as the form offers it: its legal values (the true one among
    them) and the ways customers say the true value (host data: words, ids)."""

    model_config = ConfigDict(frozen=True)

    slot: str
    phrase: str
    truth: str
    values: tuple[str, ...]
    says: tuple[str, ...] = ()
    # the host's ids that name a value (or a list value's part): (id, the value or part it names),
    # e.g. ("item 8384507844", "low"): a reference the agent can resolve, so it states that value
    ids: tuple[tuple[str, str], ...] = ()
    # the host's value behind each of ``values`` (same order), for executing a reading; empty
    # when the form was made from spoken values only
    legal: tuple[Any, ...] = ()
    # the rest of the true request fixes it: dropping it alone leaves the answer as it is (the
    # only black 4K camera is waterproof), so a reading that finds it not said departs in nothing
    # (host data, by execution; not shown to readers)
    implied: bool = False
    # its values are ordered (a size, a price, a count, a cabin): what a vague word can describe
    # (host data; not shown to readers). None: not known (a form made from spoken values only)
    ordered: bool | None = None

    def legal_value(self, said: str) -> Any:
        """The host value a reading's value names (KeyError: not one of this requirement's)."""
        return dict(zip(self.values, self.legal))[said]


class ReadingError(ValueError):
    """A reply that is not a reading of this form (``read:malformed``, ``read:value_illegal``)."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.verdict = Verdict(stage="extract", code=code, detail=detail[:300])


def general_forms(values: Sequence[Any]) -> set[str]:
    """The forms every legal value has ("checked bags" for any count): general words, which commit
    to none (the form says so of "not said"); listed under no value. (For a requirement of two values
    this also hides a word of two senses: a known flaw, tests/data/dryrun/README.md.)"""
    return set.intersection(*(set(v.heard) for v in values)) if len({v.spoken for v in values}) > 1 else set()


@dataclass(frozen=True)
class ReadingForm:
    """One task's reading form: its requirements with their legal values, and the operations."""

    requirements: tuple[FormRequirement, ...]
    operation: str  # the task's operation
    operations: tuple[str, ...]  # every operation the words could point at, the task's among them
    # the true outcome's details that are not requirements, as (what, its value as said): a detail
    # the text adds that agrees with one is no extra (the card a refund goes to, the order)
    settled: tuple[tuple[str, str], ...] = ()
    # the details the host can check that a text may hold the request to (:class:`~miscue.host.Limit`):
    # (name, its values as said; none: a number); an extra on one is written "<name> <= N" or "<name> = value"
    limits: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # what else the customer may ask the agent to do besides (:attr:`~miscue.host.Extra.act`): an
    # extra that asks one is written as its words
    additions: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for r in self.requirements:
            if r.truth not in r.values or NO_VALUE in r.values:
                raise ValueError(f"{r.slot}: the legal values must hold the truth {r.truth!r} and not {NO_VALUE!r}")
        if self.operation not in self.operations:
            raise ValueError(f"the task's operation {self.operation!r} is not among {self.operations}")

    @classmethod
    def of(cls, requirements: Sequence[Requirement], operation: str, others: Sequence[str] = ()) -> ReadingForm:
        """The form of requirements as the planner gives them to extractors (``options=True``):
        each one's spoken true value, its other legal values, the other ways customers say it."""
        reqs = tuple(FormRequirement(slot=r.slot, phrase=r.phrase, truth=r.spoken,
                                     values=tuple(dict.fromkeys([r.spoken, *(o.say for o in r.options)])),
                                     says=tuple(r.says)) for r in requirements)
        return cls(reqs, operation, tuple(dict.fromkeys([operation, *others])))

    @classmethod
    def of_domains(cls, domains: Domains, phrases: dict[str, str], operation: str,
                   others: Sequence[str] = (), ids: dict[str, dict[str, tuple[str, ...]]] | None = None) -> ReadingForm:
        """The form of an intent's value domains (host data): each requirement's legal values by
        their spoken form (the true one first; a form two values share names the first), the
        host value behind each, every way customers say the true one, and (``ids``: slot -> a
        value's or part's canonical encoding -> ids) the host ids that name each value or part."""
        reqs = []
        for slot, domain in domains.slots.items():
            named = {v.key: v.spoken for v in domain.values} | {p.key: p.forms[0] for p in domain.parts}
            said_by = tuple((i, named[key]) for key, found in sorted((ids or {}).get(slot, {}).items())
                            if key in named for i in found)
            spoken: dict[str, Any] = {}
            for v in domain.values:
                spoken.setdefault(v.spoken, v.value)
            truth = domain.values[0]
            general = general_forms(domain.values)
            reqs.append(FormRequirement(slot=slot, phrase=phrases.get(slot, domain.names[0] if domain.names else slot),
                                        truth=truth.spoken, values=tuple(spoken), legal=tuple(spoken.values()),
                                        says=tuple(f for f in truth.heard if f != truth.spoken and f not in general),
                                        ids=said_by, ordered=domain.ordered))
        return cls(tuple(reqs), operation, tuple(dict.fromkeys([operation, *others])))

    def with_host_facts(self, settled: Sequence[tuple[str, str]], implied: set[str],
                        limits: Sequence[tuple[str, tuple[str, ...]]] = (), additions: Sequence[str] = ()) -> ReadingForm:
        """The form with the true outcome's settled details, the requirements the rest of the
        request implies (what executing the truth says; see :attr:`settled`,
        :attr:`FormRequirement.implied`), the limits the host can check and what else a customer
        may ask done."""
        reqs = tuple(r.model_copy(update={"implied": r.slot in implied}) for r in self.requirements)
        return replace(self, requirements=reqs, settled=tuple((what, value) for what, value in settled),
                       limits=tuple((name, tuple(values)) for name, values in limits),
                       additions=tuple(dict.fromkeys(additions)))

    def requirement(self, slot: str) -> FormRequirement:
        return next(r for r in self.requirements if r.slot == slot)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReadingForm:
        """The form :meth:`as_dict` wrote (what a prompt carries: no host values)."""
        return cls(tuple(FormRequirement.model_validate(r) for r in data["requirements"]), data["operation"],
                   tuple(data["operations"]), tuple((what, value) for what, value in data.get("settled", ())),
                   tuple((name, tuple(values)) for name, values in data.get("limits", ())),
                   tuple(data.get("additions", ())))

    def as_dict(self) -> dict[str, Any]:
        return {"requirements": [r.model_dump(mode="json", exclude={"legal", "implied", "ordered"}) for r in self.requirements],
                "operation": self.operation,
                "operations": list(self.operations),
                **({"settled": [list(s) for s in self.settled]} if self.settled else {}),
                **({"limits": [[name, list(values)] for name, values in self.limits]} if self.limits else {}),
                **({"additions": list(self.additions)} if self.additions else {})}

    def model(self) -> type[BaseModel]:
        """The pydantic model of a reply: one field per requirement, each with its own enums;
        every field required (strict structured output requires them all). Built once per form."""
        return self._model

    @cached_property
    def _model(self) -> type[BaseModel]:
        fields: dict[str, Any] = {}
        for i, r in enumerate(self.requirements):
            value = Literal[(*r.values, NO_VALUE)]  # type: ignore[valid-type]
            one = create_model(f"Requirement{i}", __config__=ConfigDict(extra="forbid"),
                               status=(Status, Field(description="how the text states it")),
                               value=(value, Field(description="the legal value the words commit to")),
                               candidates=(list[value], Field(  # type: ignore[valid-type]
                                   description=f"every legal value the words could also mean ({NO_VALUE!r}: "
                                               "a reading that leaves it unsaid)")),
                               ambiguity=(Ambiguity, Field(description="for an ambiguous one: 'word' (a word two "
                                                           "values share) or 'structure' (how the sentence attaches "
                                                           "or extends a word); '' otherwise")),
                               quote=(str, Field(description="the verbatim words that say it ('' if none)")))
            fields[r.slot] = (one, Field(description=r.phrase))
        requirements = create_model("Requirements", __config__=ConfigDict(extra="forbid"), **fields)
        extra = create_model("Extra", __config__=ConfigDict(extra="forbid"), quote=(str, ...), condition=(str, ...))
        return create_model(
            "Reading", __config__=ConfigDict(extra="forbid"),
            requirements=(requirements, ...),
            operation=(Literal[self.operations], Field(description="the operation the words point at")),  # type: ignore[valid-type]
            extras=(list[extra], Field(description="details that narrow the answer or change the state")),  # type: ignore[valid-type]
            off_topic=(str, Field(description="a verbatim off-topic passage ('' if none)")),
            asks=(bool, Field(description="whether the text asks for anything")))

    def schema(self) -> dict[str, Any]:
        """The JSON Schema sent as the structured-output ``response_format``."""
        return self.model().model_json_schema()

    def schema_hash(self) -> str:
        """Part of the card version, and so of the exchange store's key."""
        return hashlib.sha256(json.dumps(self.schema(), sort_keys=True).encode()).hexdigest()[:16]

    def parse(self, reply: dict[str, Any]) -> Reading:
        """A reply (already JSON) validated against this form's enums; :class:`ReadingError` else.
        Parsed tolerantly where it costs nothing: a requirement without ``ambiguity`` has none."""
        reqs = reply.get("requirements") if isinstance(reply, dict) else None
        if isinstance(reqs, dict) and any(isinstance(r, dict) and "ambiguity" not in r for r in reqs.values()):
            reply = {**reply, "requirements": {k: {"ambiguity": "", **r} if isinstance(r, dict) else r
                                               for k, r in reqs.items()}}
        try:
            checked = self.model().model_validate(reply)
        except ValidationError as exc:
            illegal = [e for e in exc.errors() if e["type"] == "literal_error"]
            code = "read:value_illegal" if illegal else "read:malformed"
            first = (illegal or exc.errors())[0]
            got = f" (got {first['input']!r})" if illegal else ""
            raise ReadingError(code, f"{'.'.join(map(str, first['loc']))}: {first['msg']}{got}") from None
        return Reading.model_validate(checked.model_dump())


def normalise(text: str) -> str:
    """Unicode compatibility form, case folded, punctuation as spaces, whitespace collapsed."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    spaced = "".join(" " if unicodedata.category(ch)[0] in "PSZ" else ch for ch in folded)
    return " ".join(spaced.split())


@dataclass(frozen=True)
class QuoteMatch:
    found: bool
    fuzzy: bool = False
    score: float = 100.0


def find_quote(quote: str, text: str) -> QuoteMatch:
    """Whether ``quote`` occurs in ``text``: exactly after :func:`normalise`, or -- for a quote of
    :data:`FUZZY_MIN_CHARS` or more -- fuzzily at :data:`FUZZY_THRESHOLD` (recorded as fuzzy)."""
    q, t = normalise(quote), normalise(text)
    if not q:
        return QuoteMatch(True)
    if re.search(rf"(?<!\w){re.escape(q)}(?!\w)", t):
        return QuoteMatch(True)
    if len(q) < FUZZY_MIN_CHARS:
        return QuoteMatch(False, score=0.0)
    score = fuzzy_score(q, t)
    return QuoteMatch(score >= FUZZY_THRESHOLD, fuzzy=True, score=score)


def fuzzy_score(quote: str, text: str) -> float:
    """How closely the normalised ``quote`` stands somewhere in the normalised ``text`` (rapidfuzz
    ``partial_ratio``, 0-100); 0 when a token holding a digit (an id, a flight, an amount, a date)
    is not in the text as it is: a slip may change a letter of a word, never a number."""
    tokens = set(text.split())
    if any(any(ch.isdigit() for ch in w) and w not in tokens for w in quote.split()):
        return 0.0
    return fuzz.partial_ratio(quote, text)


#: the comparisons an extra's condition on a listed limit may use ("<name> <= N", "<name> = value")
COMPARISONS = ("<=", ">=", "<", ">", "=")
#: the values of a limit said in the customer's own words (a product feature): any words after "="
WORDS = ("(the message's words)",)


def _amount(said: str) -> float | None:
    """A plain number, a price's "$" allowed ("149.99", "$ 150"); None for anything else."""
    digits = said.removeprefix("$").strip()
    return float(digits) if digits.replace(".", "", 1).isdigit() else None


def addition_of(extra: Extra, form: ReadingForm) -> str | None:
    """The listed addition (:attr:`ReadingForm.additions`) the extra's condition copies, or None
    (compared after :func:`normalise`)."""
    said = normalise(extra.condition)
    return next((a for a in form.additions if normalise(a) == said), None)


def settle_statuses(reading: Reading, form: ReadingForm) -> Reading:
    """``reading`` with two statuses read as the form defines them: a doubted requirement read as
    committing to its true value commits to none (the customer doubts the true value, so the words
    settle for no other; the form asks for the value settled for, some readers copy the doubted one);
    a vague word on a requirement whose values are not ordered ("some fun colour") ranks nothing, so
    it commits to no value: not said (vagueness describes an amount, a size, a price, a date)."""
    by_slot = {r.slot: r for r in form.requirements}
    fixed = {}
    for slot, r in reading.requirements.items():
        req = by_slot.get(slot)
        if req is None:
            continue
        if r.status == "doubted" and r.value == req.truth:
            fixed[slot] = r.model_copy(update={"value": NO_VALUE})
        elif r.status == "vague" and req.ordered is False:
            fixed[slot] = r.model_copy(update={"status": "not_said", "value": NO_VALUE, "candidates": []})
    if not fixed:
        return reading
    return reading.model_copy(update={"requirements": {**reading.requirements, **fixed}})


@dataclass(frozen=True)
class LimitRead:
    """An extra read as a bound on one of the form's limits: a number, or one of its values."""

    name: str
    op: str  # "<", "<=", ">", ">=" or "="
    number: float | None = None
    value: str | None = None


def limit_of(extra: Extra, form: ReadingForm) -> LimitRead | None:
    """The extra's condition as a bound on a listed limit ("<name> <= 150", "<name> = silver"),
    or None when it is not written so. The name, and a named value, must be ones the form lists
    (compared after :func:`normalise`). Formal syntax only: nothing here reads English."""
    condition = extra.condition
    found = [(condition.find(op), op) for op in COMPARISONS if op in condition]
    if not found:
        return None
    at, op = min(found, key=lambda f: (f[0], -len(f[1])))  # the first; "<=" before "<" at one place
    said, rest = normalise(condition[:at]), condition[at + len(op):].strip()
    name, values = next(((n, v) for n, v in form.limits if normalise(n) == said), (None, ()))
    if name is None:
        return None
    if not values and (number := _amount(rest)) is not None:
        return LimitRead(name, op, number=number)
    if values == WORDS:
        return LimitRead(name, "=", value=rest) if op == "=" and normalise(rest) else None
    value = next((v for v in values if normalise(v) == normalise(rest)), None)
    return LimitRead(name, "=", value=value) if op == "=" and value is not None else None


def check(reading: Reading, form: ReadingForm, text: str) -> list[Verdict]:
    """Every way ``reading`` fails to hold for ``text`` (empty: it holds): a quote the text does
    not contain, a value or candidate the form does not allow, a requirement read as not said
    whose true value's own surface form stands in the text, a status at odds with its value."""
    out: list[Verdict] = []

    def fail(code: str, detail: str) -> None:
        out.append(Verdict(stage="extract", code=f"read:{code}", detail=detail[:300]))

    by_slot = {r.slot: r for r in form.requirements}
    if set(reading.requirements) != set(by_slot):
        fail("malformed", f"requirements read {sorted(reading.requirements)}, the form has {sorted(by_slot)}")
        return out
    if reading.operation not in form.operations:
        fail("value_illegal", f"operation {reading.operation!r}")
    for slot, r in reading.requirements.items():
        req = by_slot[slot]
        for v in [r.value, *r.candidates]:
            if v not in req.values and v != NO_VALUE:
                fail("value_illegal", f"{slot}: {v!r}")
        if r.quote and not find_quote(r.quote, text).found:
            fail("quote_absent", f"{slot}: {r.quote!r}")
        if r.status == "not_said" and (said := _said(req, text)):
            fail("not_said_contradicted", f"{slot}: the text says {said!r}")
        if (r.status == "stated" and r.value != req.truth) or (r.status == "stated_other" and r.value in (req.truth, NO_VALUE)):
            fail("inconsistent", f"{slot}: status {r.status} with value {r.value!r} (true: {req.truth!r})")
    for e in reading.extras:
        if not find_quote(e.quote, text).found:
            fail("quote_absent", f"extra: {e.quote!r}")
    if reading.off_topic and not find_quote(reading.off_topic, text).found:
        fail("quote_absent", f"off topic: {reading.off_topic[:80]!r}")
    return out


def _said(req: FormRequirement, text: str) -> str | None:
    """The true value's own surface form, or a host id that names it, standing in ``text`` (not
    the other ways customers say it: a colour that picks out the only waterproof camera says
    "waterproof" only to a reader who knows the catalogue)."""
    t = f" {normalise(text)} "
    by_id = (i for i, named in req.ids if named == req.truth)
    return next((s for s in (req.truth, *by_id) if normalise(s) and f" {normalise(s)} " in t), None)


#: the taxonomy's contextual irrelevance: an off-topic passage of at least this many words
MIN_OFF_TOPIC_WORDS = 25


@dataclass(frozen=True)
class Departure:
    """One way a reading departs from the plain request, and where (a slot, or None)."""

    cls: ExtractionClass
    target: str | None = None


def planned_departure(type_id: str, target: str | None) -> Departure:
    """The departure a fault of type ``type_id`` on ``target`` is planned to make (the target
    only for types that take a requirement)."""
    return Departure(fault_type(type_id).extraction, target if takes_slot(type_id) else None)


def departures(reading: Reading, form: ReadingForm) -> list[Departure]:
    """Everything the reading departs from "every requirement stated, the task's operation, an
    ask, no extras, no off-topic passage" in, requirements first in the form's order."""
    out = [Departure(CLASS_OF_STATUS[r.status], q.slot) for q in form.requirements
           if (r := reading.requirements.get(q.slot)) is not None and r.status in CLASS_OF_STATUS
           and not (r.status == "not_said" and q.implied)]
    if reading.operation != form.operation:
        out.append(Departure(ExtractionClass.mismatch))
    if reading.extras:
        out.append(Departure(ExtractionClass.extras))
    if len(reading.off_topic.split()) >= MIN_OFF_TOPIC_WORDS:  # a shorter aside buries nothing
        out.append(Departure(ExtractionClass.noise))
    if not reading.asks:
        out.append(Departure(ExtractionClass.oblique))
    return out


def single_class(reading: Reading, form: ReadingForm) -> Departure | None | Verdict:
    """A single-fault attempt's derived class and target: the one departure, None for a plain
    request, or the verdict ``read:two_faults`` when the reading departs in two or more ways."""
    found = departures(reading, form)
    if len(found) > 1:
        said = ", ".join(f"{d.cls.value}" + (f" on {d.target}" if d.target else "") for d in found)
        return Verdict(stage="extract", code="read:two_faults", detail=f"the reading departs {len(found)} ways: {said}")
    return found[0] if found else None
