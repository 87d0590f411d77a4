"""The audit is read-only (DESIGN section 9): read statements only (decided by DuckDB's parser),
file access limited to the corpora, configuration locked. Real DuckDB over a published synthetic
corpus; every refused statement exits 2 (``--sql`` and ``--shell``) and leaves every file as it was.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from support import synthetic_corpus as syn

from miscue.flows.cli import app
from miscue.reports import audit
from miscue.reports.readonly import ReadOnlyViolation, read_statements

runner = CliRunner()


def tree(root: Path) -> dict[str, str]:
    """sha256 of every file under ``root`` (a new or removed file shows up too)."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture()
def corpus_dir(tmp_path: Path) -> tuple[Path, Path]:
    art = tmp_path / "artifacts"
    syn.publish(art)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("not for the audit\n")
    return art, outside


def writes(art: Path, outside: Path) -> list[str]:
    published = art / "corpora" / "v0001" / "samples.parquet"
    return [
        f"copy samples to '{outside}/samples.csv'",
        f"copy (select 1 as x) to '{art}/corpora/leak.parquet'",  # inside the corpora: DuckDB alone would allow it
        f"copy (select * from samples limit 1) to '{published}'",  # over a published file
        f"export database '{outside}/export'",
        f"attach '{outside}/other.duckdb' as other",
        "attach ':memory:' as scratch",
        "install httpfs",
        "load httpfs",
        "create table t as select * from samples",
        "create view v as select 1",
        "insert into samples (sample_id) values ('x')",
        "update samples set query = 'changed'",
        "delete from samples",
        "drop view samples",
        "set enable_external_access = true",
        "reset enable_external_access",
        "set lock_configuration = false",
        "pragma enable_profiling",
        "call checkpoint()",
        f"select 1; copy samples to '{outside}/hidden.csv'",  # a write hidden behind a read
        f"select count(*) from samples;\ncopy (select 1) to '{published}'",
        f"explain analyze copy samples to '{outside}/explained.csv'",  # EXPLAIN ANALYZE runs its statement
        "pivot samples on benchmark using count(*)",  # the PIVOT statement: several statements in one
    ]


def outside_reads(outside: Path) -> list[str]:
    return [
        "select * from read_csv('/etc/passwd', sep = ':')",
        "select * from read_text('/etc/passwd')",
        f"select * from read_text('{outside}/secret.txt')",
        "select * from glob('/etc/*')",
        "select * from read_csv('http://127.0.0.1:9/x.csv')",
    ]


@pytest.mark.parametrize("sql", [
    "select count(*) from samples",
    "with a as (select benchmark from samples) select * from a",
    "from samples select sample_id",
    "values (1), (2)",
    "describe samples",
    "show tables",
    "summarize samples",
    "explain select * from attempts",
    "explain analyze select count(*) from attempts",
    "explain (select 1)",
    "select 1; select 2",
    "from samples pivot (count(*) for benchmark in ('bench-a', 'bench-b'))",
])
def test_read_statements_run(corpus_dir, sql):
    art, _ = corpus_dir
    con = audit.connect(art)
    read_statements(sql)
    columns, _rows = audit.query(con, sql)
    assert columns


def test_every_write_and_every_read_outside_the_corpora_is_refused_with_exit_2(corpus_dir):
    art, outside = corpus_dir
    before = tree(art.parent)
    # with --flow a refused statement is refused before any Prefect flow starts
    cases = [([], sql) for sql in writes(art, outside) + outside_reads(outside)]
    cases += [(["--flow"], sql) for sql in writes(art, outside) + outside_reads(outside)]
    for flow, sql in cases:
        res = runner.invoke(app, ["audit", *flow, "--sql", sql, "--artifacts", str(art)])
        assert res.exit_code == 2, (sql, res.output)
        lines = res.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: refused"), (sql, res.output)
    assert tree(art.parent) == before  # every file byte-identical, nothing new anywhere


def test_the_shell_reports_each_refusal_goes_on_and_exits_2(corpus_dir):
    art, outside = corpus_dir
    before = tree(art.parent)
    refused = writes(art, outside) + outside_reads(outside)
    script = "".join(s.rstrip(";") + ";\n" for s in refused)
    script += ".schema samples; copy samples to 'x.csv'\n"  # the dot command goes through the same rule
    script += "select count(*) as n from samples;\n"
    res = runner.invoke(app, ["audit", "--shell", "--artifacts", str(art)], input=script)
    assert res.exit_code == 2, res.output
    assert res.output.count("refused") == len(refused) + 1, res.output
    assert res.output.strip().splitlines()[-1] == "(1 row)"  # the shell went on after every refusal
    assert tree(art.parent) == before
    # an SQL error alone still exits 1, a clean session 0
    res = runner.invoke(app, ["audit", "--shell", "--artifacts", str(art)], input="select nonsense;\n")
    assert res.exit_code == 1 and "error:" in res.output
    res = runner.invoke(app, ["audit", "--shell", "--artifacts", str(art)], input="select 1;\n")
    assert res.exit_code == 0


def test_the_connection_itself_is_locked_down(corpus_dir):
    """The second lock alone: DuckDB refuses other files and any change of configuration even
    for SQL that never went through the statement check."""
    art, outside = corpus_dir
    before = tree(art.parent)
    con = audit.connect(art)
    for sql in ("set enable_external_access = true", "reset enable_external_access", "set lock_configuration = false",
                f"set allowed_directories = ['{outside}/']", "set threads = 1"):
        with pytest.raises(duckdb.Error, match="locked"):
            con.execute(sql)
    for sql in (f"copy samples to '{outside}/direct.csv'", "select * from read_text('/etc/passwd')",
                f"attach '{outside}/direct.duckdb'", "load httpfs", f"export database '{outside}/direct'"):
        with pytest.raises(duckdb.PermissionException):
            con.execute(sql)
    assert con.execute("select current_setting('enable_external_access')").fetchone() == (False,)
    assert con.execute("select count(*) from samples").fetchone() == (3,)
    assert tree(art.parent) == before


def test_unparsable_sql_is_an_sql_error_not_a_refusal(corpus_dir):
    art, _ = corpus_dir
    res = runner.invoke(app, ["audit", "--sql", "selec 1", "--artifacts", str(art)])
    assert res.exit_code == 2 and "SQL error" in res.output and "refused" not in res.output
    with pytest.raises(ReadOnlyViolation, match="statement 2 of 2"):
        read_statements("select 1; drop view samples")
