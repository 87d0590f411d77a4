"""Reports: exact numbers on a synthetic version, a real small build, and the HTML page in a
real headless Chromium (loads, shows the tables and charts, logs no console errors, fetches
nothing but itself)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from support import synthetic_corpus as syn

from miscue.flows.stages import build as pipeline
from miscue import reports

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]
TABLE4 = ["Benchmark", "Tasks", "Graphs", "Cells", "Rejection rate", "Samples"]


def test_single_fault_summary_still_works():
    from miscue.schema import Attempt, Cell, LLMCall

    def cell(graph, fault, status, detail=""):
        return Cell(benchmark="b", task_id="t", graph_id=graph, cell_id=f"{graph}{fault}", k=1, fault_types=[fault],
                    status=status, code=status, detail=detail)

    def attempt(admitted, code, blind_b):
        return Attempt(benchmark="b", task_id="t", graph_id="g1", cell_id="c", k=1, fault_types=["factual_error"],
                       attempt=0, admitted=admitted, code=code, blind_b=blind_b, readings_executed=1 if admitted else 0)

    def call(cached, prompt=0, completion=0, cost=0.0):
        return LLMCall(benchmark="b", call_id="x", role="writer", model="m", cached=cached, prompt_tokens=prompt,
                       completion_tokens=completion, cost=cost, latency_s=0.0, attempts=1, card_version="v")

    cells = [cell("g1", "factual_error", "admitted"), cell("g2", "factual_error", "rejected"),
             cell("g1", "lexical_ambiguity", "unsupported", "no lexicon")]
    attempts = [attempt(True, "admitted", "{}"), attempt(False, "text:too_long", None)]
    calls = [call(False, 3, 2, 0.5), call(True)]
    s = reports.single_fault_summary(cells, attempts, calls)
    assert (s["graphs"], s["cells"], s["admitted"], s["cell_rejection_rate"]) == (2, 2, 1, 0.5)
    assert s["unsupported"] == [{"fault_type": "lexical_ambiguity", "reason": "no lexicon"}]
    assert (s["model_calls"], s["store_hits"], s["tokens"], s["cost"]) == (1, 1, 5, 0.5)


def test_report_numbers_on_a_synthetic_version(tmp_path):
    v = syn.publish(tmp_path)
    rep = reports.build_report(tmp_path, v)
    t4 = rep.section("table4")
    assert t4.columns == TABLE4
    assert {r[0]: tuple(r[1:]) for r in t4.rows} == syn.EXPECTED
    ft = {(r["Benchmark"], r["Fault type"]): r for r in rep.section("fault-types").records()}
    fe = ft[("bench-a", "factual_error")]
    assert ((fe["Cells"], fe["Admitted"], fe["Attempts"], fe["Attempt rejection rate"], fe["Extractor agreement"])
            == (2, 2, 3, round(1 / 3, 4), round(2 / 3, 4)))
    assert ft[("bench-b", "tool_capability_mismatch")]["Unsupported"] == 1
    funnel = {r["Benchmark"]: r for r in rep.section("funnel").records()}
    assert [funnel["bench-a"][c] for c in rep.section("funnel").columns[1:]] == [5, 5, 3, 3, 2, 2]
    verdicts = {(r["Benchmark"], r["Verdict code"]): r["Attempts"] for r in rep.section("verdicts").records()}
    assert verdicts == {("bench-a", "text:too_long"): 2, ("bench-a", "agree:stated_value_mismatch"): 1}
    calls = {r["Benchmark"]: r for r in rep.section("calls").records()}
    assert calls["bench-a"]["Requests"] == 11 and calls["bench-a"]["Tokens per sample"] == 82.5
    assert calls["bench-a"]["Model calls made by this version's run"] == 11
    assert rep.section("unsupported").rows == [["bench-b", "tool_capability_mismatch", "no executable mismatch in this host", 1]]
    assert rep.section("skipped").rows == [["bench-a", "vagueness_subjectivity", "too_few_conditions", 1]]
    md = reports.render_markdown(rep)
    assert "| Benchmark | Tasks | Graphs | Cells | Rejection rate | Samples |" in md
    assert "| bench-a | 3 | 2 | 3 | 33.3% | 2 |" in md and "offline baselines" in md


@pytest.fixture(scope="module")
def real_report(tmp_path_factory) -> Path:
    """A small real build of both tau2 benchmarks (no Prefect: the stages as plain functions)."""
    artifacts = tmp_path_factory.mktemp("report-build")
    out = pipeline.build(["tau2-retail", "tau2-airline"], ["factual_error"], attempts=1, artifacts=artifacts)
    assert out["version"] == "v0001"
    return out["report"]["html"]


def test_real_report_has_the_table4_shape_for_both_tau2_benchmarks(real_report):
    md = real_report.with_name("report.md").read_text()
    lines = [ln for ln in md.splitlines() if ln.startswith("| tau2-")]
    assert any(ln.startswith("| tau2-retail | 114 | ") for ln in lines)
    assert any(ln.startswith("| tau2-airline | 50 | ") for ln in lines)


def test_html_report_in_a_headless_browser(real_report):
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is not installed: `make test` installs it (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    console, errors, requests = [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("console", lambda m: console.append((m.type, m.text)))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(real_report.as_uri(), wait_until="load")
            assert page.title().startswith("miscue corpus report v0001")
            # the tables: Table 4 first, with both tau2 benchmarks
            t4 = page.locator('table[data-key="table4"]')
            assert t4.is_visible()
            assert t4.locator("th").all_inner_texts() == TABLE4
            firsts = t4.locator("tbody tr td:first-child").all_inner_texts()
            assert {"tau2-retail", "tau2-airline", "all"} <= set(firsts)
            for key in ("fault-types", "funnel", "verdicts", "attempt-rates", "agreement", "calls", "calls-by-role"):
                assert page.locator(f'table[data-key="{key}"] tbody tr').count() >= 1, key
            # the charts: inline SVG, drawn with bars of non-zero width, visible on the page
            charts = page.locator("svg.chart")
            assert charts.count() >= 4
            for i in range(charts.count()):
                chart = charts.nth(i)
                assert chart.is_visible()
                box = chart.bounding_box()
                assert box and box["width"] > 100 and box["height"] > 20
            widths = page.eval_on_selector_all("svg.chart rect.bar", "els => els.map(e => e.getBBox().width)")
            assert sum(1 for w in widths if w > 1) >= 4
            assert page.locator("p.offline").is_visible()
        finally:
            browser.close()
    assert errors == []
    assert [m for m in console if m[0] in ("error", "warning")] == []
    assert requests and all(u.startswith("file://") for u in requests), requests
