"""The parse extractor: clauses, fuzzy value matching and a diff of the parsed values against the
truth.

It splits the text into clauses, scores every way of saying every legal value of every
requirement against each clause with a fuzzy string matcher (so misspellings, plurals and
reordered words still match), gives each hit to the requirement whose words stand in the same
clause (or the nearest clause before it), and diffs what it parsed against the true values:
another legal value is *substituted*, a value named in a clause of negative polarity that
settles for another is *presupposed*, a clause whose object is a pro-form or an evaluative word
is *marked*, a value two requirements or two values fit is *ambiguous*, a requirement with no
clause is *withheld*. Its cue grammar (request frames, pro-forms, degree words, premises,
asides, operations) is its own, written here; it shares only the form's host data with the
lexical extractor, never its matcher.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from miscue.briefs import BlindExtraction, ExtractionInput, TargetedExtraction
from miscue.language import Domains, SlotDomain
from miscue.language.text import fold, words
from miscue.offline.extractors.base import Extractor
from miscue.offline.extractors.domains import domains_of
from miscue.offline.extractors.text import STOP, WORD, clean

PRIORITY = ("noise", "oblique", "presupposed", "mismatch", "substituted", "ambiguous", "marked", "extras", "withheld")
THRESHOLD = 88  # fuzzy score (0-100) from which a clause says a value

_CLAUSE_SPLIT = re.compile(r"[.!?;:()]+\s*|,\s+|\s+-+\s+|\s+(?:but|so|and then|then)\s+")
_FRAME = re.compile(
    r"\b(?:i(?:'d| would) (?:like|love|prefer)|i (?:want|need|wish)|i'?m (?:looking|hoping|trying)|please|pls|kindly|"
    r"(?:can|could|would|will) (?:you|i)|help me|let me|go ahead|looking for|in the market for|i'?m after)\b|\?")
_IMPERATIVE = re.compile(
    r"^(?:(?:and|also|then|so|just|now|ok|okay|hi|hello|hey)\s+)*(?:cancel|exchange|return|change|switch|swap|book|update|"
    r"modify|send|refund|downgrade|upgrade|move|put|make|add|remove|replace|issue|give|find|get|buy|order|charge|use|"
    r"ship|set|reserve|rebook|fix|correct|show|pick|keep|credit|bump|grab|sort|ask|apply)\b")
_PROFORM = re.compile(r"\b(?:that one|this one|those|the usual|my usual|as (?:before|usual|last time)|same (?:\w+ )?as "
                      r"(?:before|last time|usual|always)|the one (?:i|we)|the (?:\w+ ){0,2}(?:i|we) (?:mentioned|told|"
                      r"talked|discussed|use|used|always|usually|normally|gave|said|spoke)|you know which)\b")
_DEGREE = re.compile(r"\b(?:\w+er than|more|less|bigger|smaller|larger|longer|shorter|cheaper|nicer|better|decent|"
                     r"reasonable|good|comfortable|comfy|cheap|affordable|pricey|roomy|plenty|enough|a few|a couple|"
                     r"several|some|generous|modest|fair|fancy|premium|spacious|compact|sensible|suitable|proper|"
                     r"-ish|\w+ish|not too \w+|a (?:size|step) (?:up|down))\b")
_NEGATIVE = re.compile(r"\b(?:not|no longer|never|cannot|can'?t|won'?t|isn'?t|aren'?t|doesn'?t|don'?t|wasn'?t|unavailable|"
                       r"sold out|out of stock|discontinued|gone|expired|cancell?ed|(?:is|are|was|were) (?:\w+ )?full|"
                       r"shut down|closed|booked up|(?:you'?re|they'?re|we'?re) (?:all )?out of)\b")
_PREMISE_VERB = re.compile(r"\b(?:is|are|was|were|got|has been|have been|comes?|come in|made|offered|available|exist|"
                           r"sold out|out of|full|go|be used|shut|discontinued|cancell?ed)\b")
_ASIDE = re.compile(r"\b(?:by the way|btw|fyi|side note|for the record|oh and|incidentally|just so you know|"
                    r"in case (?:that|it) matters|p\.?s\.?)\b|^(?:also|plus)\b")
_CONCRETE = re.compile(r"\b\d+ \w+ (?:street|st|avenue|ave|lane|drive|road|rd|way|court|place|boulevard|blvd)\b|"
                       r"\b(?:\d+|one|two|three|four|a couple of) (?:checked )?(?:bags?|suitcases?)\b|\b(?:moved|live at|new address)\b")
_OPERATION_VERBS = {"cancel": r"cancel\w*", "return": r"return\w*|send (?:it |them )?back", "exchange": r"exchang\w*",
                    "modify": r"modify\w*", "book": r"book(?:ing)?"}
_STORE = re.compile(r"\b(?:price alert|an alert|notify me|sort\w* (?:\w+ )?by|(?:price|the) filter|filter (?:the )?results|"
                    r"pick ?up|subscri\w+|ask the seller|wishlist|compare prices|track the price)\b")
_REQUEST_KIND = {r"\bcancel": "cancel", r"\breturn": "return", r"\bexchange": "exchange", r"\bchange items\b": "modify",
                 r"\bbook\b": "book", r"\bbuy\b": "buy"}


@dataclass
class _Clause:
    start: int
    end: int
    low: str


@dataclass
class _Hit:
    slot: str
    key: str
    clause: int
    score: float
    form: str
    pos: int = 0  # where in the clause (normalised) the form matched


@dataclass
class _ParseView:
    inp: ExtractionInput
    text: str
    low: str
    domains: Domains
    clauses: list[_Clause]
    hits: list[_Hit] = field(default_factory=list)
    owner: dict[int, set[str]] = field(default_factory=dict)  # clause -> requirements its words name


class ParseExtractor(Extractor[_ParseView]):
    """Clauses, fuzzy value matching and a diff against the truth."""

    name = "parse"

    # ------------------------------------------------------------------------------ parsing
    @staticmethod
    def _clauses(low: str) -> list[_Clause]:
        out, start = [], 0
        for m in _CLAUSE_SPLIT.finditer(low):
            if low[start:m.start()].strip():
                out.append(_Clause(start, m.start(), low[start:m.start()]))
            start = m.end()
        if low[start:].strip():
            out.append(_Clause(start, len(low), low[start:]))
        return out

    @staticmethod
    def _score(form: str, clause: str) -> float:
        """How well a clause contains a form: fuzzy partial match, and every content word of the
        form close to some word of the clause (so "4k" does not match inside "w4k7")."""
        f = " ".join(words(form))
        if not f:
            return 0.0
        plain = " ".join(words(clause))
        score = fuzz.partial_ratio(f, plain)
        if score < THRESHOLD:
            return 0.0
        present = set(words(clause))
        for w in words(form):
            if w in STOP:
                continue
            if w not in present and not any(len(w) >= 4 and fuzz.ratio(w, x) >= 80 for x in present):
                return 0.0
        return score

    def _values(self, d: SlotDomain) -> list[tuple[str, tuple[str, ...]]]:
        out = [(v.key, v.forms) for v in d.values]
        out += [(f"part:{p.key}", p.forms) for p in d.parts]
        return out

    def view(self, inp: ExtractionInput) -> _ParseView:
        text = inp.text or ""
        low = fold(text)
        domains = domains_of(inp)
        clauses = self._clauses(low)
        v = _ParseView(inp, text, low, domains, clauses)
        for i, c in enumerate(clauses):
            named = {s for s, d in domains.slots.items()
                     if any(len(w) > 2 and re.search(rf"(?<!\w){re.escape(fold(w))}s?(?!\w)", c.low) for w in (*d.names, *d.anchors))}
            v.owner[i] = named
            for slot, d in domains.slots.items():
                for key, forms in self._values(d):
                    best = max(((self._score(f, c.low), f) for f in forms), default=(0.0, ""))
                    if best[0] >= THRESHOLD:
                        where = fuzz.partial_ratio_alignment(" ".join(words(best[1])), " ".join(words(c.low)))
                        v.hits.append(_Hit(slot, key, i, best[0], best[1], where.dest_start if where else 0))
        v.hits = self._longest(v.hits)
        return v

    @staticmethod
    def _longest(hits: list[_Hit]) -> list[_Hit]:
        """Within a clause, a hit whose words another hit of the same requirement covers (a
        longer form: "not waterproof" over "waterproof") is dropped."""
        out = []
        for h in hits:
            longer = [o for o in hits if o.clause == h.clause and o.slot == h.slot and o.key != h.key
                      and len(o.form) > len(h.form) and f" {fold(h.form)} " in f" {fold(o.form)} "]
            if not longer:
                out.append(h)
        return out

    def _owner_of(self, v: _ParseView, hit: _Hit, candidates: set[str]) -> set[str]:
        """The requirements a hit belongs to: those among ``candidates`` named in its clause, else
        in the nearest clause before it; all of them when nothing decides."""
        for i in range(hit.clause, max(-1, hit.clause - 4), -1):
            named = v.owner.get(i, set()) & candidates
            if named:
                return named
        return candidates

    # ---------------------------------------------------------------------- the diff
    def _state(self, v: _ParseView, slot: str) -> tuple[str, list[_Hit]]:
        d = v.domains[slot]
        mine = []
        for h in v.hits:
            if h.key.startswith("part:") and h.slot != slot:
                continue
            same = {o.slot for o in v.hits if o.clause == h.clause and o.form == h.form}
            if h.slot == slot and slot in self._owner_of(v, h, same):
                mine.append(h)
        if d.parts:
            parts = {h.key for h in mine if h.key.startswith("part:")}
            whole = [h for h in mine if h.key == d.truth_key]
            if whole or (parts and parts >= {f"part:{p.key}" for p in d.parts}):
                return "true", mine
            return ("partial", mine) if parts else ("open", [])
        keys = {h.key for h in mine}
        premise = [h for h in mine if self._in_premise(v, h.clause)]
        if premise and d.truth_key in {h.key for h in premise}:
            return "doubted", mine
        if d.truth_key in keys and len(keys - {d.truth_key}) == 0:
            return "true", mine
        if d.truth_key in keys:
            shared = [h for h in mine if h.key == d.truth_key and any(o.form == h.form and o.key != h.key for o in mine)]
            return ("ambiguous", mine) if shared else ("true", mine)
        if len(keys) > 1:
            return "ambiguous", mine
        if keys:
            return "other", mine
        elsewhere = [h for h in v.hits if h.slot == slot and h.key == d.truth_key]
        if elsewhere:
            return "ambiguous", elsewhere  # said, but the clause names another requirement
        marked = self._marked(v, slot)
        return ("marked", marked) if marked else ("open", [])

    def _marked(self, v: _ParseView, slot: str) -> list[_Hit]:
        for i, c in enumerate(v.clauses):
            if (slot in v.owner.get(i, set()) or not any(v.owner.get(i, set()))) and (_PROFORM.search(c.low) or _DEGREE.search(c.low)):
                own = [s for s in v.domains.slots if s in v.owner.get(i, set())]
                if own and own != [slot] and slot not in own:
                    continue
                m = _PROFORM.search(c.low) or _DEGREE.search(c.low)
                assert m is not None
                return [_Hit(slot, "", i, 100.0, v.text[c.start + m.start():c.start + m.end()])]
        return []

    def _in_premise(self, v: _ParseView, i: int) -> bool:
        c = v.clauses[i].low
        return bool(_NEGATIVE.search(c) and _PREMISE_VERB.search(c))

    # ----------------------------------------------------------------------- evidence
    def request_stated(self, v: _ParseView) -> bool:
        return bool(_FRAME.search(v.low)) or any(_IMPERATIVE.match(c.low.strip()) for c in v.clauses)

    def noise(self, v: _ParseView) -> str | None:
        quiet = [i for i, c in enumerate(v.clauses) if not v.owner.get(i) and not any(h.clause == i for h in v.hits)]
        runs, run = [], []
        for i in range(len(v.clauses)):
            if i in quiet:
                run.append(i)
            elif run:
                runs.append(run)
                run = []
        if run:
            runs.append(run)
        best = max(runs, key=lambda r: len(v.low[v.clauses[r[0]].start:v.clauses[r[-1]].end].split()), default=None)
        if not best:
            return None
        start, end = v.clauses[best[0]].start, v.clauses[best[-1]].end
        n = len(v.low[start:end].split())
        if n >= 25 and n >= len(v.low.split()) - n:
            return clean(v.text[start:end])
        return None

    def presupposed(self, v: _ParseView) -> TargetedExtraction | None:
        """The requirement a premise is about: of the true values its clause names, the first
        (the premise's subject: "the 10x zoom isn't made in 30MP")."""
        found = []
        for slot in v.domains.slots:
            state, hits = self._state(v, slot)
            if state == "doubted":
                doubted = min((h for h in hits if self._in_premise(v, h.clause)), key=lambda h: (h.clause, h.pos))
                found.append((doubted.clause, doubted.pos, slot, doubted, hits))
        if not found:
            return None
        _, _, slot, doubted, hits = min(found, key=lambda f: (f[0], f[1]))
        others = [h for h in hits if not self._in_premise(v, h.clause) and h.key != doubted.key]
        c = v.clauses[doubted.clause]
        return TargetedExtraction(flaw="presupposed", requirement=slot, clause=clean(v.text[c.start:c.end]),
                                  fallback=others[0].form if others else None)

    def operation(self, v: _ParseView) -> str | None:
        for c in v.clauses:
            if (m := _STORE.search(c.low)) is not None:
                return clean(v.text[c.start:c.end])
        wanted = {kind for pattern, kind in _REQUEST_KIND.items() if re.search(pattern, v.inp.request.lower())}
        found = {kind: re.search(rf"\b(?:{p})\b", v.low) for kind, p in _OPERATION_VERBS.items()}
        if any(found.get(k) for k in wanted):
            return None
        for kind, m in found.items():
            if m is not None and kind not in wanted:
                c = next(c for c in v.clauses if c.start <= m.start() < c.end + 1)
                return clean(v.text[m.start():c.end])
        return None

    def extra(self, v: _ParseView) -> str | None:
        for i, c in enumerate(v.clauses):
            if i == 0 and not _ASIDE.search(c.low):
                continue
            if (_ASIDE.search(c.low) or _CONCRETE.search(c.low)) and not any(h.clause == i and not h.key.startswith("part:")
                                                                             for h in v.hits if v.domains[h.slot].truth_key == h.key):
                content = [w for w in WORD.findall(c.low) if w not in STOP]
                if len(content) >= 2:
                    return clean(re.sub(r"^\s*(?:and|also|plus|oh)\s+", "", v.text[c.start:c.end], flags=re.I))
        return None

    def requirement_flaw(self, v: _ParseView, flaw: str) -> TargetedExtraction | None:
        return next((f for f in self._requirement_flaws(v) if f.flaw == flaw), None)

    def _requirement_flaws(self, v: _ParseView) -> list[TargetedExtraction]:
        out = []
        for slot, d in v.domains.slots.items():
            state, hits = self._state(v, slot)
            said = hits[0].form if hits else None
            if state == "other":
                out.append(self.on_requirement("substituted", slot, said))
            elif state == "ambiguous":
                others = [h for h in hits if h.key != d.truth_key and d.value(h.key) is not None]
                second = d.value(others[0].key).spoken if others else None  # type: ignore[union-attr]
                out.append(TargetedExtraction(flaw="ambiguous", requirement=slot, surface=said, second_reading=second))
            elif state == "marked":
                out.append(self.on_requirement("marked", slot, said))
            elif state in ("open", "partial"):
                out.append(self.on_requirement("withheld", slot, None))
        return out

    # ---------------------------------------------------------------------------- forms
    def findings(self, inp: ExtractionInput) -> list[TargetedExtraction]:
        v = self.view(inp)
        if not v.low.strip():
            return []
        out: list[TargetedExtraction] = []
        if not self.request_stated(v):
            out.append(TargetedExtraction(flaw="oblique", request_stated=False))
        if (span := self.noise(v)) is not None:
            out.append(TargetedExtraction(flaw="noise", span=span))
        if (prem := self.presupposed(v)) is not None:
            out.append(prem)
        if (op := self.operation(v)) is not None:
            out.append(TargetedExtraction(flaw="mismatch", operation=op))
        out += [f for f in self._requirement_flaws(v) if not (prem and f.requirement == prem.requirement)]
        if (detail := self.extra(v)) is not None:
            out.append(TargetedExtraction(flaw="extras", detail=detail))
        return sorted(out, key=lambda f: PRIORITY.index(f.flaw))

    def blind(self, inp: ExtractionInput) -> BlindExtraction:
        found = self.findings(inp)
        if not found:
            return BlindExtraction(flaw="none")
        return BlindExtraction(flaw=found[0].flaw, requirement=found[0].requirement)
