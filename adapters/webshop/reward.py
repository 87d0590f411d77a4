"""WebShop's reward, re-implemented from its documented formula: the oracle of the WebShop adapter.

Source semantics: princeton-nlp/WebShop ``web_agent_site/engine/goal.py`` (``get_reward`` and
its parts) and ``engine/normalize.py`` (``COLOR_SET``, ``normalize_color``) on ``master``::

    reward = r_type * (n_att + n_opt + r_price) / (len(attributes) + len(goal_options) + 1)

* ``n_att``: a goal attribute matches when some product attribute has thefuzz
  ``token_set_ratio > 85``, else when it is a (case-sensitive) substring of the lower-cased
  title, the joined bullet points or the description.
* ``n_opt``: purchased option values and goal options are first colour-normalised (the first
  entry of the 102-word ``COLOR_SET`` occurring as a substring, else the string unchanged); a
  goal option matches when some purchased value has ``token_set_ratio > 85``.
* ``r_price``: price <= price_upper.
* ``r_type``: 1.0, lowered to 0.5 when neither the scrape query nor the category breadcrumb
  (>= 2 shared "›" parts) nor the noun overlap of the names (title_score > 0.2) match, then to
  0.1 when title_score < 0.1 and to 0.0 when it is 0. title_score = |set(nouns(purchased name))
  & set(nouns(goal name))| / len(nouns(goal name)) (0.2 when the goal name has no nouns).

The nouns come from a pluggable tagger: spaCy's ``NOUN``/``PROPN`` tags when a spaCy English
model is importable (WebShop's own path), otherwise :class:`HeuristicNouns`, a documented
content-word approximation. ``tagger.id`` says which one ran; the adapter records it in its
input hashes and its environment id.

thefuzz semantics (measured on thefuzz 0.22): strip non-ASCII characters, rapidfuzz's
``default_process`` (lower-case, non-alphanumerics to spaces, trim), rapidfuzz
``token_set_ratio``, Python ``round`` to an int. Plain rapidfuzz without the processor is not
equivalent ("Tea Tree" vs "tea tree": 75 vs 100).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Mapping, Protocol, Sequence

from rapidfuzz import fuzz, process
from rapidfuzz.utils import default_process

#: engine/normalize.py COLOR_SET, verbatim and in its (alphabetical) order: order decides which
#: colour a string normalises to ("navy blue" -> "blue", "dark red" -> "dark").
COLOR_SET: tuple[str, ...] = (
    "alabaster", "apricot", "aqua", "ash", "asphalt", "azure", "banana", "beige", "black", "blue",
    "blush", "bordeaux", "bronze", "brown", "burgundy", "camel", "camo", "caramel", "champagne",
    "charcoal", "cheetah", "chestnut", "chocolate", "christmas", "coffee", "cognac", "copper",
    "coral", "cranberry", "cream", "crystal", "dark", "denim", "eggplant", "elephant", "espresso",
    "fuchsia", "gold", "granite", "grape", "graphite", "grass", "gray", "green", "grey", "heather",
    "indigo", "ivory", "ivy", "khaki", "lavender", "lemon", "leopard", "light", "lilac", "lime",
    "magenta", "maroon", "mauve", "merlot", "midnight", "mint", "mocha", "multicolor", "mushroom",
    "mustard", "natural", "navy", "nude", "olive", "orange", "peach", "pewter", "pink", "plum",
    "purple", "rainbow", "red", "rose", "royal", "rust", "sand", "sapphire", "seashell", "silver",
    "skull", "slate", "steel", "stone", "stonewash", "sunflower", "tan", "taupe", "teal", "tiger",
    "turquoise", "violet", "walnut", "wheat", "white", "wine", "yellow",
)

#: goal.py PRICE_RANGE: the 10-dollar ladder price ceilings are drawn from.
PRICE_RANGE: tuple[int, ...] = tuple(10 * i for i in range(1, 100))
#: price_upper when fewer than two ladder steps lie above the product price (no price text).
PRICE_UNBOUNDED = 1_000_000.0
#: a fuzzy match needs thefuzz's rounded ratio strictly above this.
FUZZY_THRESHOLD = 85
#: round(score) > 85  <=>  score >= 85.5 (Python rounds 85.5 half-to-even, up to 86)
_SCORE_CUTOFF = 85.5
#: items_ins_v2 fallback when a product has no mined attributes (web_agent_site/utils.py)
DUMMY_ATTR = "DUMMY_ATTR"

_ASCII = {i: None for i in range(128, 0x110000)}


# ------------------------------------------------------------------------- thefuzz semantics
@lru_cache(maxsize=1 << 16)
def fuzz_process(text: str) -> str:
    """thefuzz ``full_process(text, force_ascii=True)``."""
    ascii_text = text if text.isascii() else "".join(ch for ch in text if ord(ch) < 128)
    return default_process(ascii_text)


def token_set_ratio(a: str, b: str) -> int:
    """thefuzz ``fuzz.token_set_ratio(a, b)``: processed, rounded to an int."""
    return int(round(fuzz.token_set_ratio(fuzz_process(a), fuzz_process(b))))


def fuzzy_match(a: str, b: str) -> bool:
    return token_set_ratio(a, b) > FUZZY_THRESHOLD


@lru_cache(maxsize=1 << 16)
def normalize_color(text: str) -> str:
    """engine/normalize.py ``normalize_color``: the first COLOR_SET word found as a substring."""
    for color in COLOR_SET:
        if color in text:
            return color
    return text


def option_values_match(purchased: str, goal: str) -> bool:
    """Whether a clicked option value satisfies a goal option (after colour normalisation)."""
    return fuzzy_match(normalize_color(purchased), normalize_color(goal))


def distinguishable(old: str, new: str) -> bool:
    """Whether the reward can tell option value ``new`` from ``old`` (a shift it can see).

    small/x-small, pack of 12/pack of 6 and dark red/dark blue (both normalise to "dark") are
    not: a goal naming either is satisfied by the same clicks.
    """
    a, b = normalize_color(old), normalize_color(new)
    return a != b and token_set_ratio(a, b) <= FUZZY_THRESHOLD


# ----------------------------------------------------------------------------- the type factor
class NounTagger(Protocol):
    """The part of speech step of ``get_type_reward``: a name's nouns, lower-cased, in order."""

    id: str

    def nouns(self, text: str) -> list[str]: ...


