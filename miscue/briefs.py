"""What the writer and the extractors are given (what the extractors answer is a reading:
:mod:`miscue.reading`).

These are the contracts between the planner, the prompt cards, the models (real or the
embedded offline ones) and the verifiers. A brief carries everything in the domain's words
(slot phrases and spoken values from the adapter); it never carries ground truth, the base
frame's hidden identifiers, graph children or the reading form.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Option(BaseModel):
    """One other legal value of a requirement, as customers say it (host data)."""

    model_config = ConfigDict(frozen=True)

    say: str  # the canonical spoken form
    also: list[str] = Field(default_factory=list)  # other ways to say it
    partly: list[str] = Field(default_factory=list)  # words that name it only together with the rest (a date, a first name)


#: What a requirement is, in the words a writer voices it with (:attr:`Role.kind`). A host maps its
#: requirements onto these; a requirement of another kind is said by its phrase and value.
KINDS = (
    "order", "reservation", "items", "option", "payment", "reason", "address",  # an online store's orders
    "cabin", "flights", "passengers", "bags", "paid_bags", "insurance", "trip", "origin", "destination", "amount",  # trips
    "feature", "price",  # a product searched for
)
#: What a customer asks for (:attr:`Act.kind`): the request kinds a writer has sentence plans for.
ACT_KINDS = (
    "cancel", "return", "exchange", "modify_items", "modify_address", "modify_payment", "update_address",
    "book", "change_flights", "change_bags", "change_passengers", "cancel_reservation", "compensation", "buy",
)


class Role(BaseModel):
    """What one requirement is, for a writer that voices it (host data, never a plan)."""

    model_config = ConfigDict(frozen=True)

    kind: str = ""  # one of KINDS ("" = none of them)
    noun: str = ""  # the plain noun naming it ("size", "switch type", "payment method")
    of: str = ""  # what it belongs to ("mechanical keyboard")
    part: int = -1  # which part of its act's list of items it belongs to (0-based), -1: none
    act: str = ""  # the label of the act (request) it is part of


class Act(BaseModel):
    """One thing the customer asks for, in the order they ask."""

    model_config = ConfigDict(frozen=True)

    label: str  # the act's label: :attr:`Role.act` of its requirements
    kind: str  # one of ACT_KINDS ("" = none of them: said by ``say``)
    say: str  # the request in the domain's words ("exchange items from a delivered order")
    object: str = ""  # what is asked about when no requirement names it (a product category: "bar stools")
    single: str = ""  # one of it ("a bar stool"); "" when the object is not counted that way


class Identity(BaseModel):
    """Who the customer is, as the host's users identify themselves to an agent."""

    model_config = ConfigDict(frozen=True)

    name: str = ""  # "Yusuf Rossi"
    facts: dict[str, str] = Field(default_factory=dict)  # "zip" / "email" / "user id" -> value
    ways: list[list[str]] = Field(default_factory=list)  # what users give together, e.g. [["name", "zip"], ["email"]]


class Requirement(BaseModel):
    """One true requirement as the user would state it."""

    model_config = ConfigDict(frozen=True)

    slot: str  # the id the extractors answer with; never shown to the writer as syntax
    phrase: str  # e.g. "the new switch type for the mechanical keyboard"
    spoken: str  # e.g. "clicky"
    ordered: bool = False
    says: list[str] = Field(default_factory=list)  # other ways customers say the true value
    parts: list[Option] = Field(default_factory=list)  # a list value's parts (items, flights, passengers)
    options: list[Option] = Field(default_factory=list)  # the other legal values (the extractors' view only)
    role: Role = Field(default_factory=Role)  # what it is, for voicing it


class Materials(BaseModel):
    """Type-specific material the planner prepared for one attempt (all in spoken form)."""

    wrong_value: str | None = None  # factual_error: the plausible wrong value to state
    fallback: str | None = None  # false_presupposition: what the user settles for
    pointer: str | None = None  # referential_ambiguity: e.g. "the usual one", "the card I used last time"
    vague_word: str | None = None  # vagueness_subjectivity: e.g. "a reasonable", "a bigger size"
    ambiguous_word: str | None = None  # lexical_ambiguity: the word with two senses
    senses: list[str] = Field(default_factory=list)  # lexical_ambiguity: [true sense, other sense]
    companion: str | None = None  # syntactic_ambiguity: the phrase the modifier could also attach to
    modifier: str | None = None  # syntactic_ambiguity: the target's value as the modifier says it ("travel insurance")
    extra: str | None = None  # irrelevant_information: the unneeded detail, as the user says it
    mismatch: str | None = None  # tool_capability_mismatch: the wrong operation, as the user asks it
    off_topic: str | None = None  # contextual_irrelevance: an unrelated topic to talk about


class WriterBrief(BaseModel):
    """Everything the writer sees for one attempt."""

    benchmark: str
    context: str  # one line: who the user is, talking to whom
    request: str  # what the user wants done, in the domain's words
    requirements: list[Requirement]
    fault_type: str
    target: str | None = None  # slot id of the targeted requirement (None: whole message)
    materials: Materials = Field(default_factory=Materials)
    attempt: int = 0
    acts: list[Act] = Field(default_factory=list)  # what the customer asks for, act by act
    identity: Identity | None = None  # who the customer is (None: not given in the request)

    def requirement(self, slot: str | None) -> Requirement | None:
        return next((r for r in self.requirements if r.slot == slot), None)


class ExtractionInput(BaseModel):
    """What an extractor sees: the true requirements and the text. Never the plan."""

    context: str
    request: str
    requirements: list[Requirement]
    text: str
