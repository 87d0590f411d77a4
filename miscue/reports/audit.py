"""DuckDB over the published corpora: views, canned reports, a small SQL shell.

Views (one per corpus table: samples, attempts, cells, llm_calls, graphs, nodes, edges,
graph_ledger) read ``artifacts/corpora/vNNNN/<table>.parquet`` of every *published* version
(a version directory holding a manifest), listed explicitly. That is stricter than the glob
``corpora/v[0-9][0-9][0-9][0-9]/<table>.parquet`` (:func:`glob`, for ad-hoc DuckDB use), which
already cannot see staging (``artifacts/.staging/`` is outside the corpora root and the pattern
matches one directory level of exact version names) but would read a stray ``vNNNN`` directory
that has no manifest. Every view has a ``version`` column (from the file's directory) and a
``benchmark`` column; ``union_by_name`` tolerates columns added in later versions.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable, Iterable, TextIO

import duckdb

from miscue import corpus
from miscue.errors import BadInput

VIEWS = tuple(corpus.TABLES)

# canned report -> (description, allowed group-by columns, SQL builder)
GROUPABLE = {
    "rejections": ("benchmark", "fault_type", "stage", "code", "version", "family"),
    "funnel": ("benchmark", "fault_type", "version"),
    "calls": ("benchmark", "role", "model", "version", "fault_type"),
}


def glob(artifacts: Path, name: str) -> str:
    """The DuckDB glob of one table over every version directory (for ad-hoc queries)."""
    root = corpus.corpora_root(artifacts).resolve()
    return str(root / corpus.VERSION_GLOB / f"{name}.parquet").replace("'", "''")


def connect(artifacts: Path, versions: Iterable[str] | None = None,
            con: duckdb.DuckDBPyConnection | None = None) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with one view per corpus table over every published version (or
    only ``versions``). Raises :class:`corpus.UnknownVersion` when nothing is published."""
    con = con or duckdb.connect()
    published = corpus.versions(artifacts)
    if not published:
        raise corpus.UnknownVersion(f"no published version under {corpus.corpora_root(artifacts)}: run `miscue build` first")
    wanted = list(versions) if versions is not None else None
    for v in wanted or []:
        corpus.resolve(artifacts, v)
    for name in VIEWS:
        paths = [corpus.version_dir(artifacts, v).resolve() / f"{name}.parquet" for v in (wanted or published)]
        listed = [str(p).replace("'", "''") for p in paths if p.exists()]
        if not listed:
            continue
        files = "[" + ", ".join(f"'{p}'" for p in listed) + "]"
        con.execute(
            f"create or replace view {name} as select "
            "regexp_extract(filename, '/(v[0-9]{4})/[^/]+$', 1) as version, "
            f"* exclude (filename) from read_parquet({files}, filename = true, union_by_name = true)"
        )
    return con


def _by(report: str, by: list[str]) -> list[str]:
    allowed = GROUPABLE[report]
    bad = [b for b in by if b not in allowed]
    if bad:
        raise BadInput(f"--by {','.join(bad)} is not available for report {report!r}; choose from {', '.join(allowed)}")
    return by


def canned_sql(report: str, by: list[str] | None = None) -> str:
    """The SQL of a canned report. ``rejections``: attempt verdicts (non-admitted attempts) and
    cell rejection, grouped by ``by``; ``funnel``: attempts reaching each stage; ``calls``:
    model calls, store hits, tokens and cost."""
    if report not in GROUPABLE:
        raise BadInput(f"unknown report {report!r}; known: {', '.join(GROUPABLE)}")
    if report == "rejections":
        by = _by(report, by or ["benchmark", "fault_type", "stage"])
        cols = ", ".join(by)
        return (
            "with a as (select version, benchmark, fault_types[1] as fault_type, families[1] as family, "
            "coalesce(stage, 'none') as stage, coalesce(code, 'none') as code, admitted from attempts) "
            f"select {cols}, count(*) filter (where not admitted) as rejected_attempts, count(*) as attempts, "
            "round(count(*) filter (where not admitted) / count(*), 4) as attempt_rejection_rate "
            f"from a group by {cols} order by {cols}"
        )
    if report == "funnel":
        by = _by(report, by or ["benchmark"])
        cols = ", ".join(by)
        order = "case stage when 'plan' then 0 when 'write' then 1 when 'text' then 2 when 'extract' then 3 when 'agree' then 4 when 'admit' then 5 else 6 end"
        return (
            "with a as (select version, benchmark, fault_types[1] as fault_type, "
            f"case when admitted then 6 else {order} end as reached from attempts) "
            f"select {cols}, count(*) as attempts, "
            "count(*) filter (where reached >= 2) as written, count(*) filter (where reached >= 3) as passed_text, "
            "count(*) filter (where reached >= 4) as passed_extract, count(*) filter (where reached >= 5) as agreed, "
            "count(*) filter (where reached >= 6) as admitted "
            f"from a group by {cols} order by {cols}"
        )
    by = _by(report, by or ["version", "benchmark", "role"])
    cols = ", ".join(by)
    src = "(select *, unnest(coalesce(fault_types, [null])) as fault_type from llm_calls)" if "fault_type" in by else "llm_calls"
    return (
        f"select {cols}, count(*) as requests, count(*) filter (where not cached) as model_calls, "
        "count(*) filter (where cached) as store_hits, sum(prompt_tokens + completion_tokens) as tokens, "
        f"round(sum(cost), 6) as cost from {src} group by {cols} order by {cols}"
    )


