"""The structure of one text as attribution reads it: sentences, clauses, and how far a mention
stands from the words that name each requirement (host-agnostic)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from miscue.language.text import Token

WINDOW = 12  # tokens: how far anchors and names may stand from a mention to attribute it
_BREAK = re.compile(r"[,;:()\[\].!?]|\s[-–—]|[-–—]\s")  # a spaced dash, not a hyphen ("decent-sized")


def breaks(between: str) -> bool:
    """The text between two words ends a clause."""
    return _BREAK.search(between) is not None
#: words that say a value holds for several things
DISTRIBUTIVE = {"both", "all", "each", "either", "every", "everything"}
PLURAL = {"them", "they", "those", "these"}
#: words that bind a value to the name after it ("business for the cabin", "a bigger one as the size")
GLUE = {"1", "ones", "for", "the", "a", "an", "as", "of", "new", "my", "in", "on", "be", "should", "would", "is"}


def sentences(text: str, toks: list[Token], ends: str = ".!?;\n") -> list[int]:
    """The sentence index of every token (sentences end at . ! ? ; or a line break)."""
    out, n, last = [], 0, 0
    for t in toks:
        n += sum(1 for ch in text[last:t.start] if ch in ends)
        last = t.start
        out.append(n)
    return out


@dataclass
class Context:
    """What attribution needs of one text: its tokens, each token's sentence, the cue positions."""

    text: str
    toks: list[Token]
    sentence: list[int]
    cue_pos: dict[str, list[int]]
    period: list[int]  # the sentence index up to full stops only (semicolons do not end it)
    covered: set[int] = field(default_factory=set)  # tokens inside a value mention found so far
    listed: set[int] = field(default_factory=set)  # tokens of identifier mentions (a list of ids is not a clause break)

    @cached_property
    def starts(self) -> dict[int, int]:
        """The token index at each character offset where a token starts (a mention's first token)."""
        return {t.start: k for k, t in enumerate(self.toks)}

    @cached_property
    def ends(self) -> dict[int, int]:
        """The token index at each character offset where a token ends (a mention's last token)."""
        return {t.end: k for k, t in enumerate(self.toks)}

    def distributive(self, span: tuple[int, int]) -> bool:
        """The mention's sentence says the value holds for several things ("both to economy", "all
        my reservations to economy", "since I no longer need them"); a "both" inside another value
        ("2 bags, both paid") quantifies that value, not this one."""
        here = self.sentence[span[0]] if self.sentence else 0
        a, b = self.clause(span)
        return any((t.text in DISTRIBUTIVE and k not in self.covered) or (t.text in PLURAL and a <= k < b)
                   for k, t in enumerate(self.toks) if self.sentence[k] == here)

    def distance(self, span: tuple[int, int], positions: Iterable[int]) -> float:
        """Tokens between a mention and the nearest cue; a cue after the mention counts double
        (in English a value mostly follows what it qualifies: "cancel #A since ..") and half a
        window more past a clause break ("A to my Visa, B to ..": B starts the next item); a cue
        in another sentence counts a whole window more."""
        best = float(10 ** 6)
        here = self.sentence[span[0]] if self.sentence else 0
        for p in positions:
            if p < span[0]:
                d = float(span[0] - p)
            elif p >= span[1] and all(t.text in GLUE for t in self.toks[span[1]:p]):
                d = 1.0  # "a comfortable one for the new keyboard size": bound by "for the"
            elif p >= span[1]:
                d = 2.0 * (p - span[1] + 1)
                if breaks(self.text[self.toks[span[1] - 1].end:self.toks[p].start]):
                    d += WINDOW // 2
            else:
                d = 0.0
            if self.sentence and self.sentence[p] != here:
                d += WINDOW
            best = min(best, d)
        return best

    def same_clause(self, span: tuple[int, int], positions: Iterable[int], shared: set[int]) -> bool:
        """A cue (not a shared one) stands in the mention's clause, before or after it, with no
        clause break between (a list of ids is one clause: "upgrade A, B and C to business")."""
        a, b = self.listing(span)
        return any(a <= p < b for p in positions if p not in shared)

    def listing(self, span: tuple[int, int]) -> tuple[int, int]:
        """The mention's clause, gone on back over a list of ids ("upgrade A, B and C to business")."""
        a, b = self.clause(span)
        while a > 0 and a - 1 in self.listed:
            a, _ = self.clause((a - 1, a))
        return a, b

    def _break_before(self, k: int) -> bool:
        return k == 0 or breaks(self.text[self.toks[k - 1].end:self.toks[k].start])

    def clause(self, span: tuple[int, int]) -> tuple[int, int]:
        """The token range of the clause around a mention (between clause breaks)."""
        a, b = span
        while not self._break_before(a):
            a -= 1
        while b < len(self.toks) and not self._break_before(b):
            b += 1
        return a, b

    def clauses(self) -> list[list[tuple[int, int]]]:
        """Every sentence as its clauses' token ranges."""
        out: list[list[tuple[int, int]]] = []
        start = 0
        for k in range(1, len(self.toks) + 1):
            if k == len(self.toks) or self.sentence[k] != self.sentence[k - 1] or self._break_before(k):
                if not out or self.sentence[start] != self.sentence[out[-1][-1][0]]:
                    out.append([])
                out[-1].append((start, k))
                start = k
        return out

    def singular(self, span: tuple[int, int]) -> bool:
        """The mention's clause refers to one thing ("... as I no longer need it"), or a relative
        clause opens right before it, which attaches to the nearest noun ("#A and #B which I no
        longer need")."""
        a, b = self.clause(span)
        if any(t.text in DISTRIBUTIVE | PLURAL for t in self.toks[a:b]):
            return False
        relative = any(t.text in ("which", "wich", "that") for t in self.toks[max(a, span[0] - 3):span[0]])
        return relative or any(t.text in ("it", "its") for t in self.toks[span[0]:b])

    def local(self, span: tuple[int, int], slots: list[str], shared: set[int]) -> list[str]:
        """The slots whose own words (not shared ones) stand in the mention's clause."""
        a, b = self.clause(span)
        return [s for s in slots if any(a <= p < b and p not in shared for p in self.cue_pos.get(s, ()))]

    def cued_here(self, span: tuple[int, int], slots: list[str], shared: set[int], period: bool = False) -> bool:
        """A cue of one of the slots (not one they all share) stands in the mention's sentence
        (``period``: its sentence up to a full stop, across semicolons)."""
        index = self.period if period else self.sentence
        here = index[span[0]] if index else 0
        return any(index[p] == here for s in slots for p in self.cue_pos.get(s, ()) if p not in shared)
