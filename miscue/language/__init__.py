"""Value domains and text normalisation (DESIGN section 6a), free of English rules.

Adapters supply the data (:mod:`~miscue.language.domain`: each requirement's legal values with the
ways customers say them, the words that name and anchor it, the operations and extra details a
customer may mention); :mod:`~miscue.language.text` normalises; :mod:`~miscue.language.mentions`
and :mod:`~miscue.language.states` are what a grounder finds in a text and the state of each
requirement it leaves. The grounder itself -- the English of pointers, vague words, premises and
requests -- is the rule grammar of the offline room, reached through :mod:`miscue.grammar`.
"""

from miscue.language.domain import Detail, Domains, LegalValue, Member, SlotDomain
from miscue.language.mentions import Grounding, Mention
from miscue.language.text import close, fold, norm, tokens, words

__all__ = ["Detail", "Domains", "Grounding", "LegalValue", "Member", "Mention", "SlotDomain", "close", "fold", "norm",
           "tokens", "words"]
