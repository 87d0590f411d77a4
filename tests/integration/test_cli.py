"""`miscue graphs` end to end: Parquet read back by DuckDB, --json, --check, bad input."""

import json

import duckdb
import pyarrow.parquet as pq
import pyarrow as pa
from typer.testing import CliRunner

from miscue.flows.cli import app

runner = CliRunner()


def test_graphs_json_check_and_duckdb(tmp_path):
    res = runner.invoke(app, ["graphs", "--benchmark", "tau2-airline", "--json", "--check", "--artifacts", str(tmp_path)])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["graphs"] >= 24 and summary["check"]["mismatches"] == []
    assert summary["check"]["nodes_checked"] == summary["graphs"] + summary["children"]
    d = tmp_path / "graphs" / "tau2-airline"
    con = duckdb.connect()
    n_graphs = con.execute(f"select count(*) from '{d}/graphs.parquet'").fetchone()[0]
    assert n_graphs == summary["graphs"]
    drops = dict(con.execute(f"select code, count(*) from '{d}/ledger.parquet' where status <> 'built' group by code").fetchall())
    assert drops == summary["drops"]
    # numbers stay numbers inside the stored condition values
    bags = con.execute("select json_type(c.value_json) from "
                       f"(select unnest(conditions) as c from '{d}/nodes.parquet') where c.slot like '%.bags' limit 1").fetchone()
    assert bags == ("UBIGINT",)
    ops = con.execute(f"select operator, count(*) from '{d}/edges.parquet' group by operator").fetchall()
    assert sum(n for _, n in ops) == summary["children"]


def test_check_detects_a_tampered_ground_truth(tmp_path):
    assert runner.invoke(app, ["graphs", "-b", "tau2-airline", "--json", "--artifacts", str(tmp_path)]).exit_code == 0
    path = tmp_path / "graphs" / "tau2-airline" / "nodes.parquet"
    table = pq.read_table(path)
    rows = table.to_pylist()
    from miscue.schema import GroundTruth

    fake = GroundTruth.of(rows[0]["gt_kind"], ["0" * 32])
    rows[0].update(gt_value=list(fake.value), gt_hash=fake.hash)
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)
    from miscue.flows.cli.graphs import check_graphs

    report = check_graphs("tau2-airline", tmp_path)
    assert [m["intent_id"] for m in report["mismatches"]] == [rows[0]["intent_id"]]


def test_bad_input_gets_a_clear_error(tmp_path):
    res = runner.invoke(app, ["graphs", "--benchmark", "webshop-typo", "--artifacts", str(tmp_path)])
    assert res.exit_code == 2
    assert "unknown benchmark 'webshop-typo'" in res.output and "tau2-retail" in res.output
    from miscue.flows.cli.graphs import check_graphs
    import pytest

    from miscue.errors import CorpusError

    with pytest.raises(CorpusError, match="build the graphs first"):
        check_graphs("tau2-retail", tmp_path / "empty")


def test_generate_with_a_cap_then_replay(tmp_path):
    """`miscue generate`: a cap below the first call stops it cleanly (exit 3, nothing written);
    a run without one writes the ledger; --offline-replay then answers every call from the store."""
    common = ["generate", "-b", "tau2-airline", "--task", "tau2-airline:0,1,2,3,4,5,6,7", "-t", "factual_error",
              "--attempts", "1", "--json", "--artifacts", str(tmp_path)]
    capped = runner.invoke(app, [*common, "--max-cost", "0", "--price", "0.000001"])
    assert capped.exit_code == 3 and "budget" in capped.output, capped.output
    assert not (tmp_path / "runs").exists() and not list((tmp_path / "store").rglob("*.json"))

    first = runner.invoke(app, common)
    assert first.exit_code == 0, first.output
    fresh = pq.read_table(tmp_path / "runs" / "tau2-airline" / "llm_calls.parquet").to_pylist()
    assert fresh and not any(c["cached"] for c in fresh)

    replay = runner.invoke(app, [*common, "--offline-replay"])
    assert replay.exit_code == 0, replay.output
    again = pq.read_table(tmp_path / "runs" / "tau2-airline" / "llm_calls.parquet").to_pylist()
    assert len(again) == len(fresh) and all(c["cached"] for c in again)
    assert json.loads(replay.stdout)["admitted"] == json.loads(first.stdout)["admitted"]

    quiet = runner.invoke(app, [*(a for a in common if a != "--json"), "--offline-replay", "--quiet"])
    assert quiet.exit_code == 0 and "single-fault run: tau2-airline" in quiet.output
    assert "done:" not in quiet.output and "%" in quiet.output  # no progress line; rates in percent


def test_the_command_line_starts_without_the_heavy_libraries():
    """`miscue` answers a typo or a read in about a second: Parquet, DuckDB, graphs, the host
    packages, Prefect and litellm are imported by the commands that use them, not at start."""
    import subprocess
    import sys

    heavy = ("pyarrow", "duckdb", "networkx", "prefect", "litellm", "pandas", "tau2")
    code = f"import sys, miscue.flows.cli; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]", out.stdout
