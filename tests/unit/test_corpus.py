"""Versioned corpora: publish + DuckDB read-back, immutability, verification, audit views, CLI errors.

Synthetic rows that follow the corpus schemas (tests/support/synthetic_corpus.py) keep these fast; the
end-to-end builds through Prefect are in test_prefect_flows.py.
"""

from __future__ import annotations

import io
import json
import os
import stat

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from rich.console import Console
from typer.testing import CliRunner

from support import synthetic_corpus as syn
from support.format_1 import as_format_1

from miscue.flows.cli import app
from miscue.flows.cli import audit as audit_cli
from miscue import corpus
from miscue.reports import audit

runner = CliRunner()


def flat(text: str) -> str:
    """Console output with line wrapping and column padding collapsed."""
    return " ".join(text.split())


def test_publish_reads_back_with_duckdb_and_records_everything(tmp_path):
    v = syn.publish(tmp_path)
    assert v == "v0001" and corpus.versions(tmp_path) == ["v0001"]
    d = tmp_path / "corpora" / "v0001"
    man = json.loads((d / "manifest.json").read_text())
    for key in ("version", "parent", "config", "config_hash", "code_version", "input_hashes", "models",
                "card_versions", "row_counts", "tables", "files"):
        assert key in man, key
    assert man["version"] == "v0001" and man["parent"] is None and man["offline_baselines"] is True
    assert len(man["config_hash"]) == 64
    rows = syn.rows()
    assert man["row_counts"] == {n: len(r) for n, r in rows.items()}
    # every file is listed with its sha256, every table with a content hash
    assert set(man["files"]) == {p.name for p in d.iterdir()} - {"manifest.json"}
    assert all(len(m["content_hash"]) == 64 for m in man["tables"].values())
    # immutable on disk
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o444 for p in d.iterdir())
    assert stat.S_IMODE(d.stat().st_mode) == 0o555
    # the datasheet explains columns and names the offline baselines
    sheet = (d / "datasheet.md").read_text()
    assert "offline baselines" in sheet and "| `gt_hash` |" in sheet and "## Limits" in sheet
    # DuckDB reads every table back, with version and benchmark columns
    con = audit.connect(tmp_path)
    for name in ("samples", "attempts", "graphs", "edges", "llm_calls"):
        n, versions, benches = con.execute(
            f"select count(*), list(distinct version), count(distinct benchmark) from {name}").fetchone()
        assert n == len(rows[name]) and versions == ["v0001"] and benches == 2, name
    assert con.execute("select query from samples where sample_id = 's2'").fetchone() == ("I'd like bench-a-g2 with a flaw",)
    # rows whose run_version was null got the published version
    assert con.execute("select distinct run_version from llm_calls").fetchall() == [("v0001",)]
    # nothing is left in staging
    assert list((tmp_path / ".staging").iterdir()) == []


def test_content_hash_ignores_row_order_and_parquet_bytes(tmp_path):
    syn.publish(tmp_path)
    shuffled = {n: t.take(pa.array(list(reversed(range(t.num_rows))))) for n, t in syn.tables().items()}
    v2 = syn.publish(tmp_path, parent="v0001", tbls=shuffled)
    m1, m2 = corpus.manifest(tmp_path, "v0001"), corpus.manifest(tmp_path, v2)
    assert v2 == "v0002" and m2["parent"] == "v0001"
    assert {n: t["content_hash"] for n, t in m1["tables"].items()} == {n: t["content_hash"] for n, t in m2["tables"].items()}
    assert m2["identical_to_parent"] is True
    # a changed value changes the hash
    changed = syn.rows()
    changed["samples"][0]["query"] = "something else"
    v3 = syn.publish(tmp_path, parent=v2, tbls={n: corpus.table(n, r) for n, r in changed.items()})
    m3 = corpus.manifest(tmp_path, v3)
    assert m3["tables"]["samples"]["content_hash"] != m2["tables"]["samples"]["content_hash"]
    assert m3["identical_to_parent"] is False and "samples" not in m3["unchanged_tables_vs_parent"]


