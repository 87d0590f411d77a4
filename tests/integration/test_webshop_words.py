"""The WebShop adapter's words for the writer's cards, its leak checks, extras and mismatches."""

from __future__ import annotations

import json

import pytest
from support.webshop_tiny import P1, root_intent, tiny_adapter

from miscue.adapters.webshop import WebShopAdapter
from miscue.host import NotExecutable


@pytest.fixture()
def tiny(tmp_path) -> WebShopAdapter:
    return tiny_adapter(tmp_path / "ws")


def test_words_for_cards_and_leak_checks(tiny):
    intent = root_intent(tiny)
    words = [tiny.context_line(intent), tiny.request_phrase(intent)] + [
        f"{tiny.slot_phrase(intent, c.slot)}: {tiny.spoken_value(intent, c.slot, c.value)}" for c in intent.conditions
    ]
    assert "shopping in the women's running shoes section" in words[0]
    assert tiny.spoken_value(intent, "price", 60) == "$60"
    assert tiny.spoken_value(intent, "option:color", "black | white") == "black/white"
    assert all(tiny.leaks(intent, w) == [] for w in words)
    assert P1 not in json.dumps(intent.model_dump()) and "Acme" not in json.dumps(intent.model_dump())
    assert tiny.leaks(intent, f"please buy {P1.lower()}") == [f"leak:asin {P1}"]
    assert tiny.leaks(intent, "i want the acme women's lightweight running shoe, size 8") == ["leak:product_name"]
    withheld = tiny.leaks(intent, "i want navy shoes in size 8 under $60", withheld=["8", 60])
    assert withheld == ["leak:withheld '8'", "leak:withheld 60"]
    assert tiny.leaks(intent, "i want navy shoes in size 7", withheld=["8"]) == []
    assert tiny.slot_name_states_value("attr:lightweight") and not tiny.slot_name_states_value("option:size")
    assert tiny.is_ordered_slot(intent, "price") and tiny.is_ordered_slot(intent, "option:size")
    assert not tiny.is_ordered_slot(intent, "option:color")


def test_extras_narrow_and_mismatches_are_refused(tiny):
    intent = root_intent(tiny).without("option:size")
    truth = tiny.ground_truth(intent)
    extras = tiny.extras(intent)
    assert extras
    for extra in extras:
        narrowed = tiny.ground_truth(extra.reading)
        assert not narrowed.empty and narrowed.issubset(truth) and narrowed.hash != truth.hash
        assert extra.phrase and len(extra.reading.conditions) == len(intent.conditions) + 1
    support = tiny.fault_support()
    assert len(support) == 11 and sum(s.supported for s in support.values()) >= 10
    mismatches = tiny.mismatches(intent)
    assert support["tool_capability_mismatch"].supported and mismatches
    for m in mismatches:  # executed: nothing can be bought through an operation the site lacks
        assert tiny.ground_truth(m.reading).empty and tiny.reexecute(m.reading).empty
    bogus = intent.replace(base={**intent.base, "operation": "teleport"})
    with pytest.raises(NotExecutable, match="unknown_operation"):
        tiny.ground_truth(bogus)
    assert not tiny.ground_truth(intent).empty  # while the truth executes
