"""How WebShop shoppers say each value: the surface forms behind WebShop's value domains (DESIGN 6a).

From host data: every requirement of an intent with its legal values (the truth first, then the
option values the cluster offers, the reward-distinguishable ones first; price ceilings around the
truth), the words that name it ("size", "colour", "budget") and the cluster's product words that
anchor it. Forms are built from the values themselves and the vocabulary of
:mod:`miscue.adapters.webshop.vocab`: attribute texts with their variants ("x-free" = "no x", plurals,
"high waisted"), letter sizes as words, units spelled out, packs and counts ("pack of 6", "6 pack"),
jeans sizes ("34x32"), colour families, price ceilings said the ways shoppers say them.

Each value's *own* forms (its spellings) are kept even when another value has them too; its
*partial* forms (a word of a multi-word value, a colour's family, a part of a pack) are dropped
when they are another value's own form (exact wins: "12 ounce" is the 12-ounce bag, not the
twin pack), and kept when several values share them: "blue" for navy and royal blue, "cookie" for
cookies and cream and chocolate chip cookie dough — the words that make a text lexically ambiguous.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Iterable

from miscue.adapters.webshop import vocab
from miscue.adapters.webshop.index import ClusterIndex
from miscue.adapters.webshop.intents import ATTR, OPTION, PRICE, option_name
from miscue.canonical import canonical_json
from miscue.language import Detail, Domains, LegalValue, SlotDomain, close, words
from miscue.schema import Intent


def _either(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in words)


# the catalogue's option-string formats, its words from the vocabulary tables
_PACK = re.compile(rf"^(.*?)\s*\((?:{_either(vocab.PACK_WORDS)}) of (\d+)\)$")
_PACK_ALONE = re.compile(rf"^({_either(vocab.PACK_WORDS)}) of (\d+)$")
_AMOUNT = re.compile(rf"^(\d+(?:\.\d+)?)\s*-?\s*({_either(vocab.TWO_WORD_UNITS)}|[a-z]+)$")
_JEANS = re.compile(r"^(\d+)\s*w\s*x\s*(\d+)\s*l$")
_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")
_LETTERS = {w: group for group in vocab.SIZE_GROUPS for w in group}
_SIZE_ORDER = {group[0]: i for i, group in enumerate(vocab.SIZE_GROUPS[:7])}


def _unqualified(attr: str) -> str:
    """An attribute without the qualifier the catalogue appends ("batteries included" -> "batteries")."""
    return next((attr.removesuffix(f" {q}") for q in vocab.ATTR_QUALIFIERS if attr.endswith(f" {q}")), attr)


def dedupe(forms: Iterable[str]) -> tuple[str, ...]:
    """Forms in order, one per normalised wording (the grounder compares normalised words)."""
    out, seen = [], set()
    for f in forms:
        w = words(f)
        if w and w not in seen:
            seen.add(w)
            out.append(f)
    return tuple(out)


def plural(word: str) -> str:
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es" if not word.endswith("s") else word
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith("f"):
        return word[:-1] + "ves"
    return word + "s"


def singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("ves") and len(word) > 4:
        return word[:-3] + "f"
    if word.endswith(("ches", "shes", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def _respell(phrase: str) -> list[str]:
    """British/American spellings of a phrase ("grey" = "gray", "colour" = "color")."""
    ws = phrase.split()
    out = [phrase]
    if any(w in vocab.SPELLINGS for w in ws):
        out.append(" ".join(vocab.SPELLINGS.get(w, w) for w in ws))
    return out


#: endings of words that are no nouns (no plural, no "-ed" adjective): "added", "free", "proof"
_NOT_NOUN = ("ed", "ing", "free", "less", "proof", "resistant", "able", "ful", "friendly", "ous", "ive", "al")


def _inflect(phrase: str) -> list[str]:
    """The phrase with its last word singular and plural (a noun's)."""
    ws = phrase.split()
    if not ws or any(c.isdigit() for c in ws[-1]) or ws[-1].endswith(_NOT_NOUN):
        return [phrase]
    head = " ".join(ws[:-1])
    return [f"{head} {w}".strip() for w in dict.fromkeys((ws[-1], singular(ws[-1]), plural(singular(ws[-1]))))]


#: nouns whose "-ed" adjective shoppers use ("high waisted", "long sleeved", "hooded"); for any other
#: noun the adjective is made up ("pu leathered", "solid wooded"): a reader still hears it, a writer
#: is never offered it
_ED_NOUNS = {"waist", "sleeve", "neck", "collar", "heel", "toe", "leg", "shoulder", "hood", "back", "button", "zipper",
             "pocket"}


def attr_forms(text: str, products: tuple[str, ...] = ()) -> tuple[str, ...]:
    """An attribute as shoppers say it: its text, its inflections and spellings, negations both ways
    ("x free" = "no x" = "without x"), "-ed" adjectives of the nouns that take one ("high waisted"),
    number units ("60w" = "60 watt"), the product word put inside ("metal frame" -> "metal bed
    frame") and common synonyms."""
    a = " ".join(text.lower().replace("-", " ").split())
    forms = [text, *_inflect(a), *_negations(a)]
    ws = a.split()
    if ws[0] == "with" and len(ws) >= 2:  # "with mirror": "an eyeshadow palette with matte finish and a mirror"
        forms += _inflect(" ".join(ws[1:]))
    adjective = _adjective(ws)
    if adjective and ws[-1] in _ED_NOUNS:
        forms.append(adjective)
    if adjective and ws[-1] == "wash":
        forms.append(" ".join(ws[:-1] + ["washable"]))  # "machine washable"
    forms += _unit_variants(a)
    for p in products:  # "metal frame" + "bed frame" -> "metal bed frame"
        pw = p.split()
        if len(ws) >= 2 and len(pw) >= 2 and singular(pw[-1]) == singular(ws[-1]) and pw[0] not in ws:
            forms += [" ".join(ws[:-1] + pw), " ".join(ws[:-1] + pw[:-1] + [plural(singular(pw[-1]))])]
    # "easy assembly required" is said as "easy assembly" is ("easy to put together")
    forms += vocab.ATTR_SYNONYMS.get(a, ()) or vocab.ATTR_SYNONYMS.get(_unqualified(a), ())
    return dedupe(s for f in forms for s in _respell(f))


def attr_heard(text: str) -> tuple[str, ...]:
    """Forms of an attribute a reader hears but no writer is offered: the words run together
    ("vneck", "nongmo"; also "withmirror" of "with mirror") and a made-up "-ed" adjective ("pu
    leathered")."""
    a = " ".join(text.lower().replace("-", " ").split())
    ws = a.split()
    out = []
    if len(ws) == 2 and len(ws[0]) <= 4 and ws[0].isalpha():
        out.append("".join(ws))
    adjective = _adjective(ws)
    if adjective and ws[-1] not in _ED_NOUNS:
        out.append(adjective)
    if len(ws) == 2 and ws[1] in _SELF:  # what the shopper's hair or skin is like: "my hair is really dry"
        out += [f"{ws[1]} {verb} {degree}{ws[0]}" for verb in ("is", "gets", "feels") for degree in ("", *_DEGREES)]
    return dedupe(s for f in out for s in _respell(f))


#: what a shopper says of themselves with an attribute's two words turned round, and how much
_SELF = ("hair", "skin", "scalp", "lips", "nails", "feet")
_DEGREES = ("really ", "very ", "so ", "super ", "quite ", "pretty ", "a bit ", "kind of ", "always ")


def _adjective(ws: list[str]) -> str | None:
    """The phrase with its last noun made an "-ed" adjective ("high waist" -> "high waisted")."""
    if len(ws) < 2 or any(c.isdigit() for c in ws[-1]) or ws[0] in ("no", "non", "without") \
            or ws[-1].endswith((*_NOT_NOUN, "s")) or not ws[0].isalpha():
        return None
    last = ws[-1]
    return " ".join(ws[:-1] + [last + ("d" if last.endswith("e") else "ed")])


def _negations(a: str) -> list[str]:
    ws = a.split()
    if ws[-1] == "free" and len(ws) >= 2:  # "soy free", "paraben free"
        x = " ".join(ws[:-1])
        xs = plural(x) if " " not in x else x
        return [f"no {x}", f"no {xs}", f"without {x}", f"without {xs}", f"free of {x}", f"free from {x}", f"zero {x}",
                f"{x} free"]
    if ws[0] == "no" and len(ws) >= 2:
        if ws[-1] in ("needed", "required") and len(ws) >= 3:  # "no box spring needed"
            x = " ".join(ws[1:-1])
            return [f"no {x}", f"no {x} required", f"no {x} needed", f"no need for a {x}", f"no need for {x}",
                    f"{x} not needed", f"{x} not required", f"doesnt need a {x}", f"does not need a {x}",
                    f"dont need a {x}", f"without a {x}", f"without {x}", f"works without a {x}"]
        if ws[-1] == "added" and len(ws) >= 3:  # "no sugar added"
            x = " ".join(ws[1:-1])
            return [f"no added {x}", f"{x} free", f"without added {x}", f"no {x}", f"without {x}", f"zero {x}",
                    f"zero added {x}"]
        x = " ".join(ws[1:])  # "no artificial flavors"
        return [f"{x} free", f"without {x}", f"free of {x}", f"free from {x}", f"no added {x}", f"zero {x}",
                f"{singular(x)} free"]
    if ws[0] == "non" and len(ws) >= 2:  # "non gmo", "non slip"
        x = " ".join(ws[1:])
        return [f"non{x}", f"no {x}", f"{x} free", f"not {x}", f"without {x}"]
    return []


def _unit_variants(a: str) -> list[str]:
    """"60w" = "60 watt"; "20g protein" = "20 grams of protein"."""
    toks = list(words(a))
    out: list[str] = []
    for i, t in enumerate(toks[:-1]):
        if _NUMBER.match(t) and toks[i + 1] in vocab.UNITS:
            rest = " ".join(toks[i + 2:])
            for u in vocab.UNITS[toks[i + 1]]:
                head = " ".join(toks[:i] + [t, u])
                out += [f"{head} {rest}".strip()] + ([f"{head} of {rest}"] if rest else [])
    return out


def own_forms(name: str, value: str, anchors: tuple[str, ...] = ()) -> tuple[list[str], list[str]]:
    """(own, partial) forms of one option value: its spellings, and the parts that name it only
    when no other value owns them (the caller decides)."""
    v = value.strip().lower()
    spoken = value.replace(" | ", "/")
    own: list[str] = [spoken, v.replace(" | ", " and ")]
    partial: list[str] = []
    own += vocab.VALUE_SYNONYMS.get(v, ())
    if (m := _PACK.match(v)) is not None:  # "1 ounce (pack of 24)"
        base, n = m.group(1), m.group(2)
        bases = _amount_forms(base, anchors) or [base]
        own += [f"{b} pack of {n}" for b in bases[:4]] + [f"{n} pack", f"{n} packs", f"pack of {n}", f"{n}-pack", f"set of {n}",
                                                          f"{n} x {base}", f"{n} {base} packs", f"{n} packs of {base}",
                                                          f"{n} {base}", f"{base} {n} pack", f"{base} x {n}", f"box of {n}"]
        partial += bases
    elif (m := _PACK_ALONE.match(v)) is not None:  # "pack of 2", "set of 6"
        n = m.group(2)
        own += [f"pack of {n}", f"{n} pack", f"{n} packs", f"{n}-pack", f"set of {n}", f"{n} piece set", f"{n} pk",
                f"box of {n}", f"{n} count"] + (["1 pack", "just 1", "just one", "single pack"] if n == "1" else [])
    elif (m := _JEANS.match(v)) is not None:  # "34w x 32l"
        w, ln = m.groups()
        own += [f"{w}x{ln}", f"{w} x {ln}", f"{w}w {ln}l", f"{w}/{ln}", f"{w} by {ln}", f"{w} waist {ln} length",
                f"{w} waist {ln} inseam", f"{w} waist and {ln} length", f"waist {w} length {ln}", f"w{w} l{ln}",
                f"{w}w x {ln}l", f"{w} x {ln} jeans"]
    elif (forms := _amount_forms(v, anchors)):  # "12 ounce", "3-tier", "40 count"
        own += forms
    elif v in _LETTERS:
        group = _LETTERS[v]
        own += list(group) + [f"size {w}" for w in group[:3]] + [f"{w} size" for w in group[:3]]
    elif _NUMBER.match(v):  # shoe sizes
        own += [f"size {v}", f"a {v}", f"{v} us", f"us {v}", f"us size {v}", f"womens {v}", f"mens {v}"]
        if v.endswith(".5"):
            own += [f"{v[:-2]} and a half", f"{v[:-2]} 1/2", f"size {v[:-2]} and a half"]
    elif name == "size" and " " not in v:  # "full", "queen"
        own += [f"{v} size", f"{v} sized", f"size {v}", f"{v} bed"] + list(vocab.WORD_SIZES.get(v, ()))
    elif v.startswith(("with ", "without ")):  # "with footrest"
        x = v.split(" ", 1)[1]
        if v.startswith("with "):
            own += [f"with a {x}", x, f"has a {x}", f"and a {x}", f"and the {x}", f"{x} included", f"including the {x}"]
        else:
            own += [f"without a {x}", f"no {x}", f"not {x}", f"no {x} needed", f"{x} free"]
    else:  # colours, flavours, scents, styles: their words and families are partial forms
        ws = [w for w in re.split(r"[^a-z0-9]+", v) if w]
        own.append(" ".join(ws))
        colour = name == "color" or any(w in vocab.COLOR_FAMILY for w in ws)
        partial += _subphrases(ws, anchors, inflect=not colour and not any(ch.isdigit() for ch in v))
        if colour:
            partial += [f for w in ws for f in vocab.COLOR_FAMILY.get(w, ())]
            own += [f"{' '.join(ws)} color", f"in {' '.join(ws)}"]
    own = [s for f in own for s in _respell(f)]
    partial = [s for f in partial for s in _respell(f)]
    return own, partial


def _pack_totals(value: str, anchors: tuple[str, ...]) -> list[str]:
    """A pack said by what it holds in all: "12 count (pack of 2)" is "24 bars"."""
    pack = _PACK.match(value)
    m = _AMOUNT.match(pack.group(1).replace("-", " ")) if pack else None
    if pack is None or m is None or m.group(2) not in vocab.UNITS:
        return []
    total = float(m.group(1)) * int(pack.group(2))
    return _amount_forms(f"{total:g} {m.group(2)}", anchors)


def _amount_forms(v: str, anchors: tuple[str, ...]) -> list[str]:
    """"12 ounce" = "12 oz"; "3-tier" = "3 shelves"; "40 count" = "40 bags", "40 ct"."""
    m = _AMOUNT.match(v.replace("-", " "))
    if m is None or m.group(2) not in vocab.UNITS:
        return []
    n, unit = m.groups()
    out = [f"{n} {u}" for u in vocab.UNITS[unit]] + [f"{n}-{unit}"]
    if unit == "count":
        nouns = {plural(singular(a.split()[-1])) for a in anchors if a} | {"bags", "tea bags", "bars", "pods"}
        out += [f"{n} {x}" for x in sorted(nouns)] + [f"box of {n}", f"{n} pack", f"pack of {n}", f"{n} of them"]
    return out


def _subphrases(ws: list[str], anchors: tuple[str, ...], inflect: bool = True) -> list[str]:
    """The contiguous parts of a multi-word value that may name it ("cookie" of "cookies and cream")."""
    if len(ws) < 2:
        return []
    product = {singular(w) for a in anchors for w in a.split()}
    out = []
    for i in range(len(ws)):
        for j in range(i + 1, len(ws) + 1):
            part = ws[i:j]
            if len(part) == len(ws) or part[0] in ("and", "n", "with") or part[-1] in ("and", "n", "with"):
                continue
            if len(part) == 1 and (part[0] in vocab.GENERIC or singular(part[0]) in product or len(part[0]) < 3):
                continue
            out += _inflect(" ".join(part)) if inflect else [" ".join(part)]
    return out


def option_values(name: str, values: list[str], anchors: tuple[str, ...], exclude: set[tuple[str, ...]]) -> list[LegalValue]:
    """The legal values of one option, each with its own forms and the partial forms no other value
    owns; words shared by most values (the option's head: "roast", "height") name the option
    instead, and so do words of the intent's other requirements (``exclude``)."""
    built = [own_forms(name, v, anchors) for v in values]
    # a pack said by what it holds in all ("3.4 oz" for "1.7 fl oz (pack of 2)") is its own form, unless
    # it is word for word another value's label (the store's own "3.4 fl oz" names that one)
    labels = {words(v.replace(" | ", "/")) for v in values}
    for own, _ in built:
        own += [f for f in _pack_totals(own[1], anchors) if words(f) not in labels]
    owned: dict[tuple[str, ...], set[int]] = {}
    for i, (own, _) in enumerate(built):
        for f in own:
            owned.setdefault(words(f), set()).add(i)
    heads = _heads(values)
    out = []
    for i, (v, (own, partial)) in enumerate(zip(values, built)):
        others = [w for w, idx in owned.items() if idx - {i}]
        keep = [f for f in partial if not _near_any(words(f), others) and words(f) not in exclude
                and not (len(words(f)) == 1 and words(f)[0] in heads)]
        forms = dedupe([*own, *keep])
        out.append(LegalValue(v, forms, rank=_rank(v)))
    return out


def _near_any(form: tuple[str, ...], owned: list[tuple[str, ...]]) -> bool:
    """The form is, word for word (typos tolerated as the grounder tolerates them), another
    value's own form: "habaneros" would read "habanero" as mango habanero."""
    return any(len(o) == len(form) and all(close(a, b) for a, b in zip(form, o)) for o in owned)


def _heads(values: list[str]) -> set[str]:
    """Words most values of an option share ("roast", "height"): they name it, they tell no value."""
    count = Counter(singular(w) for v in values for w in set(re.split(r"[^a-z0-9]+", v.lower())) if w)
    shared = {w for w, k in count.items() if k >= 2 and k >= 0.6 * len(values)}
    return shared | {plural(w) for w in shared}


def _rank(value: Any) -> float | None:
    v = str(value).lower()
    if v in _LETTERS:
        return float(_SIZE_ORDER.get(_LETTERS[v][0], 10 + vocab.SIZE_GROUPS.index(_LETTERS[v])))
    if (m := re.match(r"^(\d+(?:\.\d+)?)", v)) is not None:
        return float(m.group(1))
    return None


def option_names(name: str, values: list[str]) -> tuple[str, ...]:
    names = list(vocab.OPTION_NAMES.get(name, (name, plural(name))))
    if "size" in name and any(c.isdigit() for v in values for c in v) and not all(_NUMBER.match(v) for v in values):
        names += vocab.PACKAGE_NAMES
    names += sorted(_heads(values))
    return dedupe(names)


def open_text(values: list[str]) -> bool:
    """WebShop matches option values fuzzily (token_set_ratio > 85 after colour normalising): a
    phrase that contains a value's words is that value, except for short codes (letter and
    numeric sizes) a paraphrase never contains."""
    return not all(len(v) <= 3 or _NUMBER.match(v) for v in values)


def price_forms(value: float, bare: bool = True) -> tuple[str, ...]:
    """A price ceiling as shoppers say it ("under $60", "60 bucks", "no more than 60", "$60 max")."""
    n = f"{value:g}" if float(value).is_integer() else f"{value:.2f}"
    d = f"${n}"
    forms = [d] if bare else []
    forms += [f"under {d}", f"less than {d}", f"below {d}", f"under {n} dollars", f"{n} dollars", f"no more than {d}",
              f"{d} max", f"max {d}", f"at most {d}", f"up to {d}", f"{n} bucks", f"budget of {d}", f"{d} or less",
              f"nothing over {d}", f"not over {d}", f"less than {n} dollars", f"below {n} dollars", f"under {n} bucks",
              f"{d} maximum", f"maximum {d}", f"max of {d}", f"maximum of {d}", f"not more than {d}", f"no higher than {d}",
              f"not above {d}", f"{d} or under", f"{d} or below", f"{d} or cheaper", f"cheaper than {d}", f"within {d}",
              f"budget is {d}", f"budget {d}", f"budget of {n} dollars", f"my budget is {d}", f"{d} budget", f"{n} usd",
              f"under {n} usd", f"spend more than {d}", f"pay more than {d}", f"spend over {d}", f"pay over {d}",
              f"tops out at {d}", f"top out at {d}", f"caps at {d}", f"capped at {d}", f"ceiling of {d}", f"limit of {d}",
              f"price lower than {n} dollars", f"price lower than {value:.2f} dollars", f"lower than {d}",
              f"less than {value:.2f}", f"under {value:.2f}", f"{n} or less", f"{n} max", f"under {n}", f"below {n}",
              f"a {d} limit", f"{d} limit", f"{d} tops", f"{d} at most", f"stay under {d}", f"keep it under {d}"]
    return dedupe(forms)


def price_values(truth: float, alternatives: list[Any], top: float) -> list[LegalValue]:
    """The true ceiling, the adapter's alternatives (said bare too: "$50"), then every multiple of
    5 up to twice the truth or the cluster's top (a shopper may name any amount)."""
    out = [LegalValue(truth, price_forms(truth), rank=float(truth))]
    seen = {canonical_json(truth)}
    for v in alternatives:
        if canonical_json(v) not in seen:
            seen.add(canonical_json(v))
            out.append(LegalValue(v, price_forms(v), rank=float(v)))
    limit = max(2 * float(truth), top)
    ladder = [k for k in range(5, int(limit) + 1, 5) if canonical_json(k) not in seen]
    for k in sorted(ladder, key=lambda k: (abs(k - truth), k)):
        out.append(LegalValue(k, price_forms(k, bare=False), rank=float(k)))
    return out


def product_words(intent: Intent, index: ClusterIndex) -> tuple[str, ...]:
    """The cluster's product words: its scrape query ("bed frames"), singular and plural, the
    breadcrumb's last level ("Beds", of its first product: the only one parsed) and the attributes
    every product of the cluster carries (the catalogue's product-type noun: "bed", "bookcase",
    "basic tee")."""
    cluster = str(intent.base.get("cluster", "")).lower().replace("'s ", " ")
    out = [cluster, *_inflect(cluster)]
    if len(index):
        leaf = index.products[0].product_category.split("›")[-1].strip().lower()
        out += [leaf, *_inflect(leaf)]
        for a in sorted(index.common_attributes):
            out += _inflect(a.lower())
    heads = [p.split()[-1] for p in out if p]
    out += [h for h in heads if len(h) > 3]
    return dedupe(x for x in out if x and x != "dummy_attr")


def webshop_domains(adapter: Any, intent: Intent) -> Domains:
    """Every requirement of a WebShop intent with its legal values and their surface forms, the
    store operations a shopper may ask for and the extra details they may volunteer."""
    index = adapter.cluster_index(intent)
    anchors = product_words(intent, index)
    mine: dict[str, set[tuple[str, ...]]] = {c.slot: {words(str(c.value))} | set(_words_of(c.value)) for c in intent.conditions}
    slots: dict[str, SlotDomain] = {}
    for c in intent.conditions:
        others = set().union(*(w for s, w in mine.items() if s != c.slot)) if len(mine) > 1 else set()
        if c.slot.startswith(ATTR):
            values = (LegalValue(c.value, attr_forms(c.value, anchors), recognised=attr_heard(c.value)),)
            slots[c.slot] = SlotDomain(c.slot, c.value, values, (), anchors, open_text=True)
        elif c.slot.startswith(OPTION):
            name = option_name(c.slot)
            clear, unclear = adapter.alternatives(intent, c.slot)
            rest = [v for v in adapter.offered(intent, c.slot) if v not in clear and v not in unclear]
            values = list(dict.fromkeys([c.value, *clear, *unclear, *rest]))
            slots[c.slot] = SlotDomain(c.slot, c.value, tuple(option_values(name, values, anchors, others)),
                                       option_names(name, values), anchors, ordered=adapter.is_ordered_slot(intent, c.slot),
                                       open_text=open_text(values))
        elif c.slot == PRICE:
            clear, _ = adapter.alternatives(intent, c.slot)
            top = index.price_range[1] if len(index) else float(c.value)
            slots[c.slot] = SlotDomain(c.slot, c.value, tuple(price_values(c.value, clear, top)), vocab.PRICE_NAMES, anchors,
                                       ordered=True)
        else:
            spoken = adapter.spoken_value(intent, c.slot, c.value)
            slots[c.slot] = SlotDomain(c.slot, c.value, (LegalValue(c.value, (spoken,)),), (adapter.slot_phrase(intent, c.slot),))
    return Domains(slots, details(adapter, intent, anchors))


def _words_of(value: Any) -> set[tuple[str, ...]]:
    """Each word of a requirement's value (a partial form of another value must not be one)."""
    return {(w,) for w in words(str(value))} if isinstance(value, str) else set()


def details(adapter: Any, intent: Intent, anchors: tuple[str, ...] = ()) -> tuple[Detail, ...]:
    """The true request (finding and buying), the store capabilities the site lacks (refs
    ``mismatch:i`` in :meth:`mismatches` order) and the extra details (``extra:i``)."""
    out = [Detail("operation", "request", dedupe((adapter.request_phrase(intent), *vocab.REQUEST_FORMS)), true=True)]
    for i, m in enumerate(adapter.mismatches(intent)):
        op = m.reading.base.get("operation", "")
        out.append(Detail("operation", f"mismatch:{i}", dedupe((m.phrase, *vocab.OPERATION_FORMS.get(op, ())))))
    for i, e in enumerate(adapter.extras(intent)):
        out.append(Detail("extra", f"extra:{i}", extra_forms(e, intent, anchors)))
    return tuple(out)


def extra_forms(extra: Any, intent: Intent, anchors: tuple[str, ...] = ()) -> tuple[str, ...]:
    """An extra detail as a shopper says it: the added attribute's or option value's own forms."""
    forms = [extra.phrase]
    for c in extra.reading.conditions:
        if intent.condition(c.slot) is not None:
            continue
        if c.slot.startswith(ATTR):
            forms += [*attr_forms(c.value, anchors), *attr_heard(c.value)]
        elif c.slot.startswith(OPTION) and isinstance(c.value, str):
            forms += own_forms(option_name(c.slot), c.value, anchors)[0]
    return dedupe(forms)
