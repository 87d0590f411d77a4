"""Value grounding (DESIGN section 6a): which legal value a text gives for each requirement.

Adapters supply the data (:mod:`~miscue.language.domain`: each requirement's legal values with the
ways customers say them, the words that name and anchor it, the operations and extra details a
customer may mention); the matching is host-agnostic (:mod:`~miscue.language.text` normalises,
:mod:`~miscue.language.cues` knows the English of pointers, vague words, premises and requests,
:mod:`~miscue.language.grounder` finds and attributes mentions)."""

from miscue.language.domain import Detail, Domains, LegalValue, Member, SlotDomain
from miscue.language.grounder import Grounder
from miscue.language.mentions import Grounding, Mention
from miscue.language.text import close, fold, norm, tokens, words

__all__ = ["Detail", "Domains", "Grounder", "Grounding", "LegalValue", "Member", "Mention", "SlotDomain", "close", "fold", "norm",
           "tokens", "words"]
