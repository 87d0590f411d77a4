"""The communication-fault taxonomy: 4 families, 11 types (DESIGN section 4).

Each type has a family, a target kind (what the fault is about), an extraction/admission class
(section 6) and an applicability rule evaluated against what an adapter says about an intent's
slots. Nothing here names a host.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from miscue.errors import UnknownFaultType


class Family(str, Enum):
    intention = "intention"
    premise = "premise"
    parameter = "parameter"
    expression = "expression"


class Target(str, Enum):
    whole_message = "whole_message"
    slot = "slot"  # one true requirement
    about_slot = "about_slot"  # the requirement a false premise is about
    operation = "operation"  # the instrument (write operation / store capability)
    added_detail = "added_detail"  # something that is not a true requirement
    ordered_slot = "ordered_slot"  # one requirement with an order (price, size, dates, counts)


class ExtractionClass(str, Enum):
    substituted = "substituted"
    presupposed = "presupposed"
    withheld = "withheld"
    marked = "marked"
    ambiguous = "ambiguous"
    extras = "extras"
    mismatch = "mismatch"
    noise = "noise"
    oblique = "oblique"


@dataclass(frozen=True)
class FaultType:
    id: str
    family: Family
    target: Target
    extraction: ExtractionClass
    what: str

    @property
    def consumes_slot(self) -> bool:
        """Slot-consuming faults take a requirement that no other component may use."""
        return self.target in (Target.slot, Target.ordered_slot)

    @property
    def needs_droppable_slot(self) -> bool:
        return self.consumes_slot

    @property
    def marks_unresolved(self) -> bool:
        """The text leaves the target unresolved, so the slot name must not state its value."""
        return self.extraction in (ExtractionClass.marked, ExtractionClass.ambiguous)


_TYPES = [
    FaultType("indirect_intent", Family.intention, Target.whole_message, ExtractionClass.oblique,
              "conveys every requirement but never states a request"),
    FaultType("contextual_irrelevance", Family.intention, Target.whole_message, ExtractionClass.noise,
              "a substantial off-topic passage buries a fully stated request"),
    FaultType("factual_error", Family.premise, Target.slot, ExtractionClass.substituted,
              "states one requirement with a plausible wrong value"),
    FaultType("false_presupposition", Family.premise, Target.about_slot, ExtractionClass.presupposed,
              "assumes something false about one true requirement and settles for a fallback"),
    FaultType("tool_capability_mismatch", Family.premise, Target.operation, ExtractionClass.mismatch,
              "asks for the outcome through an operation the environment cannot perform for it"),
    FaultType("insufficient_information", Family.parameter, Target.slot, ExtractionClass.withheld,
              "omits one requirement entirely"),
    FaultType("irrelevant_information", Family.parameter, Target.added_detail, ExtractionClass.extras,
              "adds one concrete, checkable detail the user does not actually need"),
    FaultType("lexical_ambiguity", Family.expression, Target.slot, ExtractionClass.ambiguous,
              "names one requirement only through a word with two plausible senses"),
    FaultType("syntactic_ambiguity", Family.expression, Target.slot, ExtractionClass.ambiguous,
              "one modifier could attach to either of two things"),
    FaultType("referential_ambiguity", Family.expression, Target.slot, ExtractionClass.marked,
              "leaves one requirement as a bare pointer"),
    FaultType("vagueness_subjectivity", Family.expression, Target.ordered_slot, ExtractionClass.marked,
              "describes one ordered requirement only subjectively"),
]

FAULT_TYPES: dict[str, FaultType] = {t.id: t for t in _TYPES}
FAMILIES: dict[Family, list[FaultType]] = {f: [t for t in _TYPES if t.family == f] for f in Family}

# Derived sets: every other module takes these from here, never as a copied list of names.
#: the whole-message types (they frame everything else; a composite applies them last)
WHOLE_MESSAGE_TYPES: frozenset[str] = frozenset(t.id for t in _TYPES if t.target == Target.whole_message)
#: target kinds that are one requirement of the intent (a slot id), for any type
SLOT_TARGETS: frozenset[Target] = frozenset({Target.slot, Target.ordered_slot, Target.about_slot})


def takes_slot(type_id: str) -> bool:
    """The type targets one requirement (slot-consuming faults and the premise's "about" slot):
    no two components of a composite may share one."""
    return fault_type(type_id).target in SLOT_TARGETS


def fault_type(type_id: str) -> FaultType:
    try:
        return FAULT_TYPES[type_id]
    except KeyError:
        known = ", ".join(sorted(FAULT_TYPES))
        raise UnknownFaultType(f"unknown fault type {type_id!r}; known types: {known}") from None


@dataclass(frozen=True)
class SlotFacts:
    """What an adapter says about one slot of an intent."""

    slot: str
    droppable: bool  # removing it provably changes the executed outcome
    ordered: bool = False  # price, size, dates, counts, or adapter-declared
    name_states_value: bool = False  # e.g. a WebShop "attr:<text>" slot


@dataclass(frozen=True)
class Applicability:
    applicable: bool
    reason: str = ""
    slots: tuple[str, ...] = ()  # the slots this type may target


def applicable(ft: FaultType, facts: list[SlotFacts]) -> Applicability:
    """Whether ``ft`` can be planned on an intent whose slots are described by ``facts``."""
    if not ft.consumes_slot:
        if ft.target == Target.about_slot and not facts:
            return Applicability(False, "no_conditions")
        return Applicability(True, slots=tuple(f.slot for f in facts))
    if len(facts) < 2:
        return Applicability(False, "too_few_conditions")
    candidates = [f for f in facts if f.droppable]
    if not candidates:
        return Applicability(False, "no_droppable_slot")
    if ft.target == Target.ordered_slot:
        candidates = [f for f in candidates if f.ordered]
        if not candidates:
            return Applicability(False, "no_ordered_slot")
    if ft.marks_unresolved:
        candidates = [f for f in candidates if not f.name_states_value]
        if not candidates:
            return Applicability(False, "every_slot_name_states_its_value")
    return Applicability(True, slots=tuple(f.slot for f in candidates))