_STOPWORDS = frozenset("""
a an the and or nor but for with without of in on at to by from into onto over under up down as
is are be this that these those it its s t our your my his her their new set pcs pc piece pieces
per each inch inches in ft feet oz fl ounce ounces lb lbs pound pounds count ct ml l g kg mm cm
x xs xl xxl xxxl small medium large one two three four five six seven eight ten twelve plus
""".split())


class HeuristicNouns:
    """Fallback when no spaCy English model is importable (it cannot be downloaded here).

    Every lower-case alphabetic token of two or more letters counts as a noun unless it is a
    function word, a unit, a size or count word, or a COLOR_SET colour. Product names are mostly
    noun compounds ("Women's Floral Wrap Midi Dress"), so this over-counts a few adjectives
    relative to spaCy; title_score's denominator grows accordingly (scores only go down).
    """

    id = "heuristic-nouns@1"

    def nouns(self, text: str) -> list[str]:
        return list(_heuristic_nouns(text))


_COLORS = frozenset(COLOR_SET)
_TOKEN = re.compile(r"[a-z]+")


@lru_cache(maxsize=1 << 16)
def _heuristic_nouns(text: str) -> tuple[str, ...]:
    return tuple(t for t in _TOKEN.findall(text.lower()) if len(t) >= 2 and t not in _STOPWORDS and t not in _COLORS)


