"""What a task's instructions say about each requirement (miscue.offline.language.instructions), host-agnostic,
on small hand-built domains grounded by the real grounder; and the retail variant order the
preferences execute with (miscue.adapters.tau2.variants)."""

from __future__ import annotations

from miscue.adapters.tau2.variants import ItemSpec, comparable, item_specs, parse_field, rank, select
from miscue.language import Domains, LegalValue, SlotDomain
from miscue.offline.language import Grounder, read_instructions


def value(v, *forms):
    return LegalValue(v, (str(v), *forms))


def laptop_and_boots() -> Domains:
    return Domains({
        "lap.processor": SlotDomain("lap.processor", "i7", (value("i7", "i7 processor"), value("i5"), value("i9")),
                                    ("processor", "cpu"), ("laptop",), ordered=True, has_current=True),
        "lap.color": SlotDomain("lap.color", "space grey", (value("space grey", "space gray"), value("silver")),
                                ("color", "colour"), ("laptop",), has_current=True),
        "lap.ram": SlotDomain("lap.ram", "32GB", (value("32GB", "32 gb"), value("16GB", "16 gb"), value("8GB")),
                              ("ram", "memory"), ("laptop",), ordered=True, has_current=True),
        "boot.waterproof": SlotDomain("boot.waterproof", "no", (value("no", "not waterproof"), value("yes", "waterproof")),
                                      ("waterproof",), ("boots",), has_current=True),
        "boot.size": SlotDomain("boot.size", "8", (value("8", "size 8"), value("9", "size 9")), ("size",), ("boots",),
                                ordered=True, has_current=True),
    })


def read(text: str, current: frozenset[str] = frozenset()):
    d = laptop_and_boots()
    return read_instructions(text, Grounder(d).ground(text), d, current)


def kinds(reading, slot):
    return sorted(c.kind for c in reading.cues if slot in c.slots)


def test_cheapest_or_above_and_other_specs():
    """Retail 58: "the cheapest i7 or above, doesn't care about other specs"."""
    r = read("You want to exchange your laptop for the cheapest i7 or above, you do not care about other specs.")
    assert kinds(r, "lap.processor") == ["at_least", "lowest"]
    assert r.stated("lap.processor") and not r.waived("lap.processor")
    for slot in ("lap.color", "lap.ram"):  # the other properties of the laptop: waived, not stated
        assert r.waived(slot) is not None and not r.stated(slot)
    assert r.waived("boot.size") is None  # another object is not "other specs" of the laptop


def test_indifference_names_the_requirement_it_waives():
    """Retail 15: "does not care about waterproof or not"; the size stays stated."""
    r = read("You want size 8 boots and you do not care about waterproof or not.")
    assert r.waived("boot.waterproof") is not None and not r.stated("boot.waterproof")
    assert r.stated("boot.size") and r.waived("boot.size") is None
    assert r.state("lap.color") == "open" and not r.mentioned("lap.color")


def test_a_bound_on_another_value_is_a_preference_not_the_value():
    r = read("You want a laptop with at least 16GB of RAM.")
    assert kinds(r, "lap.ram") == ["at_least"]
    cue = next(c for c in r.cues if c.kind == "at_least")
    assert cue.values == ('"16GB"',)  # attributed by the value it qualifies
    assert not r.stated("lap.ram")  # 16GB is not the golden 32GB


def test_keep_states_only_what_the_customer_has_now():
    text = "Keep the color, but you prefer i9 over i7."
    assert not read(text).stated("lap.color")  # the host did not say the colour is the current one
    r = read(text, current=frozenset({"lap.color"}))
    assert r.stated("lap.color") and r.statement("lap.color") == "Keep the color"
    assert kinds(r, "lap.processor") == ["prefer"] and [c.kind for c in r.preferences("lap.processor")] == ["prefer"]


def test_no_instructions_state_nothing():
    r = read("")
    assert r.cues == [] and not any(r.stated(s) or r.mentioned(s) for s in laptop_and_boots().slots)


# ----------------------------------------------------------------- retail variant order
def test_option_values_rank_on_their_own_order():
    assert rank("i7") > rank("i5") and rank("1TB SSD") > rank("512GB SSD") and rank("XL") > rank("M")
    assert rank("silver") is None
    assert comparable(["i5", "i7", "i9"]) and not comparable(["silver", "space grey"])
    assert parse_field("item2.processor>=") == (2, "processor", ">=") and parse_field("items") is None


def test_select_applies_exact_values_bounds_and_the_price_order():
    variants = {
        "a": {"available": True, "price": 900, "options": {"processor": "i5", "ram": "16GB"}},
        "b": {"available": True, "price": 1200, "options": {"processor": "i7", "ram": "32GB"}},
        "c": {"available": True, "price": 1100, "options": {"processor": "i9", "ram": "16GB"}},
        "d": {"available": False, "price": 1000, "options": {"processor": "i7", "ram": "16GB"}},
    }
    assert select(variants, ItemSpec()) == ["a", "b", "c"]  # the unavailable one is never picked
    spec = item_specs({"item1.processor>=": "i7", "item1.price": "lowest", "items": []})[1]
    assert spec.bounds == {"processor": [(">=", "i7")]} and spec.price == "lowest"
    assert select(variants, spec) == ["c"]  # the cheapest i7 or above
    assert select(variants, item_specs({"item1.processor>=": "i7"})[1]) == ["b", "c"]
    assert select(variants, item_specs({"item1.ram": "16GB", "item1.price": "highest"})[1]) == ["c"]


def test_an_order_on_nothing_named_is_kept_without_requirements():
    """Retail 20: "upgrade all your items to the most expensive variants" names no requirement; the
    cue is kept (settling notes it in the ledger) but bears on none."""
    r = read("You just won a lottery, and you want to upgrade all your items to the most expensive variants.")
    assert [(c.kind, c.slots) for c in r.cues] == [("highest", ())]
