"""The ground truth of a WebShop goal: every purchase of its cluster that the reward scores 1.0.

A purchase is a product of the cluster and one chosen value for each of its options;
:class:`ClusterOracle` evaluates each predicate of the reward once per cluster and memoises it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Iterable, Sequence

from rapidfuzz import fuzz, process

from adapters.webshop.matching import FUZZY_THRESHOLD, SCORE_CUTOFF, fuzz_process, normalize_color
from adapters.webshop.nouns import NounTagger
from adapters.webshop.reward import GoalSpec, Product, Reward, reward, type_reward


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
                                           score_cutoff=SCORE_CUTOFF, limit=None):
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