class SpacyNouns:
    """WebShop's own path: tokens spaCy tags NOUN or PROPN ('PNOUN' is listed upstream too)."""

    def __init__(self, model: str) -> None:
        import spacy  # type: ignore[import-not-found]

        self._nlp = spacy.load(model)
        self.id = f"spacy:{model}@{spacy.__version__}"

    def nouns(self, text: str) -> list[str]:
        return [t.text.lower() for t in self._nlp(text) if t.pos_ in ("PNOUN", "NOUN", "PROPN")]


def load_noun_tagger(kind: str = "auto") -> NounTagger:
    """``auto``: spaCy (en_core_web_sm, then en_core_web_lg) when importable, else the heuristic."""
    if kind == "heuristic":
        return HeuristicNouns()
    if kind not in ("auto", "spacy"):
        raise ValueError(f"unknown type factor {kind!r}; known: auto, spacy, heuristic")
    for model in ("en_core_web_sm", "en_core_web_lg"):
        try:
            return SpacyNouns(model)
        except Exception:  # spaCy or the model is not installed
            continue
    if kind == "spacy":
        raise RuntimeError("type factor 'spacy' requested but no spaCy English model is importable")
    return HeuristicNouns()


# ------------------------------------------------------------------------------- the records
@dataclass(frozen=True, eq=False)
class Product:
    """A product as WebShop's ``load_products`` leaves it (only what the reward reads)."""

    asin: str
    name: str
    query: str
    category: str
    product_category: str
    bullet_points: tuple[str, ...]
    description: str
    attributes: tuple[str, ...]
    options: Mapping[str, tuple[str, ...]]  # lower-cased name -> values ('/' -> ' | ')
    pricing: tuple[float, ...]
    price: float  # the one price a purchase pays (generate_product_prices, pinned)
    title_lower: str = field(init=False, repr=False)
    bullets_lower: str = field(init=False, repr=False)
    description_lower: str = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "title_lower", self.name.lower())
        object.__setattr__(self, "bullets_lower", " ".join(self.bullet_points).lower())
        object.__setattr__(self, "description_lower", self.description.lower())

    @property
    def title(self) -> str:
        return self.name


@dataclass(frozen=True)
class GoalSpec:
    """What ``get_reward`` reads from a goal dict."""

    query: str
    product_category: str
    name: str
    attributes: tuple[str, ...]
    options: tuple[str, ...]  # goal_options: a list of values (human goals)
    price_upper: float = PRICE_UNBOUNDED


@dataclass(frozen=True)
class TypeReward:
    r_type: float
    query_match: bool
    category_match: bool
    title_score: float


@dataclass(frozen=True)
class Reward:
    total: float
    type: TypeReward
    n_att: int
    n_opt: int
    r_price: bool
    unmatched_attributes: tuple[str, ...] = ()
    unmatched_options: tuple[str, ...] = ()


# ------------------------------------------------------------------------------ reward parts
def type_reward(product: Product, goal: GoalSpec, tagger: NounTagger) -> TypeReward:
    query_match = product.query == goal.query
    bought = {x.strip() for x in product.product_category.split("›")}
    wanted = {x.strip() for x in goal.product_category.split("›")}
    category_match = len(bought & wanted) >= 2
    desired = tagger.nouns(goal.name)
    if not desired:
        title_score = 0.2
    else:
        title_score = len(set(tagger.nouns(product.name)) & set(desired)) / len(desired)
    r_type = 1.0
    if not (query_match or category_match or title_score > 0.2):
        r_type = 0.5
    if title_score < 0.1:
        r_type = 0.1
    if title_score == 0.0:
        r_type = 0.0
    return TypeReward(r_type, query_match, category_match, title_score)


def attribute_matched(product: Product, goal_attr: str) -> bool:
    if any(fuzzy_match(p, goal_attr) for p in product.attributes):
        return True
    return goal_attr in product.title_lower or goal_attr in product.bullets_lower or goal_attr in product.description_lower


def attribute_reward(product: Product, goal_attrs: Sequence[str]) -> tuple[float, int]:
    n = sum(1 for g in goal_attrs if attribute_matched(product, g))
    return n / len(goal_attrs), n  # ZeroDivisionError on no attributes, as upstream


