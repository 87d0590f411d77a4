"""The lexical extractor: value and cue matching on the surface text, through the grounder.

It reads the text against the form's value domains with :class:`~miscue.language.Grounder`
(multi-word forms, typos tolerated, mentions attributed by the words around them) and states
each requirement (:mod:`miscue.language.states`): a requirement named by another legal value is
*substituted*, one doubted inside a premise is *presupposed*, one left to a pointer or a
subjective word is *marked*, one whose words fit several values or requirements is *ambiguous*,
one said nowhere is *withheld*. Around the requirements it looks for cues with its lexicons
(:mod:`.lexicon`): request language, an operation verb of another kind than the request's, a
long stretch that names nothing of the request, an added concrete detail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from miscue.briefs import ExtractionInput
from miscue.language import Domains, Grounding, fold
from miscue.offline.language.grounder import Grounder
from miscue.language.states import TextReading, states
from miscue.offline.extractors.base import Extractor, Premise, naming_units, pointing_units
from miscue.offline.extractors.domains import domains_of
from miscue.offline.extractors.lexicon import (
    ADDED,
    ASIDE,
    CONCRETE,
    IDENTITY,
    ITEM_BREAK,
    JUSTIFIED,
    KEPT,
    MOVED,
    OPERATION_CLASSES,
    PAST,
    SIGN_OFF,
    STATEMENT,
    STORE_OPERATIONS,
    WISH_FRAME,
    masked,
    operation_classes,
)
from miscue.offline.extractors.text import INSTRUMENT, RETURN_LEG, STOP, WORD, blank, clean, overlaps, split_spans


#: where a chunk ends: punctuation, a dash, or a condition put on what precedes ("the 5-tier one if they make it")
_CHUNK_BREAK = re.compile(r"[.;!?()]|,\s|\s-\s|\s(?=if (?:they|you) (?:make|have|carry|sell|do)\b)")


@dataclass
class _LexView:
    inp: ExtractionInput
    text: str
    low: str
    domains: Domains
    grounding: Grounding
    reading: TextReading
    known: list[tuple[int, int]] = field(default_factory=list)  # spans the requirements and the request explain


_GROUNDERS: dict[int, Grounder] = {}


def _grounder(domains: Domains) -> Grounder:
    """One grounder per form's domains (they are cached by :func:`domains_of`)."""
    if id(domains) not in _GROUNDERS:
        if len(_GROUNDERS) > 512:
            _GROUNDERS.clear()
        _GROUNDERS[id(domains)] = Grounder(domains)
    return _GROUNDERS[id(domains)]


