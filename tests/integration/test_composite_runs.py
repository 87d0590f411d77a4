"""Composite faults end to end (issue 6, DESIGN section 7): offline runs on the real tau2 graphs
(and WebShop when present) with the coverage acceptance -- k = 4 on tau2-retail covers at least 20
distinct admitted combinations and no fault type is in more than 60% of them -- reproducibility
from the store, and `build --composite` publishing composite rows with their coverage report.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import duckdb
import pytest

from miscue.config import CompositeConfig, parse_ks
from miscue.corpus import ledger
from miscue.canonical import content_hash
from miscue.flows.registry import ADAPTERS, adapter_for
from miscue.flows.stages.benchmark import offline_gateway
from miscue.flows.stages.composite import CompositeStage, run_composites
from miscue.flows.stages.coverage import Coverage
from miscue.graphs import GraphBuilder


def _summary_of(result, k):
    return result.summary["composite"][str(k)]


def _check_run(result, ks):
    by_k = Counter(s.k for s in result.samples)
    for k in ks:
        assert by_k[k] >= 1, f"no admitted k={k} composite"
    for s in result.samples:
        components = [{"fault_type": t, "target": x} for t, x in zip(s.fault_types, s.targets)]
        assert s.sample_id == content_hash(s.graph_id, components, s.query)
        slots = [x for x in s.targets if x is not None]
        assert len(slots) == len(set(slots)), "two components on the same slot"
        evidence = json.loads(s.evidence_json)
        assert [c["fault_type"] for c in evidence["components"]] == s.fault_types and evidence["k"] == s.k == len(s.fault_types)
        assert all(c["found_a"] and c["found_b"] and c["admitted"] for c in evidence["components"])
        assert s.readings_executed >= 1 and evidence["merged"] is not None
    for cell in result.cells:
        assert cell.status in ("admitted", "rejected", "skipped") and cell.code, cell
        assert cell.status != "rejected" or cell.code != "admitted"
    for a in result.attempts:
        assert a.k == len(a.fault_types) == len(a.targets) >= 2 and a.code


@pytest.fixture(scope="module")
def retail_run(tmp_path_factory, retail, retail_build):
    gateway = offline_gateway(tmp_path_factory.mktemp("store"))
    return run_composites(retail, retail_build.graphs, gateway, CompositeConfig(ks=[2, 4], per_k=30))


def test_retail_composites_k2_k4_and_the_coverage_acceptance(retail_run, tmp_path):
    _check_run(retail_run, [2, 4])
    four = _summary_of(retail_run, 4)
    samples = [s for s in retail_run.samples if s.k == 4]
    combos = Counter(tuple(sorted(s.fault_types)) for s in samples)
    assert len(combos) == four["distinct_combinations"] >= 20
    in_samples = Counter(t for s in samples for t in s.fault_types)
    in_combos = Counter(t for c in combos for t in c)
    assert max(in_samples.values()) / len(samples) <= 0.6, in_samples
    assert max(in_combos.values()) / len(combos) <= 0.6, in_combos
    assert four["max_type_share"] == round(max(in_samples.values()) / len(samples), 4)
    assert len(in_samples) >= 8, "coverage reaches most types"
    # the second pass ran; what each reader reads of its text is judged like any other
    assert four["two_pass_attempts"] > 0
    _check_readings(retail_run)
    two_pass = [s for s in samples if json.loads(s.evidence_json)["two_pass"]]
    assert two_pass and all(json.loads(s.evidence_json)["first_pass"] for s in two_pass)
    # every rejected draw keeps its verdict, and the ledger is written and queryable
    rejected = [c for c in retail_run.cells if c.status != "admitted"]
    assert rejected and all(c.code and c.code != "admitted" for c in rejected)
    assert four["rejected_draw_verdicts"] == dict(Counter(c.code for c in rejected if c.k == 4))
    directory = ledger.write_tables(retail_run.tables(), tmp_path / "composite", retail_run.summary)
    con = duckdb.connect()
    rows = con.execute(f"select k, count(*) from '{directory}/samples.parquet' group by k order by k").fetchall()
    assert rows == [(k, n) for k, n in sorted(Counter(s.k for s in retail_run.samples).items())]
    no_verdict = con.execute(f"select count(*) from '{directory}/cells.parquet' "
                             "where status <> 'admitted' and (code is null or code = '')").fetchone()
    assert no_verdict == (0,)
    summary = json.loads((directory / "summary.json").read_text())
    assert summary["composite"]["4"]["distinct_combinations"] >= 20


def test_coverage_control_is_what_keeps_any_type_from_dominating(retail, retail_build, tmp_path):
    gateway = offline_gateway(tmp_path / "store")
    uniform = run_composites(retail, retail_build.graphs, gateway,
                             CompositeConfig(ks=[4], per_k=20, candidates=1, max_type_share=None))
    skew = _summary_of(uniform, 4)
    assert skew["max_type_share"] > 0.6, skew["per_type"]  # the reference release's failure, reproduced without control
    cov = Coverage(4)
    cov.add(("a", "b", "c", "d"))
    assert cov.score(("a", "b", "c", "d")) > cov.score(("a", "e", "f", "g")) > cov.score(("e", "f", "g", "h"))
    for _ in range(12):
        cov.add(("a", "e", "f", "g"))
    assert cov.over_cap(("a", "x", "y", "z"), 0.6, 10) and not cov.over_cap(("b", "x", "y", "z"), 0.6, 10)


def _check_readings(result):
    """Each extractor read each text once for all k components,
    B only after A's reading derived every planned component, and code judged what they read."""
    read = [a for a in result.attempts if a.reading_a is not None]
    assert read and all(a.blind_a is None and a.targeted_a is None for a in result.attempts)
    for a in read:
        writer_calls = 2 if "+" in (a.card_version or "") else 1
        assert len(a.call_ids) == writer_calls + 1 + (a.reading_b is not None), a
        assert a.reading_b is not None or a.code.startswith(("read:", "composite:component_missing", "composite:unplanned"))
    codes = Counter(a.code for a in result.attempts)
    assert not any(c.startswith("text:") and c not in ("text:too_long", "text:meta_commentary", "text:internal_syntax",
                                                       "text:answer_identifier_leaked", "text:empty") for c in codes), codes
    admitted = [a for a in result.attempts if a.admitted]
    assert len(admitted) == len(result.samples)
    for row in admitted:
        a, b = json.loads(row.reading_a), json.loads(row.reading_b)
        assert a["requirements"].keys() == b["requirements"].keys()


