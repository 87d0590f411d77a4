"""Structure: what the words around the values change, once the values are found and attributed
(host-agnostic). Each pass reads one construction customers use:

- "downgrade the business bookings to economy": the earlier value is the one the customer has;
- "cancel XEHM4B, and cancel 3EMQJ6 too": an id no candidate owns goes to the one still unnamed;
- "not taking travel insurance", "no insurance and checked bags": a negator's reach;
- "a shirt with a navy chest pocket", "the new and the old switch type should be clicky", "swap the
  keyboard and the thermostat for Google Assistant ones": a modifier that may attach to a part,
  to another thing like it, or to either of two things coordinated before it;
- "I'd rather not deal with a box spring": a feature that is an absence, said by what it rules out;
- "in size 13" (sizes stop at 12): a value the requirement cannot take;
- "update the checked bags": words every count shares name the requirement, not a value;
- requests said without a request phrase: "keyboard to full size", shorthand lists.
"""

from __future__ import annotations

import re
from dataclasses import replace

from miscue.offline.language import cues
from miscue.offline.language.context import DISTRIBUTIVE, PLURAL, Context
from miscue.language.domain import Domains
from miscue.language.mentions import Grounding, Mention
from miscue.language.text import close, fold, norm, words


#: the words that turn what the customer has into what they want ("to economy", "for a bigger one")
_TRANSITIONS = {"to", "into", "for"}


#: what joins two coordinated lines ("the keyboard and the thermostat"), and what may stand between
#: them and the value after ("... for Google Assistant ones", "... to red ones")
_JOINED = {("and",), ("and", "the"), ("and", "my"), ("and", "also", "the")}
_RELATIVE = {"which", "that", "since", "as", "because", "cause", "cuz"}
_RELATIVE_PRONOUNS = {"that", "which", "who"}
_THEN = {"to", "for", "into", "with", "the", "a", "an", "new", "both", "some"}

#: who a count may be for, one by one ("for me and Noah", "for my wife and me", "for the two of us"),
#: and the words that settle whether it is per person or in all ("each", "in total")
_PARTY = {"me", "myself", "us", "my", "wife", "husband", "son", "daughter", "kids", "children", "partner", "friend",
          "mom", "dad", "mother", "father", "brother", "sister", "both", "all", "of", "the", "people", "others",
          "companions", "2", "3", "4"}  # number words are digits once tokenised ("the two of us": "the 2 of us")
_SETTLED = {"each", "apiece", "per", "total", "altogether", "combined", "overall", "between", "every", "everyone"}

#: words that leave the part after them out ("all but the kettle"), or after it ("the pet bed stays")
_EXCEPT_BEFORE = re.compile(r"\b(?:except|excluding|but not|other than|apart from|minus|not including)(?: for)?(?: the| my)?$")
_KEPT_AFTER = re.compile(r"(?:stays|stay|is staying|can stay|i(?:ll| will)? keep|im keeping|i am keeping)\b")


def _ruled_out(form: str) -> tuple[str, ...]:
    """What a form of an absence rules out: "no box spring needed" -> box spring, "soy free" ->
    soy, "without artificial flavors" -> artificial flavors; () for any other form."""
    w = words(form)
    if len(w) > 1 and w[0] in ("no", "without", "non"):
        w = w[1:-1] if len(w) > 2 and w[-1] in ("needed", "required", "added") else w[1:]
        return w[1:] if w[0] == "added" and len(w) > 1 else w
    return w[:-1] if len(w) > 1 and w[-1] == "free" else ()


def _same_stem(said: str, word: str) -> bool:
    """A word said for one of a form's words: itself, a typo, or a word of its stem ("flavoring"
    for "flavors", "dyed" for "dyes")."""
    stem = word[:-1] if len(word) > 4 and word.endswith("s") and not word.endswith("ss") else word
    return close(said, word) or (len(stem) >= 4 and said.startswith(stem))


def _operation_index(slot: str) -> int:
    """Which of its kind a requirement's operation is: "cancel" the first, "cancel#2" the second."""
    label = slot.partition(".")[0]
    return int(label.partition("#")[2] or 1)