def test_an_existing_version_is_never_overwritten(tmp_path):
    syn.publish(tmp_path)
    before = corpus.manifest(tmp_path, "v0001")
    with pytest.raises(corpus.VersionExists):
        syn.publish(tmp_path, version="v0001")
    assert corpus.manifest(tmp_path, "v0001") == before
    # an empty directory of the next version's name is refused too (os.rename would replace it)
    (tmp_path / "corpora" / "v0002").mkdir()
    with pytest.raises(corpus.VersionExists):
        syn.publish(tmp_path, version="v0002")
    assert list((tmp_path / "corpora" / "v0002").iterdir()) == []
    # and the low-level rename refuses an empty target as well
    src = tmp_path / "src"
    src.mkdir()
    (src / "f").write_text("x")
    with pytest.raises(corpus.VersionExists):
        corpus.rename_noreplace(src, tmp_path / "corpora" / "v0002")
    # the automatic number skips the claimed name; staging was cleaned up every time
    assert syn.publish(tmp_path) == "v0003"
    assert list((tmp_path / ".staging").iterdir()) == []


def test_verify_corpus_detects_corruption(tmp_path):
    syn.publish(tmp_path)
    assert corpus.verify_corpus("v0001", tmp_path).ok
    res = runner.invoke(app, ["verify-corpus", "v0001", "--artifacts", str(tmp_path)])
    assert res.exit_code == 0 and "ok" in res.output
    d = tmp_path / "corpora" / "v0001"
    # 1. same rows re-encoded: the file hash changes, the content hash does not
    path = d / "graphs.parquet"
    tbl = pq.read_table(path)
    os.chmod(path, 0o644)
    pq.write_table(tbl, path, compression="gzip")
    found = corpus.verify_corpus("v0001", tmp_path).problems
    assert [(p["what"], p["name"]) for p in found] == [("file", "graphs.parquet")]
    # 2. one changed value: both hashes differ
    path = d / "samples.parquet"
    rows = pq.read_table(path).to_pylist()
    rows[0]["query"] = rows[0]["query"] + " (tampered)"
    os.chmod(path, 0o644)
    pq.write_table(pa.Table.from_pylist(rows, schema=corpus.SCHEMAS["samples"]), path, compression="zstd")
    found = corpus.verify_corpus("v0001", tmp_path).problems
    assert ("file", "samples.parquet") in [(p["what"], p["name"]) for p in found]
    assert ("table", "samples") in [(p["what"], p["name"]) for p in found]
    # 3. a dropped row, an extra file, a missing file
    path = d / "edges.parquet"
    t = pq.read_table(path)
    os.chmod(path, 0o644)
    pq.write_table(t.slice(1), path)
    os.chmod(d, 0o755)
    (d / "extra.txt").write_text("?")
    (d / "datasheet.md").unlink()
    found: dict = {}
    for p in corpus.verify_corpus("v0001", tmp_path).problems:
        found.setdefault((p["what"], p["name"]), []).append(p["detail"])
    assert any("rows != manifest" in d for d in found[("table", "edges")])
    assert any("content hash" in d for d in found[("table", "edges")])
    assert found[("file", "extra.txt")] == ["not listed in the manifest"]
    assert found[("file", "datasheet.md")] == ["listed in the manifest but missing"]
    res = runner.invoke(app, ["verify-corpus", "v0001", "--json", "--artifacts", str(tmp_path)])
    assert res.exit_code == 1
    assert {p["name"] for p in json.loads(res.stdout)["problems"]} >= {"samples", "samples.parquet", "edges", "extra.txt"}


def test_audit_views_cannot_see_staging_or_other_directories(tmp_path):
    syn.publish(tmp_path)
    junk = pa.table({"x": [1]})
    for d in (tmp_path / ".staging" / "v0002-123", tmp_path / "corpora" / ".tmp-v0002", tmp_path / "corpora" / "v0002x",
              tmp_path / "corpora" / "v0003"):  # v0003: a directory without a manifest (not published)
        d.mkdir(parents=True)
        pq.write_table(junk, d / "samples.parquet")
    con = audit.connect(tmp_path)
    assert con.execute("select count(*), list(distinct version) from samples").fetchone() == (3, ["v0001"])
    assert corpus.versions(tmp_path) == ["v0001"]
    # the ad-hoc glob cannot see staging or non-version directories either (only the unpublished v0003)
    files = duckdb.connect().execute(f"select distinct filename from read_parquet('{audit.glob(tmp_path, 'samples')}', "
                                     "filename = true, union_by_name = true)").fetchall()
    assert sorted(f.split("/")[-2] for (f,) in files) == ["v0001", "v0003"]


