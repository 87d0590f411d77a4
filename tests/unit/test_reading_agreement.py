"""Agreement on readings (DESIGN section 6, step 5): both extractors' readings derive the same
class and target as the plan, and read the target alike."""

from __future__ import annotations

import pytest

from miscue.reading import NO_VALUE, Departure
from miscue.taxonomy import ExtractionClass as C
from miscue.verifiers.agreement import readings_agree

from support.reading_forms import FORM, reply

SUB = Departure(C.substituted, "switch")


def both(a: dict, b: dict | None = None):
    return FORM.parse(reply(**a)), FORM.parse(reply(**(a if b is None else b)))


def test_the_same_substitution_as_planned_agrees():
    a, b = both({"requirements": {"switch": {"status": "stated_other", "value": "linear", "quote": "clicky switches"}}})
    assert readings_agree(FORM, a, b, SUB) is None


@pytest.mark.parametrize("a, b, plan, code", [
    # the two readers differ in class, in value, in candidates
    ({"requirements": {"switch": {"status": "stated_other", "value": "linear"}}},
     {"requirements": {"switch": {"status": "vague", "value": NO_VALUE}}}, SUB, "agree:extractors_disagree"),
    ({"requirements": {"switch": {"status": "stated_other", "value": "linear"}}},
     {"requirements": {"switch": {"status": "stated_other", "value": "tactile"}}}, SUB, "agree:value_mismatch"),
    ({"requirements": {"switch": {"status": "ambiguous", "value": NO_VALUE, "candidates": ["clicky", "tactile"]}}},
     {"requirements": {"switch": {"status": "ambiguous", "value": NO_VALUE, "candidates": ["clicky", "linear"]}}},
     Departure(C.ambiguous, "switch"), "agree:candidates_mismatch"),
    # both agree, but not with the plan
    ({"requirements": {"payment": {"status": "not_said", "value": NO_VALUE, "quote": ""}}}, None, SUB, "agree:flaw_mismatch"),
    ({"requirements": {"order": {"status": "stated_other", "value": "#W4776164"}}}, None, SUB, "agree:slot_mismatch"),
    ({}, None, SUB, "agree:flaw_mismatch"),  # a plain reading of a text planned with a fault
    # a reading that departs twice is two faults
    ({"operation": "return", "requirements": {"switch": {"status": "stated_other", "value": "linear"}}}, None, SUB,
     "agree:two_faults"),
    ({"operation": "return"}, {"operation": "modify"}, Departure(C.mismatch), "agree:operation_mismatch"),
    ({"extras": [{"quote": "in black", "condition": "colour = black"}]},
     {"extras": [{"quote": "by Friday", "condition": "delivery = friday"}]}, Departure(C.extras), "agree:extra_mismatch"),
])
def test_disagreements_have_their_codes(a, b, plan, code):
    ra, rb = both(a, b)
    verdict = readings_agree(FORM, ra, rb, plan)
    assert verdict is not None and verdict.code == code, verdict


def test_a_plain_text_planned_plain_agrees():
    a, b = both({})
    assert readings_agree(FORM, a, b, None) is None


def test_candidate_sets_agree_on_two_shared_values_and_admission_sees_only_those():
    """Each reader lists every value it thinks the words could mean; two sharing two or more agree,
    and the reading executed keeps only the shared ones (one shared value is no agreement)."""
    from miscue.verifiers.agreement import agreed_reading

    vague = Departure(C.marked, "switch")
    a, b = both({"requirements": {"switch": {"status": "vague", "candidates": ["clicky", "linear", "tactile"]}}},
                {"requirements": {"switch": {"status": "vague", "candidates": ["tactile", "clicky"]}}})
    assert readings_agree(FORM, a, b, vague) is None
    assert agreed_reading(a, b, vague).requirements["switch"].candidates == ["clicky", "tactile"]
    assert agreed_reading(a, b, vague).requirements["order"] == a.requirements["order"]
    one, other = both({"requirements": {"switch": {"status": "vague", "candidates": ["clicky", "linear"]}}},
                      {"requirements": {"switch": {"status": "vague", "candidates": ["clicky", "tactile"]}}})
    assert readings_agree(FORM, one, other, vague).code == "agree:candidates_mismatch"


def _composite(*components):
    """A composite plan as the composite checks see it: its components' types and targets."""
    from types import SimpleNamespace

    from miscue.schema import FaultSpec

    return SimpleNamespace(components=[SimpleNamespace(component=FaultSpec(fault_type=t, target=x)) for t, x in components])


SUB_AND_NOISE = _composite(("factual_error", "switch"), ("contextual_irrelevance", None))
OFF_TOPIC = ("Our cat knocked the old keyboard off the desk twice this week, and the second time it landed in the "
             "water bowl, so the whole kitchen smelled of wet plastic until Sunday")


@pytest.mark.parametrize("changes, code", [
    ({"requirements": {"switch": {"status": "stated_other", "value": "linear"}}, "off_topic": OFF_TOPIC}, None),
    ({"requirements": {"switch": {"status": "stated_other", "value": "linear"}}}, "composite:component_missing"),
    ({"off_topic": OFF_TOPIC}, "composite:component_missing"),
    ({"requirements": {"switch": {"status": "stated_other", "value": "linear"}}, "off_topic": OFF_TOPIC,
      "operation": "return"}, "composite:unplanned_fault"),
    # two departures of one class on different requirements are not the one planned
    ({"requirements": {"switch": {"status": "stated_other", "value": "linear"},
                       "payment": {"status": "stated_other", "value": "credit card ending 7901"}},
      "off_topic": OFF_TOPIC}, "composite:unplanned_fault"),
])
def test_a_composite_reading_derives_exactly_the_planned_components(changes, code):
    """One reading for all k components: code derives the departures, and they are the plan's."""
    from miscue.verifiers.composite import components_match

    verdict = components_match(FORM, FORM.parse(reply(**changes)), SUB_AND_NOISE, "a")
    assert (verdict.code if verdict else None) == code, verdict


def test_a_value_said_only_inside_the_off_topic_passage_is_refused():
    from miscue.verifiers.composite.readings import value_inside_off_topic

    text = "Our cat knocked the old keyboard with clicky switches off the desk. Please exchange order #W2378156."
    inside = FORM.parse(reply(off_topic="Our cat knocked the old keyboard with clicky switches off the desk"))
    verdict = value_inside_off_topic(FORM, inside, text)
    assert verdict is not None and verdict.code == "composite:value_inside_off_topic" and "clicky switches" in verdict.detail
    # the same words said again outside the passage: the value is stated where it counts
    again = text + " I want the clicky switches one."
    assert value_inside_off_topic(FORM, inside, again) is None
