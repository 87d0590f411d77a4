"""A generate run's ledger as Parquet (``artifacts/runs/<benchmark>/``): cells, attempts, samples
and model calls, in the corpus tables' schemas (:mod:`miscue.corpus.tables`).

Every attempt is a row with a stable verdict code; every cell is admitted, rejected (with its
last verdict), skipped (not applicable, with the reason) or unsupported (with the reason).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import pyarrow.parquet as pq
from pydantic import BaseModel

from miscue.corpus.tables import table
from miscue.files import replaced_directory


def write_tables(tables: dict[str, Sequence[BaseModel]], directory: Path, summary: dict[str, Any] | None = None) -> Path:
    """Write the ledger tables into ``directory`` (replaced as a whole, atomically renamed)."""
    with replaced_directory(directory) as staging:
        for name, rows in tables.items():
            pq.write_table(table(name, rows), staging / f"{name}.parquet", compression="zstd")
        if summary is not None:
            (staging / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return Path(directory)
