"""Single-fault generate-then-verify on the shipped WebShop catalogue (offline models)."""

import asyncio

import pytest

from miscue.adapters.webshop import WebShopAdapter
from miscue.flows.stages.benchmark import offline_gateway
from miscue.flows.stages.single import SingleFaultStage
from miscue.config import GenerateConfig
from miscue.graphs import GraphBuilder


@pytest.fixture(scope="module")
def webshop_run(tmp_path_factory):
    adapter = WebShopAdapter()
    build = GraphBuilder(adapter).build()
    graphs = build.graphs[::12]  # a spread of clusters
    run = SingleFaultStage(adapter, offline_gateway(tmp_path_factory.mktemp("store")), GenerateConfig(attempts=2))
    return adapter, graphs, asyncio.run(run.run(graphs))


def test_every_supported_type_is_admitted_without_leaks(webshop_run):
    adapter, graphs, result = webshop_run
    supported = {t for t, s in adapter.fault_support().items() if s.supported}
    admitted = {s.fault_types[0] for s in result.samples}
    assert len(supported) >= 10 and admitted == supported, supported - admitted
    roots = {g.graph_id: g.root.intent for g in graphs}
    assert all(not adapter.leaks(roots[s.graph_id], s.query) for s in result.samples)
    assert all(s.readings_executed >= 1 for s in result.samples)


def test_leaking_text_is_rejected_by_the_text_checks(webshop_run):
    from miscue.planning import Planner
    from miscue.verifiers.text import mechanical

    adapter, graphs, _ = webshop_run
    graph = graphs[0]
    plan = Planner(adapter).attempt(Planner(adapter).cells(graph, ["contextual_irrelevance"])[0], graph, 0)
    name = adapter.answer_identifiers(graph.root.intent)[-1]
    text = "Looking for " + name + ": " + ", ".join(r.spoken for r in plan.brief.requirements)
    verdict = mechanical(plan.brief, text, adapter.answer_identifiers(graph.root.intent))
    assert verdict is not None and verdict.code == "text:answer_identifier_leaked"
