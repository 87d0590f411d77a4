"""Extraction and writer replies as real models write them parse to the reading they mean; what
stays ambiguous is an ``extract:`` verdict, never a crash (miscue.model_replies)."""

from __future__ import annotations

import pytest

from miscue.briefs import Requirement
from miscue.llm import parse_json_reply
from miscue.model_replies import parse_blind, parse_multi, parse_targeted, parse_writer
from miscue.verifiers.agreement import blind_matches_plan, targeted_agree

from support.briefs import extraction_input, make_brief

REQS = extraction_input(make_brief("retail", "factual_error"), "text").requirements
TWINS = [Requirement(slot="exchange.payment", phrase="the payment method for order #W1", spoken="my PayPal account"),
         Requirement(slot="exchange#2.payment", phrase="the payment method for order #W2", spoken="my PayPal account"),
         Requirement(slot="exchange.order", phrase="the order", spoken="order #W1")]


@pytest.mark.parametrize("reply, expected", [
    # JSON in a fence, after prose, with a trailing comma, curly quotes, a Python literal
    ('```json\n{"flaw": "withheld", "requirement": "new_size"}\n```', ("withheld", "new_size")),
    ('The size is never said.\n{"flaw": "withheld", "requirement": "new_size"}', ("withheld", "new_size")),
    ('{"flaw": "withheld", "requirement": "new_size",}', ("withheld", "new_size")),
    ('{\u201cflaw\u201d: \u201cwithheld\u201d, \u201crequirement\u201d: \u201cnew_size\u201d}', ("withheld", "new_size")),
    ("{'flaw': 'noise', 'requirement': None}", ("noise", None)),
    # nulls as models write them
    ('{"flaw": "noise", "requirement": "None"}', ("noise", None)),
    ('{"flaw": "noise", "requirement": "n/a"}', ("noise", None)),
    ('{"flaw": "extras", "requirement": "null"}', ("extras", None)),
    ('{"flaw": null}', ("none", None)),
    # the class capitalised or glossed
    ('{"flaw": "Withheld", "requirement": "new_size"}', ("withheld", "new_size")),
    ('{"flaw": "marked (a subjective description)", "requirement": "new_size"}', ("marked", "new_size")),
    # the requirement named by its phrase, its value, or its id with the phrase
    ('{"flaw": "withheld", "requirement": "the size of the new mechanical keyboard"}', ("withheld", "new_size")),
    ('{"flaw": "withheld", "requirement": "The size of the new mechanical keyboard"}', ("withheld", "new_size")),
    ('{"flaw": "withheld", "requirement": "size of the new mechanical keyboard"}', ("withheld", "new_size")),
    ('{"flaw": "substituted", "requirement": "clicky"}', ("substituted", "new_switch_type")),
    ('{"flaw": "withheld", "requirement": "new_size (the size of the new mechanical keyboard)"}', ("withheld", "new_size")),
    ('{"flaw": "withheld", "requirement": "NEW_SIZE"}', ("withheld", "new_size")),
])
def test_blind_variants_parse_to_the_intended_reading(reply, expected):
    found = parse_blind(reply, REQS)
    assert found is not None and (found.flaw, found.requirement) == expected


@pytest.mark.parametrize("reply", [
    '{"flaw": "withheld", "requirement": "the payment method"}',  # fits both payments
    '{"flaw": "withheld", "requirement": "my PayPal account"}',  # the value of both
    '{"flaw": "withheld", "requirement": "the colour"}',  # no requirement
    '{"flaw": "withheld", "requirement": ["exchange.payment", "exchange#2.payment"]}',
    '{"flaw": "withheld or marked", "requirement": "exchange.order"}',
    '{"flaw": "factual_error"}', '{"requirement": "exchange.order"}', "no json", "", None, '{"flaw": "withheld"',
    '{"flaw": "withheld", "requirement": 3}',
])
def test_what_stays_ambiguous_is_an_extract_verdict(reply):
    assert parse_blind(reply, TWINS) is None
    verdict = blind_matches_plan(make_brief("retail", "insufficient_information"), parse_blind(reply, TWINS), "a")
    assert verdict is not None and verdict.code == "extract:unparseable"


def test_one_of_two_twins_is_found_by_its_whole_phrase():
    assert parse_blind('{"flaw": "withheld", "requirement": "the payment method for order #W2"}', TWINS).requirement == \
        "exchange#2.payment"
    assert parse_blind('{"flaw": "withheld", "requirement": "exchange#2.payment"}', TWINS).requirement == "exchange#2.payment"


@pytest.mark.parametrize("value, expected", [
    ("false", False), ("False", False), ("no", False), ("No.", False), (False, False), (0, False),
    ("true", True), ("yes", True), (True, True), ("null", None), ("None", None), ("n/a", None), (None, None),
])
def test_request_stated_as_models_write_it(value, expected):
    import json
    found = parse_targeted(json.dumps({"flaw": "oblique", "request_stated": value}))
    assert found is not None and found.request_stated is expected


