import pytest

from miscue.taxonomy import FAMILIES, FAULT_TYPES, Family, SlotFacts, applicable, fault_type


def test_four_families_eleven_types():
    assert len(FAULT_TYPES) == 11
    assert {f: len(ts) for f, ts in FAMILIES.items()} == {
        Family.intention: 2, Family.premise: 3, Family.parameter: 2, Family.expression: 4,
    }
    with pytest.raises(ValueError, match="unknown fault type 'nope'"):
        fault_type("nope")


def test_applicability_rules():
    facts = [SlotFacts("a", droppable=True, ordered=False), SlotFacts("b", droppable=False, ordered=True)]
    assert applicable(fault_type("insufficient_information"), facts).slots == ("a",)
    assert applicable(fault_type("vagueness_subjectivity"), facts).reason == "no_ordered_slot"
    assert applicable(fault_type("factual_error"), facts[:1]).reason == "too_few_conditions"
    named = [SlotFacts("attr:red", True, name_states_value=True), SlotFacts("attr:big", True, name_states_value=True)]
    assert applicable(fault_type("referential_ambiguity"), named).reason == "every_slot_name_states_its_value"
    assert applicable(fault_type("factual_error"), named).applicable
    assert applicable(fault_type("contextual_irrelevance"), []).applicable