def test_audit_cli_canned_sql_and_shell(tmp_path):
    syn.publish(tmp_path)
    syn.publish(tmp_path, parent="v0001")
    res = runner.invoke(app, ["audit", "--report", "rejections", "--by", "benchmark,fault_type,stage",
                              "--json", "--artifacts", str(tmp_path)])
    assert res.exit_code == 0, res.output
    got = {(r["benchmark"], r["fault_type"], r["stage"]): r["rejected"] for r in json.loads(res.stdout)}
    # two versions of the same rows: every count doubles
    assert got[("bench-a", "vagueness_subjectivity", "text")] == 4
    assert got[("bench-a", "factual_error", "agree")] == 2
    assert got[("bench-b", "factual_error", "admit")] == 0
    res = runner.invoke(app, ["audit", "--sql", "select version, count(*) n from samples group by 1 order by 1",
                              "--json", "--artifacts", str(tmp_path)])
    assert json.loads(res.stdout) == [{"version": "v0001", "n": 3}, {"version": "v0002", "n": 3}]
    res = runner.invoke(app, ["audit", "--by", "nope", "--artifacts", str(tmp_path)])
    assert res.exit_code == 2 and "not available" in flat(res.output)
    res = runner.invoke(app, ["audit", "--shell", "--artifacts", str(tmp_path)],
                        input=".tables\nselect benchmark, count(*) as n\n  from edges where version = 'v0002'\n"
                              " group by 1 order by 1;\nselect nonsense;\n")
    assert "graph_ledger" in res.output and "bench-a | 2" in flat(res.output) and "bench-b | 1" in flat(res.output)
    assert "error:" in res.output and res.exit_code == 1  # the bad statement is reported, the shell goes on


def test_audit_default_view_is_benchmark_by_fault_type_in_percent(tmp_path, monkeypatch):
    syn.publish(tmp_path)
    res = runner.invoke(app, ["audit", "--json", "--artifacts", str(tmp_path)])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert list(rows[0]) == ["benchmark", "fault_type", "attempts", "rejected", "rejected_pct"]
    con = audit.connect(tmp_path)
    want = con.execute("select benchmark, fault_types[1], count(*), count(*) filter (where not admitted) "
                       "from attempts group by 1, 2 order by 1, 2").fetchall()
    assert [(r["benchmark"], r["fault_type"], r["attempts"], r["rejected"]) for r in rows] == want
    assert all(r["rejected_pct"] == round(100 * r["rejected"] / r["attempts"], 1) for r in rows)
    assert any(0 < r["rejected_pct"] < 100 for r in rows)  # a share, not a per-stage 0 or 1
    # at 80 columns the default table keeps every fault type on one line
    assert "│ vagueness_subjectivity │" in printed(monkeypatch, 80, ["audit", "--artifacts", str(tmp_path)])
    # a view too wide for the terminal is folded, never cut
    text = printed(monkeypatch, 60, ["audit", "--by", "benchmark,fault_type,stage,code", "--artifacts", str(tmp_path)])
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 60 and "100 │" in text


def printed(monkeypatch, width: int, args: list[str]) -> str:
    """What ``args`` print on a terminal ``width`` columns wide."""
    console = Console(width=width, file=io.StringIO())
    monkeypatch.setattr(audit_cli, "out", console)
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    return console.file.getvalue()


