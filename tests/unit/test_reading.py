"""The reading form and its checks (DESIGN section 6 steps 3-4): per-task enums in the schema,
replies validated against them, quotes held to the text, the class derived by one table."""

from __future__ import annotations

import pytest

from miscue.reading import (MIN_OFF_TOPIC_WORDS, NO_VALUE, Departure, FormRequirement, Reading, ReadingError, ReadingForm,
                            check, departures, find_quote, normalise, single_class)

from support.reading_forms import FORM, TEXT, reply
from miscue.schema import Verdict
from miscue.taxonomy import ExtractionClass

def test_the_schema_has_each_requirements_legal_values_and_no_nullable_enum():
    schema = FORM.schema()
    text = str(schema)
    assert "'linear'" in text and "'tactile'" in text and "#W4776164" in text and "'return'" in text
    assert "'null'" not in text and "anyOf" not in text  # "not said" is a status, never a null value
    assert NO_VALUE in text
    assert FORM.schema_hash() == FORM.schema_hash() and len(FORM.schema_hash()) == 16
    other = ReadingForm(requirements=FORM.requirements[:2], operation="exchange", operations=FORM.operations)
    assert other.schema_hash() != FORM.schema_hash()


def test_the_schema_is_strict_every_object_closed_and_every_field_required():
    """What OpenAI-style strict structured output accepts."""
    objects = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("type") == "object":
                objects.append(node)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(FORM.schema())
    assert len(objects) == 1 + 1 + len(FORM.requirements) + 1  # the reading, requirements, each one, an extra
    assert all(o["additionalProperties"] is False and set(o["required"]) == set(o["properties"]) for o in objects)


def test_a_plain_request_reads_with_no_departure_and_passes_every_check():
    reading = FORM.parse(reply())
    assert check(reading, FORM, TEXT) == [] and single_class(reading, FORM) is None


def test_a_value_outside_the_enum_is_refused_with_its_code():
    with pytest.raises(ReadingError) as exc:
        FORM.parse(reply(requirements={"switch": {"value": "mushy"}}))
    assert exc.value.verdict.code == "read:value_illegal" and "switch" in exc.value.verdict.detail
    with pytest.raises(ReadingError) as exc:
        FORM.parse({"requirements": {}, "operation": "exchange"})
    assert exc.value.verdict.code == "read:malformed"


@pytest.mark.parametrize("changes, cls, target", [
    ({"requirements": {"switch": {"status": "stated_other", "value": "linear"}}}, ExtractionClass.substituted, "switch"),
    ({"requirements": {"payment": {"status": "not_said", "value": NO_VALUE, "quote": ""}}}, ExtractionClass.withheld, "payment"),
    ({"requirements": {"switch": {"status": "ambiguous", "value": NO_VALUE, "candidates": ["clicky", "tactile"]}}},
     ExtractionClass.ambiguous, "switch"),
    ({"operation": "return"}, ExtractionClass.mismatch, None),
    ({"extras": [{"quote": "Please exchange the keyboard", "condition": "keyboard"}]}, ExtractionClass.extras, None),
    ({"asks": False}, ExtractionClass.oblique, None),
])
def test_the_class_is_derived_from_the_one_departure(changes, cls, target):
    found = single_class(FORM.parse(reply(**changes)), FORM)
    assert found is not None and not isinstance(found, Verdict)
    assert (found.cls, found.target) == (cls, target)


def test_two_departures_are_two_faults():
    reading = FORM.parse(reply(operation="return", requirements={"switch": {"status": "vague", "value": NO_VALUE}}))
    verdict = single_class(reading, FORM)
    assert isinstance(verdict, Verdict) and verdict.code == "read:two_faults" and "switch" in verdict.detail


def test_quotes_must_stand_in_the_text():
    reading = FORM.parse(reply(requirements={"switch": {"quote": "linear switches"}}))
    assert [v.code for v in check(reading, FORM, TEXT)] == ["read:quote_absent"]
    extra = FORM.parse(reply(extras=[{"quote": "in black leather", "condition": "colour = black"}]))
    assert [v.code for v in check(extra, FORM, TEXT)] == ["read:quote_absent"]


def test_not_said_is_contradicted_by_the_values_own_surface_form_or_id():
    said = FORM.parse(reply(requirements={"switch": {"status": "not_said", "value": NO_VALUE, "quote": ""}}))
    assert [v.code for v in check(said, FORM, TEXT)] == ["read:not_said_contradicted"]
    by_id = TEXT.replace("my gift card ending 4171", "gift_card_4171")
    gone = FORM.parse(reply(requirements={"payment": {"status": "not_said", "value": NO_VALUE, "quote": ""}}))
    assert [v.code for v in check(gone, FORM, by_id)] == ["read:not_said_contradicted"]
    omitted = TEXT.replace(", and put the difference on my gift card ending 4171", "")
    assert check(gone, FORM, omitted) == []
    # another way customers say it is the readers' to weigh, not a contradiction: a colour that
    # picks out the only clicky keyboard says "clicky" only to a reader who knows the catalogue
    blue = TEXT.replace("clicky switches", "blue switches")
    assert check(said, FORM, blue) == []


