"""The rule grammar: the only code in the project that matches English by rules (DESIGN 6a).

:mod:`.grounder` finds which legal value a text gives for each requirement (with :mod:`.cues`, the
English of pointers, vague words, premises and requests, :mod:`.context` and :mod:`.structure`, a
clause's reach); :mod:`.instructions` reads a task's own instructions for graph settling. The two
offline extractors read with it, and the kernel reaches it only through :data:`GRAMMAR`, the entry
point of the group ``miscue.grammars`` (:mod:`miscue.grammar`), never by importing this package.
"""

from __future__ import annotations

import re

from miscue.language import Domains, Grounding, fold
from miscue.offline.language import cues
from miscue.offline.language.grounder import Grounder
from miscue.offline.language.instructions import read_instructions
from miscue.grammar import InstructionReading

#: a value said negated ("no checked bags", "not waterproof", "without a hood")
_NEGATOR = re.compile(r"^(?:no|not|non|without)\b", re.IGNORECASE)


class OfflineGrammar:
    """The offline room's rule grammar, as the kernel's :class:`miscue.grammar.Grammar`."""

    def grounder(self, domains: Domains) -> Grounder:
        return Grounder(domains)

    def read_instructions(self, text: str, grounding: Grounding, domains: Domains,
                          current: frozenset[str]) -> InstructionReading:
        return read_instructions(text, grounding, domains, current)

    def reads_as_pointer(self, phrase: str) -> bool:
        return any(a <= 4 for a, _ in cues.spans(cues.REFERRING, fold(phrase)))

    def reads_as_vague(self, phrase: str) -> bool:
        return bool(cues.spans(cues.VAGUE, fold(phrase)))

    def negator(self, said: str) -> str:
        m = _NEGATOR.match(said)
        return m.group(0) if m else ""


GRAMMAR = OfflineGrammar()

__all__ = ["GRAMMAR", "Grounder", "OfflineGrammar", "read_instructions"]