def run(artifacts: Path, report: str | None = "rejections", by: list[str] | None = None, sql: str | None = None,
        versions: Iterable[str] | None = None) -> tuple[list[str], list[tuple[Any, ...]]]:
    """One canned report (or ``sql``) over the views; returns (columns, rows)."""
    con = connect(artifacts, versions)
    try:
        return query(con, sql if sql else canned_sql(report or "rejections", by))
    finally:
        con.close()


def query(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    cur = con.execute(sql)
    if cur.description is None:
        return [], []
    return [d[0] for d in cur.description], cur.fetchall()


def format_rows(columns: list[str], rows: list[tuple[Any, ...]], limit: int = 200) -> str:
    """A plain-text table (for the shell and for piping)."""
    if not columns:
        return "ok"
    shown = rows[:limit]
    cells = [[("NULL" if v is None else str(v)) for v in r] for r in shown]
    widths = [min(60, max([len(c)] + [len(r[i]) for r in cells])) for i, c in enumerate(columns)]

    def line(values: list[str]) -> str:
        return " | ".join(v[:w].ljust(w) for v, w in zip(values, widths)).rstrip()

    out = [line(columns), "-+-".join("-" * w for w in widths)] + [line(r) for r in cells]
    more = f" (showing {limit})" if len(rows) > limit else ""
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''}){more}")
    return "\n".join(out)


SHELL_HELP = """miscue audit shell: DuckDB SQL over every published version.
Views: {views}. End a statement with ';'. Commands: .tables  .schema <view>  .help  .quit"""


def shell(con: duckdb.DuckDBPyConnection, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout,
          prompt: Callable[[str], None] | None = None) -> int:
    """A small SQL REPL: reads statements (ending with ';') from ``stdin``, prints results.
    Returns the number of failed statements. Works interactively and with piped input."""
    views = [r[0] for r in con.execute("select view_name from duckdb_views() where not internal order by 1").fetchall()]
    interactive = hasattr(stdin, "isatty") and stdin.isatty()
    write = stdout.write
    if interactive:
        write(SHELL_HELP.format(views=", ".join(views)) + "\n")
    failures = 0
    buffer: list[str] = []
    while True:
        if interactive:
            write("miscue> " if not buffer else "   ...> ")
            stdout.flush()
        line = stdin.readline()
        if not line:
            break
        stripped = line.strip()
        if not buffer and stripped.startswith("."):
            cmd, _, arg = stripped.partition(" ")
            if cmd in (".quit", ".exit"):
                break
            if cmd == ".help":
                write(SHELL_HELP.format(views=", ".join(views)) + "\n")
            elif cmd == ".tables":
                write("\n".join(views) + "\n")
            elif cmd == ".schema" and arg:
                try:
                    write(format_rows(*query(con, f"describe {arg.strip()}")) + "\n")
                except duckdb.Error as exc:
                    failures += 1
                    write(f"error: {exc}\n")
            else:
                write(f"unknown command {cmd}; try .help\n")
            continue
        if not stripped:
            continue
        buffer.append(line)
        if not stripped.endswith(";"):
            continue
        sql = "".join(buffer)
        buffer = []
        try:
            write(format_rows(*query(con, sql)) + "\n")
        except duckdb.Error as exc:
            failures += 1
            write(f"error: {exc}\n")
    if buffer and "".join(buffer).strip():
        try:
            write(format_rows(*query(con, "".join(buffer))) + "\n")
        except duckdb.Error as exc:
            failures += 1
            write(f"error: {exc}\n")
    return failures
