"""Reading a task's own instructions (issue 16) into the kernel's
:class:`~miscue.grammar.InstructionReading`: the rule grammar's part of graph settling.

The grounder (:mod:`~miscue.offline.language.grounder`) finds which legal value the instruction
text gives for each requirement; this module reads the few things a requirement's *status* also
depends on:

- **indifference**: "does not care about waterproof or not", "do not care about other specs" —
  the requirements named inside such a clause are waived by the customer;
- **bounds**: "i7 or above", "at least 2", "up to $650", "at most" — the value is a bound, not an
  exact value;
- **extremes**: "the cheapest", "the most expensive", "the fastest", "the smallest balance" — an
  order the customer wants the outcome picked by;
- **preference orders**: "prefer battery > USB > AC", "prefer i5 over i7";
- **the current value**: "keep the capacity and type", "the same size" — stated for the
  requirements whose value is the one the customer has now (the host says which).

Each cue is attributed to requirements by the mentions the grounder found next to it (a bound to
the value it qualifies, an extreme to the thing it picks). Nothing here knows a host.
"""

from __future__ import annotations

import re

from miscue.language import Domains, Grounding, Mention
from miscue.language.states import TextReading, states
from miscue.grammar import Cue, InstructionReading

#: a clause in which the customer says they do not care (what follows, up to the clause's end)
_INDIFFERENT = re.compile(
    r"\b(?:(?:do|does|did)(?:n'?t| not)|never|not)\s+(?:really\s+|much\s+)?(?:care|mind)\b"
    r"(?:\s+(?:about|for|which|what|whether|if))?"
    r"|\bno\s+preference\s+(?:about|for|on|between)\b|\b(?:is|are)\s+not\s+important\b",
    re.I,
)
_CLAUSE_END = re.compile(r"[.;:!?\n]|,\s*(?:but|and|so|as long as)\b|\s(?:but|as long as|so long as|just|instead)\s", re.I)
#: "other specs", "the other options", "anything else": every property of the object in question
_OTHERS = re.compile(r"\b(?:other|remaining|rest of the)\s+(?:specs?|specifications|options|features|details|attributes|things)\b"
                     r"|\banything\s+else\b|\bthe\s+rest\b", re.I)
_AT_LEAST_AFTER = re.compile(r"\bor\s+(?:above|higher|more|better|greater|bigger|larger|newer|up)\b", re.I)
_AT_MOST_AFTER = re.compile(r"\bor\s+(?:below|lower|less|fewer|under|smaller|cheaper)\b", re.I)
_AT_LEAST_BEFORE = re.compile(r"\b(?:at\s+least|no\s+less\s+than|minimum\s+of|a\s+minimum\s+of)\b", re.I)
_AT_MOST_BEFORE = re.compile(r"\b(?:at\s+most|up\s+to|no\s+more\s+than|maximum\s+of|less\s+than|lower\s+than"
                             r"|(?:under|below)(?=\s*\$?\d))\b", re.I)
_LOWEST = re.compile(r"\b(?:cheapest|least\s+expensive|lowest[\s-]+(?:price[d]?|cost)|most\s+affordable)\b", re.I)
_HIGHEST = re.compile(r"\b(?:most\s+expensive|priciest|highest[\s-]+(?:price[d]?|end))\b", re.I)
_EXTREME = re.compile(r"\b(?:fastest|quickest|shortest|earliest|latest|smallest|largest|biggest|best|fewest|easiest|hardest"
                      r"|least\s+(?!expensive)\w+)\b", re.I)
_PREFER = re.compile(r"\bprefer(?:s|red|ably)?\b", re.I)
#: "keep the capacity and type", "same size": the value the customer has now
_SAME = re.compile(r"\b(?:keep(?:s|ing)?|same|unchanged|retain(?:s|ing)?|as\s+it\s+is)\b", re.I)
_SENTENCE = re.compile(r"[.!?\n]")
_NEAR = 24  # characters a bound may stand from the value it qualifies

def _sentence_of(text: str, pos: int) -> tuple[int, int]:
    starts = [m.end() for m in _SENTENCE.finditer(text, 0, pos)]
    start = starts[-1] if starts else 0
    end = _SENTENCE.search(text, pos)
    return start, end.start() if end else len(text)


def _clause_after(text: str, pos: int) -> int:
    m = _CLAUSE_END.search(text, pos)
    return m.start() if m else len(text)


def _slots(m: Mention) -> tuple[str, ...]:
    return m.slots or m.candidates


def _content(g: Grounding) -> list[Mention]:
    return [m for m in g.mentions if m.kind in ("value", "member", "current", "vague", "referring") and _slots(m)]


def _words(text: str) -> str:
    return " " + re.sub(r"[^a-z0-9]+", " ", text.lower()).strip() + " "


