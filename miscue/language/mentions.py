"""What the grounder finds in a text: mentions (a value, a part of a list, the value the
customer has now, a pointer, a vague word, an operation, an extra detail) and the grounding of a
whole text (its mentions, premises and requests)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from miscue.language.text import words


@dataclass(frozen=True)
class Mention:
    kind: str  # value | current | referring | vague | operation | extra | unknown (a value no legal one is)
    start: int  # character span in the text
    end: int
    text: str
    slots: tuple[str, ...] = ()  # the slot(s) it is attributed to; several: unattributed between them
    values: tuple[str, ...] = ()  # value keys (value/current kinds); several: ambiguous
    ref: str | None = None  # operation/extra: the detail's ref
    in_premise: bool = False
    weak: bool = False  # a member said by a weak form (a date several segments share)
    candidates: tuple[str, ...] = ()  # every slot the words could belong to (before attribution)
    comparative: bool = False  # a vague mention that compares ("more comfortable"): it stands for a value alone
    scoped: bool = False  # its reading depends on structure (a negator's reach, a modifier's head), not a word's senses

    @property
    def attributed(self) -> bool:
        return len(self.slots) == 1

    @property
    def ambiguous(self) -> bool:
        return len(self.values) > 1


@dataclass
class Grounding:
    """Every mention found in one text."""

    text: str
    mentions: list[Mention] = field(default_factory=list)
    premises: list[tuple[int, int]] = field(default_factory=list)  # character spans
    requests: list[tuple[int, int]] = field(default_factory=list)

    def of(self, slot: str, *kinds: str) -> list[Mention]:
        """The mentions attributed to ``slot`` (of the given kinds)."""
        return [m for m in self.mentions if m.slots == (slot,) and (not kinds or m.kind in kinds)]

    def touching(self, slot: str, *kinds: str) -> list[Mention]:
        """The mentions that could belong to ``slot``, attributed or not."""
        return [m for m in self.mentions if slot in m.slots and (not kinds or m.kind in kinds)]

    def could_be(self, slot: str, *kinds: str) -> list[Mention]:
        """The mentions whose words fit ``slot``, wherever the words around attached them."""
        return [m for m in self.mentions if slot in (m.candidates or m.slots) and (not kinds or m.kind in kinds)]

    def values_of(self, slot: str) -> set[str]:
        """Value keys the text states, unambiguously, for ``slot`` (not as a current value)."""
        return {m.values[0] for m in self.of(slot, "value") if len(m.values) == 1 and not m.in_premise}

    def doubted(self, slot: str) -> set[str]:
        """Value keys the text mentions for ``slot`` inside a premise taken for granted."""
        return {v for m in self.touching(slot, "value") if m.in_premise for v in m.values}

    def commented(self, start: int) -> Mention | None:
        """The value a bracket opened right before ``start`` comments on: the last one said before
        it, a few words back, in one sentence ("... CA 92101 (same as my old order)")."""
        if not self.text[:start].rstrip().endswith("("):
            return None
        return next((n for n in sorted(self.mentions, key=lambda n: -n.end)
                     if n.kind in ("value", "member") and n.slots and n.end <= start
                     and len(words(self.text[n.end:start])) <= 6 and not re.search(r"[.;!?]", self.text[n.end:start])), None)

    def details(self, kind: str) -> list[Mention]:
        return [m for m in self.mentions if m.kind == kind]

    @cached_property
    def covered(self) -> list[tuple[int, int]]:
        """Character spans of every mention (for finding what the text says about nothing)."""
        return sorted((m.start, m.end) for m in self.mentions)
