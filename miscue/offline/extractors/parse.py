"""The two embedded offline extractors (DESIGN sections 6 and 8): honest, deterministic baselines.

Both read an :class:`~miscue.briefs.ExtractionInput` only (context, request, the true
requirements, the text); neither ever sees the plan, the fault type or the writer's materials.
They are independent algorithms:

``lexical``
    cue and value matching on the surface text: which requirement values and phrases occur,
    cue lexicons (request phrases, deictic pointers, subjective words, words with two common
    senses, premise markers, unavailability and settling words, operation verbs), sentence
    windows without any requirement (off-topic stretches), and uncovered content words.

``parse``
    masks the request, the values and the phrases, segments the text into sentences and clauses,
    parses each clause into a request frame, a (requirement, stated value) pair, a coordination
    whose modifier has two possible heads, a premise with its main clause, or leftover content;
    then diffs the parsed condition set against the true requirements, judging a stated value by
    its shape (a pro-form head, a degree expression, a generalisation of the truth, or another
    concrete value).

Each exposes ``blind(inp) -> BlindExtraction`` and ``targeted(inp, flaw) -> TargetedExtraction``,
and for composite texts ``blind_multi(inp) -> list[BlindExtraction]`` (every detector, not the
first that fires) and ``targeted_multi(inp, flaw)``.
Their lexicons are general English, written here; nothing is imported from the offline writer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from miscue.briefs import BlindExtraction, ExtractionInput, Requirement, TargetedExtraction

# ---------------------------------------------------------------------------------------------
# Small shared text utilities (no fault knowledge)
# ---------------------------------------------------------------------------------------------

_WORD = re.compile(r"[a-z0-9][a-z0-9'#-]*")


def _fold(text: str) -> str:
    """Lower-case without changing length, so spans found in the fold index the original."""
    out = []
    for ch in text:
        if ch in "\u2018\u2019\u02bc":
            out.append("'")
        elif ch in "\u201c\u201d":
            out.append('"')
        elif ch in "\u2013\u2014":
            out.append("-")
        else:
            low = ch.lower()
            out.append(low if len(low) == 1 else ch)
    return "".join(out)


def _spans(hay: str, needle: str) -> list[tuple[int, int]]:
    needle = _fold(needle.strip())
    if not needle:
        return []
    pattern = rf"(?<![\w]){re.escape(needle)}(?![\w])"
    return [m.span() for m in re.finditer(pattern, hay)]


def _overlaps(a: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(a[0] < e and s < a[1] for s, e in spans)


def _tokens(text: str) -> list[str]:
    return _WORD.findall(_fold(text))


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip(" ,;:-")


# Function words and conversational glue: never "content" on their own.
_STOP = frozenset("""
a an the this that these those it its it's i i'd i'm i'll i've me my mine we our us you your
he she they them their his her is are was were be been being am do does did done have has had
will would should could can may might must shall to of in on at for from with by about as into
onto over under and or but so if then than also plus too just only very really please kindly
hi hello hey thanks thank ok okay well anyway yes no not like love want need help wish hope
let get got make one ones there here what which who whom whose when where why how all any some
each both either neither other another such same own per via up down out off again still even
""".split())


# ---------------------------------------------------------------------------------------------
# The lexical extractor
# ---------------------------------------------------------------------------------------------

# Phrases with which people ask for something.
_LX_REQUEST_CUES = [re.compile(p) for p in (
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
_LX_DEICTIC = [re.compile(p) for p in (
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
_LX_SUBJECTIVE = frozenset("""
reasonable reasonably decent good nice fine great comfortable convenient suitable appropriate
sensible affordable cheap cheaper cheapest pricey expensive fancy modest proper ideal perfect
best better bigger biggest smaller smallest larger largest earlier earliest later latest sooner
longer shorter faster slower nicer lighter heavier roomy compact spacious generous plenty
acceptable manageable handy normal typical average moderate moderately fairly quite rather
somewhat pretty enough sufficient ample adequate ok okay alright
""".split())
_LX_DEGREE = re.compile(r"\b(?:not too|big enough|small enough|long enough|a bit|a little|kind of|sort of)\b")

# Common words with two everyday senses.
_LX_POLYSEMOUS = frozenset("""
light fair fine plain regular standard basic clear cool hard soft fast fixed flat firm match
right bright sharp heavy sound spring present second express direct premium classic natural
open close bank bill charge check card cover current date deal draft fit free gift mean mark
note order pass plan point pool post rest ring run set ship store table term tip trip top
""".split())

_LX_PREMISE = re.compile(r"(?:^|[,;:]\s*|\bthat\s+)(since|given\s+that|now\s+that|seeing\s+that|because|as)\b")
_LX_NEGATIVE = re.compile(
    r"\b(?:no\s+longer|not\s+(?:available|possible|offered|an\s+option)|unavailable|out\s+of\s+stock|"
    r"sold\s+out|discontinued|can't|cannot|can\s+not|isn't|aren't|wasn't|won't|doesn't|don't|"
    r"anymore|any\s+more|already|used\s+up|ruled\s+out|impossible|gone|expired|no\s+more|"
    r"not\s+there|unable|taken\s+care\s+of|dealt\s+with|handled)\b")
_LX_SETTLE = re.compile(
    r"\b(?:settle\s+for|make\s+do\s+with|go\s+with|fall\s+back\s+(?:on|to)|accept|take|"
    r"be\s+(?:fine|happy|ok|okay)\s+with|use|switch\s+to|opt\s+for|choose)\b")

# Verbs naming an operation one asks a service to perform.
_LX_OPERATIONS = frozenset("""
exchange return refund cancel change modify update book rebook reserve upgrade downgrade add
remove delete replace swap order buy purchase track reset transfer pay charge ship send deliver
find search get move switch renew extend redeem apply open close register sign split merge
""".split())

_LX_NP = r"(?:the|my|a|an|our|his|her|their|this|that|these|those|your)\s+[\w'-]+(?:\s+[\w'-]+){0,3}?"
_LX_COORD = r"(?:and|or|with|along\s+with|together\s+with)"
_LX_LINK = r"(?:\s*,)?\s*(?:should\s+be|would\s+be|will\s+be|must\s+be|are|is|:|-)?\s*"
_LX_COPULA = re.compile(
    r"^\s*(?:is|are|was|will\s+be|would\s+be|should\s+be|must\s+be|needs\s+to\s+be|"
    r"has\s+to\s+be|to\s+be|being|:|=|-)?\s*")
_LX_STOP_AT = re.compile(r"[,.;:!?()]|\s(?:and|but|or)\s|$")


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


class LexicalExtractor:
    """Cue and value matching on the surface text."""

    name = "lexical"

    # -- the view ---------------------------------------------------------------------------
    def view(self, inp: ExtractionInput) -> _LexView:
        text = inp.text or ""
        low = _fold(text)
        values = {r.slot: _spans(low, r.spoken) for r in inp.requirements}
        phrases = {r.slot: _spans(low, r.phrase) for r in inp.requirements}
        request_spans = _spans(low, inp.request.strip().rstrip(".!?")) if inp.request.strip() else []
        request_present = bool(request_spans)
        if not request_present and inp.request.strip():
            request_present = fuzz.partial_ratio(_fold(inp.request.strip().rstrip(".!?")), low) >= 92
        cues = [m.span() for pat in _LX_REQUEST_CUES for m in pat.finditer(low)]
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
        empty = [not _overlaps(s, v.known) and not _overlaps(s, v.cues) for s in sents]
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
        found = _spans(v.low, passage)
        return found[0] if found else None

    def premise(self, v: _LexView) -> tuple[str | None, str, str | None] | None:
        """(requirement, premise clause, fallback) when a sentence treats something as unavailable
        or already dealt with and settles for something else."""
        found = self._premise(v)
        return found[:3] if found is not None else None

    def _premise(self, v: _LexView) -> tuple[str | None, str, str | None, tuple[int, int]] | None:
        for s, e in self._sentences(v.low, ".!?;"):
            sent = v.low[s:e]
            for m in _LX_PREMISE.finditer(sent):
                marker = m.start(1)
                neg = _LX_NEGATIVE.search(sent, m.end(1))
                if neg is None:
                    continue
                settle = _LX_SETTLE.search(sent, neg.end())
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
                fallback = _clean(v.text[fb_span[0]:fb_span[1]]) or None
                slot = self._about(v, clause_span)
                return slot, _clean(v.text[clause_span[0]:clause_span[1]]), fallback, (s, e)
        return None

    def _about(self, v: _LexView, span: tuple[int, int]) -> str | None:
        for r in v.inp.requirements:
            if _overlaps(span, v.values[r.slot]):
                return r.slot
        for r in v.inp.requirements:
            if _overlaps(span, v.phrases[r.slot]):
                return r.slot
        return None

    def stated_for(self, v: _LexView, r: Requirement, outside_request: bool = False) -> str | None:
        """The words standing where ``r``'s value would be: after its phrase (and a copula), or
        before "for <phrase>". ``outside_request``: ignore the phrase where it is part of the
        request's own words (composites read every requirement, not just the first odd one)."""
        spans = [sp for sp in v.phrases[r.slot] if not (outside_request and _overlaps(sp, v.request_spans))]
        for s, e in spans:
            after = v.low[e:]
            cop = _LX_COPULA.match(after)
            start = e + (cop.end() if cop else 0)
            stop = _LX_STOP_AT.search(v.low, start)
            end = stop.start() if stop else len(v.low)
            if end > start and v.low[start:end].strip():
                return _clean(v.text[start:end])
        for s, e in spans:
            before = v.low[:s]
            m = re.search(r"(?:^|[,.;:!?(]\s*|\band\s+)([^,.;:!?()]+?)\s+for\s+$", before)
            if m:
                stated = re.sub(r"^(?:(?:and|also|plus|but|so)\s+)+", "", v.low[m.start(1):m.end(1)])
                return _clean(v.text[m.end(1) - len(stated):m.end(1)])
        return None

    @staticmethod
    def judge(stated: str, truth: str) -> str:
        low = _fold(stated)
        words = _tokens(stated)
        if any(p.search(low) for p in _LX_DEICTIC):
            return "marked"
        if any(w in _LX_SUBJECTIVE for w in words) or _LX_DEGREE.search(low):
            return "marked"
        content = [w for w in words if w not in _STOP]
        truth_words = set(_tokens(truth))
        if content and set(content) <= truth_words and low.strip() != _fold(truth).strip():
            return "ambiguous"  # a looser name that also covers other things
        if len(content) == 1 and content[0] in _LX_POLYSEMOUS:
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
            if stated and any(o.slot != r.slot and _fold(o.spoken).strip() == _fold(stated).strip() for o in v.inp.requirements):
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
            phrase = _clean(v.text[start:end])
            if not phrase:
                continue
            first = _tokens(phrase)[:1]
            candidates.append((0 if first and first[0] in _LX_OPERATIONS else 1, s, phrase))
        if not candidates:
            return None
        request_verb = (_tokens(v.inp.request)[:1] or [""])[0]
        best = sorted(candidates)[0][2]
        if _tokens(best)[:1] == [request_verb] and fuzz.token_set_ratio(_fold(best), _fold(v.inp.request)) >= 90:
            return None
        return best

    def attachment(self, v: _LexView) -> tuple[Requirement, str] | None:
        """A stated value whose modifier could belong to its requirement or to something else
        mentioned in the same coordination."""
        for r in v.inp.requirements:
            if not v.values[r.slot] or not v.phrases[r.slot]:
                continue
            p, val = re.escape(_fold(r.phrase)), re.escape(_fold(r.spoken))
            patterns = (
                rf"(?P<np>{_LX_NP})\s+{_LX_COORD}\s+{p}{_LX_LINK}{val}(?!\w)",
                rf"{p}\s+{_LX_COORD}\s+(?P<np>{_LX_NP}){_LX_LINK}{val}(?!\w)",
                rf"(?<!\w){val}\s+for\s+{p}\s+{_LX_COORD}\s+(?P<np>{_LX_NP})(?=\s*(?:[,.;:!?)]|$))",
                rf"(?<!\w){val}\s+for\s+(?P<np>{_LX_NP})\s+{_LX_COORD}\s+{p}(?!\w)",
            )
            for pat in patterns:
                for m in re.finditer(pat, v.low):
                    np_span = m.span("np")
                    if _overlaps(np_span, v.known):
                        continue
                    before = v.low[:np_span[0]].rstrip()
                    if m.start() == np_span[0] and before and not (
                            before[-1] in ",.;:!?(" or before.endswith(" and") or before == "and"):
                        continue
                    return r, _clean(v.text[m.start():m.end()])
        return None

    def extra(self, v: _LexView, explained: list[tuple[int, int]] | None = None,
              framing: list[tuple[int, int]] | None = None) -> str | None:
        """Content the requirements and the request do not account for. ``explained``: spans
        another finding already accounts for; ``framing``: chunks touching these spans (the
        request's own sentence) are framing, not added details."""
        covered = list(v.known) + list(v.cues) + list(explained or [])
        leftovers = []
        for m in _WORD.finditer(v.low):
            w = m.group(0).strip("'-")
            if not w or w in _STOP or _overlaps(m.span(), covered):
                continue
            leftovers.append(m.span())
        if len(leftovers) < 2:
            return None
        chunks = [(s, e) for s, e in self._chunks(v.low) if not (framing and _overlaps((s, e), framing))]
        best, best_n = None, 0
        for s, e in chunks:
            n = sum(1 for a, b in leftovers if s <= a and b <= e)
            if n > best_n:
                best, best_n = (s, e), n
        if best is None or best_n < 2:
            return None
        detail = v.text[best[0]:best[1]]
        detail = re.sub(r"^\s*(?:and|also|plus|but|so)\s+", "", detail, flags=re.IGNORECASE)
        return _clean(detail) or None

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

    def targeted(self, inp: ExtractionInput, flaw: str) -> TargetedExtraction:
        v = self.view(inp)
        none = TargetedExtraction(flaw="none")
        if flaw == "oblique":
            return TargetedExtraction(flaw="oblique", request_stated=bool(v.cues))
        if flaw == "noise":
            span = self.noise(v)
            return TargetedExtraction(flaw="noise", span=span) if span else none
        if flaw == "presupposed":
            prem = self.premise(v)
            if prem is None:
                return none
            return TargetedExtraction(flaw="presupposed", requirement=prem[0], clause=prem[1], fallback=prem[2])
        if flaw == "mismatch":
            op = self.operation(v)
            return TargetedExtraction(flaw="mismatch", operation=op) if op else none
        if flaw == "extras":
            detail = self.extra(v)
            return TargetedExtraction(flaw="extras", detail=detail) if detail else none
        if flaw in ("substituted", "withheld", "marked", "ambiguous"):
            miss = self.missing(v)
            if miss is not None and miss[0] == flaw:
                kind, r, stated = miss
                if kind == "substituted":
                    return TargetedExtraction(flaw="substituted", requirement=r.slot, stated_value=stated)
                if kind == "withheld":
                    return TargetedExtraction(flaw="withheld", requirement=r.slot)
                return TargetedExtraction(flaw=kind, requirement=r.slot, surface=stated)  # type: ignore[arg-type]
            if flaw == "ambiguous":
                att = self.attachment(v)
                if att is not None:
                    return TargetedExtraction(flaw="ambiguous", requirement=att[0].slot, surface=att[1],
                                              second_reading=None)
            return none
        return none


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
            if kind == "substituted":
                out.append(TargetedExtraction(flaw="substituted", requirement=r.slot, stated_value=stated))
            elif kind == "withheld":
                out.append(TargetedExtraction(flaw="withheld", requirement=r.slot))
            else:
                out.append(TargetedExtraction(flaw=kind, requirement=r.slot, surface=stated))  # type: ignore[arg-type]
            explained += _spans(v.low, stated) if stated else []
        op = self.operation(v)
        if op:
            out.append(TargetedExtraction(flaw="mismatch", operation=op))
            explained += _spans(v.low, op)
        att = self.attachment(v)
        if att is not None and att[0].slot not in named:
            out.append(TargetedExtraction(flaw="ambiguous", requirement=att[0].slot, surface=att[1], second_reading=None))
            explained += _spans(v.low, att[1])
        detail = self.extra(v, explained, v.request_spans)
        if detail:
            out.append(TargetedExtraction(flaw="extras", detail=detail))
        return out

    def blind_multi(self, inp: ExtractionInput) -> list[BlindExtraction]:
        """The multi-flaw blind form: every flaw found, on its requirement."""
        return [BlindExtraction(flaw=f.flaw, requirement=f.requirement) for f in self.findings(inp)]

    def targeted_multi(self, inp: ExtractionInput, flaw: str) -> TargetedExtraction:
        """The targeted form for ``flaw`` on a text that may carry several flaws."""
        for found in self.findings(inp):
            if found.flaw == flaw:
                return found
        if flaw == "oblique":
            return TargetedExtraction(flaw="oblique", request_stated=True)
        return TargetedExtraction(flaw="none")