class LexicalExtractor(Extractor[_LexView]):
    """Value and cue matching on the surface text."""

    name = "lexical"

    def view(self, inp: ExtractionInput) -> _LexView:
        domains = domains_of(inp)
        grounder = _grounder(domains)
        g = grounder.ground(inp.text or "")
        v = _LexView(inp, inp.text or "", fold(inp.text or ""), domains, g, states(g, domains))
        v.known = [(m.start, m.end) for m in g.mentions] + list(g.requests) + self._cue_spans(v) + list(g.premises) \
            + [m.span() for m in KEPT.finditer(v.low)]
        return v

    @staticmethod
    def _cue_spans(v: _LexView) -> list[tuple[int, int]]:
        out = []
        for d in v.domains.slots.values():
            for phrase in (*d.names, *d.anchors):
                p = fold(phrase).strip()
                if len(p) > 2:
                    out += [m.span() for m in re.finditer(rf"(?<!\w){re.escape(p)}s?(?!\w)", v.low)]
        return out

    # ---------------------------------------------------------------------------- evidence
    @staticmethod
    def _sentences(low: str) -> list[tuple[int, int]]:
        out, start = [], 0
        for m in re.finditer(r"[.!?]+(?=\s|$)", low):
            if low[start:m.end()].strip():
                out.append((start, m.end()))
            start = m.end()
        if low[start:].strip():
            out.append((start, len(low)))
        return [(s + len(low[s:e]) - len(low[s:e].lstrip()), e) for s, e in out]

    def request_stated(self, v: _LexView) -> bool:
        return bool(v.grounding.requests)

    def noise(self, v: _LexView) -> str | None:
        """The longest run of sentences that names nothing of the request (an item the order does
        not hold is not the request; a pointer at a requirement or a vague word for it names it: "to
        my usual address", "a modest certificate"), when it is at least 25 words and at least as
        long as everything else."""
        sents = self._sentences(v.low)
        named = naming_units(sents, v.reading, v.domains)
        empty = [not (n or p) for n, p in zip(named, pointing_units(sents, v.reading))]
        best: tuple[int, int, int] | None = None
        i = 0
        while i < len(sents):
            if not empty[i]:
                i += 1
                continue
            j = i
            while j + 1 < len(sents) and empty[j + 1]:
                j += 1
            n = len(v.low[sents[i][0]:sents[j][1]].split())
            if best is None or n > best[2]:
                best = (i, j, n)
            i = j + 1
        if best is None:
            return None
        start, end, n = sents[best[0]][0], sents[best[1]][1], best[2]
        if n >= 25 and n >= len(v.low.split()) - n:
            return v.text[start:end].strip()
        return None

    def presupposed(self, v: _LexView) -> Premise | None:
        for slot, st in v.reading.slots.items():
            if st.state != "doubted":
                continue
            premise = next(((a, b) for a, b in v.grounding.premises
                            if any(a <= m.start < b for m in st.mentions if m.in_premise)), None)
            return Premise(slot, clean(v.text[premise[0]:premise[1]]) if premise else None)
        return None

    def operation(self, v: _LexView) -> str | None:
        """An operation of another kind than the request's (or a store capability asked for),
        quoted with the words that follow it, when one of the request's own kinds is not asked for."""
        if (m := STORE_OPERATIONS.search(v.low)) is not None:
            return clean(v.text[m.start():self._clause_end(v.low, m.end())])
        wanted = operation_classes(v.inp.request)
        # a requirement's own words and values name no operation ("earbuds with noise cancelling")
        low = masked(v.low, [p for r in v.inp.requirements for p in (r.phrase, r.spoken, *r.says)])
        low = blank(low, [m.span() for m in RETURN_LEG.finditer(low)])
        said = {kind: p.search(low) for kind, p in OPERATION_CLASSES.items()}
        asked = [kind for kind in wanted if kind in said]  # the operations asked for that a verb names
        if asked and all(said[kind] for kind in asked):
            return None  # every one is said: another kind said too is part of the story, not a swap
        for kind, m in said.items():
            if m is not None and kind not in wanted:
                return clean(v.text[m.start():self._clause_end(v.low, m.end())])
        return None

    @staticmethod
    def _clause_end(low: str, start: int) -> int:
        stop = re.compile(r"[,.;:!?()]|\s-\s").search(low, start)
        return stop.start() if stop else len(low)

    def extra(self, v: _LexView) -> str | None:
        """An added concrete detail the requirements do not account for: a chunk opened by an
        aside ("by the way, I now live at ...", "oh and ... in case that matters") or naming a
        street address or a count of things, with content words no requirement explains."""
        covered = list(v.known) + [m.span() for m in IDENTITY.finditer(v.low)] + [m.span() for m in INSTRUMENT.finditer(v.low)]
        asked = {w for w in WORD.findall(fold(v.inp.request)) if w not in STOP}  # "the shipping address", "pending"
        chunks = self._chunks(v.low)
        for k, (s, e) in enumerate(chunks):
            part = v.low[s:e]
            aside = ASIDE.search(part) or (k > 0 and ASIDE.search(v.low[chunks[k - 1][0]:chunks[k - 1][1]])
                                           and not v.low[chunks[k - 1][0]:chunks[k - 1][1]].strip(" ,.-").split()[2:])
            added = ADDED.search(part) or (k + 1 < len(chunks) and JUSTIFIED.search(v.low[chunks[k + 1][0]:chunks[k + 1][1]])
                                           and not STATEMENT.search(part) and not self._so_asks(v, chunks[k + 1]))
            concrete = CONCRETE.search(part)
            if not (aside or concrete or added):
                continue
            left = [m for m in WORD.finditer(part) if m.group(0).strip("'-") not in STOP | asked
                    and not overlaps((s + m.start(), s + m.end()), covered)]
            if len(left) >= (1 if added else 2) or (aside and MOVED.search(part)):
                detail = re.sub(r"^\s*(?:and|also|plus|but|so|oh and|oh,)\s+", "", v.text[s:e], flags=re.IGNORECASE)
                return clean(detail) or None
        return self._plain_item(v, covered)

    @staticmethod
    def _so_asks(v: _LexView, chunk: tuple[int, int]) -> bool:
        """"my chair came with broken parts, so I'd like to exchange it": what comes before "so"
        is why the customer asks, not a detail added to it."""
        s, e = chunk
        return v.low[s:e].lstrip(" ,.-").startswith("so ") and any(a < e and s < b for a, b in v.grounding.requests)

    def _plain_item(self, v: _LexView, covered: list[tuple[int, int]]) -> str | None:
        """In a request listed in shorthand, an item that names nothing of the request ("short
        sleeve tee in navy, under $40, cotton"; "a dress with button closure and pockets"): a few
        content words, no verb, no word of the request kind, not a sign-off or a name."""
        if not v.grounding.requests:
            return None
        asked = {w for w in WORD.findall(fold(v.inp.request)) if w not in STOP}
        # an item naming a requirement is about it ("two travelers: me and Kevin Smith")
        asked |= {w for d in v.domains.slots.values() for n in d.names for w in WORD.findall(fold(n)) if w not in STOP}
        # the values said are attributes, not verbs: "an upholstered queen bed frame" tells nothing happened
        values_blank = blank(v.low, [(m.start, m.end) for m in v.grounding.mentions if m.kind == "value"])
        for k, (s, e) in enumerate(self._items(v.low)):
            part = v.low[s:e]
            if k == 0 or STATEMENT.search(part) or SIGN_OFF.search(part):
                continue  # the opening (who is writing), a clause, a sign-off
            sentence = WISH_FRAME.sub(" ", next((values_blank[a:b] for a, b in self._sentences(v.low) if a <= s < b), ""))
            if STATEMENT.search(sentence) or PAST.search(sentence):
                continue  # a sentence that tells, not a list that asks ("the chair came with broken pieces")
            content = [m for m in WORD.finditer(part) if m.group(0).strip("'-") not in STOP]
            if not content or len(content) > 4 or all(v.text[s + m.start()].isupper() for m in content):
                continue  # nothing, or proper names ("Ivan Rossi", "Houston to Denver")
            if any(overlaps((s + m.start(), s + m.end()), covered) for m in content):
                continue
            if any(fuzz.ratio(m.group(0), w) >= 80 for m in content for w in asked):
                continue  # the kind of product asked for ("hoodie" in "men's hoodies")
            return clean(v.text[s:e])
        return None

    @staticmethod
    def _items(low: str) -> list[tuple[int, int]]:
        """The items of a shorthand list: split at punctuation, "and", "with", "that", and the
        frames that introduce a wish ("it has to have", "would be great")."""
        return split_spans(ITEM_BREAK, low)

    @staticmethod
    def _chunks(low: str) -> list[tuple[int, int]]:
        return split_spans(_CHUNK_BREAK, low)

    def reading(self, v: _LexView) -> tuple[TextReading, Domains]:
        return v.reading, v.domains