def test_a_status_at_odds_with_its_value_is_inconsistent():
    reading = FORM.parse(reply(requirements={"switch": {"status": "stated", "value": "linear"}}))
    assert [v.code for v in check(reading, FORM, TEXT)] == ["read:inconsistent"]


def test_quote_matching_is_mechanical_and_fuzzy_only_for_long_quotes():
    assert normalise("  Clicky\u00a0SWITCHES!! ") == "clicky switches"
    assert find_quote("CLICKY switches,", TEXT).found and not find_quote("CLICKY switches,", TEXT).fuzzy
    assert not find_quote("lick", TEXT).found  # inside a word is not a quote
    typo = find_quote("put the diference on my gift card", TEXT)
    assert typo.found and typo.fuzzy
    assert not find_quote("clickyy", TEXT).found  # short quotes match exactly or not at all
    assert not find_quote("put the whole amount on my credit card", TEXT).found
    # a slip may change a letter, never a number: another order id is not a quote of this one
    assert not find_quote("keyboard in order #W2378157", TEXT).found
    assert find_quote("keyboard in ordr #W2378156", TEXT).found


def test_a_form_must_offer_the_truth():
    with pytest.raises(ValueError):
        ReadingForm(requirements=(FormRequirement(slot="s", phrase="p", truth="a", values=("b",)),),
                    operation="x", operations=("x",))
    assert isinstance(FORM.parse(reply()), Reading)


def test_the_reading_form_renders_the_tasks_values_and_its_version_follows_the_schema():
    from miscue import writing
    from miscue.briefs import ExtractionInput, Option, Requirement

    reqs = [Requirement(slot="cabin", phrase="the cabin", spoken="business", says=["biz class"],
                        options=[Option(say="economy", also=["coach"]), Option(say="basic economy")])]
    form = ReadingForm.of(reqs, "book a flight", ["cancel a reservation"])
    assert form.requirements[0].values == ("business", "economy", "basic economy") and form.operations[0] == "book a flight"
    inp = ExtractionInput(context="an airline", request="book a flight", requirements=reqs, text="Book me in coach.")
    messages, version = writing.render_read(inp, form)
    user = messages[1]["content"]
    assert ('- cabin: the cabin = "business" (also said as "biz class"); '
            'other legal values: "economy" (also said as "coach"), "basic economy"') in user
    assert '"cancel a reservation"' in user and "Book me in coach." in user and NO_VALUE in user
    assert version.endswith(form.schema_hash())
    wider = ReadingForm.of(reqs, "book a flight", ["cancel a reservation", "change flights"])
    assert writing.render_read(inp, wider)[1] != version  # another schema is another request


def test_an_aside_shorter_than_the_taxonomys_passage_is_no_departure():
    """Contextual irrelevance is an off-topic passage of 25 words or more: a three-word aside
    buries nothing, so it is no fault (and no second fault beside another)."""
    aside = FORM.parse(reply(off_topic="Ugh, long week."))
    assert departures(aside, FORM) == [] and single_class(aside, FORM) is None
    passage = " ".join(["word"] * MIN_OFF_TOPIC_WORDS)
    assert departures(FORM.parse(reply(off_topic=passage)), FORM) == [Departure(ExtractionClass.noise)]


def test_a_requirement_the_rest_of_the_request_implies_is_no_departure_when_not_said():
    """A requirement whose drop leaves the answer as it is (host data, by execution: the form's
    ``implied``) departs in nothing when a reading finds it not said; any other status still
    departs, and the same reading on a form without the fact is withheld."""
    unsaid = reply(requirements={"switch": {"status": "not_said", "value": NO_VALUE, "quote": ""}})
    implied = FORM.with_host_facts([], {"switch"})
    assert departures(implied.parse(unsaid), implied) == []
    assert departures(FORM.parse(unsaid), FORM) == [Departure(ExtractionClass.withheld, "switch")]
    other = reply(requirements={"switch": {"status": "stated_other", "value": "linear", "quote": "clicky switches"}})
    assert departures(implied.parse(other), implied) == [Departure(ExtractionClass.substituted, "switch")]
    assert "implied" not in str(implied.as_dict()), "readers are not told"


