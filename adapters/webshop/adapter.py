"""WebShop (princeton-nlp/WebShop) on its own three data files, with its reward as the oracle.

The files are read by :mod:`miscue.adapters.webshop.catalogue` (default directory: the one named by
``MISCUE_WEBSHOP_DATA``, else the catalogue this repository ships in ``data/webshop/``; WebShop's
full set, items_shuffle.json and items_ins_v2.json, is read the same way); goals, splits and
price ceilings are :mod:`miscue.adapters.webshop.goals`; a goal is written as an intent as
:mod:`miscue.adapters.webshop.intents` describes. Intents live in a per-cluster scope of the catalogue's environment
(``<env_id>/<cluster hash>``): candidate scans, retrieval and pivots stay inside the product's
cluster, as in the reference release.

The ground truth of an intent is every purchase (a product of the cluster and one chosen value
for each of its options) that WebShop's reward (:mod:`miscue.adapters.webshop.reward`) scores 1.0, found
by :mod:`miscue.adapters.webshop.oracle`.
"""

from __future__ import annotations

import os
from collections import Counter, OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from miscue.adapters.webshop.catalogue import Catalogue, Progress
from miscue.adapters.webshop.goals import SPLITS, Goal, split_of
from miscue.adapters.webshop.index import ClusterIndex
from miscue.adapters.webshop.intents import ATTR, OPTION, PRICE, UNSUPPORTED_OPERATIONS, option_name, target_ref
from miscue.adapters.webshop.matching import distinguishable, fuzz_process, option_values_match
from miscue.adapters.webshop.nouns import NounTagger, load_noun_tagger
from miscue.adapters.webshop.oracle import ClusterOracle, Purchase, TooManyPurchases
from miscue.adapters.webshop.reward import (DUMMY_ATTR, PRICE_RANGE, PRICE_UNBOUNDED, GoalSpec, Product, Reward, reward,
                                            rewards_of_choices)
from miscue.adapters.webshop.speech import WebShopSpeech
from miscue import resources
from miscue.canonical import content_hash
from miscue.errors import ConfigError
from miscue.host import Adapter, FaultSupport, NotExecutable, Seed, SeedCheck
from miscue.schema import Condition, GroundTruth, Intent
from miscue.taxonomy import FAULT_TYPES

#: the catalogue miscue ships (package data)
DEFAULT_DATA_DIR = resources.data_dir("webshop")
#: names the WebShop data directory when the adapter is built without one (e.g. by the registry)
DATA_DIR_VARIABLE = "MISCUE_WEBSHOP_DATA"
MAX_PURCHASES = 200_000
#: compiled answers kept: at most this many intents and this many purchases in all
MAX_COMPILED, MAX_COMPILED_PURCHASES = 4096, 1_000_000
ORACLES = 64  # clusters whose memoised predicates are kept
MAX_WITNESSES = 200


@dataclass(frozen=True)
class _Spec:
    cluster: str
    asin: str
    goal: GoalSpec
    operation: str | None = None  # a store capability the site does not offer


