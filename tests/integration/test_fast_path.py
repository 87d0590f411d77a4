"""The fast execution path makes exactly the equality decisions of tau2's naive path.

Recipes are executed by a fresh fast executor and by tau2's own path (fresh environment from
disk, replay, hash of the whole database): the fast state digests must partition them exactly as
the naive hashes do, with identical per-call errors, and the database must end pristine
(:func:`miscue.adapters.tau2.exec.compare_paths`).

The naive path costs ~0.4 s a recipe, so the suite runs a sample that still exercises every
kind of call and pairs of recipes of one node that must reach the same state or tell apart:
the golden actions of every task (every tool the graphs use), the recipes of the intents lifted
from the first ``ROOTS`` tasks (each must reach its golden replay's state) and the first two
recipes of every ``NODE_STRIDE``-th node. The measurement on the first two recipes of *every* node (527 retail
and 173 airline recipes, ~6 minutes) is ``perf/bench_fast_path_equivalence.py``.
"""

import pytest

from miscue.adapters.tau2.exec import compare_paths

NODE_STRIDE = 16
PER_NODE = 2
ROOTS = 40  # the lifted intents of the first tasks, checked against tau2's own golden replay


def _roots(adapter) -> dict[str, tuple[tuple, tuple]]:
    """(the task's golden calls, the recipe of the intent lifted from it) for the valid tasks among
    the first ``ROOTS``."""
    out = {}
    for seed in adapter.load_seeds()[:ROOTS]:
        if adapter.validate(seed).ok:
            (recipe,) = adapter.compile(adapter.lift_seed(seed).intent)
            out[seed.task_id] = (adapter.golden_calls(seed), recipe.calls)
    return out


def _sample(adapter, build, roots) -> list:
    golden = {adapter.golden_calls(s) for s in adapter.load_seeds()}
    nodes = [node for g in build.graphs for node in g.nodes][::NODE_STRIDE]
    calls = set(golden) | {ours for _, ours in roots.values()}
    for node in nodes:
        calls.update(sorted((r.calls for r in adapter.compile(node.intent)), key=str)[:PER_NODE])
    return sorted(calls, key=str)


@pytest.fixture(scope="module", params=["retail", "airline"])
def compared(request):
    """The sample run both ways on one domain: (domain, adapter, build, roots, recipes, comparison)."""
    domain = request.param
    adapter, build = request.getfixturevalue(domain), request.getfixturevalue(f"{domain}_build")
    roots = _roots(adapter)
    recipes = _sample(adapter, build, roots)
    return domain, adapter, build, roots, recipes, compare_paths(domain, recipes)


def test_fast_path_equals_naive_on_a_sample_of_every_kind_of_recipe(compared):
    _, adapter, build, _, recipes, result = compared
    tools = {c.name for calls in recipes for c in calls}
    every_tool = {c.name for g in build.graphs for node in g.nodes for r in adapter.compile(node.intent) for c in r.calls}
    assert tools >= every_tool, every_tool - tools
    assert result.ok, result.disagreements[:5]
    assert result.recipes == len(recipes) + 1


def test_the_lifted_intent_reaches_the_state_of_tau2s_own_golden_replay(compared):
    """The intent lifted from a task executes (tau2's naive path: a fresh environment, the whole
    database hashed) to exactly the state tau2's replay of the task's golden actions reaches; the
    settled intent reaches the same outcome (tests/integration/test_requirements.py)."""
    domain, _, _, roots, _, result = compared
    assert len(roots) >= (30 if domain == "retail" else 20)
    differ = [tid for tid, (golden, ours) in roots.items()
              if result.naive_states[tuple(ours)] != result.naive_states[tuple(golden)]]
    assert differ == []


def test_the_comparison_catches_a_fast_path_that_merges_states(retail, monkeypatch):
    """Two golden recipes that reach different databases, with the fast digest made blind."""
    from miscue.adapters.tau2 import exec as tau2_exec

    recipes = sorted({retail.golden_calls(s) for s in retail.load_seeds()}, key=str)[:2]
    assert compare_paths("retail", recipes).ok
    real_run = tau2_exec.FastExecutor.run
    monkeypatch.setattr(tau2_exec.FastExecutor, "run",
                        lambda self, calls: tau2_exec.Outcome("one state", real_run(self, calls).errors))
    result = compare_paths("retail", recipes)
    assert not result.ok and any("merges two naive states" in d for d in result.disagreements)
