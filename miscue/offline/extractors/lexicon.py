"""The lexical extractor's lexicons: general English cues, written here (nothing is imported
from the offline writer)."""

from __future__ import annotations

import re

# Phrases with which people ask for something.
REQUEST_CUES = [re.compile(p) for p in (
    r"\bi\s*(?:'d|would)\s+(?:like|love|prefer|appreciate)\b",
    r"\bi\s+(?:want|need|wish|require)\b",
    r"\bi'?m\s+(?:looking|hoping|trying)\s+(?:for|to)\b",
    r"\bi\s+am\s+(?:looking|hoping|trying)\s+(?:for|to)\b",
    r"\bplease\b",
    r"\b(?:can|could|would|will)\s+you\b",
    r"\blooking\s+for\b",
    r"\bhelp\s+me\b",
    r"\blet\s+me\b",
    r"\b(?:is|would)\s+it\s+(?:be\s+)?possible\s+(?:for\s+me\s+)?to\b",
    r"\bkindly\b",
)]

# Pointers that leave their referent to shared knowledge.
DEICTIC = [re.compile(p) for p in (
    r"^(?:that|this|those|these)\b",
    r"\b(?:that|this|those|these)\s+one",
    r"\bthe\s+(?:usual|same|regular|previous|other|former|latter|last)\b",
    r"\bmy\s+(?:usual|regular)\b",
    r"\bthe\s+one\s+(?:i|we|you|from|that|which|with)\b",
    r"\b(?:mentioned|discussed|talked about)\b",
    r"\b(?:as|like)\s+(?:before|usual|last time)\b",
    r"\blast\s+(?:time|week|month|year)\b",
    r"\byou\s+know\b",
    r"^(?:it|them|there|then)$",
)]

# Words that describe a value by taste, degree or comparison instead of stating it.
SUBJECTIVE = frozenset("""
reasonable reasonably decent good nice fine great comfortable convenient suitable appropriate
sensible affordable cheap cheaper cheapest pricey expensive fancy modest proper ideal perfect
best better bigger biggest smaller smallest larger largest earlier earliest later latest sooner
longer shorter faster slower nicer lighter heavier roomy compact spacious generous plenty
acceptable manageable handy normal typical average moderate moderately fairly quite rather
somewhat pretty enough sufficient ample adequate ok okay alright
""".split())
DEGREE = re.compile(r"\b(?:not too|big enough|small enough|long enough|a bit|a little|kind of|sort of)\b")

# Common words with two everyday senses.
POLYSEMOUS = frozenset("""
light fair fine plain regular standard basic clear cool hard soft fast fixed flat firm match
right bright sharp heavy sound spring present second express direct premium classic natural
open close bank bill charge check card cover current date deal draft fit free gift mean mark
note order pass plan point pool post rest ring run set ship store table term tip trip top
""".split())

PREMISE = re.compile(r"(?:^|[,;:]\s*|\bthat\s+)(since|given\s+that|now\s+that|seeing\s+that|because|as)\b")
NEGATIVE = re.compile(
    r"\b(?:no\s+longer|not\s+(?:available|possible|offered|an\s+option)|unavailable|out\s+of\s+stock|"
    r"sold\s+out|discontinued|can't|cannot|can\s+not|isn't|aren't|wasn't|won't|doesn't|don't|"
    r"anymore|any\s+more|already|used\s+up|ruled\s+out|impossible|gone|expired|no\s+more|"
    r"not\s+there|unable|taken\s+care\s+of|dealt\s+with|handled)\b")
SETTLE = re.compile(
    r"\b(?:settle\s+for|make\s+do\s+with|go\s+with|fall\s+back\s+(?:on|to)|accept|take|"
    r"be\s+(?:fine|happy|ok|okay)\s+with|use|switch\s+to|opt\s+for|choose)\b")

# Verbs naming an operation one asks a service to perform.
OPERATIONS = frozenset("""
exchange return refund cancel change modify update book rebook reserve upgrade downgrade add
remove delete replace swap order buy purchase track reset transfer pay charge ship send deliver
find search get move switch renew extend redeem apply open close register sign split merge
""".split())

NP = r"(?:the|my|a|an|our|his|her|their|this|that|these|those|your)\s+[\w'-]+(?:\s+[\w'-]+){0,3}?"
COORD = r"(?:and|or|with|along\s+with|together\s+with)"
LINK = r"(?:\s*,)?\s*(?:should\s+be|would\s+be|will\s+be|must\s+be|are|is|:|-)?\s*"
COPULA = re.compile(
    r"^\s*(?:is|are|was|will\s+be|would\s+be|should\s+be|must\s+be|needs\s+to\s+be|"
    r"has\s+to\s+be|to\s+be|being|:|=|-)?\s*")
STOP_AT = re.compile(r"[,.;:!?()]|\s(?:and|but|or)\s|$")
