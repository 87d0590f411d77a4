"""The WebShop adapter on hand-made files: its reward oracle, ground truth, goals and shifts."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from rapidfuzz import fuzz
from support.webshop_tiny import P1, P2, P3, P4, SHOES, every_choice, root_intent, seed_for, tiny_adapter, tiny_files, write_files

from miscue.adapters.webshop import WebShopAdapter, price_ceiling, split_of
from miscue.adapters.webshop.matching import COLOR_SET, distinguishable, normalize_color, token_set_ratio
from miscue.adapters.webshop.nouns import HeuristicNouns
from miscue.adapters.webshop.reward import GoalSpec, Product, reward
from miscue.graphs import GraphBuilder, battery
from miscue.host import NotExecutable
from miscue.schema import Condition, Operator


@pytest.fixture()
def tiny(tmp_path) -> WebShopAdapter:
    return tiny_adapter(tmp_path / "ws")


def test_thefuzz_semantics_and_colour_normalisation():
    assert len(COLOR_SET) == 102 and list(COLOR_SET) == sorted(COLOR_SET)
    # the processor matters: thefuzz lower-cases and strips punctuation, plain rapidfuzz does not
    assert token_set_ratio("Tea Tree", "tea tree") == 100 and round(fuzz.token_set_ratio("Tea Tree", "tea tree")) < 100
    assert token_set_ratio("non-slip", "non slip") == 100
    assert token_set_ratio("pack of 12", "pack of 6") == 88  # 87.5 rounds half to even
    # the first COLOR_SET word found as a substring wins, alphabetical order decides
    spoken = ("navy blue", "dark red", "dark blue", "rose gold", "black | white", "standard", "washed denim", "8")
    assert [normalize_color(s) for s in spoken] == ["blue", "dark", "blue", "gold", "black", "tan", "ash", "8"]


def test_reward_of_chosen_products_equals_the_formula_by_hand(tiny):
    intent = root_intent(tiny)
    conds = {c.slot: c.value for c in intent.conditions}
    # the goal option "royal blue" is offered by the target's "color" option (as "navy blue")
    assert conds == {"attr:lightweight": "lightweight", "attr:non-slip": "non-slip", "attr:breathable mesh": "breathable mesh",
                     "option:color": "royal blue", "option:size": "8", "price": 60}
    denominator = 3 + 2 + 1  # attributes + options + price

    # target, right choices: lightweight (attribute list), non-slip ~ "non slip" (fuzzy 100),
    # breathable mesh (substring of the description); royal blue ~ navy blue only after colour
    # normalisation (both -> "blue"; their raw token_set_ratio is far below 86); 8 = 8; 45.99 <= 60
    assert token_set_ratio("navy blue", "royal blue") <= 85
    r = tiny.score(intent, P1, {"color": "navy blue", "size": "8"})
    assert (r.n_att, r.n_opt, r.r_price, r.type.r_type) == (3, 2, True, 1.0)
    assert r.total == float(Fraction(3 + 2 + 1, denominator)) == 1.0

    # target, wrong choices: black | white -> "black" is not blue, 7 is not 8
    r = tiny.score(intent, P1, {"color": "black | white", "size": "7"})
    assert (r.n_att, r.n_opt) == (3, 0) and r.total == pytest.approx(float(Fraction(3 + 0 + 1, denominator)))

    # another product: only "lightweight" (a substring of its bullets); "8.5" ~ "8" (token subset,
    # fuzzy 100) but dark red -> "dark" is not blue; 52.00 <= 60; names share women/running/shoe
    r = tiny.score(intent, P2, {"color": "dark red", "size": "8.5"})
    assert r.type.title_score == pytest.approx(3 / 5) and r.type.r_type == 1.0
    assert (r.n_att, r.n_opt, r.r_price) == (1, 1, True)
    assert r.total == pytest.approx(float(Fraction(1 + 1 + 1, denominator)))

    # a ranged price ($58 - $62) is pinned once per product; the ceiling is a ladder step
    p4 = next(p for p in tiny.catalogue.load_cluster(SHOES) if p.asin == P4)
    assert 58.0 <= p4.price <= 62.0 and p4.pricing == (58.0, 62.0)
    r = tiny.score(intent, P4, {"color": "navy blue", "size": "8"})
    assert (r.n_att, r.n_opt, r.r_price) == (3, 2, p4.price <= 60)

    # type factor: a coffee shares no noun with the goal's shoe -> title_score 0 -> r_type 0
    coffee = tiny.catalogue.load_cluster("coffee beans")[0]
    spec = GoalSpec(SHOES, "Shoes › Women › Running", "Acme Women's Lightweight Running Shoe", ("whole bean",), (), 60)
    r = reward(coffee, spec, coffee.price, {"size": "12 ounce"}, HeuristicNouns())
    assert r.n_att == 1 and r.type.title_score == 0 and r.type.r_type == 0.0 and r.total == 0.0


def test_type_factor_steps_by_hand():
    """r_type = 1, then 0.5 when neither query, category (>= 2 parts) nor title_score > 0.2
    match, then 0.1 when title_score < 0.1, then 0 when it is 0 (the heuristic tagger's nouns)."""
    tagger = HeuristicNouns()

    def product(name, query, breadcrumb="A › B › C"):
        return Product(asin="B0X", name=name, query=query, category="c", product_category=breadcrumb,
                       bullet_points=("quick dry",), description="", attributes=("quick dry",), options={}, pricing=(10.0,),
                       price=10.0)

    goal = GoalSpec("q", "A › B › C", "acme trail shoe lace mesh", ("quick dry",), (), 100)  # 5 nouns
    # same query, one shared noun of five: title_score 0.2 -> 1.0 (the query matches)
    assert reward(product("zoom shoe", "q"), goal, 10.0, {}, tagger).type.r_type == 1.0
    # other query, one category part shared (A › X), title_score 0.2 (not > 0.2) -> 0.5
    r = reward(product("zoom shoe", "other", "A › X"), goal, 10.0, {}, tagger)
    assert (r.type.title_score, r.type.r_type, r.total) == (0.2, 0.5, 0.5 * (1 + 0 + 1) / (1 + 0 + 1))
    # two category parts shared -> category match -> 1.0
    assert reward(product("zoom shoe", "other", "A › B › Z"), goal, 10.0, {}, tagger).type.r_type == 1.0
    # eleven goal nouns, one shared: title_score 1/11 < 0.1 -> 0.1 even though the query matches
    long_goal = GoalSpec("q", "A › B › C", "acme trail shoe lace mesh grip sole heel strap tongue insole", ("quick dry",), (),
                         100)
    r = reward(product("zoom shoe", "q"), long_goal, 10.0, {}, tagger)
    assert r.type.title_score == pytest.approx(1 / 11) and r.type.r_type == 0.1 and r.total == pytest.approx(0.1)
    # the price ceiling: 10 > 9.99 -> r_price False -> (1 + 0) / 2
    cheaper = GoalSpec("q", "", "acme shoe", ("quick dry",), (), 9.99)
    assert reward(product("acme shoe", "q"), cheaper, 10.0, {}, tagger).total == 0.5


def test_ground_truth_is_every_purchase_scoring_one(tiny):
    intent = root_intent(tiny)
    truth = tiny.ground_truth(intent)
    # P4 scores 1.0 too when its pinned price is within the $60 ceiling
    p4 = next(p for p in tiny.catalogue.load_cluster(SHOES) if p.asin == P4)
    expected = {f"{P1}|color=navy blue|size=8"} | ({f"{P4}|color=navy blue|size=8"} if p4.price <= 60 else set())
    assert set(truth.value) == expected and truth.kind == "purchases"
    # brute force over every purchase of the cluster with the full reward agrees
    brute = {
        f"{p.asin}" + "".join(f"|{n}={v.replace('|', '/')}" for n, v in sorted(choice.items()))
        for p in tiny.catalogue.load_cluster(SHOES)
        for choice in every_choice(p)
        if tiny.score(intent, p.asin, choice).total == 1.0
    }
    assert brute == expected
    # withholding widens, an added requirement narrows; the price ceiling stays a number
    wider = tiny.ground_truth(intent.without("option:size"))
    assert wider.issuperset(truth) and len(wider.value) > len(truth.value)
    assert isinstance(intent.condition("price").value, int)
    assert tiny.reexecute(intent).hash == truth.hash and tiny.disagreements == 0


def test_goals_order_splits_and_price_ceilings(tiny):
    goals = tiny.catalogue.goals
    # one goal per instruction with attributes, product order, then random.seed(233) shuffle
    in_order = [(P1, "i need lightweight"), (P2, "i need waterproof"), (P4, "i want lightweight"), (P3, "i want whole bean")]
    random.seed(233)
    random.shuffle(in_order)
    assert [(g.asin, g.instruction[: len(s)]) for g, (_, s) in zip(goals, in_order)] == in_order
    assert tiny.catalogue.skipped_instructions == 1
    assert [g.index for g in goals] == list(range(len(goals)))
    assert [split_of(i) for i in (0, 499, 500, 1499, 1500, 12086)] == ["test", "test", "eval", "eval", "train", "train"]
    # the second 10-dollar step above the price; none left near the top of the ladder
    assert (price_ceiling(45.99), price_ceiling(50.0), price_ceiling(9.0), price_ceiling(985.0)) == (60, 70, 20, None)
    seed = seed_for(tiny, P1, "i need lightweight")
    assert seed.payload["price"] == 45.99 and seed.payload["price_upper"] == 60
    assert seed.payload["instruction_text"].endswith("size 8, and price lower than 60.00 dollars")


def test_indistinguishable_shifts_are_rejected(tiny):
    assert not distinguishable("small", "x-small")
    assert not distinguishable("pack of 12", "pack of 6")
    assert not distinguishable("dark red", "dark green")  # both normalise to "dark"
    # (dark red vs dark blue IS distinguishable: "dark blue" normalises to "blue", which sorts first)
    assert distinguishable("dark red", "dark blue") and distinguishable("black", "white")
    intent = root_intent(tiny)
    sizes = tiny.domain(intent, "option:size")
    assert set(sizes) == {"7", "8.5"}
    assert tiny.invalid_reason(intent.with_condition(Condition(slot="option:size", value="8.5"))) == "indistinguishable_shift"
    assert tiny.invalid_reason(intent.with_condition(Condition(slot="option:size", value="7"))) is None
    colours = tiny.domain(intent, "option:color")
    assert "dark red" in colours and "navy blue" in colours  # navy blue ~ royal blue: both "blue"
    navy = intent.with_condition(Condition(slot="option:color", value="navy blue"))
    assert tiny.invalid_reason(navy) == "indistinguishable_shift"
    assert tiny.invalid_reason(intent.with_condition(Condition(slot="option:color", value="dark red"))) is None
    assert tiny.domain(intent, "attr:lightweight") == []
    # the verdict belongs to the intent whose domain was asked: another root's candidates are judged anew
    other = root_intent(tiny, P2, "i need waterproof")
    tiny.domain(other, "option:color")
    assert tiny.invalid_reason(intent.with_condition(Condition(slot="option:size", value="8.5"))) is None
    # dropping the only attribute is no WebShop goal (the reward divides by their count)
    only = root_intent(tiny, P2, "i need waterproof")
    assert tiny.invalid_reason(only.without("attr:waterproof")) == "no_attribute_condition"
    with pytest.raises(NotExecutable, match="no_attribute_condition"):
        tiny.ground_truth(only.without("attr:waterproof"))
    # the graph builder counts them with their reason
    build = GraphBuilder(tiny).build()
    assert build.candidate_rejections.get("candidate:indistinguishable_shift", 0) >= 1
    for g in build.graphs:
        assert battery(g, tiny) == []
        for e in g.edges:
            if e.operator == Operator.substitute:
                (slot, _, old, new), = e.delta["changed"]
                assert not slot.startswith("option:") or distinguishable(old, new)


def test_seed_validation_reasons(tmp_path):
    products, attrs, human = tiny_files()
    human[P2][0]["instruction_attributes"] = ["waterproof", "memory foam"]  # P2 has no memory foam
    human[P4][0]["instruction_options"] = ["chartreuse"]  # P4 offers no such colour
    adapter = WebShopAdapter(write_files(tmp_path, products, attrs, human), splits=("test",))
    checks = {s.payload["asin"]: adapter.validate(s) for s in adapter.load_seeds()}
    assert checks[P2].code == "seed:target_not_maximal" and "memory foam" in checks[P2].detail
    assert checks[P4].code == "seed:option_not_offered" and "chartreuse" in checks[P4].detail
    assert checks[P1].ok and checks[P3].ok