# ---------------------------------------------------------------------------------------------
# The parse extractor
# ---------------------------------------------------------------------------------------------

_PX_TOKEN = re.compile(r"§([RVP])(\d*)§")
_PX_FILLER = re.compile(
    r"^(?:(?:hi|hello|hey|ok|okay|so|well|also|and|plus|but|then|anyway|oh|right)\b[\s,!]*)+")
_PX_PREFIX = re.compile(r"^(?:that's|it's|that is|it is|this is)\s+")
_PX_FRAME = re.compile(
    r"^(?:(?:i'd|i\s+would)\s+(?:like|love)\s+to|i\s+(?:want|need|wish|hope|have)\s+to|"
    r"i'?m\s+(?:looking|hoping|trying)\s+to|i\s+am\s+(?:looking|hoping|trying)\s+to|"
    r"(?:can|could|would|will)\s+you(?:\s+please)?(?:\s+help\s+me)?|(?:please\s+)?help\s+me|"
    r"please|kindly|let\s+me|i'd\s+prefer\s+to|(?:is|would)\s+it\s+(?:be\s+)?possible\s+to)"
    r"\s+(?P<vp>.+?)\s*[?.!]*$")
_PX_COPULA = r"(?:is|are|was|should\s+be|would\s+be|will\s+be|must\s+be|needs\s+to\s+be|has\s+to\s+be|=|:|-)"
_PX_PAIR_AFTER = re.compile(rf"^(?P<p>§P\d+§)\s*,?\s*{_PX_COPULA}\s*(?P<x>.+?)\s*[.!?]*$")
_PX_PAIR_BEFORE = re.compile(r"^(?P<x>.+?)\s+for\s+(?P<p>§P\d+§)\s*[.!?]*$")
_PX_COORD = r"(?:and|or|with|along\s+with|together\s+with)"
_PX_ATTACH_SUBJ = re.compile(
    rf"^(?P<a>.+?)\s+{_PX_COORD}\s+(?P<b>.+?)\s*,?\s*{_PX_COPULA}\s*(?P<x>.+?)\s*[.!?]*$")