def option_reward(purchased: Sequence[str], goal_options: Sequence[str]) -> tuple[float | None, int]:
    bought = [normalize_color(o) for o in purchased]
    wanted = [normalize_color(o) for o in goal_options]
    n = sum(1 for g in wanted if any(fuzzy_match(p, g) for p in bought))
    return (n / len(wanted) if wanted else None), n


def reward(product: Product, goal: GoalSpec, price: float, options: Mapping[str, str], tagger: NounTagger) -> Reward:
    """``get_reward(purchased_product, goal, price, options)`` for a human goal."""
    rt = type_reward(product, goal, tagger)
    r_price = price <= goal.price_upper
    attr_hits = [attribute_matched(product, g) for g in goal.attributes]
    bought = [normalize_color(o) for o in options.values()]
    option_hits = [any(fuzzy_match(p, normalize_color(g)) for p in bought) for g in goal.options]
    n_att, n_opt = sum(attr_hits), sum(option_hits)  # == attribute_reward(...)[1], option_reward(...)[1]
    total = (n_att + n_opt + r_price) / (len(goal.attributes) + len(goal.options) + 1) * rt.r_type
    return Reward(
        total=total, type=rt, n_att=n_att, n_opt=n_opt, r_price=r_price,
        unmatched_attributes=tuple(g for g, hit in zip(goal.attributes, attr_hits) if not hit),
        unmatched_options=tuple(g for g, hit in zip(goal.options, option_hits) if not hit),
    )


def rewards_of_choices(product: Product, goal: GoalSpec, choices: Sequence[Mapping[str, str]], tagger: NounTagger) -> list[float]:
    """``reward(...).total`` for several option choices of one product (shared parts computed once)."""
    rt = type_reward(product, goal, tagger).r_type
    _, n_att = attribute_reward(product, goal.attributes)
    r_price = product.price <= goal.price_upper
    denominator = len(goal.attributes) + len(goal.options) + 1
    return [(n_att + option_reward(list(c.values()), goal.options)[1] + r_price) / denominator * rt for c in choices]


# --------------------------------------------------------------------------------- purchases
def purchase_key(asin: str, options: Iterable[tuple[str, str]]) -> str:
    """``asin|name=value|...`` with names sorted; '|' inside a value is written '/' (WebShop
    already turned every '/' of an option value into ' | ', so the key stays unambiguous)."""
    return asin + "".join(f"|{n}={v.replace('|', '/')}" for n, v in sorted(options))


@dataclass(frozen=True)
class Purchase:
    """One purchase: a product of the cluster and one chosen value for each of its options."""

    index: int  # position in the cluster
    asin: str
    options: tuple[tuple[str, str], ...]  # (option name, value), in the product's option order

    @property
    def key(self) -> str:
        return purchase_key(self.asin, self.options)


class TooManyPurchases(Exception):
    pass


