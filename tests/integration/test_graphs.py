"""Graph construction and the battery on the real tau2 environments."""

from collections import Counter

from miscue.graphs import battery, classify
from miscue.schema import Condition, Edge, Intent, Operator


def _i(base, *conds):
    return Intent(benchmark="b", adapter="a@1", env_id="e", base=base, conditions=conds)


def test_classify_by_condition_set_algebra():
    x, y, z = Condition(slot="x", value=1), Condition(slot="y", value=2), Condition(slot="x", value=3)
    root = _i({"u": 1}, x, y)
    assert classify(root, _i({"u": 1}, x))[0] == Operator.relax
    assert classify(root, _i({"u": 1}, x, y, Condition(slot="w", value=0)))[0] == Operator.refine
    op, delta = classify(root, _i({"u": 1}, z, y))
    assert op == Operator.substitute and delta == {"changed": [["x", "=", 1, 3]]}
    assert classify(root, _i({"u": 2}, x, y))[0] == Operator.pivot
    assert classify(root, _i({"u": 1}, z)) is None  # neither a subset nor the same slots
    assert classify(root, root) is None


def test_graph_counts_meet_the_reference(retail_build, airline_build):
    assert len(retail_build.graphs) >= 95
    assert len(airline_build.graphs) >= 24
    for build, tasks in ((retail_build, 114), (airline_build, 50)):
        assert len(build.ledger) == tasks
        assert len({e.task_id for e in build.ledger}) == tasks
        for entry in build.ledger:
            assert entry.status == "built" or entry.code != "built"
            if entry.status == "duplicate":
                assert entry.detail.startswith("the same intent as task")


def test_every_graph_passes_the_battery(retail, airline, retail_build, airline_build):
    for adapter, build in ((retail, retail_build), (airline, airline_build)):
        for g in build.graphs:
            assert battery(g, adapter) == [], g.task_id
            assert g.root.is_seed and len({n.intent.intent_id for n in g.nodes}) == len(g.nodes)
            quota = Counter(e.operator for e in g.edges)
            assert all(n <= 2 for n in quota.values())
            assert any(e.gt_moved for e in g.edges)


def test_real_children_come_first_and_pivots_are_real(retail_build):
    edges = [e for g in retail_build.graphs for e in g.edges]
    assert all(e.provenance.value == "real" for e in edges if e.operator == Operator.pivot)
    assert any(e.provenance.value == "real" for e in edges if e.operator != Operator.pivot)
    for g in retail_build.graphs:
        for child, e in zip(g.children, g.edges):
            assert (child.source_task is not None) == (e.provenance.value == "real")


def test_battery_catches_broken_graphs(retail_build, retail):
    g = retail_build.graphs[0]
    e0 = g.edges[0]
    flipped = g.model_copy(update={"edges": (Edge(**{**e0.model_dump(), "gt_moved": not e0.gt_moved}),) + g.edges[1:]})
    assert "gt_moved_label_wrong" in battery(flipped)
    relax = next(gr for gr in retail_build.graphs if any(e.operator == Operator.relax and e.gt_moved for e in gr.edges))
    i = next(k for k, e in enumerate(relax.edges) if e.operator == Operator.relax and e.gt_moved)
    as_refine = Edge(**{**relax.edges[i].model_dump(), "operator": Operator.refine})
    broken = relax.model_copy(update={"edges": relax.edges[:i] + (as_refine,) + relax.edges[i + 1:]})
    fails = battery(broken)
    assert "refine_not_subset" in fails and "operator_mismatch" in fails
    tampered_root = g.root.model_copy(update={"ground_truth": g.children[0].ground_truth})
    assert "not_reproducible" in battery(g.model_copy(update={"root": tampered_root}), retail)