def test_a_corpus_of_the_first_format_reads_with_todays_names(tmp_path):
    """attempts.text became attempts.query (format 2) and the readings were added (format 3): a
    version published before still audits, reads and reports, the added columns as nulls."""
    syn.publish(tmp_path)
    as_format_1(tmp_path, "v0001")  # v0001 as the format-1 code wrote it
    assert corpus.manifest(tmp_path, "v0001")["format"] == "miscue-corpus/1"
    assert "text" in pq.read_table(tmp_path / "corpora" / "v0001" / "attempts.parquet").column_names
    assert corpus.verify_corpus("v0001", tmp_path).ok  # its files as they were written
    syn.publish(tmp_path, parent="v0001")
    assert corpus.manifest(tmp_path, "v0002")["format"] == corpus.FORMAT == "miscue-corpus/3"
    old = corpus.read_table(tmp_path, "v0001", "attempts")
    assert "query" in old.column_names and "text" not in old.column_names
    assert old.column("reading_b").null_count == old.num_rows  # added in format 3: nulls
    assert old.column("query").to_pylist() == corpus.read_table(tmp_path, "v0002", "attempts").column("query").to_pylist()
    res = runner.invoke(app, ["audit", "--sql", "select version, count(query) n, count(*) total from attempts "
                              "group by 1 order by 1", "--json", "--artifacts", str(tmp_path)])
    assert res.exit_code == 0, res.output
    n = sum(1 for r in syn.rows()["attempts"] if r["query"] is not None)
    assert n and [(r["version"], r["n"]) for r in json.loads(res.stdout)] == [("v0001", n), ("v0002", n)]
    res = runner.invoke(app, ["audit", "--sql", "select * from attempts limit 1", "--json", "--artifacts", str(tmp_path)])
    assert "text" not in json.loads(res.stdout)[0]
    res = runner.invoke(app, ["audit", "--json", "--artifacts", str(tmp_path), "--version", "v0001"])
    assert res.exit_code == 0 and sum(r["attempts"] for r in json.loads(res.stdout)) == len(syn.rows()["attempts"])
    res = runner.invoke(app, ["audit", "--sql", "select version, count(*) filter (where reading_b is null) n from attempts "
                              "group by 1 order by 1", "--json", "--artifacts", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert [r["version"] for r in json.loads(res.stdout)] == ["v0001", "v0002"]
    res = runner.invoke(app, ["report", "v0001", "--json", "--artifacts", str(tmp_path)])  # its queries name reading_b
    assert res.exit_code == 0, res.output


def test_unknown_inputs_are_clear_errors(tmp_path):
    res = runner.invoke(app, ["build", "--fault-type", "typo_error", "--artifacts", str(tmp_path)])
    assert res.exit_code == 2 and "unknown fault type 'typo_error'" in flat(res.output)
    res = runner.invoke(app, ["build", "--benchmark", "nope", "--artifacts", str(tmp_path)])
    assert res.exit_code == 2 and "unknown benchmark 'nope'" in flat(res.output)
    res = runner.invoke(app, ["regenerate", "--fault-type", "factual_error", "--artifacts", str(tmp_path)])
    assert res.exit_code == 2 and "run `miscue build` first" in flat(res.output)
    syn.publish(tmp_path)
    res = runner.invoke(app, ["regenerate", "--fault-type", "nope", "--artifacts", str(tmp_path)])
    assert res.exit_code == 2 and "unknown fault type 'nope'" in flat(res.output)
    res = runner.invoke(app, ["regenerate", "--fault-type", "factual_error", "--benchmark", "tau2-airline",
                              "--artifacts", str(tmp_path)])
    assert res.exit_code == 2 and "not in version v0001" in flat(res.output)
    res = runner.invoke(app, ["report", "v0009", "--artifacts", str(tmp_path)])
    assert res.exit_code == 2 and "v0009 is not published" in flat(res.output)
    res = runner.invoke(app, ["verify-corpus", "v0009", "--artifacts", str(tmp_path)])
    assert res.exit_code == 2
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    res = runner.invoke(app, ["serve", "--artifacts", str(tmp_path)], env={**env, "PREFECT_API_URL": ""})
    assert res.exit_code == 2 and "real Prefect server" in flat(res.output)


def test_duckdb_reads_the_files_directly(tmp_path):
    """The published files are plain Parquet: any DuckDB reads them without miscue."""
    syn.publish(tmp_path)
    got = duckdb.connect().execute(
        f"select count(*) from read_parquet('{tmp_path}/corpora/v[0-9][0-9][0-9][0-9]/attempts.parquet')").fetchone()
    assert got == (len(syn.rows()["attempts"]),)


def test_sweep_staging_removes_what_a_killed_publish_left(tmp_path):
    staging = tmp_path / corpus.STAGING_DIR
    (staging / "v0001-abc").mkdir(parents=True)
    (staging / "v0001-abc" / "samples.parquet").write_bytes(b"half")
    (staging / "stray").write_text("x")
    assert corpus.sweep_staging(tmp_path) == ["stray", "v0001-abc"]
    assert list(staging.iterdir()) == []
    assert corpus.sweep_staging(tmp_path / "nothing-here") == []


def test_same_content_finds_every_published_version_not_only_the_latest(tmp_path):
    """What --skip-unchanged and the build's 'same samples as' note rely on."""
    v1 = syn.publish(tmp_path)
    hashes = corpus.content_hashes(tmp_path, v1)
    other = {**hashes, "attempts": "0" * 64}
    v2 = syn.publish(tmp_path, parent=v1, tbls=syn.tables())
    assert corpus.same_content(tmp_path, hashes) == [v1, v2]
    assert corpus.same_content(tmp_path, other) == []
    assert corpus.same_content(tmp_path, other, tables=("samples",)) == [v1, v2]  # same samples, other ledger
    config = corpus.manifest(tmp_path, v1)["config_hash"]
    assert corpus.same_content(tmp_path, hashes, config_hash=config) == [v1, v2]
    assert corpus.same_content(tmp_path, hashes, config_hash="another") == []