class ClusterOracle:
    """Scores a goal against every product of one cluster (the products sharing its query).

    Each predicate of the reward is evaluated once per cluster and memoised: a goal attribute
    against the cluster's distinct processed attributes (rapidfuzz's C batch scorer, with the
    85.5 cutoff that equals thefuzz's rounded ``> 85``) plus the substring rule; a goal option
    against every option value; the type factor per (goal name, product). ``purchases`` returns
    every (product, full option choice) scoring 1.0, which :func:`reward` re-checks.
    """

    def __init__(self, products: Sequence[Product], tagger: NounTagger) -> None:
        self.products = list(products)
        self.tagger = tagger
        self.position = {p.asin: i for i, p in enumerate(self.products)}
        owners: dict[str, set[int]] = {}
        for i, p in enumerate(self.products):
            for a in p.attributes:
                owners.setdefault(fuzz_process(a), set()).add(i)
        self._attr_choices = sorted(owners)
        self._attr_owners = [frozenset(owners[a]) for a in self._attr_choices]
        values: dict[str, str] = {}
        for p in self.products:
            for vals in p.options.values():
                for v in vals:
                    values.setdefault(v, fuzz_process(normalize_color(v)))
        self._value_proc = values
        self._attr_memo: dict[str, frozenset[int]] = {}
        self._option_memo: dict[str, tuple[frozenset[tuple[str, str]], ...]] = {}
        self._type_memo: dict[tuple[str, str, str, str], float] = {}
        self.scored = 0  # product-predicate evaluations, for the benchmark

    def attribute_matches(self, goal_attr: str) -> frozenset[int]:
        """Indices of the products whose attribute rule matches ``goal_attr``."""
        hit = self._attr_memo.get(goal_attr)
        if hit is None:
            found: set[int] = set()
            query = fuzz_process(goal_attr)
            for _, _, k in process.extract(query, self._attr_choices, scorer=fuzz.token_set_ratio, processor=None,
                                           score_cutoff=_SCORE_CUTOFF, limit=None):
                found |= self._attr_owners[k]
            for i, p in enumerate(self.products):
                if i not in found and (goal_attr in p.title_lower or goal_attr in p.bullets_lower or goal_attr in p.description_lower):
                    found.add(i)
            self.scored += len(self.products)
            hit = self._attr_memo[goal_attr] = frozenset(found)
        return hit

    def option_matches(self, goal_option: str) -> tuple[frozenset[tuple[str, str]], ...]:
        """Per product, the (name, value) clicks that satisfy ``goal_option``."""
        hit = self._option_memo.get(goal_option)
        if hit is None:
            wanted = fuzz_process(normalize_color(goal_option))
            ok = {v for v, proc in self._value_proc.items() if round(fuzz.token_set_ratio(proc, wanted)) > FUZZY_THRESHOLD}
            hit = tuple(frozenset((n, v) for n, vals in p.options.items() for v in vals if v in ok) for p in self.products)
            self._option_memo[goal_option] = hit
            self.scored += len(self.products)
        return hit

    def type_factor(self, goal: GoalSpec, index: int) -> float:
        p = self.products[index]
        key = (goal.name, goal.query, goal.product_category, p.asin)
        r = self._type_memo.get(key)
        if r is None:
            r = self._type_memo[key] = type_reward(p, goal, self.tagger).r_type
        return r

    def purchases(self, goal: GoalSpec, max_purchases: int = 200_000) -> list[Purchase]:
        """Every (product, full option choice) of the cluster that scores 1.0 for ``goal``."""
        if not goal.attributes:
            raise ZeroDivisionError("a WebShop goal without attributes has no defined reward")
        candidates = set(range(len(self.products)))
        for g in goal.attributes:
            candidates &= self.attribute_matches(g)
        per_option = [self.option_matches(o) for o in goal.options]
        out: list[Purchase] = []
        for i in sorted(candidates):
            p = self.products[i]
            if p.price > goal.price_upper or self.type_factor(goal, i) != 1.0:
                continue
            needs = [m[i] for m in per_option]
            if any(not m for m in needs):
                continue
            names = list(p.options)
            choices = [list(dict.fromkeys(p.options[n])) for n in names]
            for combo in itertools.product(*choices):
                chosen = set(zip(names, combo))
                if all(m & chosen for m in needs):
                    out.append(Purchase(i, p.asin, tuple(zip(names, combo))))
                    if len(out) > max_purchases:
                        raise TooManyPurchases(f"more than {max_purchases} purchases score 1.0")
        return out

    def score(self, goal: GoalSpec, purchase: Purchase) -> Reward:
        """The exact reward of one purchase (no memo)."""
        p = self.products[purchase.index]
        return reward(p, goal, p.price, dict(purchase.options), self.tagger)


def all_purchases(product: Product) -> Iterable[dict[str, str]]:
    """Every full option choice of a product (one value per option; {} when it has none)."""
    names = list(product.options)
    for combo in itertools.product(*(list(dict.fromkeys(product.options[n])) for n in names)):
        yield dict(zip(names, combo))