_PX_ATTACH_OBJ = re.compile(rf"^(?P<x>.+?)\s+for\s+(?P<a>.+?)\s+{_PX_COORD}\s+(?P<b>.+?)\s*[.!?]*$")
_PX_PREMISE = re.compile(
    r"^(?P<marker>since|given\s+that|now\s+that|seeing\s+that|because|as)\s+(?P<prem>[^,]+?)\s*,\s*(?P<main>.+)$")
_PX_MAIN = re.compile(
    r"^(?:so\s+|then\s+)?(?:i'll|i\s+will|i'd|i\s+would|i\s+can|i\s+could|we'll|i'm\s+going\s+to)\s+"
    r"(?:just\s+|simply\s+|have\s+to\s+)?(?:settle\s+for|make\s+do\s+with|go\s+with|accept|take|"
    r"fall\s+back\s+(?:on|to)|use|switch\s+to|opt\s+for|choose|be\s+(?:fine|happy|ok|okay)\s+with)\s+"
    r"(?P<fb>.+?)(?:\s+(?:instead|anyway|then|for\s+now))?\s*[.!?]*$")
# Negative polarity, or a state that has ended: the shape of a premise that something is out of
# reach or already done.
_PX_NEGATIVE = re.compile(
    r"\b(?:not|no|never|none|nothing|nor|cannot|anymore|unavailable|already|gone|expired|ended|"
    r"closed|cancell?ed|discontinued|finished|full|lost|broken|sold\s+out|out\s+of|used\s+up|"
    r"booked\s+up|taken)\b|n't")