class Structure:
    """The structural passes for one intent's domains (compiled once)."""

    def __init__(self, domains: Domains) -> None:
        self.domains = domains
        # a value said with a negator ("no travel insurance") -> the words it negates, per slot
        self._negated: dict[tuple[str, tuple[str, ...]], str] = {}
        for d in domains.slots.values():
            for v in d.values:
                for w in {words(f) for f in v.heard}:
                    if len(w) > 1 and w[0] in cues.NEGATORS:
                        self._negated.setdefault((d.slot, w[1:]), v.key)
        # a must-have feature that is an absence ("no box spring needed", "soy free") -> what it rules out
        self._ruled_out: list[tuple[tuple[str, ...], str, str]] = []
        for d in domains.slots.values():
            if len(d.values) == 1:
                v = d.values[0]
                self._ruled_out += sorted({(core, d.slot, v.key) for core in map(_ruled_out, v.heard) if core})
        self._names: dict[str, list[tuple[str, ...]]] = {
            s: [w for w in {words(x) for x in d.names} if w] for s, d in domains.slots.items()}

    def apply(self, out: Grounding, ctx: Context) -> None:
        """Every pass, in order; requests said without a request phrase join ``out.requests``."""
        self.transitions(out, ctx)
        self._held_objects(out)
        self._settle_identifiers(out)
        self._excluded_parts(out, ctx)
        self._averse(out, ctx)
        self._negation_scope(out, ctx)
        self._part_modifiers(out, ctx)
        self._old_and_new(out, ctx)
        self._after_coordination(out)
        self._said_of_the_last(out, ctx)
        self._relative_after_another(out, ctx)
        self._count_for_several(out, ctx)
        self._unknown_values(out, ctx)
        self._names_not_values(out, ctx)
        out.requests = sorted({*out.requests, *self._elided_requests(out, ctx)})

    def transitions(self, out: Grounding, ctx: Context) -> None:
        """"Downgrade the business bookings to economy": of two values of one requirement in a
        sentence, the one after "to"/"into"/"for" is wanted, the earlier one is what the
        customer has now."""
        wanted = [m for m in out.mentions if m.kind in ("value", "vague") and m.slots
                  and all(self.domains[s].has_current for s in m.slots)]
        for later in wanted:
            k = ctx.starts.get(later.start)
            if k is None or k == 0:
                continue
            for i, earlier in enumerate(out.mentions):
                e = ctx.ends.get(earlier.end)
                if (earlier.kind != "value" or earlier not in wanted or earlier.in_premise or e is None
                        or not set(earlier.slots) <= set(later.slots) or set(earlier.values) & set(later.values)
                        or earlier.end > later.start or ctx.sentence[e] != ctx.sentence[k]):
                    continue
                # the transition word stands between them: right before the later value ("to economy"),
                # or opening the phrase it is in ("for a pair with IPX4 and a longer battery life")
                between = [t.text for t in ctx.toks[e + 1:k]]
                if (ctx.toks[k - 1].text in _TRANSITIONS
                        or (later.kind == "vague" or "with" in between) and _TRANSITIONS & set(between)):
                    out.mentions[i] = replace(earlier, kind="current")


        # the wanted value names no item being given back: "exchange the IPX7 earbuds for a pair with IPX4"
        for n in [n for n in out.mentions if n.kind == "member" and any(
                w in wanted and (w.start, w.end) == (n.start, n.end) for w in out.mentions)]:
            k = ctx.starts.get(n.start)
            given = [ctx.ends[m.end] for m in out.mentions
                     if m.kind == "member" and not m.weak and set(m.slots) == set(n.slots) and m.end <= n.start
                     and m.end in ctx.ends and k is not None and ctx.sentence[ctx.ends[m.end]] == ctx.sentence[k]]
            if given and _TRANSITIONS & {t.text for t in ctx.toks[min(given) + 1:k]}:
                out.mentions.remove(n)

    @staticmethod
    def _excluded_parts(out: Grounding, ctx: Context) -> None:
        """"Everything except the espresso machine", "the pet bed stays": a part named to be left
        out is not one of the parts asked for."""
        for m in [m for m in out.mentions if m.kind == "member"]:
            a, b = ctx.starts.get(m.start), ctx.ends.get(m.end)
            if a is None or b is None:
                continue
            before = " ".join(t.text for t in ctx.toks[max(0, a - 3):a])
            after = " ".join(t.text for t in ctx.toks[b + 1:b + 4])
            if _EXCEPT_BEFORE.search(before) or _KEPT_AFTER.match(after):
                out.mentions.remove(m)

    def _averse(self, out: Grounding, ctx: Context) -> None:
        """"I'd rather not deal with a box spring", "last year's had artificial flavoring half the
        group complained about": a must-have feature that is an absence is said by naming what it
        rules out, unsaid by any value, in a clause that speaks against it (before or after)."""
        said = {s for m in out.mentions if m.kind == "value" for s in m.slots}
        for core, slot, key in self._ruled_out:
            if slot in said:
                continue
            for i in range(len(ctx.toks) - len(core) + 1):
                j = i + len(core)
                if ctx.covered & set(range(i, j)) or not all(
                        _same_stem(t.text, w) for t, w in zip(ctx.toks[i:j], core)):
                    continue
                a, b = ctx.clause((i, j))
                if not any(t.text in cues.AVERSE for t in ctx.toks[a:i] + ctx.toks[j:b]):
                    continue
                start, end = ctx.toks[i].start, ctx.toks[j - 1].end
                out.mentions.append(Mention("value", start, end, ctx.text[start:end], (slot,), (key,), candidates=(slot,),
                                            in_premise=any(p <= start and end <= q for p, q in out.premises)))
                ctx.covered.update(range(i, j))
                said.add(slot)
                break

    def _negation_scope(self, out: Grounding, ctx: Context) -> None:
        """A negator's reach. "I'm not taking travel insurance": a value whose negated form the
        slot has, with a negator shortly before it in its clause, is that negated value. "No
        travel insurance and checked bags": a value coordinated right after a negated one may
        be negated too (the negator attaches to one or to both), so it is ambiguous between its
        own reading and its negation."""
        negated_at: list[int] = []  # token index where a negated value ends
        owned = {k: m for m in out.mentions if m.kind == "value"
                 for k in range(ctx.starts.get(m.start, 0), ctx.ends.get(m.end, -1) + 1)}
        for i, m in enumerate(out.mentions):
            if m.kind != "value" or len(m.slots) != 1:
                continue
            a, b = ctx.starts.get(m.start), ctx.ends.get(m.end)
            if a is None or b is None:
                continue
            said = tuple(t.text for t in ctx.toks[a:b + 1])
            if said[0] in cues.NEGATORS:
                negated_at.append(b)
                continue
            negation = self._negated.get((m.slots[0], said))
            if negation is None:
                continue
            lead = range(max(0, a - 3), a)
            before = [ctx.toks[k] for k in lead]
            clause = all(ctx.text[x.end:y.start].strip(" ") == "" for x, y in zip(before, [*before[1:], ctx.toks[a]]))
            # a negator right before it, with no other value between ("no insurance and bags" is the next rule)
            last = max((k for k in lead if ctx.toks[k].text in cues.NEGATORS), default=None)
            if clause and last is not None and not any(owned.get(k) for k in range(last + 1, a)):
                out.mentions[i] = replace(m, values=(negation,))
                negated_at.append(b)
            elif a >= 2 and ctx.toks[a - 1].text in cues.COORDINATORS and a - 2 in negated_at \
                    and ctx.text[ctx.toks[a - 2].end:ctx.toks[a - 1].start].strip(" ") == "":
                out.mentions[i] = replace(m, values=tuple(sorted({*m.values, negation})), scoped=True)

    def _part_modifiers(self, out: Grounding, ctx: Context) -> None:
        """"A shirt with a navy chest pocket": a value said right before another requirement's
        words inside a "with" phrase may describe that part only, not the whole thing (the
        modifier attaches to either): its reading is structural."""
        values = sorted((m for m in out.mentions if m.kind == "value" and len(m.slots) == 1), key=lambda m: m.start)
        for m, n in zip(values, values[1:]):
            x, y = self.domains[m.slots[0]], self.domains[n.slots[0]]
            k = ctx.starts.get(m.start)
            if k is None or x.slot == y.slot or x.identifier or y.identifier or x.parts or y.parts:
                continue
            if ctx.text[m.end:n.start].strip() or m.values != (x.truth_key,) or words(n.text)[:1] in (("and",), ("or",)):
                continue  # not adjacent, not the true value, or followed by another thing ("mesh back and a footrest")
            if ctx.toks[k].text in cues.NEGATORS:
                continue  # "with no insurance and ...": a negator's reach, not a part
            a, _ = ctx.clause((k, k + 1))
            if any(t.text == "with" for t in ctx.toks[a:k]):
                i = out.mentions.index(m)
                out.mentions[i] = replace(m, scoped=True)

    def _old_and_new(self, out: Grounding, ctx: Context) -> None:
        """"The new switch type and the old switch type should be clicky", "the cabin and the other
        cabin ...": a value said for a coordination of the requirement's thing and another one
        like it may attach to either: its reading is structural."""
        for i, m in enumerate(out.mentions):
            if m.kind != "value" or len(m.slots) != 1:
                continue
            k = ctx.starts.get(m.start)
            if k is None:
                continue
            a, b = ctx.clause((k, k + 1))
            said = [t.text for t in ctx.toks[a:b]]
            named = [p for p in ctx.cue_pos.get(m.slots[0], ()) if a <= p < b and not (m.start <= ctx.toks[p].start < m.end)]
            heads = {p for p in named if p - 1 not in named}  # where each naming phrase starts
            other = any(ctx.toks[p - 1].text in cues.OTHERS or ctx.toks[max(a, p - 2)].text in cues.OTHERS
                        for p in heads if p > a)
            if len(heads) >= 2 and other and {"and", "or"} & set(said):
                out.mentions[i] = replace(m, scoped=True)

    def _after_coordination(self, out: Grounding) -> None:
        """"Swap the keyboard and the thermostat for Google Assistant ones", "change the luggage set
        and the skateboard to red ones": a value said right after two coordinated parts of a list
        (the lines of an order), that only one of them takes, may attach to either (or to both):
        its reading is structural."""
        for i, m in enumerate(out.mentions):
            if m.kind != "value" or len(m.slots) != 1 or m.scoped or m.in_premise:
                continue
            own = self.domains[m.slots[0]]
            before = sorted((n for n in out.mentions if n.kind in ("member", "value") and not n.weak and not n.in_premise
                             and len(n.slots) == 1 and self.domains[n.slots[0]].parts and n.end <= m.start),
                            key=lambda n: n.end)
            if not own.anchors or not before or len(gap := words(out.text[before[-1].end:m.start])) > 3 or not set(gap) <= _THEN:
                continue
            last = before[-1]
            if last.kind == "value":  # the parts said together ("the luggage set and the skateboard")
                said = last.text if "and" in words(last.text) else ""
            else:
                first = before[-2] if len(before) > 1 else None
                joined = first is not None and first.slots == last.slots and words(out.text[first.end:last.start]) in _JOINED
                said = out.text[first.start:last.end] if first is not None and joined else ""
            if (said and any(f" {norm(a)} " in f" {norm(said)} " for a in own.anchors)
                    and not any(d.names == own.names for s, d in self.domains.slots.items() if s != own.slot)):
                out.mentions[i] = replace(m, scoped=True)  # the other part takes no such value

    def _said_of_the_last(self, out: Grounding, ctx: Context) -> None:
        """"Cancel #A, and also #B since I no longer need it": a value said only once for like
        operations, in a clause that speaks of one thing, belongs to the last of them; whether it
        also holds for the earlier ones is a matter of attachment, so for those its reading is
        structural ("since I no longer need them" holds for all: not singular)."""
        for m in list(out.mentions):
            if m.kind != "value" or len(m.slots) < 2 or m.in_premise or m.scoped or m.start not in ctx.starts:
                continue
            labels, fields = {s.partition(".")[0] for s in m.slots}, {s.partition(".")[2] for s in m.slots}
            if (len(fields) != 1 or "" in fields or len(labels) != len(m.slots) or m.end not in ctx.ends
                    or len({lab.partition("#")[0] for lab in labels}) != 1 or self.domains[m.slots[0]].identifier):
                continue  # one requirement of several like operations ("the reason" of two cancellations), no id
            if any(o is not m and o.kind == "value" and set(o.slots) & set(m.slots) for o in out.mentions):
                continue  # said for each of them ("cancel #A since ..., and #B because ...")
            k0 = ctx.starts[m.start]
            verbs = [k for k in range(k0) if ctx.toks[k].text in cues.REQUEST_VERBS and ctx.sentence[k] == ctx.sentence[k0]]
            if not verbs or not {"and", "well", "plus"} & {t.text for t in ctx.toks[verbs[0]:k0]}:
                continue  # not after a request for several ("Cancel my other order - I have no use for it")
            if not ctx.singular((ctx.starts[m.start], ctx.ends[m.end] + 1)):
                continue
            *first, last = sorted(m.slots, key=_operation_index)
            out.mentions[out.mentions.index(m)] = replace(m, slots=(last,))
            out.mentions += [replace(m, slots=(s,), scoped=True) for s in first]

    def _relative_after_another(self, out: Grounding, ctx: Context) -> None:
        """"Cancel the charger order and return the tablet and the sneakers, which I no longer
        need": a value of one operation said in a clause opened right after what another
        operation acts on ("which", "since", "as I ...") may attach to that nearer thing alone,
        or to everything before it: its reading is structural ("since I no longer need them": all)."""
        things = [n for n in out.mentions if n.kind in ("value", "member") and not n.in_premise and len(n.slots) == 1
                  and (self.domains[n.slots[0]].parts or self.domains[n.slots[0]].identifier)
                  and not self.domains[n.slots[0]].instrument]
        for i, m in enumerate(out.mentions):
            if m.kind != "value" or len(m.slots) != 1 or m.scoped or m.in_premise or self.domains[m.slots[0]].identifier:
                continue
            label = m.slots[0].partition(".")[0]
            before = [n for n in things if n.end <= m.start]
            if not before or before[-1].slots[0].partition(".")[0] == label:
                continue  # said right after its own operation's object
            opener = words(out.text[before[-1].end:m.start])
            own = [n for n in before if n.slots[0].partition(".")[0] == label]
            if not (own and 0 < len(opener) <= 4 and opener[0] in _RELATIVE and m.start in ctx.starts):
                continue
            a, b = ctx.clause((ctx.starts[m.start], ctx.starts[m.start] + 1))
            if not any(t.text in DISTRIBUTIVE | PLURAL for t in ctx.toks[a:b]):
                out.mentions[i] = replace(m, scoped=True)

    def _count_for_several(self, out: Grounding, ctx: Context) -> None:
        """"Add two checked bags for me and Noah": a count said for several people may be the count
        for all of them or for each (four bags); unless its sentence settles it ("one each", "in
        total"), its reading is structural. A number among the people ("the two of us") counts
        them, it is no value."""
        for m in list(out.mentions):
            if (m.kind != "value" or len(m.slots) != 1 or m.scoped or m.in_premise or m.end not in ctx.ends
                    or not self.domains[m.slots[0]].ordered or not ctx.toks[ctx.starts[m.start]].text.isdigit()):
                continue  # a count or an amount said as a number ("two checked bags", "$150"), not "size 9"
            k = ctx.ends[m.end] + 1
            if k >= len(ctx.toks) or ctx.toks[k].text != "for":
                continue
            _, b = ctx.clause((k, k + 1))
            party: list[str] = []  # the words after "for" that name people, "and" included
            for t in ctx.toks[k + 1:b]:
                said = ctx.text[t.start:t.end]
                if t.text not in _PARTY and t.text != "and" and not (said.istitle() and said.isalpha()):  # "Noah"
                    break
                party.append(t.text)
            several = "and" in party[1:-1] or ("us" in party and party[0] in ("both", "all", "the"))
            if not several or _SETTLED & {t.text for i, t in enumerate(ctx.toks) if ctx.sentence[i] == ctx.sentence[k]}:
                continue
            out.mentions[out.mentions.index(m)] = replace(m, scoped=True)
            a, b = ctx.toks[k + 1].start, ctx.toks[k + len(party)].end
            out.mentions = [n for n in out.mentions if not (a <= n.start and n.end <= b and n.slots == m.slots)]

    def _names_not_values(self, out: Grounding, ctx: Context) -> None:
        """"Update the checked bags": words every count shares, after a definite article, name the
        requirement, they do not give it a value."""
        for m in list(out.mentions):
            k = ctx.starts.get(m.start)
            if (m.kind == "value" and k and len(m.values) > 1 and len(m.slots) == 1 and self.domains[m.slots[0]].ordered
                    and not any(c.isdigit() for c in m.text) and ctx.toks[k - 1].text in ("the", "my", "those", "these", "your")):
                out.mentions.remove(m)

    def _unknown_values(self, out: Grounding, ctx: Context) -> None:
        """A number said as a requirement's value that is none of its legal values ("in size 13"
        where sizes stop at 12, "a 40 inch board"): an ``unknown`` mention, so the requirement is
        not taken for unsaid."""
        covered = {k for m in out.mentions for k, t in enumerate(ctx.toks) if m.start <= t.start and t.end <= m.end}
        for slot, d in self.domains.slots.items():
            if d.identifier or d.parts:
                continue
            units = {w[1] for v in d.values for f in v.forms if len(w := words(f)) > 1 and w[0].isdigit()}
            names = [p for p in self._names[slot]]
            for k, t in enumerate(ctx.toks):
                if not t.text.isdigit() or k in covered or "_" in ctx.text[max(0, t.start - 1):t.end + 1]:
                    continue
                after = ctx.toks[k + 1].text if k + 1 < len(ctx.toks) else ""
                named = any(tuple(x.text for x in ctx.toks[max(0, k - len(p)):k]) == p for p in names)
                if named or (after and any(close(after, u) for u in units)):
                    end = ctx.toks[k + 1].end if not named and after else t.end
                    out.mentions.append(Mention("unknown", t.start, end, ctx.text[t.start:end], (slot,)))
                    covered.add(k)

    def _elided_requests(self, out: Grounding, ctx: Context) -> list[tuple[int, int]]:
        """Requests said without a request phrase: "keyboard to full size" (a wanted value right
        after "to"), "on order #W1 switch the camera ..." (a request verb right after an id)."""
        found = []
        for m in out.mentions:
            k = ctx.starts.get(m.start)
            if m.kind == "value" and k and ctx.toks[k - 1].text in ("to", "into") and m.slots \
                    and any(self.domains[s].has_current for s in m.slots):
                found.append((ctx.toks[k - 1].start, m.end))
            e = ctx.ends.get(m.end)
            if m.kind == "value" and e is not None and e + 1 < len(ctx.toks) and m.slots \
                    and all(self.domains[s].identifier for s in m.slots) and ctx.toks[e + 1].text in cues.REQUEST_VERBS:
                found.append((ctx.toks[e + 1].start, ctx.toks[e + 1].end))
        return found + self._fragments(out, ctx)

    def _fragments(self, out: Grounding, ctx: Context) -> list[tuple[int, int]]:
        """Clauses that list what the customer wants without a verb ("Basic economy, 1 checked
        bag, no insurance.", "squat proof leggings, XL, under $60 - fleece lined, since ..."):
        the verbless clauses a sentence opens with, when they give values of two requirements
        (not ids or names, which introductions give), are a request said in shorthand. A clause
        with a finite verb or opening with a subject ("my sister swears by ...") is a statement."""
        found = []
        # a pointer's own words are no verb of the clause ("protein bars in that flavor I had last time")
        pointers = cues.spans(cues.REFERRING, fold(ctx.text))
        for clauses in ctx.clauses():
            run: list[tuple[int, int]] = []
            for a, b in clauses:
                if ctx.toks[a].text in cues.FINITE:  # the list was the subject: "swivel stools in navy, ... would fit"
                    run = []
                if ctx.toks[a].text in cues.SUBJECTS or any(
                        t.text in cues.FINITE and not any(p <= t.start < q for p, q in pointers)
                        for t in self._main_clause(out, ctx, a, b)):
                    break
                run.append((ctx.toks[a].start, ctx.toks[b - 1].end))
            if not run:
                continue
            start, end = run[0][0], run[-1][1]
            slots = {s for m in out.mentions if m.kind == "value" and start <= m.start < end for s in m.slots
                     if not self.domains[s].identifier and not self.domains[s].parts}
            if len(slots) >= 2:  # marked at its first word (what follows is content, not request language)
                first = next(t for t in ctx.toks if t.start >= start)
                found.append((start, first.end))
        return found

    @staticmethod
    def _main_clause(out: Grounding, ctx: Context, a: int, b: int) -> list:
        """The clause's tokens without a relative clause inside it, which runs from its pronoun to
        the first value said after it, or to the end: "a black mouse [that can hop between multiple
        devices]", but "the low brightness one [that runs on batteries] would've been perfect"."""
        rel = next((k for k in range(a + 1, b) if ctx.toks[k].text in _RELATIVE_PRONOUNS), b)
        ends = [ctx.ends[m.end] + 1 for m in out.mentions
                if m.kind == "value" and m.end in ctx.ends and ctx.starts.get(m.start, -1) > rel]
        return ctx.toks[a:rel] + ctx.toks[min([e for e in ends if e <= b], default=b):b]

    def _repeated(self, slot: str, given: set[str]) -> tuple[str, ...]:
        """The same requirement of the other operations like ``slot``'s ("cancel#2.reason" for
        "cancel.reason"), when ``slot``'s own value is given and theirs is not."""
        if slot not in given:
            return ()
        op, _, field = slot.partition(".")
        return tuple(s for s in self.domains.slots if s not in given and s != slot
                     and s.partition(".")[2] == field and s.partition(".")[0].split("#")[0] == op.split("#")[0])

    def _held_objects(self, out: Grounding) -> None:
        """An identifier said for the object another operation acts on without a requirement
        naming it ("the laptop I just ordered ... also cancel my other order"): the text names
        that operation's object, not a wrong value of this requirement."""
        held = self.domains.held
        if not held:
            return
        out.mentions = [m for m in out.mentions if not (
            m.kind == "value" and m.slots and m.values and all(self.domains[s].identifier for s in m.slots)
            and all(any(key == v and label != s.split(".")[0] for label, key in held.items() for s in m.slots)
                    for v in m.values)
            and not any(self.domains[s].truth_key in m.values for s in m.slots))]

    def _settle_identifiers(self, out: Grounding) -> None:
        """A value no candidate's truth is ("cancel XEHM4B, and cancel 3EMQJ6 too", "... also
        cancel W627, don't need it anymore") goes to the candidates (or the like operations)
        whose own value the text does not already give elsewhere."""
        given = {s for m in out.mentions if m.kind == "value" for s in m.slots if m.values == (self.domains[s].truth_key,)}
        for i, m in enumerate(out.mentions):
            if m.kind != "value" or not m.slots or any(self.domains[s].truth_key in m.values for s in m.slots):
                continue
            if len(m.slots) == 1:  # given to the nearer of two like operations, whose own value is said elsewhere
                others = self._repeated(m.slots[0], given)
                if others and not self.domains[m.slots[0]].instrument and any(
                        self.domains[s].value(k) for s in others for k in m.values):
                    out.mentions[i] = replace(m, slots=others)
                continue
            if not all(self.domains[s].identifier for s in m.slots):
                continue
            left = tuple(s for s in m.slots if s not in given)
            if left and len(left) < len(m.slots):
                keys = tuple(k for k in m.values if any(self.domains[s].value(k) for s in left))
                out.mentions[i] = replace(m, slots=left, values=keys or m.values)