def _indifference(text: str, g: Grounding, domains: Domains, reading: TextReading) -> list[Cue]:
    out = []
    for m in _INDIFFERENT.finditer(text):
        end = _clause_after(text, m.end())
        clause = text[m.end():end]
        inside = [x for x in _content(g) if x.start >= m.end() and x.end <= end]
        slots = {s for x in inside for s in _slots(x)}
        said = _words(clause)
        for slot, d in domains.slots.items():
            if any(f" {name.lower()} " in said for name in d.names if len(name) > 2):
                slots.add(slot)
        if _OTHERS.search(clause):  # "other specs": the properties of the object the sentence is about
            lo, hi = _sentence_of(text, m.start())
            near = [x for x in _content(g) if lo <= x.start and x.end <= hi and not (m.end() <= x.start < end)]
            objects = {domains[s].anchors for x in near for s in _slots(x) if s in domains and domains[s].has_current}
            slots |= {s for s, d in domains.slots.items()
                      if d.has_current and d.anchors in objects and reading.slots[s].state != "true"}
        if slots:
            out.append(Cue("indifferent", text[m.start():end].strip(), m.start(), end, tuple(sorted(slots))))
    return out


def _same(text: str, g: Grounding, domains: Domains) -> list[Cue]:
    out = []
    for m in _SAME.finditer(text):
        end = _clause_after(text, m.end())
        said = _words(text[m.end():end])
        slots = {s for x in _content(g) if x.start >= m.end() and x.end <= end for s in _slots(x)}
        slots |= {s for s, d in domains.slots.items() if any(f" {n.lower()} " in said for n in d.names if len(n) > 2)}
        slots = {s for s in slots if s in domains and domains[s].has_current}
        if slots:
            out.append(Cue("same", text[m.start():end].strip(), m.start(), end, tuple(sorted(slots))))
    return out


def _nearest(mentions: list[Mention], start: int, end: int, before: bool, after: bool, reach: int) -> Mention | None:
    best: tuple[int, int, Mention] | None = None
    for x in mentions:
        if before and x.end <= start and start - x.end <= reach:
            d = start - x.end
        elif after and x.start >= end and x.start - end <= reach:
            d = x.start - end
        else:
            continue
        key = (d, x.start)
        if best is None or key < best[:2]:
            best = (d, x.start, x)
    return best[2] if best else None


def _attributed(kind: str, m: re.Match, text: str, g: Grounding, before: bool, after: bool, reach: int) -> Cue | None:
    lo, hi = _sentence_of(text, m.start())
    pool = [x for x in _content(g) if lo <= x.start and x.end <= hi and x.kind != "current"]
    near = _nearest(pool, m.start(), m.end(), before, after, reach)
    if near is None:
        return None
    return Cue(kind, m.group(0), m.start(), m.end(), _slots(near), near.values)


def _preferences(text: str, g: Grounding) -> list[Cue]:
    out: list[Cue] = []
    for pattern, kind in ((_AT_LEAST_AFTER, "at_least"), (_AT_MOST_AFTER, "at_most")):
        out += [c for m in pattern.finditer(text) if (c := _attributed(kind, m, text, g, True, False, _NEAR))]
    for pattern, kind in ((_AT_LEAST_BEFORE, "at_least"), (_AT_MOST_BEFORE, "at_most")):
        out += [c for m in pattern.finditer(text) if (c := _attributed(kind, m, text, g, False, True, _NEAR))]
    for pattern, kind in ((_LOWEST, "lowest"), (_HIGHEST, "highest"), (_EXTREME, "extreme")):
        for m in pattern.finditer(text):
            c = _attributed(kind, m, text, g, False, True, 40) or _attributed(kind, m, text, g, True, False, 40)
            if c:
                out.append(c)
            elif kind != "extreme":  # "upgrade all your items to the most expensive variants": an order on nothing named
                out.append(Cue(kind, m.group(0), m.start(), m.end()))
    for m in _PREFER.finditer(text):
        end = _clause_after(text, m.end())
        inside = [x for x in _content(g) if x.start >= m.end() and x.end <= end]
        if inside:
            out.append(Cue("prefer", text[m.start():end].strip(" ,;:()"), m.start(), end,
                           tuple(sorted({s for x in inside for s in _slots(x)})), tuple(v for x in inside for v in x.values)))
    return sorted(out, key=lambda c: (c.start, c.kind))


def read_instructions(text: str, grounding: Grounding, domains: Domains,
                      current: frozenset[str] = frozenset()) -> InstructionReading:
    """The instructions' requirement states (the grounder's) and their cues; ``current``: the
    requirements whose value is the one the customer has now (the host knows which)."""
    reading = states(grounding, domains)
    cues = _indifference(text, grounding, domains, reading) + _same(text, grounding, domains) + _preferences(text, grounding)
    return InstructionReading(text, reading, sorted(cues, key=lambda c: (c.start, c.kind)), current)
