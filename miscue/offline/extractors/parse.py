"""The parse extractor: clause segmentation, (requirement, value) parsing and a diff against the
truth.

It masks the request, the values and the phrases, segments the text into sentences and clauses,
parses each clause into a request frame, a (requirement, stated value) pair, a coordination
whose modifier has two possible heads, a premise with its main clause, or leftover content;
then diffs the parsed condition set against the true requirements, judging a stated value by
its shape (a pro-form head, a degree expression, a generalisation of the truth, or another
concrete value).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from miscue.briefs import BlindExtraction, ExtractionInput, TargetedExtraction
from miscue.offline.extractors.base import Extractor
from miscue.offline.extractors.text import STOP, clean, fold, overlaps, spans, tokens

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


class ParseExtractor(Extractor[_ParseView]):
    """Clause segmentation, (requirement, value) parsing and a diff against the truth."""

    name = "parse"

    # -- masking ----------------------------------------------------------------------------
    @staticmethod
    def _mask(inp: ExtractionInput) -> tuple[str, dict[str, str]]:
        text = inp.text or ""
        low = fold(text)
        items: list[tuple[str, str]] = []
        if inp.request.strip():
            items.append((inp.request.strip().rstrip(".!?"), "§R§"))
        for i, r in enumerate(inp.requirements):
            items.append((r.spoken, f"§V{i}§"))
            items.append((r.phrase, f"§P{i}§"))
        items.sort(key=lambda it: -len(it[0]))
        taken: list[tuple[int, int, str]] = []
        for needle, token in items:
            for span in spans(low, needle):
                if not overlaps(span, [(s, e) for s, e, _ in taken]):
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
        return clean(_PX_TOKEN.sub(lambda m: originals.get(m.group(0), m.group(0)), masked))

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
        return [w for w in tokens(plain) if w.strip("'-") and w not in STOP]

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
        words = tokens(stated)
        if not words:
            return "withheld"
        if words[0] in _PX_PROFORM_START or "one" in words[:3] or "ones" in words[:3] \
                or (len(words) >= 2 and words[0] == "the" and words[1] == "same"):
            return "marked"
        if _PX_DEGREE.search(fold(stated)) or any(w in _PX_EVALUATIVE for w in words):
            return "marked"
        content = {w for w in words if w not in STOP}
        truth_words = set(tokens(truth))
        truth_content = {w for w in truth_words if w not in STOP}
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
                if shared_values and fold(said).strip() == fold(reqs[c.slot].spoken).strip():
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
        k = fold(text).find(fold(plain))
        return text[k:k + len(plain)] if k != -1 else plain

    def _quote(self, v: _ParseView, masked: str) -> str:
        return self._original_span(v, masked) if masked else masked

    def operation(self, v: _ParseView) -> str | None:
        frames = [c for c in v.clauses if c.kind == "frame"]
        if not frames or any(c.request for c in frames):
            return None
        request_words = set(self._content(fold(v.inp.request)))
        for c in frames:
            vp = self._unmask(c.stated or "", v.originals)
            words = set(self._content(fold(vp)))
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
        if not self.request_stated(v):
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

    def request_stated(self, v: _ParseView) -> bool:
        return any(c.kind == "frame" for c in v.clauses)

    def presupposed(self, v: _ParseView) -> TargetedExtraction | None:
        if v.premise is None:
            return None
        slot, clause, fb = v.premise
        return TargetedExtraction(
            flaw="presupposed", requirement=v.inp.requirements[slot].slot if slot is not None else None,
            clause=self._quote(v, clause), fallback=self._quote(v, fb))

    def requirement_flaw(self, v: _ParseView, flaw: str) -> TargetedExtraction | None:
        for i, kind, stated in self.statuses(v):
            if kind == flaw:
                return self.on_requirement(kind, v.inp.requirements[i].slot, stated)
        return None

    # -- composites: every finding, not the first -------------------------------------------
    def findings(self, inp: ExtractionInput) -> list[TargetedExtraction]:
        """Every flaw this parse shows, each with the fields its targeted form asks for. Leftover
        content is an added detail only outside the off-topic sentences and outside clauses
        that frame the request."""
        v = self.view(inp)
        if not v.clauses:
            return []
        out: list[TargetedExtraction] = []
        if not self.request_stated(v):
            out.append(TargetedExtraction(flaw="oblique", request_stated=False))
        noise = self.noise_range(v)
        if noise is not None:
            passage = " ".join(v.sentences[noise[0]:noise[1] + 1])
            out.append(TargetedExtraction(flaw="noise", span=self._original_span(v, passage)))
        premise = self.presupposed(v)
        premise_slot = v.premise[0] if v.premise is not None else None
        if premise is not None and premise_slot is not None:
            out.append(premise)
        for i, kind, stated in self.statuses(v, shared_values=True):
            if i == premise_slot:
                continue
            out.append(self.on_requirement(kind, inp.requirements[i].slot, stated))
        op = self.operation(v)
        if op:
            out.append(TargetedExtraction(flaw="mismatch", operation=op))
        skip = set(range(noise[0], noise[1] + 1)) if noise is not None else set()
        leftovers = [c for c in v.clauses if c.kind == "leftover" and c.sentence not in skip and "§R§" not in c.text]
        if leftovers:
            best = max(leftovers, key=lambda c: len(self._content(c.text)))
            out.append(TargetedExtraction(flaw="extras", detail=self._quote(v, best.text)))
        return out