class WebShopAdapter(WebShopSpeech, Adapter[Purchase]):
    """WebShop human goals over a catalogue in WebShop's own file format."""

    benchmark = "webshop"
    name = "webshop"
    version = "1"

    def __init__(
        self,
        data_dir: str | Path | None = None,
        *,
        suffix: str | None = None,
        splits: Iterable[str] = ("test",),
        require_full_quota: bool = True,
        type_factor: str = "auto",
        product_cache: int = 100_000,
        progress: Progress | None = None,
    ) -> None:
        if data_dir is None:
            data_dir = os.environ.get(DATA_DIR_VARIABLE) or resources.require(DEFAULT_DATA_DIR, "the shipped WebShop catalogue")
        self.data_dir = Path(data_dir)
        # product_cache: at most this many full products stay parsed (the most recently used);
        # progress: told (bytes read, bytes to read) while the files are streamed
        self.catalogue = Catalogue(self.data_dir, suffix, product_cache=product_cache, progress=progress)
        self.splits = tuple(splits)
        unknown = set(self.splits) - {s for s, _, _ in SPLITS}
        if unknown:
            raise ConfigError(f"unknown WebShop split(s) {sorted(unknown)}; known: test, eval, train")
        self.require_full_quota = require_full_quota
        self.tagger: NounTagger = load_noun_tagger(type_factor)
        self._env_id = "webshop:" + content_hash(sorted(self.catalogue.sha256.items()), self.tagger.id, length=12)
        self._targets = {target_ref(a): a for a in self.catalogue.goal_products}
        self._oracles: OrderedDict[str, ClusterOracle] = OrderedDict()
        self._compiled: OrderedDict[str, list[Purchase]] = OrderedDict()
        self._compiled_size = 0  # purchases held by _compiled
        # domain() proposes values the reward cannot tell from the current one too; it remembers
        # them (candidate intent id -> the intents it is a blind shift of) for invalid_reason()
        self._blind_shifts: dict[str, set[str]] = {}
        self._domain_parent: str | None = None
        self.disagreements = 0  # compiled purchases the exact reward did not confirm (expected 0)

    @property
    def env_id(self) -> str:
        """The catalogue's environment: its three files' content hashes and the type factor."""
        return self._env_id

    @property
    def type_factor(self) -> str:
        """Which noun tagger the reward's type factor ran with (spaCy or the heuristic)."""
        return self.tagger.id

    def scope(self, cluster: str) -> str:
        """The per-cluster scope intents live in."""
        return f"{self._env_id}/{content_hash('cluster', cluster, length=8)}"

    def input_hashes(self) -> dict[str, str]:
        hashes = {f"webshop/{name}": sha for name, sha in sorted(self.catalogue.sha256.items())}
        hashes["webshop/oracle.type_factor"] = self.tagger.id
        return hashes

    def load_seeds(self) -> list[Seed]:
        return [
            Seed(str(g.index), split_of(g.index), g.payload(self.catalogue.goal_products[g.asin]))
            for g in self.catalogue.goals
            if split_of(g.index) in self.splits
        ]

    def goal(self, seed: Seed) -> Goal:
        return self.catalogue.goals[int(seed.task_id)]

    def instructions(self, seed: Seed) -> str:
        """The goal's instruction as WebShop shows it (with its price text)."""
        return self.goal(seed).instruction_text

    def lift_seed(self, seed: Seed) -> SeedCheck:
        goal = self.goal(seed)
        try:
            intent = self.lift(goal)
        except NotExecutable as exc:
            return SeedCheck(seed.task_id, False, f"seed:{exc.code}", exc.detail)
        try:
            purchases = self._confirmed(intent)
        except NotExecutable as exc:
            return SeedCheck(seed.task_id, False, "seed:not_executable", str(exc))
        if not any(p.asin == goal.asin for p in purchases):
            spec = self._spec(intent)
            product = self._product(goal.cluster, goal.asin)
            best = reward(product, spec.goal, product.price, _closest_choice(product, spec.goal.options), self.tagger)
            return SeedCheck(
                seed.task_id, False, "seed:target_not_maximal",
                f"the annotated product scores {best.total:.3f}: r_type {best.type.r_type}, unmatched attributes "
                f"{list(best.unmatched_attributes)}, unmatched options {list(best.unmatched_options)}, price ok {best.r_price}",
            )
        return SeedCheck(seed.task_id, True, "ok", "", intent)

    def lift(self, goal: Goal) -> Intent:
        """A goal as an intent: attributes, options (named by the target's options), ceiling."""
        target = self._product(goal.cluster, goal.asin)
        conds: list[Condition] = [Condition(slot=ATTR + a, value=a) for a in dict.fromkeys(goal.attributes)]
        used: Counter = Counter()
        for value in dict.fromkeys(goal.options):
            name = _offering_option(target, value)
            if name is None:
                raise NotExecutable("option_not_offered",
                                    f"goal option {value!r} matches no option value of the annotated product")
            used[name] += 1
            slot = OPTION + name if used[name] == 1 else f"{OPTION}{name}#{used[name]}"
            conds.append(Condition(slot=slot, value=value))
        if goal.price_upper is not None:
            conds.append(Condition(slot=PRICE, op="<=", value=goal.price_upper))
        return Intent(
            benchmark=self.benchmark, adapter=self.adapter_id, env_id=self.scope(goal.cluster),
            base={"cluster": goal.cluster, "target": target_ref(goal.asin)}, conditions=tuple(conds),
        )

    def _product(self, cluster: str, asin: str) -> Product:
        oracle = self._oracle(cluster)
        if asin not in oracle.position:
            raise NotExecutable("unknown_target", f"{asin} is not in cluster {cluster!r}")
        return oracle.products[oracle.position[asin]]

    def _oracle(self, cluster: str) -> ClusterOracle:
        """The cluster's oracle over its index (its memoised predicates), kept for the
        ``ORACLES`` most recently used clusters."""
        oracle = self._oracles.get(cluster)
        if oracle is None:
            oracle = self._oracles[cluster] = ClusterOracle(self.catalogue.index(cluster), self.tagger)
        self._oracles.move_to_end(cluster)
        while len(self._oracles) > ORACLES:
            self._oracles.popitem(last=False)
        return oracle

    def _spec(self, intent: Intent) -> _Spec:
        if intent.benchmark != self.benchmark:
            raise NotExecutable("foreign_benchmark", intent.benchmark)
        cluster, ref = intent.base.get("cluster"), intent.base.get("target")
        if not isinstance(cluster, str) or not isinstance(ref, str) or ref not in self._targets:
            raise NotExecutable("bad_base", "the base names no known cluster and target")
        operation = intent.base.get("operation")
        if operation is not None and operation not in UNSUPPORTED_OPERATIONS:
            raise NotExecutable("unknown_operation", repr(operation))
        extra = set(intent.base) - {"cluster", "target", "operation"}
        if extra:
            raise NotExecutable("bad_base", f"unknown base fields {sorted(extra)}")
        if intent.env_id != self.scope(cluster):
            raise NotExecutable("foreign_environment", f"{intent.env_id} is not {self.scope(cluster)}")
        asin = self._targets[ref]
        target = self._product(cluster, asin)
        attrs, opts, ceiling = [], [], PRICE_UNBOUNDED
        for c in intent.conditions:
            if c.slot.startswith(ATTR) and c.op == "=" and c.value == c.slot[len(ATTR):]:
                attrs.append(c.value)
            elif c.slot.startswith(OPTION) and c.op == "=" and isinstance(c.value, str):
                opts.append(c.value)
            elif c.slot == PRICE and c.op == "<=" and isinstance(c.value, (int, float)) and not isinstance(c.value, bool):
                ceiling = float(c.value)
            else:
                raise NotExecutable("unknown_condition", f"{c.slot} {c.op} {c.value!r}")
        if not attrs:
            raise NotExecutable("no_attribute_condition", "a WebShop goal needs an attribute (the reward divides by their count)")
        goal = GoalSpec(target.query, target.product_category, target.name, tuple(attrs), tuple(opts), ceiling)
        return _Spec(cluster, asin, goal, operation)

    def compile(self, intent: Intent) -> list[Purchase]:
        """Every purchase of the intent's cluster the reward's predicates accept."""
        cached = self._compiled.get(intent.intent_id)
        if cached is not None:
            self._compiled.move_to_end(intent.intent_id)
            return cached
        spec = self._spec(intent)
        if spec.operation is not None:
            return []  # the site offers only search, click, choose options and buy: nothing is reached this way
        try:
            purchases = self._oracle(spec.cluster).purchases(spec.goal, MAX_PURCHASES)
        except TooManyPurchases as exc:
            raise NotExecutable("answer_too_large", str(exc)) from None
        self._compiled[intent.intent_id] = purchases
        self._compiled_size += len(purchases)
        while len(self._compiled) > MAX_COMPILED or self._compiled_size > MAX_COMPILED_PURCHASES:
            _, evicted = self._compiled.popitem(last=False)
            self._compiled_size -= len(evicted)
        return purchases

    def _confirm(self, intent: Intent, recipes: Sequence[Purchase], products: Sequence[Product]) -> list[Purchase]:
        """The recipes WebShop's reward (computed in full) scores exactly 1.0."""
        spec = self._spec(intent)
        by_product: dict[int, list[Purchase]] = {}
        for r in recipes:
            by_product.setdefault(r.index, []).append(r)
        ok = []
        for index, group in by_product.items():
            product = products[index]
            totals = rewards_of_choices(product, spec.goal, [dict(g.options) for g in group], self.tagger)
            for purchase, total in zip(group, totals):
                if total == 1.0:
                    ok.append(purchase)
                else:
                    self.disagreements += 1
        return ok

    def _confirmed(self, intent: Intent) -> list[Purchase]:
        spec = self._spec(intent)
        return self._confirm(intent, self.compile(intent), self._oracle(spec.cluster).products)

    def execute(self, intent: Intent, recipes: Sequence[Purchase]) -> GroundTruth:
        spec = self._spec(intent)
        confirmed = self._confirm(intent, recipes, self._oracle(spec.cluster).products)
        return GroundTruth.of("purchases", (p.key for p in confirmed))

    def reexecute(self, intent: Intent) -> GroundTruth:
        """From scratch: a fresh oracle (no memoised predicate, no compiled purchase)."""
        spec = self._spec(intent)
        if spec.operation is not None:
            return GroundTruth.of("purchases", [])
        index = self._oracle(spec.cluster).index  # the cluster's index; a fresh oracle re-evaluates every predicate
        try:
            purchases = ClusterOracle(index, self.tagger).purchases(spec.goal, MAX_PURCHASES)
        except TooManyPurchases as exc:
            raise NotExecutable("answer_too_large", str(exc)) from None
        return GroundTruth.of("purchases", (p.key for p in self._confirm(intent, purchases, index.products)))

    def score(self, intent: Intent, asin: str, options: Mapping[str, str]) -> Reward:
        """WebShop's reward, in full, for buying ``asin`` with ``options`` under ``intent``."""
        spec = self._spec(intent)
        product = self._product(spec.cluster, asin)
        return reward(product, spec.goal, product.price, dict(options), self.tagger)

    def _answer(self, intent: Intent, truth: GroundTruth | None = None) -> list[Purchase]:
        purchases = self.compile(intent)
        if truth is not None:
            keys = set(truth.value)
            purchases = [p for p in purchases if p.key in keys]
        return sorted(purchases, key=lambda p: p.key)

    def _properties(self, intent: Intent, purchases: Sequence[Purchase]) -> list[dict[str, Any]]:
        """Each purchase as flat properties: the attributes its product satisfies (by the
        reward's own attribute rule) and its chosen option values."""
        spec = self._spec(intent)
        oracle = self._oracle(spec.cluster)
        present = set(intent.slots)
        pool = sorted({
            a for p in purchases for a in oracle.products[p.index].attributes
            if a != DUMMY_ATTR and ATTR + a not in present and a.strip()
        })
        matches = oracle.attributes_held(pool, {p.index for p in purchases})
        out = []
        for p in purchases:
            props: dict[str, Any] = {ATTR + a: a for a in pool if p.index in matches[a]}
            props.update({OPTION + n: v for n, v in p.options})
            out.append(props)
        return out

    def _answer_properties(self, intent: Intent, truth: GroundTruth) -> list[dict[str, Any]]:
        """The purchases behind the answer (at most 200, by key) as flat properties."""
        return self._properties(intent, self._answer(intent, truth)[:MAX_WITNESSES])

    def witnesses(self, intent: Intent, truth: GroundTruth) -> list[dict[str, Any]]:
        """The purchases behind the answer (at most 200, by key) as flat properties."""
        self._domain_parent = None  # a new root's synthesis: earlier substitutions are not judged
        return self._answer_properties(intent, truth)

    def domain(self, intent: Intent, slot: str) -> list[Any]:
        """Legal alternative values: option values the cluster offers under the option's name
        (the reward-distinguishable ones first), price ladder steps across the cluster's prices.

        Values the reward cannot tell from the current one are returned too (after the others),
        but remembered: :meth:`invalid_reason` rejects the shifted intent as
        ``indistinguishable_shift`` (normalised colours equal or token_set_ratio > 85).
        Attributes have no substitutes (an ``attr:`` slot's name is its value).
        """
        self._domain_parent = intent.intent_id
        cond = intent.condition(slot)
        clear, unclear = self.alternatives(intent, slot)
        for v in unclear:
            assert cond is not None
            self._blind_shifts.setdefault(intent.with_condition(cond.with_value(v)).intent_id, set()).add(intent.intent_id)
        return clear + unclear

    def alternatives(self, intent: Intent, slot: str) -> tuple[list[Any], list[Any]]:
        """What :meth:`domain` proposes, split into the values the reward tells from the current
        one and those it cannot; nothing is remembered (the grounder's forms ask this too)."""
        cond = intent.condition(slot)
        if cond is None:
            return [], []
        spec = self._spec(intent)
        index = self._oracle(spec.cluster).index
        if slot.startswith(OPTION):
            values = self.offered(intent, slot)
            clear = [v for v in values if distinguishable(cond.value, v)][:6]
            unclear = [v for v in values if not distinguishable(cond.value, v)][:2]
            return clear, unclear
        if slot == PRICE:
            low, high = index.price_range
            top = next((s for s in PRICE_RANGE if s > high), PRICE_RANGE[-1])
            steps = [s for s in PRICE_RANGE if low < s <= top and s != cond.value]
            return sorted(steps, key=lambda s: (abs(s - cond.value), s))[:4], []
        return [], []

    def offered(self, intent: Intent, slot: str) -> list[str]:
        """Every value the intent's cluster offers for an ``option:`` slot's option other than the
        current one, the most offered first (from the cluster's index: no product is parsed)."""
        cond = intent.condition(slot)
        if cond is None or not slot.startswith(OPTION):
            return []
        offered = self._oracle(self._spec(intent).cluster).index.offered(option_name(slot))
        current = fuzz_process(cond.value)
        seen_order = list(offered)
        return sorted((v for v in offered if fuzz_process(v) != current), key=lambda v: (-offered[v], seen_order.index(v)))

    def cluster_index(self, intent: Intent) -> ClusterIndex:
        """The index of the intent's cluster (what its shopper may find): offered option values,
        prices, the attributes every product holds -- read without parsing its products."""
        return self._oracle(self._spec(intent).cluster).index

    def invalid_reason(self, intent: Intent) -> str | None:
        """``indistinguishable_shift`` for a substitution (of the intent whose domain was asked
        last) the reward cannot tell from the original; ``no_attribute_condition`` for an intent
        without attributes (the reward divides by their count)."""
        if self._domain_parent in self._blind_shifts.get(intent.intent_id, ()):
            return "indistinguishable_shift"
        if not any(c.slot.startswith(ATTR) for c in intent.conditions):
            return "no_attribute_condition"
        return None

    def is_ordered_slot(self, intent: Intent, slot: str) -> bool:
        return slot == PRICE or (slot.startswith(OPTION) and "size" in option_name(slot))

    def slot_name_states_value(self, slot: str) -> bool:
        return slot.startswith(ATTR)

    def graph_config(self) -> dict[str, Any]:
        return {"require_full_quota": self.require_full_quota}

    def fault_support(self) -> dict[str, FaultSupport]:
        reasons = {
            "indirect_intent": "whole-message; the truth reading re-executes unchanged",
            "contextual_irrelevance": "whole-message; the truth reading re-executes unchanged",
            "factual_error": "option values and price steps have reward-distinguishable alternatives (domain); "
                             "indistinguishable ones are rejected",
            "false_presupposition": "doubting one requirement and settling for a fallback changes the purchases that score 1.0",
            "tool_capability_mismatch": "store capabilities WebShop does not offer (price alerts, sorting, filters, pickup ...): "
                                        "mismatches() readings are refused",
            "insufficient_information": "dropping an option or the price ceiling widens the answer; "
                                        "an attr: slot only if another attribute remains",
            "irrelevant_information": "extras(): an attribute or option value some answers carry, strictly narrowing the answer",
            "lexical_ambiguity": "option and price slots (attr: slot names state their value)",
            "syntactic_ambiguity": "option and price slots (attr: slot names state their value)",
            "referential_ambiguity": "option and price slots (attr: slot names state their value)",
            "vagueness_subjectivity": "ordered slots: the price ceiling and size options",
        }
        assert set(reasons) == set(FAULT_TYPES)
        return {t: FaultSupport(True, reasons[t]) for t in FAULT_TYPES}


def _offering_option(product: Product, value: str) -> str | None:
    """The option of ``product`` that offers ``value``: exact value first, then a reward match."""
    wanted = value.strip().replace("/", " | ").lower()
    for name, values in product.options.items():
        if wanted in values:
            return name
    for name, values in product.options.items():
        if any(option_values_match(v, value) for v in values):
            return name
    return None


def _closest_choice(product: Product, goal_options: Sequence[str]) -> dict[str, str]:
    """A full option choice of ``product`` clicking, per option, a value that matches some goal
    option where there is one (to explain why an annotated product fails its own goal)."""
    return {
        name: next((v for v in values if any(option_values_match(v, g) for g in goal_options)), values[0])
        for name, values in product.options.items()
    }
