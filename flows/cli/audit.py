"""``miscue audit``: DuckDB over every published version (canned reports, any SQL, a shell).

It reads Parquet and answers without starting Prefect; ``--flow`` records the query as a flow run
(and its result as a table artifact) on the Prefect server in use.

Read-only (:mod:`miscue.reports.readonly`): ``--sql`` and every shell statement must only read;
a refused ``--sql`` exits 2 before any flow starts; the shell reports a refused statement and goes
on, and exits 2 at the end if anything was refused (else 1 if a statement failed, else 0).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from miscue.flows.cli.app import ARTIFACTS, AS_JSON, app, artifacts_arg, err, exit_codes, fail, fmt, out, print_json


@app.command()
def audit(
    report_name: Optional[str] = typer.Option(None, "--report", "-r", help="canned report: rejections | funnel | calls"),
    by: Optional[str] = typer.Option(None, "--by", help="group-by columns, comma-separated (e.g. benchmark,fault_type,stage)"),
    sql: Optional[str] = typer.Option(None, "--sql", help="read-only SQL (SELECT, WITH, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN) "
                                      "over the views samples, attempts, cells, llm_calls, graphs, nodes, edges, graph_ledger"),
    shell: bool = typer.Option(False, "--shell", help="a read-only SQL shell over the views (exit 2 if a statement was refused)"),
    version: Optional[list[str]] = typer.Option(None, "--version", "-v", help="only these versions (repeatable; default: all)"),
    flow: bool = typer.Option(False, "--flow/--no-flow",
                              help="record the query as a Prefect flow run (starts Prefect; default: query directly)"),
    as_json: bool = AS_JSON,
    artifacts: Path = ARTIFACTS,
) -> None:
    """DuckDB over every published version (each view has version and benchmark columns)."""
    import duckdb  # here, not at the top: other commands do not pay for DuckDB

    from miscue.reports import audit as audit_mod

    groups = [b.strip() for b in by.split(",") if b.strip()] if by else None
    with exit_codes():
        con = audit_mod.connect(artifacts, version)
        if sql:
            audit_mod.check_sql(sql, con)  # refuse anything but reads of the corpora before any flow starts
        elif not shell:
            audit_mod.canned_sql(report_name or "rejections", groups)  # validate before any flow starts
    if shell:
        _shell(con)
        return
    con.close()
    with exit_codes():  # a statement DuckDB refuses (a file outside the corpora) is bad input too
        try:
            if not flow:
                columns, rows = audit_mod.run(artifacts, report_name, groups, sql, version)
            else:
                from miscue.flows.prefect_flows import audit_flow, run_flow

                res = run_flow(audit_flow, err.print, report_name=report_name or "rejections", by=groups, sql=sql,
                               versions=version, artifacts=artifacts_arg(artifacts))
                columns, rows = res["columns"], res["rows"]
        except duckdb.Error as exc:
            fail(f"SQL error: {exc}")
    if as_json:
        print_json([dict(zip(columns, r)) for r in rows])
        return
    out.print(_table(f"audit: {'sql' if sql else report_name or 'rejections'}", columns, rows[:500]))
    if len(rows) > 500:
        out.print(f"({len(rows)} rows; first 500 shown; use --json for all)")


def _table(title: str, columns: list[str], rows: list[tuple[Any, ...]]) -> Table:
    """Numbers right-aligned; when the table fits the terminal with every text value (a benchmark,
    a fault type) on one line it is drawn so, else the widest columns are folded, never cut."""
    cells = [[fmt(v) for v in r] for r in rows]
    numeric = [all(isinstance(r[i], (int, float)) or r[i] is None for r in rows) for i in range(len(columns))]
    values = [max([len(r[i]) for r in cells], default=0) for i in range(len(columns))]
    widths = [max(len(c), v) for c, v in zip(columns, values)]
    fits = sum(widths) + 3 * len(columns) + 1 <= out.width
    t = Table(title=title)
    for i, c in enumerate(columns):  # a number is never folded
        t.add_column(c, justify="right" if numeric[i] else "left", overflow="fold",
                     min_width=widths[i] if fits else values[i] if numeric[i] else None)
    for r in cells:
        t.add_row(*r)
    return t


def _shell(con: Any) -> None:
    """The built-in line REPL of :mod:`miscue.reports.audit`, interactive or piped. (Not the
    ``duckdb`` CLI: it would run any statement it is given, and the audit is read-only.)"""
    from miscue.reports import audit as audit_mod

    outcome = audit_mod.shell(con, sys.stdin, sys.stdout)
    con.close()
    raise typer.Exit(outcome.exit_code)
