"""The lexical extractor: cue and value matching on the surface text.

Which requirement values and phrases occur, cue lexicons (request phrases, deictic pointers,
subjective words, words with two common senses, premise markers, unavailability and settling
words, operation verbs; :mod:`.lexicon`), sentence windows without any requirement (off-topic
stretches), and uncovered content words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from miscue.briefs import BlindExtraction, ExtractionInput, Requirement, TargetedExtraction
from miscue.offline.extractors.base import Extractor
from miscue.offline.extractors.lexicon import (
    COORD,
    COPULA,
    DEGREE,
    DEICTIC,
    LINK,
    NEGATIVE,
    NP,
    OPERATIONS,
    POLYSEMOUS,
    PREMISE,
    REQUEST_CUES,
    SETTLE,
    STOP_AT,
    SUBJECTIVE,
)
from miscue.offline.extractors.text import STOP, WORD, clean, fold, overlaps, spans, tokens


@dataclass
class _LexView:
    inp: ExtractionInput
    text: str
    low: str
    values: dict[str, list[tuple[int, int]]]
    phrases: dict[str, list[tuple[int, int]]]
    request_spans: list[tuple[int, int]]
    request_present: bool
    cues: list[tuple[int, int]]
    known: list[tuple[int, int]] = field(default_factory=list)  # every value/phrase/request span


class LexicalExtractor(Extractor[_LexView]):
    """Cue and value matching on the surface text."""

    name = "lexical"

    # -- the view ---------------------------------------------------------------------------
    def view(self, inp: ExtractionInput) -> _LexView:
        text = inp.text or ""
        low = fold(text)
        values = {r.slot: spans(low, r.spoken) for r in inp.requirements}
        phrases = {r.slot: spans(low, r.phrase) for r in inp.requirements}
        request_spans = spans(low, inp.request.strip().rstrip(".!?")) if inp.request.strip() else []
        request_present = bool(request_spans)
        if not request_present and inp.request.strip():
            request_present = fuzz.partial_ratio(fold(inp.request.strip().rstrip(".!?")), low) >= 92
        cues = [m.span() for pat in REQUEST_CUES for m in pat.finditer(low)]
        known = request_spans + [s for v in values.values() for s in v] + [s for v in phrases.values() for s in v]
        return _LexView(inp, text, low, values, phrases, request_spans, request_present, cues, known)

    # -- evidence ---------------------------------------------------------------------------
    @staticmethod
    def _sentences(low: str, marks: str = ".!?") -> list[tuple[int, int]]:
        out, start = [], 0
        pattern = re.compile(rf"[{re.escape(marks)}]+(?=\s|$)")
        for m in pattern.finditer(low):
            if low[start:m.end()].strip():
                out.append((start, m.end()))
            start = m.end()
        if low[start:].strip():
            out.append((start, len(low)))
        # trim leading whitespace so spans quote cleanly
        trimmed = []
        for s, e in out:
            while s < e and low[s].isspace():
                s += 1
            trimmed.append((s, e))
        return trimmed

    def noise(self, v: _LexView) -> str | None:
        """The longest stretch of sentences that touches no requirement and asks nothing, when it
        is at least 25 words and at least as long as everything else."""
        sents = self._sentences(v.low)
        empty = [not overlaps(s, v.known) and not overlaps(s, v.cues) for s in sents]
        best: tuple[int, int] | None = None
        i = 0
        while i < len(sents):
            if not empty[i]:
                i += 1
                continue
            j = i
            while j + 1 < len(sents) and empty[j + 1]:
                j += 1
            words = len(v.low[sents[i][0]:sents[j][1]].split())
            if best is None or words > len(v.low[sents[best[0]][0]:sents[best[1]][1]].split()):
                best = (i, j)
            i = j + 1
        if best is None:
            return None
        start, end = sents[best[0]][0], sents[best[1]][1]
        words = len(v.low[start:end].split())
        rest = len(v.low.split()) - words
        if words >= 25 and words >= rest:
            return v.text[start:end].strip()
        return None

    def noise_span(self, v: _LexView) -> tuple[int, int] | None:
        """Where :meth:`noise` found its passage (None: no passage)."""
        passage = self.noise(v)
        if passage is None:
            return None
        found = spans(v.low, passage)
        return found[0] if found else None

    def premise(self, v: _LexView) -> tuple[str | None, str, str | None] | None:
        """(requirement, premise clause, fallback) when a sentence treats something as unavailable
        or already dealt with and settles for something else."""
        found = self._premise(v)
        return found[:3] if found is not None else None

    def _premise(self, v: _LexView) -> tuple[str | None, str, str | None, tuple[int, int]] | None:
        for s, e in self._sentences(v.low, ".!?;"):
            sent = v.low[s:e]
            for m in PREMISE.finditer(sent):
                marker = m.start(1)
                neg = NEGATIVE.search(sent, m.end(1))
                if neg is None:
                    continue
                settle = SETTLE.search(sent, neg.end())
                if settle is None:
                    continue
                comma = sent.rfind(",", neg.start(), settle.start())
                clause_end = comma if comma != -1 else settle.start()
                clause_span = (s + marker, s + clause_end)
                fb = sent[settle.end():]
                fb_end = len(fb)
                for stop in (" instead", " anyway", " then", ",", ";", ".", "!", "?"):
                    k = fb.find(stop)
                    if k != -1:
                        fb_end = min(fb_end, k)
                fb_span = (s + settle.end(), s + settle.end() + fb_end)
                fallback = clean(v.text[fb_span[0]:fb_span[1]]) or None
                slot = self._about(v, clause_span)
                return slot, clean(v.text[clause_span[0]:clause_span[1]]), fallback, (s, e)
        return None

    def _about(self, v: _LexView, span: tuple[int, int]) -> str | None:
        for r in v.inp.requirements:
            if overlaps(span, v.values[r.slot]):
                return r.slot
        for r in v.inp.requirements:
            if overlaps(span, v.phrases[r.slot]):
                return r.slot
        return None

    def stated_for(self, v: _LexView, r: Requirement, outside_request: bool = False) -> str | None:
        """The words standing where ``r``'s value would be: after its phrase (and a copula), or
        before "for <phrase>". ``outside_request``: ignore the phrase where it is part of the
        request's own words (composites read every requirement, not just the first odd one)."""
        phrase_spans = [sp for sp in v.phrases[r.slot] if not (outside_request and overlaps(sp, v.request_spans))]
        for s, e in phrase_spans:
            after = v.low[e:]
            cop = COPULA.match(after)
            start = e + (cop.end() if cop else 0)
            stop = STOP_AT.search(v.low, start)
            end = stop.start() if stop else len(v.low)
            if end > start and v.low[start:end].strip():
                return clean(v.text[start:end])
        for s, e in phrase_spans:
            before = v.low[:s]
            m = re.search(r"(?:^|[,.;:!?(]\s*|\band\s+)([^,.;:!?()]+?)\s+for\s+$", before)
            if m:
                stated = re.sub(r"^(?:(?:and|also|plus|but|so)\s+)+", "", v.low[m.start(1):m.end(1)])
                return clean(v.text[m.end(1) - len(stated):m.end(1)])
        return None

    @staticmethod
    def judge(stated: str, truth: str) -> str:
        low = fold(stated)
        words = tokens(stated)
        if any(p.search(low) for p in DEICTIC):
            return "marked"
        if any(w in SUBJECTIVE for w in words) or DEGREE.search(low):
            return "marked"
        content = [w for w in words if w not in STOP]
        truth_words = set(tokens(truth))
        if content and set(content) <= truth_words and low.strip() != fold(truth).strip():
            return "ambiguous"  # a looser name that also covers other things
        if len(content) == 1 and content[0] in POLYSEMOUS:
            return "ambiguous"
        return "substituted"

    def missing(self, v: _LexView) -> tuple[str, Requirement, str | None] | None:
        absent = [r for r in v.inp.requirements if not v.values[r.slot]]
        if not absent:
            return None
        named = [r for r in absent if v.phrases[r.slot]]
        r = named[0] if named else absent[0]
        if not v.phrases[r.slot]:
            return "withheld", r, None
        stated = self.stated_for(v, r)
        if not stated:
            return "withheld", r, None
        return self.judge(stated, r.spoken), r, stated

    def missings(self, v: _LexView) -> list[tuple[str, Requirement, str | None]]:
        """Every requirement whose true value is absent, judged as :meth:`missing` judges one."""
        out: list[tuple[str, Requirement, str | None]] = []
        for r in v.inp.requirements:
            if v.values[r.slot]:
                continue
            stated = self.stated_for(v, r, outside_request=True) if v.phrases[r.slot] else None
            if stated and any(o.slot != r.slot and fold(o.spoken).strip() == fold(stated).strip() for o in v.inp.requirements):
                stated = None  # the words after a shared phrase are another requirement's true value
            out.append(("withheld", r, None) if not stated else (self.judge(stated, r.spoken), r, stated))
        return out

    def operation(self, v: _LexView) -> str | None:
        """When the request itself is absent: the operation actually asked for."""
        if v.request_present:
            return None
        candidates = []
        for s, e in sorted(v.cues):
            tail = v.low[e:]
            m = re.match(r"\s*(?:(?:please|kindly)\s+)?(?:help\s+me\s+)?(?:to\s+)?", tail)
            start = e + (m.end() if m else 0)
            stop = re.compile(r"[,.;:!?()]").search(v.low, start)
            end = stop.start() if stop else len(v.low)
            phrase = clean(v.text[start:end])
            if not phrase:
                continue
            first = tokens(phrase)[:1]
            candidates.append((0 if first and first[0] in OPERATIONS else 1, s, phrase))
        if not candidates:
            return None
        request_verb = (tokens(v.inp.request)[:1] or [""])[0]
        best = sorted(candidates)[0][2]
        if tokens(best)[:1] == [request_verb] and fuzz.token_set_ratio(fold(best), fold(v.inp.request)) >= 90:
            return None
        return best

    def attachment(self, v: _LexView) -> tuple[Requirement, str] | None:
        """A stated value whose modifier could belong to its requirement or to something else
        mentioned in the same coordination."""
        for r in v.inp.requirements:
            if not v.values[r.slot] or not v.phrases[r.slot]:
                continue
            p, val = re.escape(fold(r.phrase)), re.escape(fold(r.spoken))
            patterns = (
                rf"(?P<np>{NP})\s+{COORD}\s+{p}{LINK}{val}(?!\w)",
                rf"{p}\s+{COORD}\s+(?P<np>{NP}){LINK}{val}(?!\w)",
                rf"(?<!\w){val}\s+for\s+{p}\s+{COORD}\s+(?P<np>{NP})(?=\s*(?:[,.;:!?)]|$))",
                rf"(?<!\w){val}\s+for\s+(?P<np>{NP})\s+{COORD}\s+{p}(?!\w)",
            )
            for pat in patterns:
                for m in re.finditer(pat, v.low):
                    np_span = m.span("np")
                    if overlaps(np_span, v.known):
                        continue
                    before = v.low[:np_span[0]].rstrip()
                    if m.start() == np_span[0] and before and not (
                            before[-1] in ",.;:!?(" or before.endswith(" and") or before == "and"):
                        continue
                    return r, clean(v.text[m.start():m.end()])
        return None

    def extra(self, v: _LexView, explained: list[tuple[int, int]] | None = None,
              framing: list[tuple[int, int]] | None = None) -> str | None:
        """Content the requirements and the request do not account for. ``explained``: spans
        another finding already accounts for; ``framing``: chunks touching these spans (the
        request's own sentence) are framing, not added details."""
        covered = list(v.known) + list(v.cues) + list(explained or [])
        leftovers = []
        for m in WORD.finditer(v.low):
            w = m.group(0).strip("'-")
            if not w or w in STOP or overlaps(m.span(), covered):
                continue
            leftovers.append(m.span())
        if len(leftovers) < 2:
            return None
        chunks = [(s, e) for s, e in self._chunks(v.low) if not (framing and overlaps((s, e), framing))]
        best, best_n = None, 0
        for s, e in chunks:
            n = sum(1 for a, b in leftovers if s <= a and b <= e)
            if n > best_n:
                best, best_n = (s, e), n
        if best is None or best_n < 2:
            return None
        detail = v.text[best[0]:best[1]]
        detail = re.sub(r"^\s*(?:and|also|plus|but|so)\s+", "", detail, flags=re.IGNORECASE)
        return clean(detail) or None

    @staticmethod
    def _chunks(low: str) -> list[tuple[int, int]]:
        out, start = [], 0
        for m in re.finditer(r"[,.;:!?()]", low):
            if low[start:m.start()].strip():
                out.append((start, m.start()))
            start = m.end()
        if low[start:].strip():
            out.append((start, len(low)))
        return out

    # -- the forms --------------------------------------------------------------------------
    def blind(self, inp: ExtractionInput) -> BlindExtraction:
        v = self.view(inp)
        if not v.low.strip():
            return BlindExtraction(flaw="none")
        if not v.cues:
            return BlindExtraction(flaw="oblique")
        if self.noise(v):
            return BlindExtraction(flaw="noise")
        prem = self.premise(v)
        if prem is not None and prem[0] is not None:
            return BlindExtraction(flaw="presupposed", requirement=prem[0])
        miss = self.missing(v)
        if miss is not None:
            return BlindExtraction(flaw=miss[0], requirement=miss[1].slot)  # type: ignore[arg-type]
        if self.operation(v):
            return BlindExtraction(flaw="mismatch")
        att = self.attachment(v)
        if att is not None:
            return BlindExtraction(flaw="ambiguous", requirement=att[0].slot)
        if self.extra(v):
            return BlindExtraction(flaw="extras")
        return BlindExtraction(flaw="none")

    def request_stated(self, v: _LexView) -> bool:
        return bool(v.cues)

    def presupposed(self, v: _LexView) -> TargetedExtraction | None:
        prem = self.premise(v)
        if prem is None:
            return None
        return TargetedExtraction(flaw="presupposed", requirement=prem[0], clause=prem[1], fallback=prem[2])

    def requirement_flaw(self, v: _LexView, flaw: str) -> TargetedExtraction | None:
        miss = self.missing(v)
        if miss is not None and miss[0] == flaw:
            kind, r, stated = miss
            return self.on_requirement(kind, r.slot, stated)
        if flaw == "ambiguous":
            att = self.attachment(v)
            if att is not None:
                return self.on_requirement("ambiguous", att[0].slot, att[1])
        return None

    # -- composites: every finding, not the first -------------------------------------------
    def findings(self, inp: ExtractionInput) -> list[TargetedExtraction]:
        """Every flaw this extractor sees, each with the fields its targeted form asks for. A
        stretch of text is reported once: an added detail is looked for only outside the
        off-topic passage, the premise, the words standing for other findings and the sentence
        that carries the request."""
        v = self.view(inp)
        if not v.low.strip():
            return []
        out: list[TargetedExtraction] = []
        explained: list[tuple[int, int]] = []
        if not v.cues:
            out.append(TargetedExtraction(flaw="oblique", request_stated=False))
        passage = self.noise(v)
        if passage:
            out.append(TargetedExtraction(flaw="noise", span=passage))
            span = self.noise_span(v)
            explained += [span] if span else []
        prem = self._premise(v)
        if prem is not None and prem[0] is not None:
            out.append(TargetedExtraction(flaw="presupposed", requirement=prem[0], clause=prem[1], fallback=prem[2]))
            explained.append(prem[3])
        named: set[str] = set()
        for kind, r, stated in self.missings(v):
            if prem is not None and prem[0] == r.slot:
                continue
            named.add(r.slot)
            out.append(self.on_requirement(kind, r.slot, stated))
            explained += spans(v.low, stated) if stated else []
        op = self.operation(v)
        if op:
            out.append(TargetedExtraction(flaw="mismatch", operation=op))
            explained += spans(v.low, op)
        att = self.attachment(v)
        if att is not None and att[0].slot not in named:
            out.append(self.on_requirement("ambiguous", att[0].slot, att[1]))
            explained += spans(v.low, att[1])
        detail = self.extra(v, explained, v.request_spans)
        if detail:
            out.append(TargetedExtraction(flaw="extras", detail=detail))
        return out
