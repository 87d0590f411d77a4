"""The offline writer's small phrasing rules: articles as they are spoken, and bags and insurance
listed as noun phrases ("I'll have one checked bag and no travel insurance"), never a
preposition where a noun belongs ("I'll have without travel insurance")."""

from __future__ import annotations

import re

import pytest

from miscue.offline.writer.trips import _extras
from miscue.offline.writer.voice import article


@pytest.mark.parametrize(("noun", "said"), [
    ("one way flight", "a one way flight"), ("one-way flight", "a one-way flight"), ("round trip flight", "a round trip flight"),
    ("economy seat", "an economy seat"), ("umbrella", "an umbrella"), ("unicorn mug", "a unicorn mug"),
])
def test_an_article_follows_the_sound_of_the_word(noun, said):
    assert article(noun) == said


class _Voice:
    """Picks the option given by ``choice`` (the noun-list form under test)."""

    def __init__(self, choice: int) -> None:
        self.choice = choice

    def pick(self, options):
        return options[self.choice % len(options)]


@pytest.mark.parametrize("choice", [0, 1, 2])
def test_insurance_declined_with_without_lists_as_no_insurance(choice):
    out = _extras(["1 checked bag", "without travel insurance"], _Voice(choice))
    text = " ".join(out)
    assert "no travel insurance" in text
    assert not re.search(r"\b(?:have|and) without\b", text)


def test_a_declining_clause_stays_a_sentence_of_its_own():
    out = _extras(["2 checked bags", "skip the insurance"], _Voice(1))
    assert out == ["I'll have 2 checked bags.", "Skip the insurance."]

