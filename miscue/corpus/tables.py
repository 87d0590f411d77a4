"""The tables of a corpus: their records, Arrow schemas derived from the records, row order and
content hashes.

Each table is a list of one record of :mod:`miscue.schema`; its Arrow schema is derived from the
record's fields in declaration order (:func:`arrow_schema`), never written a second time.

Table content hash: sha256 over the sorted canonical JSON encodings of the rows (sorted keys,
values in their JSON types), so re-publishing identical rows gives an identical hash even when
the Parquet bytes differ (row order, compression, writer version). Columns that record how one
run obtained a row rather than what the row says (:data:`PROVENANCE_COLUMNS`: whether a model
call was answered from the exchange store, its latency and retry count, which version's run
produced the row) are kept in the table but left out of its content hash; the manifest names
them per table.
"""

from __future__ import annotations

import hashlib
import types
import typing
from typing import Any, Iterable, Literal

import pyarrow as pa
from pydantic import BaseModel

from miscue.canonical import canonical_json
from miscue.schema import Attempt, Cell, EdgeRow, GraphLedgerEntry, GraphRow, LLMCall, NodeRow, Sample

_SCALARS: dict[type, pa.DataType] = {str: pa.string(), int: pa.int32(), float: pa.float64(), bool: pa.bool_()}


def arrow_type(annotation: Any) -> pa.DataType:
    """The Arrow type of one record field's annotation (``X | None`` is X, nullable)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(inner) != 1:
            raise TypeError(f"no Arrow type for the union {annotation!r}")
        return arrow_type(inner[0])
    if origin is Literal:
        values = typing.get_args(annotation)
        return arrow_type(type(values[0]))
    if origin is list:
        (item,) = typing.get_args(annotation)
        return pa.list_(arrow_type(item))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return pa.struct(list(arrow_schema(annotation)))
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    raise TypeError(f"no Arrow type for {annotation!r}")


def arrow_schema(record: type[BaseModel]) -> pa.Schema:
    """The Arrow schema of a record: one nullable column per field, in declaration order."""
    hints = typing.get_type_hints(record)
    return pa.schema([(name, arrow_type(hints[name])) for name in record.model_fields])


#: The tables of a version, in publication order, and the record each row is.
RECORDS: dict[str, type[BaseModel]] = {
    "samples": Sample,
    "attempts": Attempt,
    "cells": Cell,
    "llm_calls": LLMCall,
    "graphs": GraphRow,
    "nodes": NodeRow,
    "edges": EdgeRow,
    "graph_ledger": GraphLedgerEntry,
}
SCHEMAS: dict[str, pa.Schema] = {name: arrow_schema(rec) for name, rec in RECORDS.items()}
TABLES: tuple[str, ...] = tuple(SCHEMAS)
REQUIRED_TABLES = ("samples", "attempts", "graphs", "edges", "llm_calls")

#: Per-run columns, excluded from the table content hash (see the module docstring).
PROVENANCE_COLUMNS: dict[str, tuple[str, ...]] = {
    "llm_calls": ("cached", "latency_s", "attempts", "run_version"),
}

#: Deterministic row order of the published files (the content hash does not depend on it).
SORT_KEYS: dict[str, tuple[str, ...]] = {
    "samples": ("benchmark", "sample_id"),
    "attempts": ("benchmark", "graph_id", "cell_id", "attempt"),
    "cells": ("benchmark", "graph_id", "cell_id"),
    "llm_calls": ("benchmark", "call_id", "role", "run_version"),
    "graphs": ("benchmark", "graph_id"),
    "nodes": ("benchmark", "graph_id", "role", "intent_id"),
    "edges": ("benchmark", "graph_id", "src", "dst"),
    "graph_ledger": ("benchmark", "task_id"),
}


def table(name: str, rows: Iterable[BaseModel | dict[str, Any]]) -> pa.Table:
    """Rows (records, or dicts of their fields) as a table with the published schema; missing
    fields are null."""
    schema = SCHEMAS[name]
    dicts = [r.model_dump() if isinstance(r, BaseModel) else r for r in rows]
    return pa.Table.from_pylist([{f: d.get(f) for f in schema.names} for d in dicts], schema=schema)


def _hash_rows(encoded: list[str]) -> str:
    h = hashlib.sha256()
    for line in sorted(encoded):
        h.update(line.encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()


def row_json(row: dict[str, Any], skip: Iterable[str] = ()) -> str:
    """The canonical encoding of one row (sorted keys; ``skip`` columns left out)."""
    skip = set(skip)
    return canonical_json({k: v for k, v in row.items() if k not in skip})


def content_hash_table(name: str, tbl: pa.Table) -> str:
    """Content hash of a table: sha256 of its sorted canonical row encodings, provenance columns
    excluded. Independent of row order and of the Parquet bytes."""
    skip = PROVENANCE_COLUMNS.get(name, ())
    return _hash_rows([row_json(r, skip) for r in tbl.to_pylist()])
