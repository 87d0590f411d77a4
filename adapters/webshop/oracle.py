"""The ground truth of a WebShop goal: every purchase of its cluster that the reward scores 1.0.

A purchase is a product of the cluster and one chosen value for each of its options;
:class:`ClusterOracle` evaluates each predicate of the reward once per cluster and memoises it.
"""

from __future__ import annotations

import itertools
from array import array
from bisect import bisect_left
from typing import Iterable, NamedTuple, Sequence

from rapidfuzz import fuzz, process

from miscue.adapters.webshop.index import ClusterIndex
from miscue.adapters.webshop.matching import SCORE_CUTOFF, fuzz_process, normalize_color
from miscue.adapters.webshop.nouns import NounTagger
from miscue.adapters.webshop.reward import GoalSpec, Product, Reward, reward, type_reward


def purchase_key(asin: str, options: Iterable[tuple[str, str]]) -> str:
    """``asin|name=value|...`` with names sorted; '|' inside a value is written '/' (WebShop
    already turned every '/' of an option value into ' | ', so the key stays unambiguous)."""
    return asin + "".join(f"|{n}={v.replace('|', '/')}" for n, v in sorted(options))


class Purchase(NamedTuple):
    """One purchase: a product of the cluster and one chosen value for each of its options
    (a named tuple: a large cluster's answer holds hundreds of thousands)."""

    index: int  # position in the cluster
    asin: str
    options: tuple[tuple[str, str], ...]  # (option name, value), in the product's option order
    key: str  # purchase_key(asin, options)


class TooManyPurchases(Exception):
    pass


class _OptionMatch:
    """The option values satisfying one goal option, and the products offering one of them
    (positions, ascending: an array holds a large cluster's positions in 4 bytes each)."""

    __slots__ = ("values", "offering")

    def __init__(self, values: set[str], offering: array) -> None:
        self.values = values
        self.offering = offering

    def clicks(self, product: Product) -> dict[str, set[str]]:
        """Per option of ``product``, the values whose click satisfies the goal option (options
        with none left out)."""
        out = {}
        for name, values in product.options.items():
            hit = self.values.intersection(values)
            if hit:
                out[name] = hit
        return out


