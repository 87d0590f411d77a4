"""The generate-then-verify ledger as Parquet: cells, attempts, samples and model calls.

Every attempt is a row with a stable verdict code; every cell is admitted, rejected (with its
last verdict), skipped (not applicable, with the reason) or unsupported (with the reason).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from miscue.files import replaced_directory

_STR, _INT, _BOOL, _F = pa.string(), pa.int32(), pa.bool_(), pa.float64()
_STRS = pa.list_(pa.string())

SHIFT = pa.struct([("operator", _STR), ("delta_json", _STR), ("to_intent", _STR), ("gt_hash", _STR),
                   ("gt_moved", _BOOL), ("announcement", _STR)])

SCHEMAS: dict[str, pa.Schema] = {
    "cells": pa.schema([
        ("benchmark", _STR), ("task_id", _STR), ("graph_id", _STR), ("cell_id", _STR), ("k", _INT),
        ("fault_types", _STRS), ("status", _STR), ("code", _STR), ("detail", _STR), ("attempts_used", _INT),
        ("sample_id", _STR),
    ]),
    "attempts": pa.schema([
        ("benchmark", _STR), ("task_id", _STR), ("graph_id", _STR), ("cell_id", _STR), ("k", _INT),
        ("fault_types", _STRS), ("families", _STRS), ("targets", _STRS), ("attempt", _INT), ("text", _STR),
        ("materials_json", _STR), ("blind_a", _STR), ("blind_b", _STR), ("targeted_a", _STR), ("targeted_b", _STR),
        ("readings_json", _STR), ("readings_executed", _INT), ("truth_hash", _STR), ("call_ids", _STRS),
        ("card_version", _STR), ("admitted", _BOOL), ("stage", _STR), ("code", _STR), ("detail", _STR),
    ]),
    "samples": pa.schema([
        ("sample_id", _STR), ("benchmark", _STR), ("task_id", _STR), ("graph_id", _STR), ("intent_id", _STR),
        ("k", _INT), ("fault_types", _STRS), ("families", _STRS), ("targets", _STRS), ("query", _STR),
        ("conditions_json", _STR), ("gt_kind", _STR), ("gt_hash", _STR), ("gt_value", _STRS),
        ("shift_options", pa.list_(SHIFT)), ("evidence_json", _STR), ("readings_json", _STR),
        ("readings_executed", _INT), ("models_json", _STR), ("card_version", _STR), ("attempt", _INT), ("split", _STR),
    ]),
    "llm_calls": pa.schema([
        ("benchmark", _STR), ("call_id", _STR), ("role", _STR), ("model", _STR), ("cached", _BOOL),
        ("prompt_tokens", _INT), ("completion_tokens", _INT), ("cost", _F), ("latency_s", _F), ("attempts", _INT),
        ("card_version", _STR),
    ]),
}


def table(name: str, rows: list[dict[str, Any]]) -> pa.Table:
    schema = SCHEMAS[name]
    return pa.Table.from_pylist([{f: r.get(f) for f in schema.names} for r in rows], schema=schema)


def write_tables(tables: dict[str, list[dict[str, Any]]], directory: Path, summary: dict[str, Any] | None = None) -> Path:
    """Write the ledger tables into ``directory`` (replaced as a whole, atomically renamed)."""
    with replaced_directory(directory) as staging:
        for name, rows in tables.items():
            pq.write_table(table(name, rows), staging / f"{name}.parquet", compression="zstd")
        if summary is not None:
            (staging / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return Path(directory)
