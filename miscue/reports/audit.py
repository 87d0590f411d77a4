"""DuckDB over the published corpora: views, canned reports, a small SQL shell.

Views (one per corpus table: samples, attempts, cells, llm_calls, graphs, nodes, edges,
graph_ledger) read ``artifacts/corpora/vNNNN/<table>.parquet`` of every *published* version
(a version directory holding a manifest), listed explicitly. That is stricter than the glob
``corpora/v[0-9][0-9][0-9][0-9]/<table>.parquet`` (:func:`glob`, for ad-hoc DuckDB use), which
already cannot see staging (``artifacts/.staging/`` is outside the corpora root and the pattern
matches one directory level of exact version names) but would read a stray ``vNNNN`` directory
that has no manifest. Every view has a ``version`` column (from the file's directory) and a
``benchmark`` column; ``union_by_name`` tolerates columns added in later versions, and a column
renamed since a version's format (:data:`miscue.corpus.versions.RENAMED`) reads under its new name.

Read-only (:mod:`miscue.reports.readonly`): once the views exist the connection can read files
under the corpora root only and its configuration is locked; :func:`query` and the shell run
read statements only (a refused statement raises :class:`ReadOnlyViolation`, exit 2).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable, Iterable, NamedTuple, TextIO

import duckdb
import pyarrow.parquet as pq

from miscue import corpus
from miscue.errors import BadInput
from miscue.reports.readonly import READ_FORMS, ReadOnlyViolation, denied, lock_down, read_statements

__all__ = ["GROUPABLE", "VIEWS", "ReadOnlyViolation", "ShellOutcome", "canned_sql", "check_sql", "connect", "format_rows",
           "glob", "query", "run", "shell"]

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
    only ``versions``), locked down to reading the corpora (:func:`lock_down`: no other file,
    no network, no extension, no configuration change). Raises :class:`corpus.UnknownVersion`
    when nothing is published."""
    con = con or duckdb.connect()
    published = corpus.versions(artifacts)
    if not published:
        raise corpus.UnknownVersion(f"no published version under {corpus.corpora_root(artifacts)}: run `miscue build` first")
    wanted = list(versions) if versions is not None else None
    for v in wanted or []:
        corpus.resolve(artifacts, v)
    for name in VIEWS:
        # versions grouped by the renames their format needs, each group read with today's names
        groups: dict[tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]], list[str]] = {}
        for v in wanted or published:
            path = corpus.version_dir(artifacts, v).resolve() / f"{name}.parquet"
            if path.exists():
                renames = tuple(sorted(corpus.renamed_columns(artifacts, v, name).items()))
                added = tuple(sorted(corpus.added_columns(artifacts, v, name).items()))
                if added:  # read as nulls where the file does not have them
                    have = set(pq.read_schema(path).names)
                    added = tuple((c, kind) for c, kind in added if c not in have)
                groups.setdefault((renames, added), []).append("'" + str(path).replace("'", "''") + "'")
        if not groups:
            continue
        parts = []
        for (renames, added), listed in groups.items():
            rename = f" rename ({', '.join(f'{old} as {new}' for old, new in renames)})" if renames else ""
            nulls = "".join(f", null::{kind} as {column}" for column, kind in added)
            parts.append("select regexp_extract(filename, '/(v[0-9]{4})/[^/]+$', 1) as version, "
                         f"* exclude (filename){rename}{nulls} "
                         f"from read_parquet([{', '.join(listed)}], filename = true, union_by_name = true)")
        con.execute(f"create or replace view {name} as " + " union all by name ".join(parts))
    return lock_down(con, [corpus.corpora_root(artifacts)])


def check_sql(sql: str, con: duckdb.DuckDBPyConnection | None = None) -> None:
    """Refuse ``sql`` unless every statement in it only reads (:class:`ReadOnlyViolation`, exit 2);
    with ``con`` (a :func:`connect`-ed connection) also unless DuckDB would let it read every file
    it names (each read is bound with ``EXPLAIN``, which runs nothing). SQL DuckDB cannot parse or
    bind is left for the query to report. For failing fast, before a flow starts."""
    try:
        statements = read_statements(sql)
    except duckdb.ParserException:
        return
    for stmt in statements if con is not None else []:
        if stmt.type != duckdb.StatementType.SELECT:
            continue  # an EXPLAIN of a read: its read is bound when it runs
        try:
            con.execute(f"explain {stmt.query}")
        except duckdb.PermissionException as exc:
            raise denied(exc) from None
        except duckdb.Error:
            pass