class ClusterOracle:
    """Scores a goal against every product of one cluster (the products sharing its query).

    The predicates of the reward are evaluated over the cluster's
    :class:`~miscue.adapters.webshop.index.ClusterIndex` and memoised per oracle: a goal attribute
    against the distinct processed product attributes (rapidfuzz's C batch scorer, with the
    85.5 cutoff that equals thefuzz's rounded ``> 85``) plus the substring rule over the texts;
    a goal option against every option value; the type factor per (goal name, product). A
    goal's first attribute is matched against the whole cluster (and memoised), its other
    attributes only against the products still in question; full products are built only for
    the products every cheap predicate (attributes, options, price) admits. ``purchases``
    returns every (product, full option choice) scoring 1.0, which :func:`reward` re-checks.
    Products given in memory are indexed first; a fresh oracle over a shared index starts with
    no memo.
    """

    def __init__(self, products: Sequence[Product] | ClusterIndex, tagger: NounTagger) -> None:
        self.index = products if isinstance(products, ClusterIndex) else ClusterIndex.of(products)
        self.products = self.index.products
        self.tagger = tagger
        self._attr_memo: dict[str, array] = {}  # goal attribute -> matching positions, ascending
        self._option_memo: dict[str, _OptionMatch] = {}
        self._choice_memo: dict[str, list[int]] = {}
        self._type_memo: dict[tuple[str, str, str, str], float] = {}
        self.scored = 0  # product-predicate evaluations, for the benchmark

    @property
    def position(self) -> dict[str, int]:
        return self.index.position

    def _fuzzy_choices(self, goal_attr: str) -> list[int]:
        """The distinct processed product attributes ``goal_attr`` fuzzily matches."""
        hit = self._choice_memo.get(goal_attr)
        if hit is None:
            hit = self._choice_memo[goal_attr] = [
                k for _, _, k in process.extract(fuzz_process(goal_attr), self.index.attr_choices, scorer=fuzz.token_set_ratio,
                                                 processor=None, score_cutoff=SCORE_CUTOFF, limit=None)]
        return hit

    def _fuzzy_within(self, goal_attr: str, within: set[int]) -> set[int]:
        found: set[int] = set()
        for k in self._fuzzy_choices(goal_attr):
            found |= _members(self.index.owners(k), within)
        return found

    def _matches(self, goal_attr: str) -> array:
        hit = self._attr_memo.get(goal_attr)
        if hit is None:
            found = self.index.substring_matches(goal_attr)
            for k in self._fuzzy_choices(goal_attr):
                found.update(self.index.owners(k))
            self.scored += len(self.index)
            hit = self._attr_memo[goal_attr] = array("I", sorted(found))
        return hit

    def attribute_matches(self, goal_attr: str) -> frozenset[int]:
        """Positions of the products whose attribute rule matches ``goal_attr``."""
        return frozenset(self._matches(goal_attr))

    def attribute_matches_within(self, goal_attr: str, within: Iterable[int]) -> set[int]:
        """The positions of ``within`` whose attribute rule matches ``goal_attr``."""
        memo = self._attr_memo.get(goal_attr)
        within = set(within)
        if memo is not None:
            return _members(memo, within)
        fuzzy = self._fuzzy_within(goal_attr, within)
        self.scored += len(within)
        return fuzzy | self.index.substring_matches(goal_attr, sorted(within - fuzzy))

    def attributes_held(self, goal_attrs: Iterable[str], within: Iterable[int]) -> dict[str, set[int]]:
        """For each goal attribute, the positions of ``within`` whose attribute rule matches it
        (the texts of ``within`` gathered once for all of them)."""
        within = set(within)
        texts = self.index.texts_of(sorted(within))
        out = {}
        for a in goal_attrs:
            memo = self._attr_memo.get(a)
            out[a] = _members(memo, within) if memo is not None else self._fuzzy_within(a, within) | texts.substring_matches(a)
            self.scored += len(within)
        return out

    def option_matches(self, goal_option: str) -> _OptionMatch:
        """The option values satisfying ``goal_option`` and the products offering one."""
        hit = self._option_memo.get(goal_option)
        if hit is None:
            index = self.index
            wanted = fuzz_process(normalize_color(goal_option))
            ok = {v for _, _, v in process.extract(wanted, index.value_proc, scorer=fuzz.token_set_ratio, processor=None,
                                                   score_cutoff=SCORE_CUTOFF, limit=None)}
            offering: set[int] = set()
            for v in ok:
                offering.update(index.value_holders[v])
            hit = self._option_memo[goal_option] = _OptionMatch(ok, array("I", sorted(offering)))
            self.scored += len(index)
        return hit

    def type_factor(self, goal: GoalSpec, index: int, product: Product | None = None) -> float:
        p = self.products[index] if product is None else product
        key = (goal.name, goal.query, goal.product_category, p.asin)
        r = self._type_memo.get(key)
        if r is None:
            r = self._type_memo[key] = type_reward(p, goal, self.tagger).r_type
        return r

    def purchases(self, goal: GoalSpec, max_purchases: int = 200_000) -> list[Purchase]:
        """Every (product, full option choice) of the cluster that scores 1.0 for ``goal``."""
        if not goal.attributes:
            raise ZeroDivisionError("a WebShop goal without attributes has no defined reward")
        # products in question: those every cheap predicate admits, starting from the smallest
        # set (memoised attributes, or the whole cluster scanned for the longest attribute, and
        # the products offering each goal option); the other attributes are tested on them only
        memoised = [a for a in dict.fromkeys(goal.attributes) if a in self._attr_memo]
        if not memoised:
            memoised = [max(goal.attributes, key=len)]
        per_option = [self.option_matches(o) for o in goal.options]
        held = sorted([self._matches(a) for a in memoised] + [m.offering for m in per_option], key=len)
        candidates = set(held[0])
        for positions in held[1:]:
            candidates = _members(positions, candidates)
        prices = self.index.prices
        candidates = {i for i in candidates if prices[i] <= goal.price_upper}
        for a in dict.fromkeys(goal.attributes):
            if not candidates:
                break
            if a not in memoised:
                candidates = self.attribute_matches_within(a, candidates)
        out: list[Purchase] = []
        for i in sorted(candidates):
            p = self.products[i]
            if self.type_factor(goal, i, p) != 1.0:
                continue
            names = list(p.options)
            choices = [list(dict.fromkeys(p.options[n])) for n in names]
            keyed = sorted(range(len(names)), key=names.__getitem__)  # the key lists options by name
            parts = [{v: f"|{names[k]}={v.replace('|', '/')}" for v in choices[k]} for k in range(len(names))]
            for combo in _satisfying(names, choices, [m.clicks(p) for m in per_option]):
                key = p.asin + "".join([parts[k][combo[k]] for k in keyed])  # == purchase_key(asin, options)
                out.append(Purchase(i, p.asin, tuple(zip(names, combo)), key))
                if len(out) > max_purchases:
                    raise TooManyPurchases(f"more than {max_purchases} purchases score 1.0")
        return out

    def score(self, goal: GoalSpec, purchase: Purchase) -> Reward:
        """The exact reward of one purchase (no memo)."""
        p = self.products[purchase.index]
        return reward(p, goal, p.price, dict(purchase.options), self.tagger)


def _members(held: array, within: set[int]) -> set[int]:
    """The positions of ``within`` in ``held`` (ascending): a set operation, or a binary search
    per position when ``within`` is much the smaller."""
    if len(held) <= 8 * len(within):
        return within.intersection(held)
    found = set()
    for i in within:
        k = bisect_left(held, i)
        if k < len(held) and held[k] == i:
            found.add(i)
    return found


def _satisfying(names: list[str], choices: list[list[str]], needs: list[dict[str, set[str]]]) -> Iterable[tuple[str, ...]]:
    """The value combinations (in ``itertools.product`` order) that click, for every need, one
    of the values it allows under some option."""
    if all(len(need) == 1 for need in needs):  # each need restricts one option: filter its values
        restricted = list(choices)
        for need in needs:
            ((name, allowed),) = need.items()
            k = names.index(name)
            restricted[k] = [v for v in restricted[k] if v in allowed]
        return itertools.product(*restricted)
    at = {name: k for k, name in enumerate(names)}
    return (combo for combo in itertools.product(*choices)
            if all(any(combo[at[n]] in allowed for n, allowed in need.items()) for need in needs))


def all_purchases(product: Product) -> Iterable[dict[str, str]]:
    """Every full option choice of a product (one value per option; {} when it has none)."""
    names = list(product.options)
    for combo in itertools.product(*(list(dict.fromkeys(product.options[n])) for n in names)):
        yield dict(zip(names, combo))
