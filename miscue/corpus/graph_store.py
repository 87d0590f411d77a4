"""Intent graphs and the graph-stage ledger as Parquet (``artifacts/graphs/<benchmark>/``).

Condition values and ground-truth outcomes are stored in their canonical JSON encoding (JSON
keeps numbers as numbers); DuckDB reads them with its JSON functions.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from pydantic import BaseModel

from miscue.canonical import canonical_json
from miscue.corpus.tables import table
from miscue.errors import CorpusError
from miscue.files import replaced_directory
from miscue.graphs import OPERATOR_ORDER, GraphBuild
from miscue.schema import Condition, ConditionRow, EdgeRow, GraphRow, GroundTruth, Intent, IntentGraph, Node, NodeRow

#: file name -> corpus table whose schema it has (the graph-stage ledger is ``graph_ledger``)
FILES = {"graphs": "graphs", "nodes": "nodes", "edges": "edges", "ledger": "graph_ledger"}


def _node_row(graph: IntentGraph, node: Node, role: str) -> NodeRow:
    intent: Intent = node.intent
    return NodeRow(
        graph_id=graph.graph_id, intent_id=intent.intent_id, role=role, is_seed=node.is_seed,  # type: ignore[arg-type]
        source_task=node.source_task, benchmark=intent.benchmark, adapter=intent.adapter, env_id=intent.env_id,
        base_json=canonical_json(intent.base),
        conditions=[ConditionRow(slot=c.slot, op=c.op, value_json=canonical_json(c.value)) for c in intent.conditions],
        gt_kind=node.ground_truth.kind, gt_hash=node.ground_truth.hash, gt_value=list(node.ground_truth.value),
    )


def rows(build: GraphBuild) -> dict[str, list[BaseModel]]:
    """The four graph tables' rows, keyed by file name (see :data:`FILES`)."""
    out: dict[str, list[BaseModel]] = {name: [] for name in FILES}
    for g in build.graphs:
        ops = {op.value: sum(1 for e in g.edges if e.operator == op) for op in OPERATOR_ORDER}
        out["graphs"].append(GraphRow(
            graph_id=g.graph_id, benchmark=g.benchmark, env_id=g.env_id, task_id=g.task_id,
            root_intent_id=g.root.intent.intent_id, children=len(g.children),
            moved_edges=sum(1 for e in g.edges if e.gt_moved), **ops,
            root_gt_hash=g.root.ground_truth.hash, root_gt_size=len(g.root.ground_truth.value),
            config_hash=g.config_hash,
        ))
        out["nodes"].append(_node_row(g, g.root, "root"))
        out["nodes"].extend(_node_row(g, c, "child") for c in g.children)
        out["edges"].extend(
            EdgeRow(graph_id=g.graph_id, src=e.src, dst=e.dst, operator=e.operator.value,
                    delta_json=canonical_json(e.delta), provenance=e.provenance.value, gt_moved=e.gt_moved,
                    benchmark=g.benchmark)
            for e in g.edges
        )
    out["ledger"] = list(build.ledger)
    return out


def write(build: GraphBuild, directory: Path) -> Path:
    """Write the four tables and a summary; the directory is replaced as a whole."""
    with replaced_directory(directory) as staging:
        for name, table_rows in rows(build).items():
            pq.write_table(table(FILES[name], table_rows), staging / f"{name}.parquet", compression="zstd")
        (staging / "summary.json").write_text(json.dumps(build.summary(), indent=1, sort_keys=True) + "\n")
    return Path(directory)


def read_nodes(directory: Path) -> list[tuple[str, Intent, GroundTruth]]:
    """(graph_id, intent, stored ground truth) for every stored node; intent ids are re-derived."""
    path = Path(directory) / "nodes.parquet"
    if not path.exists():
        raise CorpusError(f"{path} does not exist: build the graphs first (miscue graphs --benchmark ...)")
    out = []
    for r in pq.read_table(path).to_pylist():
        intent = Intent(
            benchmark=r["benchmark"], adapter=r["adapter"], env_id=r["env_id"], base=json.loads(r["base_json"]),
            conditions=tuple(Condition(slot=c["slot"], op=c["op"], value=json.loads(c["value_json"])) for c in r["conditions"]),
        )
        if intent.intent_id != r["intent_id"]:
            raise CorpusError(f"{path}: node {r['intent_id']} does not hash to its stored id ({intent.intent_id})")
        truth = GroundTruth(kind=r["gt_kind"], value=tuple(r["gt_value"]), hash=r["gt_hash"])
        if GroundTruth.of(truth.kind, truth.value).hash != truth.hash:
            raise CorpusError(f"{path}: node {r['intent_id']} ground truth does not hash to its stored hash")
        out.append((r["graph_id"], intent, truth))
    return out
