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

The predicates' fuzzy matching is :mod:`miscue.adapters.webshop.matching`, the nouns of the type
factor :mod:`miscue.adapters.webshop.nouns`; :mod:`miscue.adapters.webshop.oracle` scores a goal against a
whole cluster at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Mapping, Sequence

from miscue.adapters.webshop.matching import fuzzy_match, normalize_color
from miscue.adapters.webshop.nouns import NounTagger

#: goal.py PRICE_RANGE: the 10-dollar ladder price ceilings are drawn from.
PRICE_RANGE: tuple[int, ...] = tuple(10 * i for i in range(1, 100))
#: price_upper when fewer than two ladder steps lie above the product price (no price text).
PRICE_UNBOUNDED = 1_000_000.0
#: items_ins_v2 fallback when a product has no mined attributes (web_agent_site/utils.py)
DUMMY_ATTR = "DUMMY_ATTR"


def lowered_texts(name: str, bullet_points: Sequence[str], description: str) -> tuple[str, str, str]:
    """The lower-cased title, joined bullet points and description the attribute rule searches."""
    return name.lower(), " ".join(bullet_points).lower(), description.lower()


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
        title, bullets, description = lowered_texts(self.name, self.bullet_points, self.description)
        object.__setattr__(self, "title_lower", title)
        object.__setattr__(self, "bullets_lower", bullets)
        object.__setattr__(self, "description_lower", description)

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


def type_reward(product: Product, goal: GoalSpec, tagger: NounTagger) -> TypeReward:
    return _type_reward(product.name, product.query, product.product_category, goal.name, goal.query, goal.product_category,
                        tagger)


# the reward's parts are pure functions of strings: kept for the pairs a cluster's goals repeat
@lru_cache(maxsize=1 << 18)
def _type_reward(name: str, query: str, product_category: str, goal_name: str, goal_query: str, goal_category: str,
                 tagger: NounTagger) -> TypeReward:
    query_match = query == goal_query
    bought = {x.strip() for x in product_category.split("›")}
    wanted = {x.strip() for x in goal_category.split("›")}
    category_match = len(bought & wanted) >= 2
    desired = tagger.nouns(goal_name)
    if not desired:
        title_score = 0.2
    else:
        title_score = len(set(tagger.nouns(name)) & set(desired)) / len(desired)
    r_type = 1.0
    if not (query_match or category_match or title_score > 0.2):
        r_type = 0.5
    if title_score < 0.1:
        r_type = 0.1
    if title_score == 0.0:
        r_type = 0.0
    return TypeReward(r_type, query_match, category_match, title_score)


def attribute_matched(product: Product, goal_attr: str) -> bool:
    return _attribute_matched(product.attributes, product.title_lower, product.bullets_lower, product.description_lower,
                              goal_attr)


@lru_cache(maxsize=1 << 16)
def _attribute_matched(attributes: tuple[str, ...], title: str, bullets: str, description: str, goal_attr: str) -> bool:
    if any(fuzzy_match(p, goal_attr) for p in attributes):
        return True
    return goal_attr in title or goal_attr in bullets or goal_attr in description


def attribute_reward(product: Product, goal_attrs: Sequence[str]) -> tuple[float, int]:
    n = sum(1 for g in goal_attrs if attribute_matched(product, g))
    return n / len(goal_attrs), n  # ZeroDivisionError on no attributes, as upstream


def option_reward(purchased: Sequence[str], goal_options: Sequence[str]) -> tuple[float | None, int]:
    n = matched_options(tuple(purchased), tuple(goal_options))
    return (n / len(goal_options) if goal_options else None), n


@lru_cache(maxsize=1 << 16)
def matched_options(purchased: tuple[str, ...], goal_options: tuple[str, ...]) -> int:
    """n_opt: the goal options some purchased value matches (a pure function of the strings,
    so kept: a cluster's purchases repeat the same few value combinations)."""
    bought = [normalize_color(o) for o in purchased]
    wanted = [normalize_color(o) for o in goal_options]
    return sum(1 for g in wanted if any(fuzzy_match(p, g) for p in bought))


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
    return [(n_att + matched_options(tuple(c.values()), goal.options) + r_price) / denominator * rt for c in choices]
