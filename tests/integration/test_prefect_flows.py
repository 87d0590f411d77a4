"""The Prefect flows end to end through the CLI, and the scheduled deployment on a real server.

The CLI runs each flow in-process against Prefect's ephemeral server (private PREFECT_HOME,
see tests/support/prefect_home.py). The builds are small (a slice of a few tasks of both tau2 benchmarks,
two fault types, one attempt per cell) so the module stays well under two minutes.
"""

from __future__ import annotations

from support import prefect_home  # noqa: F401  (first: PREFECT_HOME before prefect is imported)

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from miscue.flows.cli import app
from miscue import corpus
from miscue.reports import audit
from support.rounds import in_rounds
from support.prefect_server import BIN, ROOT, PrefectServer, http, stop, wait

runner = CliRunner()
#: a small build: a slice of each tau2 host (graphs of those tasks alone), two fault types, one attempt per cell
SLICES = {"tau2-retail": ["0", "7", "10", "20", "33"], "tau2-airline": ["5", "7", "12", "23"]}
SMALL = ["-b", "tau2-retail", "-b", "tau2-airline", "-t", "factual_error", "-t", "vagueness_subjectivity", "--attempts", "1",
         *(arg for b, ids in SLICES.items() for arg in ("--task", f"{b}:{','.join(ids)}"))]


def _cli(*args: str) -> dict[str, Any]:
    started = time.perf_counter()
    res = runner.invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    out["_seconds"] = round(time.perf_counter() - started, 1)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Any]:
    """build, build again, build --skip-unchanged, regenerate factual_error, build --skip-unchanged
    once more (the latest version now differs, the first two do not): all through the CLI."""
    art = tmp_path_factory.mktemp("corpora-e2e")
    a = ["--artifacts", str(art)]
    out: dict[str, Any] = {"artifacts": art}
    out["build1"] = _cli("build", *SMALL, *a)
    out["build2"] = _cli("build", *SMALL, *a)
    out["build3"] = _cli("build", *SMALL, "--skip-unchanged", *a)
    out["regen"] = _cli("regenerate", "--fault-type", "factual_error", *a)
    out["build4"] = _cli("build", *SMALL, "--skip-unchanged", *a)
    print({k: v["_seconds"] for k, v in out.items() if isinstance(v, dict)})
    return out


def test_build_publishes_a_version_duckdb_reads_back_with_a_table4_report(runs):
    art, b1 = runs["artifacts"], runs["build1"]
    assert b1["version"] == "v0001" and b1["parent"] is None
    assert b1["run"]["model_calls"] > 0
    assert corpus.verify_corpus("v0001", art).ok
    con = audit.connect(art, ["v0001"])
    for name in ("samples", "attempts", "graphs", "edges", "llm_calls"):
        n = con.execute(f"select count(*) from {name}").fetchone()[0]
        assert n == corpus.manifest(art, "v0001")["row_counts"][name] > 0, name
    t4 = {r["Benchmark"]: r for r in b1["report"]["table4"]}
    assert {b: t4[b]["Tasks"] for b in SLICES} == {b: len(ids) for b, ids in SLICES.items()}
    assert corpus.manifest(art, "v0001")["config"]["graphs"]["tau2-retail"]["tasks"] == SLICES["tau2-retail"]
    for b in ("tau2-retail", "tau2-airline"):
        graphs, cells, samples = con.execute(
            "select (select count(*) from graphs where benchmark = $b), "
            "(select count(*) from cells where benchmark = $b and status in ('admitted', 'rejected')), "
            "(select count(*) from samples where benchmark = $b)", {"b": b}).fetchone()
        assert (t4[b]["Graphs"], t4[b]["Cells"], t4[b]["Samples"]) == (graphs, cells, samples)
    md = Path(b1["report"]["markdown"]).read_text()
    assert "| Benchmark | Tasks | Graphs | Cells | Rejection rate | Samples |" in md
    assert Path(b1["report"]["html"]).exists()


