"""Regeneration's carry-over rule: which rows of a parent version a regenerated child keeps."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

#: the tables whose rows belong to a fault type (the graph tables are carried over whole)
PER_TYPE_TABLES = ("cells", "attempts", "samples", "llm_calls")


def carried_over(parent: pa.Table, name: str, fault_type: str, scope: list[str]) -> pa.Table:
    """The parent's rows of table ``name`` that are carried over: everything except the
    regenerated type's rows of the benchmarks in ``scope`` (for ``llm_calls``: calls issued only
    by that type's attempts)."""
    in_scope = pc.is_in(parent.column("benchmark"), value_set=pa.array(scope, pa.string())).to_pylist()
    types = [set(t or ()) for t in parent.column("fault_types").to_pylist()]
    if name == "llm_calls":
        of_type = [bool(t) and t <= {fault_type} for t in types]
    else:
        of_type = [fault_type in t for t in types]
    keep = [not (s and t) for s, t in zip(in_scope, of_type)]
    return parent.filter(pa.array(keep, pa.bool_()))