def test_request_stated_as_a_string_agrees_with_the_plan():
    brief = make_brief("retail", "indirect_intent")
    a = parse_targeted('{"flaw": "oblique", "request_stated": "false"}')
    b = parse_targeted('```json\n{"flaw": "oblique", "request_stated": "no",}\n```')
    assert targeted_agree(brief, a, b) is None
    assert parse_targeted('{"flaw": "oblique", "request_stated": "perhaps"}') is None


def test_a_null_fallback_is_no_contrary_reading():
    brief = make_brief("airline", "false_presupposition")
    a = parse_targeted('{"flaw": "presupposed", "requirement": "cabin_class", "clause": "since business is full", '
                       '"fallback": null}')
    b = parse_targeted('{"flaw": "presupposed", "requirement": "cabin_class", "clause": "since business is full", '
                       '"fallback": "None"}')
    assert a.fallback is None and b.fallback is None and targeted_agree(brief, a, b) is None
    wrong = parse_targeted('{"flaw": "presupposed", "requirement": "cabin_class", "clause": "since business is full", '
                           '"fallback": "first class"}')
    assert targeted_agree(brief, a, wrong).code == "agree:fallback_mismatch"


def test_targeted_fields_as_models_write_them():
    found = parse_targeted('{"flaw": "Substituted", "requirement": "the switch type of the new mechanical keyboard", '
                           '"stated_value": ["tactile"], '
                           '"clause": "n/a", "span": null}', REQS)
    assert (found.flaw, found.requirement, found.stated_value, found.clause, found.span) == \
        ("substituted", "new_switch_type", "tactile", None, None)
    assert parse_targeted('{"flaw": "substituted", "stated_value": 25}', REQS).stated_value == "25"
    assert parse_targeted('{"flaw": "substituted", "stated_value": ["tactile", "linear"]}', REQS) is None
    assert parse_targeted('{"flaw": "substituted", "stated_value": true}', REQS) is None


def test_the_other_attachment_named_as_second_reading_is_the_forms_null():
    """Syntactic ambiguity: naming what the modifier could also attach to means "attaches
    elsewhere" (the form's null), not a value; a legal value stays a value."""
    reqs = extraction_input(make_brief("retail", "syntactic_ambiguity"), "text").requirements
    for second in ("the old switch type", "it could describe the old keyboard's switches", "the other switch type",
                   "attaches to the old switch type instead"):
        found = parse_targeted('{"flaw": "ambiguous", "requirement": "new_switch_type", "surface": "clicky", '
                               f'"second_reading": "{second}"}}', reqs)
        assert found.second_reading is None, second
    for value in ("tactile", "linear switches", "tactile switches"):
        found = parse_targeted('{"flaw": "ambiguous", "requirement": "new_switch_type", "surface": "clicky", '
                               f'"second_reading": "{value}"}}', reqs)
        assert found.second_reading == value
    lexical = parse_targeted('{"flaw": "ambiguous", "requirement": "payment method", "surface": "my card", '
                             '"second_reading": "my gift card"}', reqs)
    assert (lexical.requirement, lexical.second_reading) == ("payment_method_id", "my gift card")


def test_multi_form_variants():
    found = parse_multi('Here you go:\n```json\n{"flaws": [{"flaw": "Withheld", '
                        '"requirement": "the size of the new mechanical keyboard"},'
                        ' {"flaw": "extras", "requirement": "None"}, {"flaw": "none"},]}\n```', REQS)
    assert [(f.flaw, f.requirement) for f in found] == [("withheld", "new_size"), ("extras", None)]
    assert parse_multi('{"flaws": [{"flaw": "withheld", "requirement": "the colour"}]}', REQS) is None


def test_json_reply_tolerance():
    assert parse_json_reply('{"a": [1, 2,], "b": "x",}') == {"a": [1, 2], "b": "x"}
    assert parse_json_reply("{'a': None, 'b': True}") == {"a": None, "b": True}
    assert parse_json_reply("{'a': open('x')}") is None  # a literal only, never code
    assert parse_json_reply("{broken") is None


@pytest.mark.parametrize("reply, expected", [
    ("I'd like to return order #W1.", "I'd like to return order #W1."),
    ('"I\'d like to return order #W1."', "I'd like to return order #W1."),
    ("\u201cI'd like to return order #W1.\u201d", "I'd like to return order #W1."),
    ("Message: I'd like to return order #W1.", "I'd like to return order #W1."),
    ("```\nI'd like to return order #W1.\n```", "I'd like to return order #W1."),
    ('I said "hello" and "bye"', 'I said "hello" and "bye"'),
    (None, ""),
])
def test_writer_replies(reply, expected):
    assert parse_writer(reply) == expected