_PX_DEGREE = re.compile(r"\b(?:very|quite|rather|fairly|reasonably|pretty|too|enough|somewhat|more|less|"
                        r"most|least)\b|\w{3,}er\s+than\b")
_PX_PROFORM_START = frozenset({"something", "anything", "whatever", "whichever", "somewhere", "sometime",
                               "it", "that", "this", "those", "these", "them"})
_PX_EVALUATIVE = frozenset("""
good nice decent reasonable comfortable convenient suitable sensible affordable cheap proper ideal
best better worse acceptable okay fine great lovely handy
""".split())


@dataclass
class _Clause:
    kind: str  # frame | pair | attach | value | premise | leftover | filler
    text: str  # masked
    slot: int | None = None
    stated: str | None = None  # masked
    request: bool = False
    sentence: int = -1  # index of the sentence the clause was read from


@dataclass
class _ParseView:
    inp: ExtractionInput
    masked: str
    originals: dict[str, str]
    sentences: list[str]
    clauses: list[_Clause]
    premise: tuple[int | None, str, str] | None


class ParseExtractor:
    """Clause segmentation, (requirement, value) parsing and a diff against the truth."""

    name = "parse"

    # -- masking ----------------------------------------------------------------------------
    @staticmethod
    def _mask(inp: ExtractionInput) -> tuple[str, dict[str, str]]:
        text = inp.text or ""
        low = _fold(text)
        items: list[tuple[str, str]] = []
        if inp.request.strip():
            items.append((inp.request.strip().rstrip(".!?"), "§R§"))
        for i, r in enumerate(inp.requirements):
            items.append((r.spoken, f"§V{i}§"))
            items.append((r.phrase, f"§P{i}§"))
        items.sort(key=lambda it: -len(it[0]))
        taken: list[tuple[int, int, str]] = []
        for needle, token in items:
            for span in _spans(low, needle):
                if not _overlaps(span, [(s, e) for s, e, _ in taken]):
                    taken.append((span[0], span[1], token))
        taken.sort()
        out, originals, pos = [], {}, 0
        for s, e, token in taken:
            out.append(low[pos:s])
            out.append(token)
            originals.setdefault(token, text[s:e])
            pos = e
        out.append(low[pos:])
        return "".join(out), originals

    @staticmethod
    def _unmask(masked: str, originals: dict[str, str]) -> str:
        return _clean(_PX_TOKEN.sub(lambda m: originals.get(m.group(0), m.group(0)), masked))

    # -- segmentation -----------------------------------------------------------------------
    @staticmethod
    def _sentences(masked: str) -> list[str]:
        return [s.strip() for s in re.split(r"(?<=[.!?])\s+", masked) if s.strip()]

    @staticmethod
    def _segments(sentence: str) -> list[str]:
        parts = re.split(r"\s*;\s*|\s*\(\s*|\s*\)\s*|\s+-\s+|(?<!§):\s+", sentence)
        return [p.strip(" .!?") for p in parts if p and p.strip(" .!?")]

    @staticmethod
    def _complete(part: str) -> bool:
        return bool(re.search(r"§[VR]\d*§|\b(?:is|are|was|were|be|been|being)\b|\bfor\s+§P\d+§", part)) \
            or bool(_PX_FRAME.match(part))

    def _clauses_of(self, segment: str) -> list[str]:
        out: list[str] = []
        for part in re.split(r"\s*,\s*", segment):
            part = _PX_FILLER.sub("", part.strip()).strip()
            if not part:
                continue
            pieces = re.split(r"\s+and\s+", part)
            merged: list[str] = []
            pending: list[str] = []
            for piece in pieces:
                pending.append(piece)
                if self._complete(piece):
                    merged.append(" and ".join(pending))
                    pending = []
            if pending:
                if merged:
                    merged[-1] = merged[-1] + " and " + " and ".join(pending)
                else:
                    merged.append(" and ".join(pending))
            out.extend(merged)
        return out

    # -- clause parsing ---------------------------------------------------------------------
    @staticmethod
    def _content(masked: str) -> list[str]:
        plain = _PX_TOKEN.sub(" ", masked)
        return [w for w in _tokens(plain) if w.strip("'-") and w not in _STOP]

    def _parse_clause(self, clause: str) -> _Clause:
        c = _PX_PREFIX.sub("", clause.strip(" .!?")).strip()
        if not c:
            return _Clause("filler", clause)
        frame = _PX_FRAME.match(c)
        if frame or c.startswith("§R§"):
            vp = frame.group("vp") if frame else c
            return _Clause("frame", c, stated=vp, request="§R§" in vp)
        for pat in (_PX_ATTACH_SUBJ, _PX_ATTACH_OBJ):
            m = pat.match(c)
            if not m:
                continue
            heads = [m.group("a").strip(), m.group("b").strip()]
            phrases = [h for h in heads if re.fullmatch(r"§P\d+§", h)]
            others = [h for h in heads if "§" not in h and self._content(h)]
            x = m.group("x").strip()
            if len(phrases) == 1 and len(others) == 1 and re.fullmatch(r"§V\d+§", x):
                return _Clause("attach", c, slot=int(phrases[0][2:-1]), stated=x)
        for pat in (_PX_PAIR_AFTER, _PX_PAIR_BEFORE):
            m = pat.match(c)
            if m:
                return _Clause("pair", c, slot=int(m.group("p")[2:-1]), stated=m.group("x").strip())
        if re.search(r"§V\d+§", c):
            return _Clause("value", c)
        if len(self._content(c)) >= 2:
            return _Clause("leftover", c)
        return _Clause("filler", c)

    def view(self, inp: ExtractionInput) -> _ParseView:
        masked, originals = self._mask(inp)
        sentences = self._sentences(masked)
        clauses: list[_Clause] = []
        premise = None
        for index, sentence in enumerate(sentences):
            for segment in self._segments(sentence):
                seg = _PX_FILLER.sub("", segment).strip()
                pm = _PX_PREMISE.match(seg)
                if pm and _PX_NEGATIVE.search(pm.group("prem")):
                    main = _PX_MAIN.match(pm.group("main").strip())
                    if main:
                        found = re.findall(r"§([VP])(\d+)§", pm.group("prem"))
                        slot = next((int(i) for k, i in found if k == "V"), None)
                        if slot is None:
                            slot = next((int(i) for k, i in found if k == "P"), None)
                        clause = pm.group("marker") + " " + pm.group("prem")
                        if premise is None:
                            premise = (slot, clause, main.group("fb"))
                        clauses.append(_Clause("premise", seg, slot=slot, sentence=index))
                        continue
                for clause in self._clauses_of(segment):
                    parsed = self._parse_clause(clause)
                    parsed.sentence = index
                    clauses.append(parsed)
        return _ParseView(inp, masked, originals, sentences, clauses, premise)

    # -- the diff ---------------------------------------------------------------------------
    @staticmethod
    def _shape(stated: str, truth: str) -> str:
        """Judge a stated value against the true one by its shape."""
        words = _tokens(stated)
        if not words:
            return "withheld"
        if words[0] in _PX_PROFORM_START or "one" in words[:3] or "ones" in words[:3] \
                or (len(words) >= 2 and words[0] == "the" and words[1] == "same"):
            return "marked"
        if _PX_DEGREE.search(_fold(stated)) or any(w in _PX_EVALUATIVE for w in words):
            return "marked"
        content = {w for w in words if w not in _STOP}
        truth_words = set(_tokens(truth))
        truth_content = {w for w in truth_words if w not in _STOP}
        if content and content <= truth_words and content != truth_content:
            return "ambiguous"  # a looser name for the truth: it also fits other things
        return "substituted"

    def statuses(self, v: _ParseView, shared_values: bool = False) -> list[tuple[int, str, str | None]]:
        """(requirement index, status, stated words) for every requirement not stated as true.
        ``shared_values`` (composites): a pair whose stated words are the requirement's own true
        value counts as stated even when the masking gave that value to another requirement
        with the same value."""
        reqs = v.inp.requirements
        attached: dict[int, str] = {}
        odd: dict[int, str] = {}
        stated_true: set[int] = set()
        for c in v.clauses:
            if c.kind == "attach" and c.slot is not None:
                attached.setdefault(c.slot, self._quote(v, c.text))
            elif c.kind == "pair" and c.slot is not None and c.stated is not None \
                    and f"§V{c.slot}§" not in c.stated:
                said = self._quote(v, c.stated)
                if shared_values and _fold(said).strip() == _fold(reqs[c.slot].spoken).strip():
                    stated_true.add(c.slot)  # masked as another requirement that has the same value
                else:
                    odd.setdefault(c.slot, said)
        out: list[tuple[int, str, str | None]] = []
        for i, r in enumerate(reqs):
            if i in attached:
                out.append((i, "ambiguous", attached[i]))
            elif f"§V{i}§" in v.masked or (i in stated_true and i not in odd):
                continue  # the true value is stated
            elif i in odd:
                out.append((i, self._shape(odd[i], r.spoken), odd[i]))
            else:
                out.append((i, "withheld", None))
        return out

    def noise(self, v: _ParseView) -> str | None:
        found = self.noise_range(v)
        return self._original_span(v, " ".join(v.sentences[found[0]:found[1] + 1])) if found else None

    def noise_range(self, v: _ParseView) -> tuple[int, int] | None:
        """The sentences (first, last) of the longest off-topic stretch, when it is long enough."""
        flags = [("§" not in s) and not any(c.kind == "frame" for c in
                                             (self._parse_clause(x) for seg in self._segments(s)
                                              for x in self._clauses_of(seg)))
                 for s in v.sentences]
        best, best_words = None, 0
        i = 0
        while i < len(v.sentences):
            if not flags[i]:
                i += 1
                continue
            j = i
            while j + 1 < len(v.sentences) and flags[j + 1]:
                j += 1
            words = sum(len(s.split()) for s in v.sentences[i:j + 1])
            if words > best_words:
                best, best_words = (i, j), words
            i = j + 1
        if best is None:
            return None
        total = sum(len(self._unmask(s, v.originals).split()) for s in v.sentences)
        span = " ".join(v.sentences[best[0]:best[1] + 1])
        words = len(self._unmask(span, v.originals).split())
        if words >= 25 and words >= total - words:
            return best
        return None

    @staticmethod
    def _original_span(v: _ParseView, masked_span: str) -> str:
        """Quote a span from the original text (the masking lower-cased it)."""
        plain = ParseExtractor._unmask(masked_span, v.originals)
        text = v.inp.text
        k = _fold(text).find(_fold(plain))
        return text[k:k + len(plain)] if k != -1 else plain

    def _quote(self, v: _ParseView, masked: str) -> str:
        return self._original_span(v, masked) if masked else masked

    def operation(self, v: _ParseView) -> str | None:
        frames = [c for c in v.clauses if c.kind == "frame"]
        if not frames or any(c.request for c in frames):
            return None
        request_words = set(self._content(_fold(v.inp.request)))
        for c in frames:
            vp = self._unmask(c.stated or "", v.originals)
            words = set(self._content(_fold(vp)))
            if request_words and len(words & request_words) / len(request_words) >= 0.8:
                return None
        return self._quote(v, frames[0].stated or "")

    def extra(self, v: _ParseView) -> str | None:
        leftovers = [c for c in v.clauses if c.kind == "leftover"]
        if not leftovers:
            return None
        best = max(leftovers, key=lambda c: len(self._content(c.text)))
        return self._quote(v, best.text)

    # -- the forms --------------------------------------------------------------------------
    def blind(self, inp: ExtractionInput) -> BlindExtraction:
        v = self.view(inp)
        if not v.clauses:
            return BlindExtraction(flaw="none")
        if not any(c.kind == "frame" for c in v.clauses):
            return BlindExtraction(flaw="oblique")
        if self.noise(v):
            return BlindExtraction(flaw="noise")
        if v.premise is not None and v.premise[0] is not None:
            return BlindExtraction(flaw="presupposed", requirement=inp.requirements[v.premise[0]].slot)
        wrong = self.statuses(v)
        if wrong:
            i, kind, _ = wrong[0]
            return BlindExtraction(flaw=kind, requirement=inp.requirements[i].slot)  # type: ignore[arg-type]
        if self.operation(v):
            return BlindExtraction(flaw="mismatch")
        if self.extra(v):
            return BlindExtraction(flaw="extras")
        return BlindExtraction(flaw="none")

    def targeted(self, inp: ExtractionInput, flaw: str) -> TargetedExtraction:
        v = self.view(inp)
        none = TargetedExtraction(flaw="none")
        if flaw == "oblique":
            return TargetedExtraction(flaw="oblique", request_stated=any(c.kind == "frame" for c in v.clauses))
        if flaw == "noise":
            span = self.noise(v)
            return TargetedExtraction(flaw="noise", span=span) if span else none
        if flaw == "presupposed":
            if v.premise is None:
                return none
            slot, clause, fb = v.premise
            return TargetedExtraction(
                flaw="presupposed", requirement=inp.requirements[slot].slot if slot is not None else None,
                clause=self._quote(v, clause), fallback=self._quote(v, fb))
        if flaw == "mismatch":
            op = self.operation(v)
            return TargetedExtraction(flaw="mismatch", operation=op) if op else none
        if flaw == "extras":
            detail = self.extra(v)
            return TargetedExtraction(flaw="extras", detail=detail) if detail else none
        if flaw in ("substituted", "withheld", "marked", "ambiguous"):
            for i, kind, stated in self.statuses(v):
                if kind != flaw:
                    continue
                slot = inp.requirements[i].slot
                if kind == "substituted":
                    return TargetedExtraction(flaw="substituted", requirement=slot, stated_value=stated)
                if kind == "withheld":
                    return TargetedExtraction(flaw="withheld", requirement=slot)
                if kind == "marked":
                    return TargetedExtraction(flaw="marked", requirement=slot, surface=stated)
                return TargetedExtraction(flaw="ambiguous", requirement=slot, surface=stated, second_reading=None)
        return none


    # -- composites: every finding, not the first -------------------------------------------
    def findings(self, inp: ExtractionInput) -> list[TargetedExtraction]:
        """Every flaw this parse shows, each with the fields its targeted form asks for. Leftover
        content is an added detail only outside the off-topic sentences and outside clauses
        that frame the request."""
        v = self.view(inp)
        if not v.clauses:
            return []
        out: list[TargetedExtraction] = []
        if not any(c.kind == "frame" for c in v.clauses):
            out.append(TargetedExtraction(flaw="oblique", request_stated=False))
        noise = self.noise_range(v)
        if noise is not None:
            out.append(TargetedExtraction(flaw="noise", span=self._original_span(v, " ".join(v.sentences[noise[0]:noise[1] + 1]))))
        premise_slot = None
        if v.premise is not None and v.premise[0] is not None:
            slot, clause, fb = v.premise
            premise_slot = slot
            out.append(TargetedExtraction(flaw="presupposed", requirement=inp.requirements[slot].slot,
                                          clause=self._quote(v, clause), fallback=self._quote(v, fb)))
        for i, kind, stated in self.statuses(v, shared_values=True):
            if i == premise_slot:
                continue
            slot = inp.requirements[i].slot
            if kind == "substituted":
                out.append(TargetedExtraction(flaw="substituted", requirement=slot, stated_value=stated))
            elif kind == "withheld":
                out.append(TargetedExtraction(flaw="withheld", requirement=slot))
            elif kind == "marked":
                out.append(TargetedExtraction(flaw="marked", requirement=slot, surface=stated))
            else:
                out.append(TargetedExtraction(flaw="ambiguous", requirement=slot, surface=stated, second_reading=None))
        op = self.operation(v)
        if op:
            out.append(TargetedExtraction(flaw="mismatch", operation=op))
        skip = set(range(noise[0], noise[1] + 1)) if noise is not None else set()
        leftovers = [c for c in v.clauses if c.kind == "leftover" and c.sentence not in skip and "§R§" not in c.text]
        if leftovers:
            best = max(leftovers, key=lambda c: len(self._content(c.text)))
            out.append(TargetedExtraction(flaw="extras", detail=self._quote(v, best.text)))
        return out

    def blind_multi(self, inp: ExtractionInput) -> list[BlindExtraction]:
        """The multi-flaw blind form: every flaw found, on its requirement."""
        return [BlindExtraction(flaw=f.flaw, requirement=f.requirement) for f in self.findings(inp)]

    def targeted_multi(self, inp: ExtractionInput, flaw: str) -> TargetedExtraction:
        """The targeted form for ``flaw`` on a text that may carry several flaws."""
        for found in self.findings(inp):
            if found.flaw == flaw:
                return found
        if flaw == "oblique":
            return TargetedExtraction(flaw="oblique", request_stated=True)
        return TargetedExtraction(flaw="none")


lexical = LexicalExtractor()
parse = ParseExtractor()

EXTRACTORS: dict[str, LexicalExtractor | ParseExtractor] = {"lexical": lexical, "parse": parse}
