"""The parse extractor: clauses, fuzzy phrase matching, and its own cue grammar.

It splits the text into clauses and finds the values in each clause with a fuzzy phrase matcher
(rapidfuzz's partial ratio over the clause, every content word of the form present up to a typo,
numbers exact), where the lexical extractor matches forms word by word; the kernel then attributes
what it found and states each requirement (so the two disagree where their matchers do). Around
the requirements it reads the clauses with a grammar of its own: request frames and imperatives,
runs of clauses that name nothing of the request, clauses that add a detail (an aside, an address,
a reason given for an extra wish), operation verbs of another kind.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from rapidfuzz import fuzz, process

from miscue.briefs import ExtractionInput
from miscue.language import Domains, Grounding
from miscue.offline.language.grounder import Form, Grounder
from miscue.language.states import TextReading, states
from miscue.language.text import Token, fold, respell
from miscue.offline.extractors.base import Extractor, Premise, naming_units, pointing_units
from miscue.offline.extractors.domains import domains_of
from miscue.offline.extractors.text import BIRTH_DATE, BOOKING_NOUN, INSTRUMENT, RETURN_LEG, STOP, WORD, blank, clean, split_spans

THRESHOLD = 88  # fuzzy score (0-100) from which a clause says a form
WORD_SCORE = 80  # fuzzy score from which a word of the text is a word of the form

_CLAUSE_SPLIT = re.compile(r"[.!?;:()]+\s*|,\s+|\s+[-–—]+\s+|\s+(?:but|so|and then|then)\s+")
_FRAME = re.compile(
    r"\b(?:i(?:'d| would) (?:like|love|prefer)|i (?:want|need|wish)|i'?m (?:looking|hoping|trying)|please|pls|kindly|"
    r"(?:can|could|would|will) (?:you|i)|help me|let me|go ahead|looking for|in the market for|i'?m after|"
    r"need (?:a|an|some|to)|want (?:a|an|some|to)|id like|i wanna)\b|\?")
_IMPERATIVE = re.compile(
    r"^(?:(?:and|also|then|so|just|now|ok|okay|hi|hello|hey|oh)\s+)*(?:cancel|exchange|return|change|switch|swap|book|"
    r"update|modify|send|refund|downgrade|upgrade|move|put|make|add|remove|replace|issue|give|find|get|buy|charge|bill|"
    r"pay|use|ship|set|reserve|rebook|fix|correct|show|pick|keep|credit|bump|grab|sort|ask|apply)\b")
#: words that make what follows in the clause someone's report, not the customer's ask ("apparently I
#: need ...", "the physio says I need ...")
_HEARSAY = re.compile(r"\b(?:apparently|says|said|thinks|reckons|told me|according to)\b")
_ASIDE = re.compile(r"\b(?:by the way|btw|fyi|side note|for the record|oh and|incidentally|just so you know|"
                    r"in case (?:that|it) matters|p\.?s\.?)\b|^(?:also|plus|oh)\b|\b(?:too|as well)$")
_BARE_ASIDE = re.compile(r"\W*(?:also|plus|oh|and|btw|by the way|oh and|one more thing)\W*")
_WISH = re.compile(r"\b(?:i'?d prefer|i would prefer|i'?d like it|make sure|ideally|preferably|if possible|"
                   r"would be (?:great|nice|good|ideal|a plus|a bonus)|(?:should|must|needs? to|has to|could) also|"
                   r"(?<!\bi )(?<!\bwe )also (?:be|have|has|needs?|comes?)|"
                   r"^(?:and |but )?(?:it|they|the \w+) (?:has to|have to|needs to|need to|must))\b")
_REASON = re.compile(r"^(?:since|because|cause|so|if (?:they|you|it) (?:make|have|carry|sell|come|do|exist)|"
                     r"i look|my \w+ (?:is|has|are|says))\b")
#: a condition or a precedent put on a wish inside its clause ("the 5-tier one if they make it", "like my old pair had")
_CONDITION = re.compile(r"\bif (?:they|you|it) (?:make|have|carry|sell|come|do|exist)\b|"
                        r"\b(?:as long as|so long as|provided (?:that )?it|only if it|on condition that)\b|"
                        r"\b(?:like|as) (?:my|the|our) (?:old|last|previous|current) \w+ (?:had|has|did|does)\b")
#: where the customer lives, said in an aside: a detail about them even when an order ships to the same place
_HOME_SAID = r"i(?:'ve| have)? moved|we(?:'ve| have)? moved|live at|new address"
_HOME = re.compile(r"\b(?:" + _HOME_SAID + r")\b")
_CONCRETE = re.compile(r"\b\d+ \w+ (?:street|st|avenue|ave|lane|drive|road|rd|way|court|place|boulevard|blvd)\b|"
                       r"\b(?:\d+|one|two|three|four|a couple of) (?:checked )?(?:bags?|suitcases?)\b|"
                       r"\b(?:" + _HOME_SAID + r")\b")
_OPERATION_VERBS = {"cancel": r"cancel\w*",
                    "return": r"(?<!the )(?<!my )return(?:s|ed|ing)?(?! flight| leg| trip| on\b| from\b| home\b| [a-z]{2,3}\d)"
                              r"|send (?:it |them )?back",
                    "exchange": r"exchang\w*",
                    "modify": r"modify\w*",
                    "book": r"(?:book|" + BOOKING_NOUN + ")"
                            r"(?! (?:reference|code|number|id|[a-z]*\d[a-z\d]*\b))"}
#: what an operation gets the customer, which asks for it without naming it ("I'd rather have the
#: money back than keep it"): part of the request, never noise -- and no operation of its own
_OUTCOMES = {"return": r"money back|refund\w*", "cancel": r"money back|refund\w*"}
_STORE = re.compile(r"\b(?:price alert|an alert|notify me|sort\w* (?:[\w-]+ ){0,6}?by|(?:price|the) filter|"
                    r"filter (?:the )?results|"
                    r"(?:in[- ]store|curbside) pick ?up|pick ?up in|subscri\w+|ask the seller|contact the seller|wishlist|"
                    r"compare (?:the )?prices|track the price)\b")
_REQUEST_KIND = {r"\bcancel": "cancel", r"\breturn": "return", r"\bexchange": "exchange", r"\bchange items\b": "modify",
                 r"\bbook\b": "book", r"\bbuy\b": "buy"}
_JOINS = re.compile(r"\b(?:and|with|that|which|plus|(?:it )?(?:has|needs?) to (?:have|be)|must (?:have|be))\b")
#: words in -ed that describe a product rather than tell what happened ("peppermint flavored", "fleece lined")
_PRODUCT_PARTICIPLE = (r"(?:un)?(?:flavou?r|scent|lin|padd|insulat|power|siz|shap|them|print|pattern|colou?r|roast|salt|"
                       r"sweeten|caffeinat|decaffeinat|dy|quilt|ribb|tuft|upholster|polariz|distress|fad|wash|frost|glaz|"
                       r"coat|plat|brush|cushion|reinforc|weight|heat|hood|zipper|knitt|fitt|tailor|bak|dri|smok|spic|"
                       r"season|infus|blend|braid|embroider|seal|certifi|rat|handcraft|refurbish)ed")
_TELLS = re.compile(r"\b(?:i|we|he|she|they|is|are|was|were|has|had|do|does|did|will|would|i'm|came|went|broke|says|said|"
                    r"told|thinks|reckons|swears|recommends|suggests|"
                    rf"(?!{_PRODUCT_PARTICIPLE}\b)\w{{3,}}ed)\b(?! to (?:have|be))")
_CLOSE = re.compile(r"\b(?:thanks?|thank you|cheers|regards|asap|please|pls|thx|merci|gracias|danke|grazie|obrigad[oa])\b")
_NEGATORS = {"no", "not", "without", "non", "never"}  # a form's negator must be said, never fuzzily
# kept, not added
_KEPT = re.compile(r"\bsame (?:\w+ )?(?:size|colou?r|one|model|style|kind|type|length|material)s?(?:(?:,| and) [\w-]+)*|"
                   r"\b(?:everything|all|the rest|anything) else\b(?: (?:is|stays|kept|left))?(?: the same| unchanged| as is)?")
#: an e-mail address or a user id: identity, whatever the clause splitter made of its dots
_HANDLE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b[a-z]+_[a-z]+_\d{3,}\b")
#: the city, state and ZIP code that close a street address ("..., San Diego, CA 92101, USA"): part of
#: the address said, not a detail of its own
_PLACE = re.compile(r"\b(?:[a-z][a-z.]*\s){0,3}[a-z][a-z.]*,\s*[a-z]{2},?\s+\d{5}(?:-\d{4})?(?:,?\s*usa\b)?")
#: the extraction form's context line names the customer ("You are Liam Moore, a customer of ...")
_CUSTOMER = re.compile(r"^you are ([^,.]+)", re.I)
_IDENTITY = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+|\b[a-z]+_[a-z]+_\d{3,}\b|\b\d{5}\b|\buser(?: id)?\b|"
                       r"\b[a-z]+ [a-z]+,? here\b|\bhere\b|\bzip\b|" + BIRTH_DATE)


def clause_spans(low: str) -> list[tuple[int, int]]:
    """The clauses of a folded text as character spans."""
    return split_spans(_CLAUSE_SPLIT, low)


def _derived(a: str, b: str) -> bool:
    """One word is the other with an ending that makes another word ("small" / "smaller")."""
    short, long_ = sorted((a, b), key=len)
    return long_.startswith(short) and long_[len(short):] not in ("", "s", "es")


def _asks(clause: str) -> bool:
    """The clause asks for something: a request frame no report opens, or an imperative."""
    return (any(not _HEARSAY.search(clause, 0, f.start()) for f in _FRAME.finditer(clause))
            or _IMPERATIVE.match(clause) is not None)


class FuzzyGrounder(Grounder):
    """The kernel's grounder with a fuzzy clause matcher in place of word-by-word matching."""

    def __init__(self, domains: Domains) -> None:
        super().__init__(domains)
        self._forms_of: dict[str, list[Form]] = defaultdict(list)  # a content word -> the forms that have it
        for f in self.forms:
            for w in f.words:
                if w not in STOP:
                    self._forms_of[w].append(f)
        self._vocab = list(self._forms_of)

    def _candidates(self, clause: list[Token]) -> set[Form]:
        out: set[Form] = set()
        for t in clause:
            if t.text in STOP:
                continue
            if t.text in self._forms_of:
                out.update(self._forms_of[t.text])
            if len(t.text) >= 4 and not t.text.isdigit():
                for word, _, _ in process.extract(t.text, self._vocab, scorer=fuzz.ratio, score_cutoff=WORD_SCORE, limit=8):
                    if not any(c.isdigit() for c in word):
                        out.update(self._forms_of[word])
        return out

    @staticmethod
    def _says(form: Form, present: set[str]) -> bool:
        """Every content word of the form is in the clause (numbers exactly, words up to a typo)."""
        for w in form.words:
            if w in present or (w in STOP and w not in _NEGATORS):
                continue
            if any(c.isdigit() for c in w) or len(w) < 4:
                return False
            if not any(fuzz.ratio(w, x) >= WORD_SCORE and not _derived(w, x) for x in present):
                return False
        return True

    def find(self, text: str, toks: list[Token]) -> list[tuple[int, int, Form]]:
        """Per clause, every candidate form scored against the clause's word windows of about its
        length (one word more or fewer): the best window from :data:`THRESHOLD` whose words say
        every content word of the form."""
        out: list[tuple[int, int, Form]] = []
        clauses = self._token_clauses(text, toks)
        for k, (a, b) in enumerate(clauses):
            for form in self._candidates(toks[a:b]):
                best = self._best(form, toks, a, b)
                if best is not None:
                    out.append((best[1], best[2], form))
            # a value said across a comma ("123 Elm Street, Suite 641"): a form of three words or
            # more matched over this clause and the next, starting in this one and ending there
            if k + 1 < len(clauses):
                end = clauses[k + 1][1]
                for form in self._candidates(toks[a:end]):
                    best = self._best(form, toks, a, end) if len(form.words) >= 3 else None
                    if best is not None and best[1] < b < best[2]:
                        out.append((best[1], best[2], form))
        return out

    def _best(self, form: Form, toks: list[Token], a: int, b: int) -> tuple[float, int, int] | None:
        """The best-scoring window of ``toks[a:b]`` saying ``form``: (score, start, end)."""
        phrase = " ".join(form.words)
        n = len(form.words)
        best: tuple[float, int, int] | None = None
        for width in {max(1, n - 1), n, n + 1}:
            for i in range(a, b - width + 1):
                window = toks[i:i + width]
                score = fuzz.ratio(phrase, " ".join(t.text for t in window))
                said = {t.text for t in window}
                if score >= THRESHOLD and (best is None or score > best[0]) and self._says(form, said) \
                        and _same_numbers(form.words, [t.text for t in window]) \
                        and not (said & _NEGATORS) - set(form.words):  # a negator the form lacks
                    best = (score, i, i + width)
        return best

    @staticmethod
    def _token_clauses(text: str, toks: list[Token]) -> list[tuple[int, int]]:
        """The clauses of the text as token ranges (a form is matched inside one clause)."""
        ends = [b for _, b in clause_spans(fold(text))]
        out, begin = [], 0
        for k in range(1, len(toks) + 1):
            if k == len(toks) or any(toks[k - 1].end <= e <= toks[k].start for e in ends):
                out.append((begin, k))
                begin = k
        return out


