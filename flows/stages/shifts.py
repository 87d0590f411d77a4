"""A sample's ``shift_options``: every child goal of its graph with its executed truth and the
line a user says when drifting to it."""

from __future__ import annotations

from miscue.canonical import canonical_json
from miscue.host import Adapter
from miscue.schema import IntentGraph, Operator, ShiftOption


def shift_options(adapter: Adapter, graph: IntentGraph) -> list[ShiftOption]:
    """Every child goal of ``graph`` with its executed truth and announcement."""
    return [
        ShiftOption(operator=e.operator.value, delta_json=canonical_json(e.delta), to_intent=c.intent.intent_id,
                    gt_hash=c.ground_truth.hash, gt_moved=e.gt_moved, announcement=announcement(adapter, graph, i))
        for i, (c, e) in enumerate(zip(graph.children, graph.edges))
    ]


def announcement(adapter: Adapter, graph: IntentGraph, child_index: int) -> str:
    """The user's scripted line when drifting to a child goal."""
    child, edge = graph.children[child_index], graph.edges[child_index]
    root = graph.root.intent
    if edge.operator == Operator.pivot:
        return f"Actually, I've changed my mind: I'd rather {adapter.request_phrase(child.intent)}."
    if edge.operator == Operator.relax:
        slots = [d["slot"] for d in edge.delta.get("removed", [])]
        return "Actually, " + " and ".join(adapter.slot_phrase(root, s) for s in slots) + " doesn't matter after all."
    if edge.operator == Operator.refine:
        parts = [f"{adapter.slot_phrase(child.intent, d['slot'])} needs to be "
                 f"{adapter.spoken_value(child.intent, d['slot'], d['value'])}"
                 for d in edge.delta.get("added", [])]
        return "Also, " + " and ".join(parts) + "."
    parts = [f"{adapter.slot_phrase(root, s)} {adapter.spoken_value(child.intent, s, new)} "
             f"instead of {adapter.spoken_value(root, s, old)}"
             for s, _op, old, new in edge.delta.get("changed", [])]
    return "Actually, make " + " and ".join(parts) + "."