def _by(report: str, by: list[str]) -> list[str]:
    allowed = GROUPABLE[report]
    bad = [b for b in by if b not in allowed]
    if bad:
        raise BadInput(f"--by {','.join(bad)} is not available for report {report!r}; choose from {', '.join(allowed)}")
    return by


def canned_sql(report: str, by: list[str] | None = None) -> str:
    """The SQL of a canned report. ``rejections``: rejected attempts and their share in percent,
    grouped by ``by`` (default: benchmark x fault type; a composite counts under its first type);
    ``funnel``: attempts reaching each stage; ``calls``:
    model calls, store hits, tokens and cost."""
    if report not in GROUPABLE:
        raise BadInput(f"unknown report {report!r}; known: {', '.join(GROUPABLE)}")
    if report == "rejections":
        by = _by(report, by or ["benchmark", "fault_type"])
        cols = ", ".join(by)
        return (
            "with a as (select version, benchmark, fault_types[1] as fault_type, families[1] as family, "
            "coalesce(stage, 'none') as stage, coalesce(code, 'none') as code, admitted from attempts) "
            f"select {cols}, count(*) as attempts, count(*) filter (where not admitted) as rejected, "
            "round(100 * count(*) filter (where not admitted) / count(*), 1) as rejected_pct "
            f"from a group by {cols} order by {cols}"
        )
    if report == "funnel":
        by = _by(report, by or ["benchmark"])
        cols = ", ".join(by)
        order = ("case stage when 'plan' then 0 when 'write' then 1 when 'text' then 2 when 'extract' then 3 "
                 "when 'agree' then 4 when 'admit' then 5 else 6 end")
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
    """Run ``sql`` when every statement in it only reads (else :class:`ReadOnlyViolation` and
    nothing runs); returns the last statement's (columns, rows)."""
    statements = read_statements(sql)
    if not statements:
        return [], []
    try:
        for stmt in statements[:-1]:
            con.execute(stmt)
        cur = con.execute(statements[-1])
    except duckdb.PermissionException as exc:
        raise denied(exc) from None
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


SHELL_HELP = """miscue audit shell: DuckDB SQL over every published version (read-only: {forms}).
Views: {views}. End a statement with ';'. Commands: .tables  .schema <view>  .help  .quit"""


class ShellOutcome(NamedTuple):
    """What a shell session met: statements that failed (SQL errors) and statements refused by
    the read-only rule. Exit code: 2 if anything was refused, else 1 if anything failed, else 0."""

    failures: int = 0
    refused: int = 0

    @property
    def exit_code(self) -> int:
        return 2 if self.refused else 1 if self.failures else 0


def shell(con: duckdb.DuckDBPyConnection, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout,
          prompt: Callable[[str], None] | None = None) -> ShellOutcome:
    """A small SQL REPL: reads statements (ending with ';') from ``stdin``, prints results.
    A failed or refused statement is reported on its own line and the shell goes on. Works
    interactively and with piped input."""
    views = [r[0] for r in con.execute("select view_name from duckdb_views() where not internal order by 1").fetchall()]
    interactive = hasattr(stdin, "isatty") and stdin.isatty()
    write = stdout.write
    helptext = SHELL_HELP.format(views=", ".join(views), forms=READ_FORMS)
    if interactive:
        write(helptext + "\n")
    failures = refused = 0

    def execute(sql: str) -> None:
        nonlocal failures, refused
        try:
            write(format_rows(*query(con, sql)) + "\n")
        except ReadOnlyViolation as exc:
            refused += 1
            write(f"{exc}\n")
        except duckdb.Error as exc:
            failures += 1
            write(f"error: {exc}\n")

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
                write(helptext + "\n")
            elif cmd == ".tables":
                write("\n".join(views) + "\n")
            elif cmd == ".schema" and arg:
                execute(f"describe {arg.strip()}")
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
        execute(sql)
    if buffer and "".join(buffer).strip():
        execute("".join(buffer))
    return ShellOutcome(failures, refused)
