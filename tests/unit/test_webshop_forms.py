"""WebShop's value domains (adapters/webshop/forms.py): the ways shoppers say a price ceiling, a
size, a pack, a colour, an attribute, a store capability, ground to the host's values."""

from __future__ import annotations

import pytest

from miscue.adapters.webshop import WebShopAdapter
from miscue.adapters.webshop.forms import attr_forms, attr_heard, price_forms
from miscue.language import words
from miscue.schema import Intent

from support.grounded import read


@pytest.fixture(scope="module")
def webshop() -> WebShopAdapter:
    return WebShopAdapter()


@pytest.fixture(scope="module")
def intents(webshop):
    seeds = {s.task_id: s for s in webshop.load_seeds()}

    def intent(task: str) -> Intent:
        check = webshop.validate(seeds[task])
        assert check.ok and check.intent is not None, check.code
        return check.intent
    return intent


def _state(webshop, intent: Intent, slot: str, text: str):
    return read(webshop, intent, text)[slot]


@pytest.mark.parametrize("said", ["under $60", "less than 60 dollars", "below $60", "$60 max", "no more than 60",
                                  "60 bucks", "a budget of $60", "nothing over sixty dollars", "up to $60"])
def test_a_price_said_many_ways_grounds_to_the_ceiling(webshop, intents, said):
    intent = intents("1")  # squat proof leggings, xl, price <= 60
    assert intent.condition("price").value == 60
    st = _state(webshop, intent, "price", f"squat proof leggings in xl, {said}")
    assert st.state == "true", (said, st)


def test_another_ceiling_is_another_legal_value(webshop, intents):
    intent = intents("1")
    st = _state(webshop, intent, "price", "squat proof leggings in xl, under $45")
    assert st.state == "other" and st.values == ("45",)


@pytest.mark.parametrize("said", ["extra large", "x-large", "XL", "size extra large"])
def test_letter_sizes_said_as_words(webshop, intents, said):
    intent = intents("1")
    assert intent.condition("option:size").value == "xl"
    assert _state(webshop, intent, "option:size", f"squat proof leggings in {said}, under $60").state == "true"
    small = _state(webshop, intent, "option:size", "squat proof leggings in small, under $60")
    assert small.state == "other" and small.values == ('"s"',)  # not x-small: "small" is its own size


@pytest.mark.parametrize("task, slot, said", [
    ("10", "attr:4 way stretch", "olive 4-way stretch tummy control leggings"),
    ("10", "attr:4 way stretch", "olive four way stretch tummy control leggings"),
    ("22", "attr:high waist", "high-waisted fleece lined leggings"),
    ("59", "attr:no box spring needed", "a queen bed frame that doesn't need a box spring"),
    ("5", "attr:metal frame", "a grey metal bed frame"),
    ("12", "attr:long sleeve", "a long-sleeved tee"),
])
def test_attribute_variants_ground(webshop, intents, task, slot, said):
    assert _state(webshop, intents(task), slot, said).state == "true", said


def test_x_free_and_no_x_are_one_feature():
    said = {words(f) for f in attr_forms("soy free")}
    assert {words("soy-free"), words("no soy"), words("without soy")} <= said
    assert words("soy free") in {words(f) for f in attr_forms("no soy")}
    assert words("no added sugar") in {words(f) for f in attr_forms("no sugar added")}


@pytest.mark.parametrize(("attribute", "offered", "heard_only"), [
    ("pu leather", "pu leather", "pu leathered"),  # no shopper says "pu leathered" or "solid wooded"
    ("solid wood", "solid wood", "solid wooded"),
    ("with mirror", "mirror", "withmirror"),  # "a palette with matte finish and a mirror"
    ("high waist", "high waisted", "highwaist"),  # the nouns that take "-ed" keep it
])
def test_a_writer_is_offered_only_forms_shoppers_use(attribute, offered, heard_only):
    assert offered in attr_forms(attribute) and heard_only not in attr_forms(attribute)
    assert heard_only in attr_heard(attribute)


def test_packs_and_counts(webshop, intents):
    intent = intents("9")  # herbal tea, size "20 count (pack of 6)"
    for said in ("20 count, pack of 6", "a 6-pack of the 20 count boxes", "6 pack"):
        assert _state(webshop, intent, "option:size", f"rooibos tea for digestion and sleep, {said}").state == "true", said
    plain = _state(webshop, intent, "option:size", "rooibos tea for digestion and sleep, 20 count")
    assert plain.state == "other" and plain.values == ('"20 count"',)  # the exact value wins over a part of another


def test_a_word_two_values_share_is_ambiguous(webshop, intents):
    intent = intents("12")  # men's t-shirts, colour navy; the cluster also sells royal blue
    st = _state(webshop, intent, "option:color", "blue long sleeve tee with a chest pocket, max $30")
    assert st.state == "ambiguous" and set(st.values) == {'"navy"', '"royal blue"'}
    assert _state(webshop, intent, "option:color", "navy long sleeve tee with a chest pocket").state == "true"


def test_jeans_sizes(webshop, intents):
    intent = intents("51")  # 34w x 32l
    for said in ("34x32", "34 x 32", "34W 32L", "34 waist 32 length"):
        assert _state(webshop, intent, "option:size", f"slim fit jeans, {said}, under $60").state == "true", said


def test_operations_follow_the_adapters_mismatches(webshop, intents):
    intent = intents("53")
    domains = webshop.value_domains(intent)
    mismatches = webshop.mismatches(intent)
    ops = [d for d in domains.operations() if d.ref != "request"]
    assert [d.ref for d in ops] == [f"mismatch:{i}" for i in range(len(mismatches))]
    assert [d.forms[0] for d in ops] == [m.phrase for m in mismatches]
    sort = next(i for i, m in enumerate(mismatches) if m.reading.base["operation"] == "sort_by_price")
    found = read(webshop, intent, "Sort the soy free protein bars by lowest price and take the first one").grounding.details(
        "operation")
    assert {m.ref for m in found} == {f"mismatch:{sort}"}


def test_extras_are_said_as_their_values(webshop, intents):
    intent = intents("0")  # storage bookshelf in oak, under $200
    extras = webshop.extras(intent)
    assert extras
    for i, e in enumerate(extras):
        found = read(webshop, intent, f"storage bookshelf in oak under $200, {e.phrase}").grounding.details("extra")
        assert f"extra:{i}" in {m.ref for m in found}, e.phrase


def test_value_domains_do_not_disturb_the_adapters_shift_memory(webshop, intents):
    intent = intents("0")
    before = webshop._domain_parent
    webshop.value_domains(intent)
    assert webshop._domain_parent == before


def test_price_forms_are_distinct_wordings():
    forms = price_forms(60)
    assert forms[0] == "$60" and "under $60" in forms and "60 bucks" in forms
    assert price_forms(60, bare=False)[0] != "$60"