@pytest.mark.parametrize("said, expected", [
    ({"ambiguity": "word", "candidates": ["linear", "tactile"]}, "lexical_ambiguity"),
    ({"ambiguity": "structure", "candidates": ["linear", "tactile"]}, "syntactic_ambiguity"),  # two values, by attachment
    ({"ambiguity": "", "candidates": ["tactile", NO_VALUE]}, "syntactic_ambiguity"),  # one reading leaves it unsaid
    ({"candidates": ["linear", "tactile"]}, "lexical_ambiguity"),  # a reply without the field: none said, a word
])
def test_an_ambiguity_is_typed_by_what_the_reading_says_makes_it(said, expected):
    from miscue.flows.stages.verify import type_of_reading

    reading = FORM.parse(reply(requirements={"switch": {"status": "ambiguous", **said}}))
    found = single_class(reading, FORM)
    assert isinstance(found, Departure) and found.cls == ExtractionClass.ambiguous
    assert type_of_reading(reading, found) == expected


def test_a_doubted_true_value_is_settled_as_no_value_and_a_fallback_is_kept():
    """A reader that copies the doubted value where the form asks for the one settled for reads the
    same text as one that writes no value: code settles both to no value, a real fallback stays."""
    from miscue.reading import settle_statuses

    def doubted(value: str) -> Reading:
        return FORM.parse(reply(requirements={"switch": {"status": "doubted", "value": value}}))

    assert settle_statuses(doubted("clicky"), FORM).requirements["switch"].value == NO_VALUE
    assert settle_statuses(doubted("linear"), FORM).requirements["switch"].value == "linear"
    plain = FORM.parse(reply())
    assert settle_statuses(plain, FORM) is plain


def test_additions_and_words_limits_are_read_from_their_formal_conditions_only():
    """An extra asking something more done copies a listed addition (normalised: case, punctuation);
    a limit in the message's own words takes any words after "=", and nothing else."""
    from miscue.reading import WORDS, Extra, addition_of, limit_of

    form = ReadingForm.from_dict({**FORM.as_dict(), "additions": ["cancel order #W9154975"],
                                  "limits": [["a feature the product must have", list(WORDS)]]})
    assert ReadingForm.from_dict(form.as_dict()) == form

    def extra(condition: str) -> Extra:
        return Extra(quote="q", condition=condition)

    assert addition_of(extra("Cancel order W9154975."), form) == "cancel order #W9154975"
    assert addition_of(extra("cancel order #W9154976"), form) is None
    assert addition_of(extra("also cancel my other order"), form) is None
    found = limit_of(extra("a feature the product must have = Solid Wood"), form)
    assert found is not None and (found.op, found.value) == ("=", "Solid Wood")
    assert limit_of(extra("a feature the product must have <= 3"), form) is None
    assert limit_of(extra("a feature the product must have = "), form) is None
    assert limit_of(extra("material = solid wood"), form) is None


def test_the_form_lists_additions_and_words_limits_for_the_reader():
    from miscue import writing
    from miscue.briefs import ExtractionInput, Requirement
    from miscue.reading import WORDS

    reqs = [Requirement(slot="cabin", phrase="the cabin", spoken="business")]
    form = ReadingForm.of(reqs, "book a flight").with_host_facts(
        (), set(), [("a feature the product must have", WORDS), ("the price in dollars", ())], ["cancel reservation ABC123"])
    inp = ExtractionInput(context="an airline", request="book a flight", requirements=reqs, text="Book me in business.")
    user = writing.render_read(inp, form)[0][1]["content"]
    assert "- a feature the product must have (in the message's own words)" in user
    assert "- the price in dollars (a number)" in user
    assert "- cancel reservation ABC123" in user


def test_a_vague_word_on_a_requirement_that_is_not_ordered_is_read_as_not_said():
    """Vagueness describes an amount, a size, a price, a date: "some fun colour" ranks nothing, so it
    commits to no value -- the class is an omission, not vagueness (a vague word on an ordered
    requirement, or one the form knows nothing about, stays vague)."""
    from miscue.reading import settle_statuses

    def vague(form: ReadingForm) -> Reading:
        return form.parse(reply(requirements={"switch": {"status": "vague", "value": NO_VALUE,
                                                         "candidates": ["clicky", "linear"]}}))

    def with_order(ordered):
        reqs = tuple(r.model_copy(update={"ordered": ordered}) if r.slot == "switch" else r for r in FORM.requirements)
        return ReadingForm(reqs, FORM.operation, FORM.operations)

    unordered = with_order(False)
    settled = settle_statuses(vague(unordered), unordered).requirements["switch"]
    assert (settled.status, settled.value, settled.candidates) == ("not_said", NO_VALUE, [])
    assert settle_statuses(vague(with_order(True)), with_order(True)).requirements["switch"].status == "vague"
    assert settle_statuses(vague(FORM), FORM).requirements["switch"].status == "vague"
    assert "ordered" not in unordered.as_dict()["requirements"][1]  # host data, never shown to a reader
