"""The sharded build (`miscue build --workers N`: shards of graphs on a local Dask cluster through
prefect-dask) publishes the in-process build's corpus: identical table content hashes for
in-process and an existing cluster (``--dask-address``: ``dask scheduler`` and ``dask worker``
processes on loopback) (issue 14; two workers of a local cluster, with the models over HTTP,
are tests/drills/test_sharded.py's first drill), on a small build of one host (a slice of tau2-airline: 16 graphs,
so two write/verify shards; two fault types, one attempt per cell, composites of k = 2: a
composite shard too) with the embedded offline models, against one real Prefect server on
loopback. Also: the shard assignment depends on the graph ids only. One and four workers are
measured the same way, side by side with their wall times, by ``perf/bench_build_workers.py
--workers 1 --workers 4`` (each is one more build: the drills run the two-worker one).
"""

from __future__ import annotations

from support import prefect_home  # noqa: F401  (first: PREFECT_HOME before prefect is imported)

import json
from pathlib import Path
from typing import Any

import pytest

from miscue.flows.stages.shards import shard_graphs
from support.dask_cluster import DaskCluster
from support.drills import SHARDED_SLICE, cli, run
from support.prefect_server import PrefectServer

SMALL = ["-b", "tau2-airline", "--task", SHARDED_SLICE, "-t", "factual_error", "-t", "vagueness_subjectivity", "--attempts", "1",
         "--composite", "2"]


@pytest.fixture(scope="module")
def prefect(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with PrefectServer(tmp_path_factory.mktemp("prefect")) as server:
        yield server
    assert server.closed()


def _build(artifacts: Path, env: dict[str, str], *extra: str) -> dict[str, Any]:
    done = run(cli("build", *SMALL, *extra, "--artifacts", str(artifacts), "--json"), timeout=600, env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert out["version"] == "v0001"
    return out


@pytest.fixture(scope="module")
def in_process(prefect: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = _build(tmp_path_factory.mktemp("in-process"), prefect.env)
    assert out["run"]["model_calls"] > 0 and out["report"]["table4"]
    return out


@pytest.mark.slow
def test_an_existing_cluster_publishes_identical_hashes(prefect, in_process, tmp_path):
    """`--dask-address`: a scheduler and two workers started apart from the build (as on other
    machines), on loopback; the artifacts directory is one every worker sees."""
    with DaskCluster(tmp_path, workers=2, env=prefect.env) as cluster:
        out = _build(tmp_path / "art-remote", prefect.env, "--dask-address", cluster.address)
        pids = cluster.worker_pids()
    assert cluster.closed()
    assert len(pids) >= 2
    assert out["content_hashes"] == in_process["content_hashes"]
    assert out["run"]["model_calls"] >= in_process["run"]["model_calls"]
    assert not (tmp_path / "art-remote" / ".run").exists()


def test_shards_depend_on_graph_ids_only():
    from types import SimpleNamespace

    graphs = [SimpleNamespace(graph_id=f"g{i:03d}") for i in range(50)]
    parts = shard_graphs(graphs, size=12)  # type: ignore[arg-type]
    assert len(parts) == 5 and sorted(len(p) for p in parts) == [10] * 5
    assert sorted(g.graph_id for p in parts for g in p) == sorted(g.graph_id for g in graphs)
    again = shard_graphs(list(reversed(graphs)), size=12)  # type: ignore[arg-type]
    assert [[g.graph_id for g in p] for p in again] == [[g.graph_id for g in p] for p in parts]
    assert shard_graphs([], size=12) == []
