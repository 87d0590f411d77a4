"""Writer materials the planner vets: a count said without its number is no word of two senses."""

from __future__ import annotations

from miscue.language.domain import LegalValue, SlotDomain
from miscue.planning.materials import ambiguous_words


class _Grounder:
    """Records what the planner asked it to ground (a count's shared word never gets that far)."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def ground(self, text: str):
        self.asked.append(text)
        raise AssertionError(f"grounded {text!r}")


def test_a_bag_count_without_its_number_is_not_lexically_ambiguous():
    """'checked bags' fits one bag and two only because it leaves the number out (the dry run's
    readers took such texts for vagueness, and they were right)."""
    two = LegalValue(2, ("2 checked bags", "checked bags"))
    one = LegalValue(1, ("1 checked bag", "checked bags"))
    domain = SlotDomain("change_bags.bags", 2, (two, one), ordered=True)
    grounder = _Grounder()
    assert ambiguous_words(grounder, domain, {one.key}) == []  # type: ignore[arg-type]
    assert grounder.asked == []