def test_airline_composites_k2_k4(airline, airline_build, tmp_path):
    seen: list[tuple[int, int]] = []
    result = run_composites(airline, airline_build.graphs, offline_gateway(tmp_path / "store"),
                            CompositeConfig(ks=[2, 4], per_k=12), progress=lambda d, n, **_: seen.append((d, n)))
    _check_run(result, [2, 4])
    assert _summary_of(result, 4)["admitted"] >= 10
    _check_readings(result)
    # one count over both ks: it rises past k = 2's target, and only the end is the whole
    assert {n for _, n in seen} == {24} and [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert any(12 < d < 24 for d, _ in seen) and seen[-1] == (24, 24)


@pytest.mark.skipif("webshop" not in ADAPTERS, reason="no WebShop adapter registered")
def test_webshop_composites_k2_k4(tmp_path):
    adapter = adapter_for("webshop", tasks=[str(i) for i in range(0, 200, 2)])  # a slice: 100 of the shipped goals
    build = GraphBuilder(adapter).build()
    result = run_composites(adapter, build.graphs, offline_gateway(tmp_path / "store"), CompositeConfig(ks=[2, 4], per_k=12))
    _check_run(result, [2, 4])
    assert _summary_of(result, 4)["admitted"] >= 10


@pytest.mark.skipif("webshop" not in ADAPTERS, reason="no WebShop adapter registered")
def test_the_type_cap_slows_a_dominant_type_but_never_ends_a_run_short(tmp_path):
    """WebShop's k = 4 combinations mostly carry an off-topic passage (its goals have few
    requirements, so whole-message faults fill k = 4). A cap under that share holds proposals back
    and lowers the dominant type's share; once every graph's proposal is over it, the run lets the
    best one through and reaches its target instead of stopping. (The cap is set under the share
    the uncapped run reaches on this slice -- measured in the test, 0.6 when written -- so the
    situation is made, not found in data that drift as the models change.)"""
    adapter = adapter_for("webshop", tasks=[str(i) for i in range(1, 200, 2)])
    graphs = GraphBuilder(adapter).build().graphs

    def run(cap: float | None, store: str) -> dict:
        config = CompositeConfig(ks=[4], per_k=20, max_type_share=cap)
        return _summary_of(run_composites(adapter, graphs, offline_gateway(tmp_path / store), config), 4)

    free = run(None, "free")
    assert free["admitted"] >= 20 and free["held_by_cap"] == 0
    capped = run(free["max_type_share"] - 0.1, "capped")
    assert capped["admitted"] >= 20 and capped["stopped"] == "target_reached", capped
    assert capped["held_by_cap"] > 0 and capped["cap_relaxed"] > 0
    assert capped["max_type_share"] < free["max_type_share"], (capped["per_type"], free["per_type"])


def test_a_run_is_reproducible_and_replays_from_the_store(retail, retail_build, tmp_path):
    graphs = retail_build.graphs[:30]
    config = CompositeConfig(ks=[2], per_k=6)
    first = run_composites(retail, graphs, offline_gateway(tmp_path / "a"), config)
    second = run_composites(retail, graphs, offline_gateway(tmp_path / "b"), config)
    assert [s.sample_id for s in first.samples] == [s.sample_id for s in second.samples] != []
    assert [(c.cell_id, c.code) for c in first.cells] == [(c.cell_id, c.code) for c in second.cells]
    replay = CompositeStage(retail, offline_gateway(tmp_path / "a", replay_only=True), config)
    again = asyncio.run(replay.run(graphs))
    assert [s.sample_id for s in again.samples] == [s.sample_id for s in first.samples]
    assert all(c.cached for c in again.calls)


def test_cli_flag_parsing():
    assert parse_ks("2,4") == [2, 4] and parse_ks("4, 2,2") == [2, 4]
    for bad in ("1", "5", "two", ""):
        with pytest.raises(ValueError):
            parse_ks(bad)


def test_build_with_composites_publishes_k_and_reports_coverage(tmp_path):
    """`miscue build --composite 2` path: composite rows land in the published corpus and the
    report shows admitted combinations and per-type occurrence for each k."""
    import duckdb

    from miscue.flows.stages import build as pipeline

    types = ["contextual_irrelevance", "factual_error", "insufficient_information", "indirect_intent", "referential_ambiguity"]
    out = pipeline.build(["tau2-airline"], types, attempts=1, artifacts=tmp_path, composite_ks=[2],
                         tasks={"tau2-airline": [str(i) for i in range(26)]})
    version = out["version"]
    root = tmp_path / "corpora" / version
    ks = dict(duckdb.connect().execute(f"select k, count(*) from '{root}/samples.parquet' group by k").fetchall())
    assert ks.get(1, 0) > 0 and ks.get(2, 0) > 0
    both_slots = duckdb.connect().execute(
        f"select count(*) from '{root}/samples.parquet' "
        "where k = 2 and targets[1] is not null and targets[1] = targets[2]").fetchone()[0]
    assert both_slots == 0
    report = (tmp_path / "reports" / version / "report.md").read_text()
    assert "Composite faults: admitted samples and combinations per k" in report and "| tau2-airline | 2 |" in report
    manifest = (root / "manifest.json").read_text()
    assert '"composite"' in manifest and '"ks": [' in manifest
    # `miscue report` prints the coverage beside Table 4 (and --json carries it)
    from typer.testing import CliRunner

    from miscue.flows.cli import app

    res = CliRunner().invoke(app, ["report", version, "--json", "--artifacts", str(tmp_path)])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)["composites"]
    assert [(r["Benchmark"], r["k"]) for r in rows] == [("tau2-airline", 2)] and rows[0]["Samples"] == ks[2]
    res = CliRunner().invoke(app, ["report", version, "--artifacts", str(tmp_path)])
    assert "composite faults (admitted)" in res.output and "tau2-airline   2" in res.output