def test_the_report_tables_are_prefect_artifacts_of_a_completed_run(runs):
    from prefect import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey, FlowFilter, FlowFilterName

    with get_client(sync_client=True) as client:
        flow_runs = client.read_flow_runs(flow_filter=FlowFilter(name=FlowFilterName(any_=["miscue-build", "miscue-regenerate"])))
        assert len(flow_runs) == 5 and all(fr.state and fr.state.is_completed() for fr in flow_runs)
        arts = client.read_artifacts(
            artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=["report-table4", "corpus-report"])))
        by_run = {a.flow_run_id for a in arts if a.key == "report-table4"}
        # the two builds that published and the regeneration; the unchanged rebuilds published no report tables
        assert by_run <= {fr.id for fr in flow_runs} and len(by_run) == 3
        assert len({a.flow_run_id for a in arts if a.key == "corpus-report"}) == 5
        table = next(a for a in arts if a.key == "report-table4")
        assert "tau2-retail" in json.dumps(table.data)


def test_second_build_makes_no_model_calls_and_has_identical_content_hashes(runs):
    art, b2 = runs["artifacts"], runs["build2"]
    assert b2["version"] == "v0002" and b2["parent"] == "v0001"
    assert b2["run"]["model_calls"] == 0 and b2["run"]["requests"] > 0
    con = audit.connect(art, ["v0002"])
    total, cached = con.execute("select count(*), count(*) filter (where cached) from llm_calls").fetchone()
    assert total == cached == b2["run"]["requests"]
    m1, m2 = corpus.manifest(art, "v0001"), corpus.manifest(art, "v0002")
    assert {n: t["content_hash"] for n, t in m1["tables"].items()} == {n: t["content_hash"] for n, t in m2["tables"].items()}
    assert m2["identical_to_parent"] is True
    # the only differences are the provenance columns of llm_calls (this run answered from the store)
    assert m1["files"]["samples.parquet"] == m2["files"]["samples.parquet"]
    assert m1["files"]["llm_calls.parquet"] != m2["files"]["llm_calls.parquet"]
    assert m2["config_hash"] == m1["config_hash"]
    # with --skip-unchanged the same rebuild publishes nothing and says so
    b3 = runs["build3"]
    assert b3["version"] is None and b3["unchanged_from"] == "v0002" and b3["run"]["model_calls"] == 0
    # a rebuild says so when its samples equal an earlier version's, and a first build does not
    assert b2["same_samples_as"] == ["v0001"] and not runs["build1"].get("same_samples_as")


def test_skip_unchanged_compares_with_every_published_version(runs):
    """After the regeneration (v0003: its llm_calls differ) the same build again equals v0001 and
    v0002, not the latest: it publishes nothing and names the latest equal version."""
    b4 = runs["build4"]
    assert corpus.versions(runs["artifacts"]) == ["v0001", "v0002", "v0003"]
    assert b4["version"] is None and b4["unchanged_from"] == "v0002" and b4["run"]["model_calls"] == 0


def test_regenerate_one_fault_type_carries_every_other_row_over(runs):
    art, rg = runs["artifacts"], runs["regen"]
    assert rg["version"] == "v0003" and rg["parent"] == "v0002"
    # the offline models wrote and admitted the same factual errors again: the regeneration says so
    assert rg["same_samples_as"] == ["v0001", "v0002"]
    man = corpus.manifest(art, "v0003")
    assert man["parent"] == "v0002" and man["kind"] == "regenerate"
    assert man["regeneration"]["fault_types"] == ["factual_error"]
    assert sorted(man["regeneration"]["benchmarks"]) == ["tau2-airline", "tau2-retail"]
    assert corpus.verify_corpus("v0003", art).ok
    con = audit.connect(art)

    def rows(table: str, version: str, where: str) -> list[str]:
        got = con.execute(f"select to_json(t)::varchar from (select * exclude (version) from {table} "
                          f"where version = '{version}' and {where}) t").fetchall()
        return sorted(r[0] for r in got)

    other = "not list_contains(fault_types, 'factual_error')"
    for table in ("samples", "attempts", "cells"):
        parent, child = rows(table, "v0002", other), rows(table, "v0003", other)
        assert parent and parent == child, table  # every non-factual_error row byte-identical
    # graph tables carried over unchanged
    for name in ("graphs", "edges", "nodes", "graph_ledger"):
        assert man["tables"][name]["content_hash"] == corpus.manifest(art, "v0002")["tables"][name]["content_hash"]
    # only factual_error cells made model calls, and they did make them (fresh, salted keys)
    mine = "from llm_calls where version = 'v0003' and run_version = 'v0003'"
    assert con.execute(f"select list(distinct fault_types) {mine}").fetchone()[0] == [["factual_error"]]
    made = con.execute(f"select count(*) {mine} and not cached").fetchone()[0]
    assert made == rg["run"]["model_calls"] > 0
    # a store hit inside the regeneration can only be a repeat of a request this same run made
    assert con.execute(f"select count(*) {mine} and cached and call_id not in "
                       f"(select call_id {mine} and not cached)").fetchone()[0] == 0
    carried = con.execute("select count(*) from llm_calls where version = 'v0003' and run_version <> 'v0003' "
                          "and list_contains(fault_types, 'factual_error')").fetchone()[0]
    assert carried == 0
    # every factual_error attempt of v0003 points at calls made by v0003's run
    orphans = con.execute("""
        select count(*) from (select unnest(call_ids) cid from attempts
                              where version = 'v0003' and list_contains(fault_types, 'factual_error')) a
        where cid not in (select call_id from llm_calls where version = 'v0003' and run_version = 'v0003')""").fetchone()[0]
    assert orphans == 0
    # the offline models are deterministic: the regenerated factual_error samples say the same things
    assert rows("samples", "v0002", "true") == rows("samples", "v0003", "true")


