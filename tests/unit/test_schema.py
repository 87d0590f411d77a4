import pytest
from pydantic import ValidationError

from miscue.canonical import canonical_json
from miscue.schema import Condition, GroundTruth, Intent


def intent(*conds):
    return Intent(benchmark="b", adapter="a@1", env_id="e", base={"k": 1}, conditions=conds)


def test_numbers_stay_numbers_and_identity_is_separate():
    c = Condition(slot="price", op="<=", value=12.5)
    assert isinstance(c.value, float)
    assert Condition(slot="n", value=1).key != Condition(slot="n", value=1.0).key
    assert Condition(slot="n", value=1).model_dump()["value"] == 1
    assert canonical_json({"b": 1, "a": [2.5]}) == '{"a":[2.5],"b":1}'


def test_intent_id_ignores_condition_order_but_not_content():
    a = intent(Condition(slot="x", value=1), Condition(slot="y", value="z"))
    b = intent(Condition(slot="y", value="z"), Condition(slot="x", value=1))
    assert a.intent_id == b.intent_id and a.conditions == b.conditions
    assert intent(Condition(slot="x", value=2), Condition(slot="y", value="z")).intent_id != a.intent_id
    assert a.without("x").slots == ["y"]


def test_intent_rejects_duplicate_slot_and_wrong_id():
    with pytest.raises(ValidationError):
        intent(Condition(slot="x", value=1), Condition(slot="x", value=2))
    with pytest.raises(ValidationError):
        Intent(benchmark="b", adapter="a@1", env_id="e", base={}, conditions=(), intent_id="deadbeef")


def test_ground_truth_set_algebra():
    small = GroundTruth.of("s", ["b"])
    big = GroundTruth.of("s", ["a", "b", "b"])
    assert big.value == ("a", "b")
    assert small.issubset(big) and big.issuperset(small) and not big.issubset(small)
    assert GroundTruth.of("s", []).empty
    with pytest.raises(ValidationError):
        GroundTruth(kind="s", value=("b", "a"), hash="x")
