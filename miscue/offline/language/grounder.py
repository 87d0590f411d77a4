"""The grounder: which legal value a text gives for each requirement, and where it says so.

For a text and an intent's :class:`~miscue.language.domain.Domains`, :meth:`Grounder.ground`
finds every mention:

- **value**: a surface form of a legal value (multi-word spans, typos tolerated, the longest
  form winning where forms overlap, so "not waterproof" is not also "waterproof"). A form shared
  by several values of a slot leaves the mention with all of them: lexically ambiguous, never
  guessed. A form several slots share is attributed by the words around it: the slot whose
  anchors (its object: "keyboard", "#W2378156") and names ("size", "switches") stand nearest;
  a tie leaves it unattributed (a modifier that could attach to either).
- **current**: a value mentioned as what the customer has now, not what they want ("instead of
  the black one", "from size 9").
- **referring** / **vague**: a pointer to shared knowledge or a subjective description standing
  where a value would, attributed like a value by its surroundings.
- **operation** / **extra**: an operation the customer asks for and an extra detail they volunteer
  (the domains' details).
A value said inside a premise taken for granted ("since the clicky ones are sold out") is marked
``in_premise``. Nothing here knows a host: the adapters supply the domains.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, replace

from miscue.offline.language import cues
from miscue.offline.language.context import WINDOW, Context, sentences
from miscue.language.domain import Domains
from miscue.language.mentions import Grounding, Mention
from miscue.offline.language.structure import Structure
from miscue.language.text import Token, close, fold, respell, tokens, words

#: words right before a value that make it the customer's current one, not the one they want
#: (the phrase may end up to two words before the value: "instead of the black one")
_CURRENT_BEFORE = {("instead", "of"), ("rather", "than"), ("currently",), ("old",), ("current",),
                   ("original",), ("not",), ("replace",), ("replacing",), ("than",), ("existing",), ("previous",),
                   ("swap", "out"), ("no", "longer", "want"), ("dont", "want"), ("do", "not", "want"), ("got", "the"),
                   ("received", "the"), ("have", "the"), ("bought", "the"), ("ordered", "the"), ("stuck", "in"),
                   ("currently", "in"), ("booked", "in"), ("is", "in"), ("are", "in"), ("was", "in"), ("still", "in"),
                   ("exchange",), ("exchanging",), ("swapping",)}
_CURRENT_AFTER = {("one", "i", "have"), ("i", "have"), ("that", "i", "have"), ("i", "got"), ("i", "received"),
                  ("came",), ("that", "came"), ("doesnt", "fit"), ("is", "too"), ("was", "too"), ("are", "too")}
#: between a list's last part and a weak form said for all of them (", both on" May 20)
_SHARED_GAP = re.compile(r"[\s,]*(?:(?:both|all|each)(?: of them)?\s+)?(?:on|for)?\s*", re.I)
#: between two parts of a list ("HAT136, HAT039 and HAT201")
_LIST_GAP = re.compile(r"\s*(?:,\s*(?:and\s+)?|and\s+|&\s*)", re.I)


@dataclass(frozen=True)
class Form:
    """One way of saying a value, a part or a detail, as normalised words."""

    words: tuple[str, ...]
    slot: str | None  # None: a detail
    value: str | None  # value key (slots), member key (parts) or detail ref
    kind: str  # value | member | operation | extra
    weak: bool = False


class Grounder:
    """Grounds texts against one intent's domains (compile once, ground many texts)."""

    def __init__(self, domains: Domains) -> None:
        self.domains = domains
        forms: list[Form] = []
        for d in domains.slots.values():
            for v in d.values:
                forms += [Form(w, d.slot, v.key, "value") for w in {words(f) for f in v.heard} if w]
            for part in d.parts:
                forms += [Form(w, d.slot, part.key, "member") for w in {words(f) for f in part.heard} if w]
                forms += [Form(w, d.slot, part.key, "member", weak=True) for w in {words(f) for f in part.weak} if w]
        for det in domains.details:
            forms += [Form(w, None, det.ref, det.kind) for w in {words(f) for f in det.forms} if w]
        self.forms = forms
        self._anchored = {d.ref: {w for w in map(words, d.anchors) if w} for d in domains.details if d.anchors}
        self._by_first: dict[str, list[Form]] = defaultdict(list)
        for f in forms:
            self._by_first[f.words[0]].append(f)
        self._firsts = list(self._by_first)
        self._structure = Structure(domains)
        self._siblings: dict[str, list[str]] = defaultdict(list)  # an operation's label -> its requirements
        for slot in domains.slots:
            self._siblings[slot.split(".")[0]].append(slot)
        self._cues: dict[str, list[tuple[str, ...]]] = {
            s: [w for w in {words(x) for x in (*d.names, *d.anchors)} if w] for s, d in domains.slots.items()}
        # a payment is also named by its own operation's words ("the bag goes on gift card 6644; the
        # flight change on the card I normally use"), those no other operation shares
        names = {s: {w for w in (words(x) for x in d.names) if w} for s, d in domains.slots.items()}
        for slot, d in domains.slots.items():
            if d.instrument:
                op = slot.split(".")[0]
                own = {w for s in self._siblings[op] if s != slot and not domains[s].instrument for w in names[s]}
                others = {w for s in domains.slots if s.split(".")[0] != op for w in names[s]}
                self._cues[slot] += sorted(own - others)

    # ----------------------------------------------------------------------------- matching
    def _starts(self, toks: list[Token]) -> dict[int, list[Form]]:
        """Forms whose first word is at each position (typo-tolerant)."""
        near: dict[str, list[str]] = {}
        for t in {t.text for t in toks}:
            near[t] = [f for f in self._firsts if close(t, f)]
        return {i: [f for first in near[t.text] for f in self._by_first[first]] for i, t in enumerate(toks)}

    @staticmethod
    def _match(toks: list[Token], i: int, form: tuple[str, ...]) -> int | None:
        """End index (exclusive) when ``form`` matches at token ``i``."""
        k = i
        for n, w in enumerate(form):
            if n and k < len(toks) and toks[k].text in cues.ARTICLES and w not in cues.ARTICLES and not w[0].isdigit():
                k += 1  # "with a mirror" says "with mirror" ("pack of the 20" is no "pack of 20")
            elif n and k < len(toks) and toks[k].text == "any" and form[n - 1] in cues.NEGATORS and w != "any":
                k += 1  # "without any water resistance" says "without water resistance"
            if k >= len(toks) or not close(toks[k].text, w):
                return None
            k += 1
        return k

    def find(self, text: str, toks: list[Token]) -> list[tuple[int, int, Form]]:
        """The matcher: every form the text says, as (first token, end token, form). This one
        matches a form's words in order, each word exact or one typo away (:func:`close`); a
        subclass may match otherwise (the parse extractor matches clauses fuzzily)."""
        out = []
        for i, forms in self._starts(toks).items():
            for f in forms:
                end = self._match(toks, i, f.words)
                if end is not None:
                    out.append((i, end, f))
        return out

    @staticmethod
    def _longest(raw: list[tuple[int, int, Form]]) -> dict[tuple[int, int], list[Form]]:
        """Keep the spans no longer span holds (a longer form wins where forms overlap)."""
        spans = sorted({(i, j) for i, j, _ in raw}, key=lambda s: (-(s[1] - s[0]), s[0]))
        slots: dict[tuple[int, int], set[str | None]] = defaultdict(set)
        for i, j, f in raw:
            slots[(i, j)].add(f.slot)
        kept: list[tuple[int, int]] = []
        for s in spans:
            # inside a longer form, or overlapping a longer form of the same requirement ("my Visa"
            # in "my Visa ending 7803"); a value inside a detail still counts ("cancel order #W527")
            if not any((k[0] <= s[0] and s[1] <= k[1] and not (slots[k] == {None} and None not in slots[s]))
                       or (k[0] < s[1] and s[0] < k[1] and slots[s] <= slots[k]) for k in kept):
                kept.append(s)
        out: dict[tuple[int, int], list[Form]] = defaultdict(list)
        for i, j, f in raw:
            if (i, j) in kept:
                out[(i, j)].append(f)
        return out

    def _cue_positions(self, toks: list[Token]) -> dict[str, list[int]]:
        """Token positions of each slot's names and anchors."""
        out: dict[str, list[int]] = defaultdict(list)
        for slot, phrases in self._cues.items():
            for p in phrases:
                for i in range(len(toks)):
                    if self._match(toks, i, p) is not None:
                        out[slot] += list(range(i, i + len(p)))
        return out

    def _attribute(self, span: tuple[int, int], slots: list[str], ctx: "Context",
                   keys: set[str] = frozenset()) -> tuple[str, ...]:  # type: ignore[assignment]
        """The slot(s) a mention belongs to.

        - An identifier (an order, a reservation, a card) belongs to the requirements it is the
          true value of (ids anchor themselves; two operations on one order share it); so does a
          value that is the true value of every candidate when all are requirements of one thing
          (one item's options told by "the fantasy one").
        - A value said once for all ("both to economy", "cancel both"), in a sentence of its own
          ("PayPal for any differences.") or in one clause with every candidate's words ("update
          my default address and the shipping address to ...") belongs to every candidate whose
          true value it is; a clause break between them ("the shoes and the bottle - the glass
          one - in black") or a singular pronoun in its clause ("cancel #A and #B as I no longer
          need it") leaves it to the nearest, and so do one candidate's own words in its clause
          ("all five to economy: JG7FMM refund to my Visa, ...").
        - A value said after the things it is for, coordinated in its clause ("upgrade H8Q05L and
          KC18K6 to business"), belongs to each of them whose true value it is.
        - Otherwise the nearest cues (names and anchors) win; cues every candidate shares (the
          request verb of two cancellations) tell nothing apart; a tie stays unattributed.
        """
        slots = sorted(set(slots))
        if len(slots) == 1:
            return tuple(slots)
        doms = [self.domains[s] for s in slots]
        owners = [d.slot for d in doms if d.truth_key in keys]
        if all(d.identifier for d in doms) and owners and (len(owners) == 1 or not any(d.instrument for d in doms)):
            return tuple(owners)
        if len(owners) == len(slots) and doms[0].anchors and all(d.anchors == doms[0].anchors and not d.identifier for d in doms):
            return tuple(owners)  # the true value of every requirement of one thing ("the fantasy one" names the puzzle)
        shared = set.intersection(*(set(ctx.cue_pos.get(s, ())) for s in slots))
        if len(owners) > 1 and len(ctx.local(span, slots, shared)) != 1 and (
                ctx.distributive(span) or not ctx.cued_here(span, slots, shared) or (
                    not ctx.singular(span) and all(ctx.same_clause(span, ctx.cue_pos.get(s, ()), shared) for s in owners))):
            return tuple(owners)
        a, b = ctx.listing(span)
        coordinated = [s for s in owners if any(a <= p < b for p in ctx.cue_pos.get(s, ()) if p not in shared)]
        if len(coordinated) > 1 and not ctx.singular(span) and all(
                p < span[0] for s in coordinated for p in ctx.cue_pos.get(s, ()) if p not in shared and a <= p < b):
            return tuple(coordinated)  # "upgrade A and B to business": said after the things it is for, all in its clause
        dist = {s: ctx.distance(span, [p for p in ctx.cue_pos.get(s, ()) if p not in shared]) for s in slots}
        best = min(dist.values())
        winners = tuple(s for s in slots if dist[s] == best)
        if best > WINDOW and len(winners) > 1:
            return tuple(slots)
        return winners

    def _about_another(self, ref: str | None, i: int, ctx: Context) -> bool:
        """A detail said in a sentence that names other details' objects and not its own."""
        if ref not in self._anchored:
            return False
        here = [t.text for k, t in enumerate(ctx.toks) if ctx.period[k] == ctx.period[i]]
        named = {r for r, forms in self._anchored.items()
                 if any(tuple(here[k:k + len(f)]) == f for f in forms for k in range(len(here)))}
        return bool(named) and ref not in named

    @staticmethod
    def _current(toks: list[Token], i: int, j: int) -> bool:
        before = tuple(t.text for t in toks[max(0, i - 5):i])
        after = tuple(t.text for t in toks[j:j + 3])
        for p in _CURRENT_BEFORE:
            for gap in (0, 1, 2):  # "instead of [the] [old] black"
                end = len(before) - gap
                if end >= len(p) and before[end - len(p):end] == p and all(w in ("the", "a", "my", "one", "pair", "of")
                                                                           for w in before[end:]):
                    return True
        if before[-1:] == ("from",) and any(w in ("to", "into") for w in (t.text for t in toks[j:j + 5])):
            return True  # "from size 9 to size 10"
        return any(after[:len(p)] == p for p in _CURRENT_AFTER)

    # ------------------------------------------------------------------------------ ground
    def ground(self, text: str) -> Grounding:
        toks = tokens(text)
        spelt = respell(fold(text))  # cues are read with typos corrected, values with typos tolerated
        out = Grounding(text, premises=[spelt.span(a, b) for a, b in cues.clause_spans(cues.PREMISE, spelt.text)],
                        requests=[spelt.span(a, b) for a, b in cues.spans(cues.REQUEST, spelt.text)])
        cue_pos = self._cue_positions(toks)
        ctx = Context(text, toks, sentences(text, toks), cue_pos, sentences(text, toks, ".!?\n"))
        for (i, j), forms in sorted(self._longest(self.find(text, toks)).items()):
            start, end = toks[i].start, toks[j - 1].end
            frag = text[start:end]
            in_premise = any(a <= start and end <= b for a, b in out.premises)
            for kind, ref in sorted({(f.kind, f.value) for f in forms if f.slot is None}):
                if self._about_another(ref, i, ctx):
                    continue
                out.mentions.append(Mention(kind, start, end, frag, ref=ref, in_premise=in_premise))
            current = self._current(toks, i, j)
            lead = i - 1 if i > 0 and toks[i - 1].text not in cues.ARTICLES else i - 2
            wanted = lead >= 0 and toks[lead].text in ("for", "to", "into") and any(
                f.kind == "value" and self.domains[f.slot].has_current for f in forms if f.slot)
            for kind in ("value", "member"):
                found = [f for f in forms if f.slot is not None and f.kind == kind]
                if not found or (kind == "member" and wanted):
                    continue  # "swap the silicone one for the metal strap": a new value, not an item
                candidates = tuple(sorted({f.slot for f in found}))  # type: ignore[misc]
                slots = self._attribute((i, j), list(candidates), ctx, {f.value for f in found})  # type: ignore[misc]
                shared = set.intersection(*(set(cue_pos.get(x, ())) for x in candidates))
                # the other slots it could attach to: those whose own words stand in its sentence
                candidates = tuple(x for x in candidates if x in slots or ctx.cued_here((i, j), [x], shared, period=True))
                keys = tuple(sorted({f.value for f in found if f.slot in slots}))  # type: ignore[misc]
                weak = all(f.weak for f in found)
                if kind == "member" and len(keys) > 1 and not ctx.distributive((i, j)):
                    weak = True  # "the toothbrush" of two: names one of them, not both
                if kind == "value" and current and any(self.domains[x].has_current for x in slots):
                    kind = "current"
                out.mentions.append(Mention(kind, start, end, frag, slots, keys, in_premise=in_premise, weak=weak,
                                            candidates=candidates))
                ctx.covered.update(range(i, j))
                if all(self.domains[x].identifier for x in slots):
                    ctx.listed.add(j - 1)
                if len(slots) == 1:  # a value said for one operation anchors its payment ("add 2 bags, ... on gift card X")
                    label = slots[0].split(".")[0]
                    for sibling in self._siblings.get(label, ()):
                        if sibling != slots[0] and self.domains[sibling].instrument:
                            cue_pos[sibling].extend(range(i, j))
        self._shared_weak(out)
        self._structure.apply(out, ctx)
        for kind, pattern in (("referring", cues.REFERRING), ("vague", cues.VAGUE)):
            for a, b in (spelt.span(*ab) for ab in cues.spans(pattern, spelt.text)):
                if any(m.start <= a and b <= m.end for m in out.mentions if m.kind in ("value", "current")):
                    continue  # a legal value's own words ("medium", "large")
                span = self._token_span(toks, a, b)
                if span is None:
                    continue
                inner = [m for m in out.mentions if m.kind == "value" and a <= m.start and m.end <= b]
                if kind == "referring" and inner:
                    if any(len(m.values) == 1 for m in inner):
                        continue  # "the Visa ending 1111 I used before": the value is said
                    for m in inner:  # "the gift card I used last time" (of two): the pointer says which
                        out.mentions.remove(m)
                noun = next((m for m in out.mentions if m.kind == "value" and len(m.values) > 1 and m.slots
                             and 0 <= m.start - b <= 4 and text[b:m.start].strip() in ("", "of")), None)
                if noun is not None:  # "a few checked bags", "the usual number of checked bags": they say the count
                    out.mentions.remove(noun)
                    out.mentions.append(Mention(kind, a, noun.end, text[a:noun.end], noun.slots,
                                                in_premise=any(p <= a < q for p, q in out.premises)))
                    continue
                near = [s for s, pos in cue_pos.items() if ctx.distance(span, pos) <= WINDOW // 2]
                if kind == "vague":  # a subjective word describes a quality, never an id
                    near = [s for s in near if not self.domains[s].identifier]
                    if cues.PHYSICAL.search(fold(text[a:b])) and near:
                        near = [s for s in near if not cues.MONEY_NAMES & set(self.domains[s].names)]
                        if not near:
                            continue  # "size large" near a price: a size the requirements do not name
                    elif not near and cues.MONEY.search(fold(text[a:b])):  # "something that won't break the bank"
                        near = [s for s, d in self.domains.slots.items() if cues.MONEY_NAMES & set(d.names)]
                comparative = cues.COMPARATIVE.search(fold(text[a:b])) is not None
                if kind == "vague" and (any(self.domains[s].ordered for s in near) or comparative):
                    near = [s for s in near if self.domains[s].ordered]  # a comparative describes an order
                named = [s for s in near if any(span[0] <= p < span[1] for p in cue_pos.get(s, ()))]
                near = named or near  # "the card I normally use" names what it points at
                slots = self._attribute(span, near, ctx) if near else ()
                if kind == "referring" and (said := out.commented(a)) is not None:
                    slots = said.slots  # "ship it to 380 Maple Drive ... (same as my old order)": it restates the value
                if kind == "referring" and len(slots) == 1:
                    slots = self._alike_alone(span, slots[0], near, ctx, out)
                out.mentions.append(Mention(kind, a, b, text[a:b], slots, in_premise=any(p <= a < q for p, q in out.premises),
                                            comparative=kind == "vague" and comparative))
        self._structure.transitions(out, ctx)  # again: "for a longer battery life" wants another than "the 4-hour ones"
        out.mentions.sort(key=lambda m: (m.start, m.end, m.kind))
        return out

    @staticmethod
    def _shared_weak(out: Grounding) -> None:
        """A weak form closing a list is said once for every part of it: "flights HAT136 and
        HAT039, both on May 20" names HAT136 on May 20, not HAT136 on whichever date. Each part
        named right before it (the parts joined by "and" or commas only) keeps the values the
        weak form also names, when it names some."""
        members = sorted((m for m in out.mentions if m.kind == "member" and not m.in_premise), key=lambda m: m.start)
        for k, w in enumerate(members):
            if not w.weak or len(w.slots) != 1:
                continue
            end, gap = w.start, _SHARED_GAP
            for m in reversed(members[:k]):
                kept = tuple(v for v in m.values if v in w.values)
                if m.slots != w.slots or not kept or not gap.fullmatch(out.text[m.end:end]):
                    break
                if len(kept) < len(m.values):
                    out.mentions[out.mentions.index(m)] = replace(m, values=kept, weak=len(kept) > 1)
                end, gap = m.start, _LIST_GAP

    def _alike_alone(self, span: tuple[int, int], slot: str, near: list[str], ctx: Context, out: Grounding) -> tuple[str, ...]:
        """"... and add 3 checked bags. Pay with the gift card I used last time.": a pointer in a
        sentence that gives no value stands for every requirement like the nearest one (the
        payments of all the operations), not for the nearest alone."""
        alike = tuple(sorted(s for s in near if s.split(".")[-1] == slot.split(".")[-1]
                             and self.domains[s].instrument == self.domains[slot].instrument))
        here = ctx.period[span[0]]
        said = any(ctx.period[k] == here for m in out.mentions if m.kind in ("value", "member")
                   for k, t in enumerate(ctx.toks) if m.start <= t.start < m.end)
        return alike if len(alike) > 1 and not said else (slot,)

    @staticmethod
    def _token_span(toks: list[Token], a: int, b: int) -> tuple[int, int] | None:
        idx = [k for k, t in enumerate(toks) if t.start >= a and t.end <= b]
        return (idx[0], idx[-1] + 1) if idx else None