def _numbers(words: Iterable[str]) -> Counter[str]:
    return Counter(w for w in words if any(c.isdigit() for c in w))


def _same_numbers(form: tuple[str, ...], window: list[str]) -> bool:
    """The window says the form's numbers, each as often, and no other ("34w x 32l" is no 32w x 32l)."""
    said, wanted = _numbers(window), _numbers(form)
    return not (wanted - said) and set(said) <= set(wanted)


@dataclass
class _ParseView:
    inp: ExtractionInput
    text: str
    low: str  # folded, typos corrected for the cue grammar (same spans through ``spelt``)
    domains: Domains
    grounding: Grounding
    reading: TextReading
    clauses: list[tuple[int, int]] = field(default_factory=list)  # character spans in the text


_GROUNDERS: dict[int, FuzzyGrounder] = {}


def _grounder(domains: Domains) -> FuzzyGrounder:
    if id(domains) not in _GROUNDERS:
        if len(_GROUNDERS) > 512:
            _GROUNDERS.clear()
        _GROUNDERS[id(domains)] = FuzzyGrounder(domains)
    return _GROUNDERS[id(domains)]


class ParseExtractor(Extractor[_ParseView]):
    """Clauses, fuzzy phrase matching and a grammar of request, aside and operation clauses."""

    name = "parse"

    def view(self, inp: ExtractionInput) -> _ParseView:
        text = inp.text or ""
        domains = domains_of(inp)
        g = _grounder(domains).ground(text)
        spelt = respell(fold(text))
        clauses = [spelt.span(a, b) for a, b in clause_spans(spelt.text)]
        low = fold(text)
        return _ParseView(inp, text, low, domains, g, states(g, domains), clauses)

    def reading(self, v: _ParseView) -> tuple[TextReading, Domains]:
        return v.reading, v.domains

    def _clause_low(self, v: _ParseView, span: tuple[int, int]) -> str:
        return respell(v.low[span[0]:span[1]]).text.strip()

    # ----------------------------------------------------------------------- evidence
    def request_stated(self, v: _ParseView) -> bool:
        if v.grounding.requests:  # shorthand lists and elided verbs the kernel recognises
            return True
        return any(_asks(self._clause_low(v, c)) for c in v.clauses)

    def noise(self, v: _ParseView) -> str | None:
        """The longest run of clauses that names nothing of the request, when it is at least 25
        words and at least as long as the rest. A clause that names the operation asked for
        ("better they are cancelled"), what it gets the customer ("I'd rather have the money back")
        or points at a requirement ("on the booking I told you about", "a modest certificate") is part
        of the request."""
        best: tuple[int, int] | None = None
        run: list[tuple[int, int]] = []
        named = dict(zip(v.clauses, naming_units(v.clauses, v.reading, v.domains, apart=2)))
        pointed = dict(zip(v.clauses, pointing_units(v.clauses, v.reading)))
        request = v.inp.request.lower()
        wanted = [f"{_OPERATION_VERBS[k]}|{_OUTCOMES[k]}" if k in _OUTCOMES else _OPERATION_VERBS[k]
                  for p, k in _REQUEST_KIND.items() if k in _OPERATION_VERBS and re.search(p, request)]
        asks = [m.span() for verb in wanted for m in re.finditer(rf"\b(?:{verb})\b", v.low)]
        for c in [*v.clauses, None]:
            if (c is not None and not named[c] and not pointed[c] and not _IDENTITY.search(v.low[c[0]:c[1]])
                    and not any(a < c[1] and c[0] < b for a, b in asks)):
                run.append(c)
                continue
            if run:
                span = (run[0][0], run[-1][1])
                if best is None or len(v.low[span[0]:span[1]].split()) > len(v.low[best[0]:best[1]].split()):
                    best = span
            run = []
        if best is None:
            return None
        n = len(v.low[best[0]:best[1]].split())
        if n >= 25 and n >= len(v.low.split()) - n:
            return clean(v.text[best[0]:best[1]])
        return None

    def presupposed(self, v: _ParseView) -> Premise | None:
        """The requirement a premise is about: the first one whose true value a premise names and
        for which the text settles on something else; else the first one a premise names ("For
        M20IZO I'd have wanted business, but I gather upgrades aren't allowed, so keep it economy":
        the cabin, not the reservation the premise also names)."""
        found = []
        for slot, st in v.reading.slots.items():
            if st.state == "doubted":
                first = min(m.start for m in st.mentions if m.in_premise)
                settled = any(not m.in_premise for m in st.mentions)
                found.append((not settled, first, slot, st))
        if not found:
            return None
        _, first, slot, st = min(found, key=lambda f: f[:2])
        clause = next(((a, b) for a, b in v.clauses if a <= first < b), None)
        return Premise(slot, clean(v.text[clause[0]:clause[1]]) if clause else None)

    def operation(self, v: _ParseView) -> str | None:
        for a, b in v.clauses:
            if _STORE.search(self._clause_low(v, (a, b))) is not None:
                return clean(v.text[a:b])
        wanted = {kind for pattern, kind in _REQUEST_KIND.items() if re.search(pattern, v.inp.request.lower())}
        spelt = respell(v.low)
        low = spelt.text
        for phrase in {r.phrase.lower() for r in v.inp.requirements}:  # a requirement's own name asks for nothing
            low = low.replace(phrase, " " * len(phrase))
        low = blank(low, [m.span() for m in RETURN_LEG.finditer(low)])
        values = [(m.start, m.end) for m in v.grounding.mentions if m.kind in ("value", "member")]
        found = {kind: next((m for m in re.finditer(rf"\b(?:{p})\b", low)  # not a word of a value ("noise cancelling")
                             if not any(a <= spelt.span(*m.span())[0] < b for a, b in values)), None)
                 for kind, p in _OPERATION_VERBS.items()}
        asked = [k for k in wanted if k in found]  # the operations asked for that a verb names
        if asked and all(found[k] for k in asked):
            return None  # every one is said: another kind said too is part of the story, not a swap
        for kind, m in found.items():
            if m is not None and kind not in wanted:
                start = spelt.span(*m.span())[0]
                end = next((b for a, b in v.clauses if a <= start < b), len(v.text))
                return clean(v.text[start:end])
        return None

    def extra(self, v: _ParseView) -> str | None:
        """A clause that adds a detail: opened as an aside, naming an address or a count, or
        given a reason ("fleece lined, since I run outside"), with words neither the request nor
        its requirements explain."""
        known = [(m.start, m.end) for m in v.grounding.mentions if m.kind != "extra"] + list(v.grounding.requests) \
            + list(v.grounding.premises) + [m.span() for m in _KEPT.finditer(v.low)] \
            + [m.span() for m in INSTRUMENT.finditer(v.low)] + [m.span() for m in _PLACE.finditer(v.low)]
        for d in v.domains.slots.values():  # the words naming a requirement explain themselves
            for phrase in (*d.names, *d.anchors):
                if len(phrase) > 2:
                    known += [m.span() for m in re.finditer(rf"(?<!\w){re.escape(fold(phrase))}s?(?!\w)", v.low)]
        asked = set(WORD.findall(fold(v.inp.request)))  # the request's own words ("the shipping address")
        for k, (a, b) in enumerate(v.clauses):
            low = self._clause_low(v, (a, b))
            if _IDENTITY.search(low) and not _CONCRETE.search(low):
                continue  # who the customer is, not a detail of the request
            reason = k + 1 < len(v.clauses) and _REASON.match(self._clause_low(v, v.clauses[k + 1])) is not None \
                and not self._consequence(v, v.clauses[k + 1])
            reason = reason or _WISH.search(low) is not None or _CONDITION.search(low) is not None
            after_aside = k > 0 and _BARE_ASIDE.fullmatch(self._clause_low(v, v.clauses[k - 1])) is not None
            if k == 0 and not _ASIDE.search(low):
                continue
            if not (_ASIDE.search(low) or after_aside or _CONCRETE.search(low) or reason):
                continue
            content = [m for m in WORD.finditer(v.low[a:b]) if m.group(0) not in STOP and m.group(0) not in asked
                       and not any(s <= a + m.start() < e for s, e in known) and not _IDENTITY.search(m.group(0))]
            if len(content) >= (1 if reason else 2) or ((_ASIDE.search(low) or after_aside) and _HOME.search(low)):
                b = self._aside_end(v, k)
                return clean(re.sub(r"^\s*(?:and|also|plus|oh)\s+", "", v.text[a:b], flags=re.I))
        return self._listed(v, known)

    def _consequence(self, v: _ParseView, clause: tuple[int, int]) -> bool:
        """"..., so I'd like to exchange it": the clause before says why the customer asks, it adds
        no detail to what they ask for."""
        a, b = clause
        return self._clause_low(v, clause).startswith("so ") and any(s < b and a < e for s, e in v.grounding.requests)

    @staticmethod
    def _aside_end(v: _ParseView, k: int) -> int:
        """Where the detail opened by clause ``k`` ends: its sentence's end, or the first later
        clause that asks for something ("I've moved, I'm at 271 Sunset Drive now. Please ...")."""
        end = v.clauses[k][1]
        for a, b in v.clauses[k + 1:]:
            if re.search(r"[.!?;]", v.text[end:a]) or any(s < b and a < e for s, e in v.grounding.requests):
                break
            end = b
        return end

    def _listed(self, v: _ParseView, known: list[tuple[int, int]]) -> str | None:
        """A product query listed in shorthand with one item the request does not hold
        ("short sleeve tee in navy, under $40, cotton"; "... with button closure and pockets")."""
        # the values said are attributes, not verbs ("an upholstered queen bed frame")
        bare = blank(v.low, [(m.start, m.end) for m in v.grounding.mentions if m.kind == "value"])
        if not v.grounding.requests or _TELLS.search(_FRAME.sub(" ", bare)):
            return None
        asked = {w for w in WORD.findall(fold(v.inp.request)) if w not in STOP}
        customer = set(WORD.findall(fold(m.group(1)))) if (m := _CUSTOMER.match(v.inp.context.strip())) else set()
        known = known + [m.span() for m in _HANDLE.finditer(v.low)]
        low = blank(v.low, [m.span() for m in _CLOSE.finditer(v.low)])  # "size medium please": the please asks for nothing
        for a, b in [p for c in v.clauses for p in _pieces(v.low, c)][1:]:
            words_ = [w for w in WORD.findall(low[a:b]) if w not in STOP]
            if not words_ or len(words_) > 4 or _IDENTITY.search(v.low[a:b]):
                continue  # nothing or a sign-off, a clause, the opening item (the product itself)
            if set(words_) <= customer:
                continue  # the customer's own name, signing the message
            if any(s <= i < e for s, e in known for i in range(a, b) if low[i].isalnum()):
                continue  # it names something of the request
            if (len(words_) == 1 and v.text[a:b].strip()[:1].isupper()
                    or any(fuzz.ratio(w, x) >= 80 for w in words_ for x in asked)):
                continue  # a name, or the kind of product asked for
            return clean(v.text[a:b])
        return None


def _pieces(low: str, clause: tuple[int, int]) -> list[tuple[int, int]]:
    """A clause split at the words that join items of a list ("and", "with", "that", "it has to have")."""
    a, b = clause
    out, start = [], a
    for m in _JOINS.finditer(low, a, b):
        if low[start:m.start()].strip():
            out.append((start, m.start()))
        start = m.end()
    if low[start:b].strip():
        out.append((start, b))
    return out