def test_a_regeneration_in_rounds_publishes_the_child_of_a_live_one(runs, tmp_path):
    """``miscue regenerate --prompts-out`` through the Prefect flow: each round waits (exit 5,
    nothing published), its requests answered and imported; the last round publishes the child
    version a live regeneration of the same parent publishes (every table's content hash)."""
    live, rounds = tmp_path / "live", tmp_path / "rounds"
    for copy in (live, rounds):
        shutil.copytree(runs["artifacts"], copy)
    args = ["regenerate", "-t", "vagueness_subjectivity", "-b", "tau2-airline", "--quiet"]
    child = _cli(*args, "--artifacts", str(live))["version"]
    exported: list[int] = []
    code, out, n = in_rounds([*args, "--json"], rounds, tmp_path, exported)
    assert code == 0 and json.loads(out)["version"] == child and n >= 3, out
    assert all(exported), exported
    hashes = [{t: m["content_hash"] for t, m in corpus.manifest(root, child)["tables"].items()} for root in (live, rounds)]
    assert hashes[0] == hashes[1]
    print(f"{n} rounds, requests per round {exported}")


def test_audit_flow_canned_report(runs):
    art = runs["artifacts"]
    args = ["audit", "--report", "rejections", "--by", "benchmark,fault_type,stage", "--json", "--artifacts", str(art)]
    out = runner.invoke(app, [*args, "--flow"])
    assert out.exit_code == 0, out.output
    got = json.loads(out.stdout)
    direct = runner.invoke(app, args)  # the default answers without Prefect, the same rows
    assert direct.exit_code == 0 and json.loads(direct.stdout) == got
    con = audit.connect(art)
    assert (sum(r["rejected"] for r in got)
            == con.execute("select count(*) from attempts where not admitted").fetchone()[0])
    assert {r["benchmark"] for r in got} == {"tau2-retail", "tau2-airline"}


def test_report_flow_rewrites_a_versions_report(runs):
    art = runs["artifacts"]
    html = art / "reports" / "v0001" / "report.html"
    html.unlink()
    out = runner.invoke(app, ["report", "v0001", "--flow", "--json", "--artifacts", str(art)])
    assert out.exit_code == 0, out.output
    res = json.loads(out.stdout)
    assert res["version"] == "v0001" and Path(res["html"]) == html.resolve() and html.exists()
    assert {r["Benchmark"] for r in res["table4"]} == {"tau2-retail", "tau2-airline", "all"}
    html.unlink()
    direct = runner.invoke(app, ["report", "v0001", "--json", "--artifacts", str(art)])  # no Prefect: the same answer
    assert direct.exit_code == 0 and json.loads(direct.stdout) == res and html.exists()


