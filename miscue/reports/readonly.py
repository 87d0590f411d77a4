"""The audit's read-only rule (DESIGN section 9): read statements only, external access limited to
the corpora, the configuration locked.

Two independent locks, so that either alone keeps every published file as it is:

1. **Statements.** :func:`read_statements` splits the SQL with DuckDB's own parser
   (``duckdb.extract_statements``) and admits only statements whose type DuckDB reports as
   ``SELECT`` (which covers ``WITH``, ``VALUES``, ``FROM``-first queries, ``DESCRIBE``, ``SHOW``
   and ``SUMMARIZE``) or ``EXPLAIN`` of such a statement (``EXPLAIN ANALYZE`` executes its
   statement, so the statement it explains must itself be a read). Everything else (``COPY``,
   ``EXPORT``, ``ATTACH``, ``INSTALL``/``LOAD``, ``CREATE``, ``INSERT``, ``UPDATE``, ``DELETE``,
   ``DROP``, ``SET``/``RESET``, ``PRAGMA``, ``CALL``, transactions, the ``PIVOT`` statement, which
   runs several statements) is refused with :class:`ReadOnlyViolation` before anything runs, also
   when it hides behind a read in the same string (``select 1; copy ...``). What runs is the
   parsed statements themselves, never the text parsed a second time.
2. **The connection.** :func:`lock_down` (called once the views exist) sets DuckDB's
   ``allowed_directories`` to the corpora root, ``enable_external_access = false`` (no other file,
   no network, no extension loading) and ``lock_configuration = true``, so no later ``SET`` or
   ``RESET`` can undo it. A read of ``/etc/passwd`` through ``read_csv`` is refused by DuckDB.

DuckDB lets an allowed directory be written as well as read; that is why the first lock exists.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from miscue.errors import BadInput

#: DuckDB statement types that only read (DESCRIBE, SHOW, SUMMARIZE and WITH parse as SELECT).
READ_TYPES = frozenset({duckdb.StatementType.SELECT})
READ_FORMS = "SELECT, WITH, VALUES, FROM, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN"


class ReadOnlyViolation(BadInput):
    """A statement the read-only audit refuses (exit 2); the message says which and why."""


def _head(sql: str, width: int = 48) -> str:
    flat = " ".join(sql.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _explained(sql: str) -> str | None:
    """The statement an EXPLAIN explains, found with DuckDB's tokenizer: after ``EXPLAIN``, an
    optional ``ANALYZE`` and an optional parenthesised option list. None when there is none."""
    tokens = duckdb.tokenize(sql)
    if not tokens:
        return None
    bounds = [pos for pos, _ in tokens] + [len(sql)]
    words = [sql[bounds[i]:bounds[i + 1]].strip() for i in range(len(tokens))]
    i = 1  # tokens[0] is EXPLAIN
    if i < len(words) and words[i].lower() == "analyze":
        i += 1
    candidates = [i]
    if i < len(words) and words[i] == "(":  # EXPLAIN (FORMAT json) ... or EXPLAIN (SELECT ...)
        depth, j = 0, i
        while j < len(words):
            depth += words[j] == "("
            depth -= words[j] == ")"
            j += 1
            if depth == 0:
                break
        candidates = [j, i]
    for start in candidates:
        if start < len(tokens) and start < len(bounds) - 1:
            rest = sql[bounds[start]:]
            try:
                inner = duckdb.extract_statements(rest)
            except duckdb.Error:
                continue
            if len(inner) == 1:
                return rest
    return None


def _refusal(stmt: duckdb.Statement, index: int, count: int) -> str | None:
    """Why ``stmt`` is refused, or None for a read."""
    where = f"statement {index} of {count}" if count > 1 else "the statement"
    if stmt.type in READ_TYPES:
        return None
    if stmt.type == duckdb.StatementType.EXPLAIN:
        inner = _explained(stmt.query)
        if inner is None:
            return f"{where} ({_head(stmt.query)!r}) is an EXPLAIN whose statement could not be told apart"
        (explained,) = duckdb.extract_statements(inner)
        if explained.type in READ_TYPES:
            return None
        return (f"{where} ({_head(stmt.query)!r}) explains a {explained.type.name} statement, and EXPLAIN ANALYZE "
                f"would run it")
    kind = stmt.type.name
    why = " (the PIVOT statement runs several statements; write SELECT ... FROM t PIVOT (...))" if kind == "MULTI" else ""
    return f"{where} ({_head(stmt.query)!r}) is of type {kind}{why}"


def read_statements(sql: str) -> list[duckdb.Statement]:
    """The statements of ``sql`` when every one of them only reads; otherwise
    :class:`ReadOnlyViolation` naming the first refused statement. A string DuckDB cannot parse
    raises ``duckdb.ParserException`` (an SQL error, not a refusal)."""
    statements = duckdb.extract_statements(sql)
    for i, stmt in enumerate(statements, 1):
        why = _refusal(stmt, i, len(statements))
        if why:
            raise ReadOnlyViolation(f"refused: {why}; the audit is read-only and runs {READ_FORMS} only")
    return statements


def denied(exc: duckdb.PermissionException) -> ReadOnlyViolation:
    """DuckDB's own refusal (a file outside the corpora, the network, an extension) as a
    :class:`ReadOnlyViolation`, on one line."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return ReadOnlyViolation(f"refused by DuckDB: {first} (the audit reads the corpora only)")


def lock_down(con: duckdb.DuckDBPyConnection, roots: list[Path]) -> duckdb.DuckDBPyConnection:
    """Limit ``con``'s file access to ``roots`` (the corpora), disable every other external access
    and lock the configuration (see the module docstring). Call it after the views are made."""
    dirs = ", ".join("'" + (str(Path(r).resolve()).rstrip("/") + "/").replace("'", "''") + "'" for r in roots)
    con.execute(f"set allowed_directories = [{dirs}]")
    con.execute("set enable_external_access = false")
    con.execute("set lock_configuration = true")
    return con