def test_local_dask_workers_report_to_the_flows_own_ephemeral_server_and_skip_dasks_housekeeping():
    """`--workers N` in ephemeral mode (no PREFECT_API_URL): the flow's settings travel to every
    Dask worker, and they named no server, so each worker process started a temporary Prefect
    server of its own (~220 MB and ~10 s of CPU each, three servers on one SQLite file). A task on
    a local worker now sees the server this process uses."""
    from prefect import flow, task
    from prefect.client.orchestration import get_client

    from miscue.flows.prefect_flows import LOCAL_CLUSTER_CONFIG, dask_runner, local_cluster

    @task
    def api_url_seen() -> Any:
        import os

        import dask
        from prefect.settings import PREFECT_API_URL

        return PREFECT_API_URL.value(), os.getpid(), {k: dask.config.get(k) for k in LOCAL_CLUSTER_CONFIG}

    @flow
    def on_the_cluster() -> Any:
        return api_url_seen.submit().result()

    @flow
    def build_like() -> Any:
        here = str(get_client(sync_client=True).api_url).rstrip("/")
        with local_cluster():
            seen, worker_pid, settings = on_the_cluster.with_options(task_runner=dask_runner(1, None))()
        return here, seen, worker_pid, settings

    here, seen, worker_pid, settings = build_like()
    assert here.startswith("http://127.0.0.1:")
    assert seen == here and worker_pid != os.getpid()
    # the worker process runs without Dask's default housekeeping (every 10-20 ms)
    assert settings == LOCAL_CLUSTER_CONFIG


# ------------------------------------------------------------------------- the real server


@pytest.mark.slow
def test_scheduled_deployment_runs_on_a_real_prefect_server(tmp_path):
    started = time.perf_counter()
    art = tmp_path / "artifacts"
    procs: list[subprocess.Popen] = []
    serve_log = tmp_path / "serve.log"
    with PrefectServer(tmp_path) as server:
        api, logs = server.api, [server.log, serve_log]
        try:
            with open(serve_log, "w") as log:
                procs.append(subprocess.Popen(
                    [str(BIN / "miscue"), "serve", "--cron", "0 2 * * *", "-b", "tau2-airline", "-t", "factual_error",
                     "--task", ",".join(SLICES["tau2-airline"]), "--attempts", "1", "--max-cost", "100",
                     "--artifacts", str(art)],
                    cwd=ROOT, env={**server.env, "PREFECT_RUNNER_POLL_FREQUENCY": "2"},
                    stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))
            dep = wait("the deployment to be registered",
                       lambda: http("GET", f"{api}/deployments/name/miscue-build/nightly"), 90, logs)
            crons = [s["schedule"].get("cron") for s in dep["schedules"] if s.get("active")]
            assert crons == ["0 2 * * *"]
            assert dep["parameters"]["benchmarks"] == ["tau2-airline"] and dep["parameters"]["skip_unchanged"] is True
            assert dep["parameters"]["tasks"] == {"tau2-airline": SLICES["tau2-airline"]}
            assert "composite_ks" not in dep["parameters"]  # --fault-type chose one: single faults only
            # the model options travel as a parameter: the cap, and a configuration path (none here)
            assert dep["parameters"]["models"] == {"llm_config": None, "max_cost": 100.0, "price": None, "replay_only": False,
                                                   "prompts_out": None}
            # one run now, picked up and executed by the serving process
            run = http("POST", f"{api}/deployments/{dep['id']}/create_flow_run", {})

            def finished() -> Any:
                fr = http("GET", f"{api}/flow_runs/{run['id']}")
                state = fr["state"]["type"]
                if state in ("FAILED", "CRASHED", "CANCELLED"):
                    pytest.fail(f"flow run ended {state}: {fr['state'].get('message')}\n{serve_log.read_text()[-3000:]}")
                return fr if state == "COMPLETED" else None

            fr = wait("the flow run to complete", finished, 240, logs)
            assert fr["deployment_id"] == dep["id"]
            arts = http("POST", f"{api}/artifacts/filter", {"artifacts": {"flow_run_id": {"any_": [run["id"]]}}})
            keys = {a["key"] for a in arts}
            assert {"report-table4", "report-fault-types", "corpus-report"} <= keys
            table4 = next(a for a in arts if a["key"] == "report-table4")["data"]
            assert "tau2-airline" in json.dumps(table4)
            assert corpus.versions(art) == ["v0001"] and corpus.verify_corpus("v0001", art).ok
            assert corpus.manifest(art, "v0001")["run"]["budget"]["max_cost"] == 100.0
        finally:
            stop(procs)
    assert all(p.poll() is not None for p in procs)
    assert server.closed()
    print(f"real-server test: {time.perf_counter() - started:.1f} s")
