"""Synthetic corpus rows that follow miscue.ledger / miscue.corpus SCHEMAS (fast tests).

Two benchmarks; ``bench-a`` has 3 tasks -> 2 graphs, ``bench-b`` 2 tasks -> 1 graph. Fault
types factual_error and vagueness_subjectivity, plus one unsupported and one skipped cell. The
expected report numbers are in :data:`EXPECTED`.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from miscue import corpus

FE, VS, TM = "factual_error", "vagueness_subjectivity", "tool_capability_mismatch"


def _cell(b: str, g: str, ft: str, status: str, code: str, detail: str = "", used: int = 0,
          sample: str | None = None) -> dict[str, Any]:
    return {"benchmark": b, "task_id": g.split("-")[-1], "graph_id": g, "cell_id": f"{g}-{ft}", "k": 1,
            "fault_types": [ft], "status": status, "code": code, "detail": detail, "attempts_used": used, "sample_id": sample}


def _attempt(b: str, g: str, ft: str, i: int, admitted: bool, stage: str, code: str, calls: list[str],
             both: bool) -> dict[str, Any]:
    fam = "premise" if ft == FE else "expression"
    return {"benchmark": b, "task_id": g.split("-")[-1], "graph_id": g, "cell_id": f"{g}-{ft}", "k": 1, "fault_types": [ft],
            "families": [fam], "targets": ["slot"], "attempt": i, "query": f"text {g} {ft} {i}", "materials_json": "{}",
            "blind_a": '{"flaw":"x"}', "blind_b": '{"flaw":"x"}' if both else None, "targeted_a": None, "targeted_b": None,
            "readings_json": "[]", "readings_executed": 1 if admitted else 0, "truth_hash": "t" + g, "call_ids": calls,
            "card_version": "card1", "admitted": admitted, "stage": stage, "code": code, "detail": ""}


def _call(b: str, cid: str, role: str, ft: str, cached: bool = False) -> dict[str, Any]:
    return {"benchmark": b, "call_id": cid, "role": role, "model": f"offline/{role}", "cached": cached,
            "prompt_tokens": 10, "completion_tokens": 5, "cost": 0.001, "latency_s": 0.01, "attempts": 1,
            "card_version": "card1", "fault_types": [ft], "run_version": None}


def _sample(b: str, g: str, ft: str, sid: str, attempt: int) -> dict[str, Any]:
    return {"sample_id": sid, "benchmark": b, "task_id": g.split("-")[-1], "graph_id": g, "intent_id": "i" + g, "k": 1,
            "fault_types": [ft], "families": ["premise" if ft == FE else "expression"], "targets": ["slot"],
            "query": f"I'd like {g} with a flaw", "conditions_json": '[{"op":"=","slot":"slot","value":1}]',
            "gt_kind": "states", "gt_hash": "h" + g, "gt_value": ["s1"],
            "shift_options": [{"operator": "relax", "delta_json": "{}", "to_intent": "c" + g, "gt_hash": "x",
                               "gt_moved": True, "announcement": "Actually, never mind the colour."}],
            "evidence_json": "{}", "readings_json": "[]", "readings_executed": 1,
            "models_json": '{"writer":"offline/writer"}', "card_version": "card1", "attempt": attempt, "split": "test"}


def rows() -> dict[str, list[dict[str, Any]]]:
    a1, a2, b1 = "bench-a-g1", "bench-a-g2", "bench-b-g1"
    cells = [
        _cell("bench-a", a1, FE, "admitted", "admitted", used=2, sample="s1"),
        _cell("bench-a", a1, VS, "rejected", "text:too_long", used=2),
        _cell("bench-a", a2, FE, "admitted", "admitted", used=1, sample="s2"),
        _cell("bench-a", a2, VS, "skipped", "plan:skipped", "too_few_conditions"),
        _cell("bench-b", b1, FE, "admitted", "admitted", used=1, sample="s3"),
        _cell("bench-b", b1, TM, "unsupported", "plan:unsupported", "no executable mismatch in this host"),
    ]
    attempts = [
        _attempt("bench-a", a1, FE, 0, False, "agree", "agree:stated_value_mismatch", ["c1", "c2", "c3"], True),
        _attempt("bench-a", a1, FE, 1, True, "admit", "admitted", ["c4", "c5", "c6"], True),
        _attempt("bench-a", a1, VS, 0, False, "text", "text:too_long", ["c7"], False),
        _attempt("bench-a", a1, VS, 1, False, "text", "text:too_long", ["c8"], False),
        _attempt("bench-a", a2, FE, 0, True, "admit", "admitted", ["c9", "c10", "c11"], True),
        _attempt("bench-b", b1, FE, 0, True, "admit", "admitted", ["d1", "d2", "d3"], True),
    ]
    roles = ("writer", "lexical", "parse")
    calls = []
    for a in attempts:
        for i, cid in enumerate(a["call_ids"]):
            calls.append(_call(a["benchmark"], cid, roles[i % 3], a["fault_types"][0]))
    samples = [_sample("bench-a", a1, FE, "s1", 1), _sample("bench-a", a2, FE, "s2", 0), _sample("bench-b", b1, FE, "s3", 0)]
    graphs, nodes, edges, ledger = [], [], [], []
    for b, g in (("bench-a", a1), ("bench-a", a2), ("bench-b", b1)):
        graphs.append({"graph_id": g, "benchmark": b, "env_id": "env-" + b, "task_id": g.split("-")[-1],
                       "root_intent_id": "i" + g,
                       "children": 1, "moved_edges": 1, "refine": 0, "relax": 1, "substitute": 0, "pivot": 0,
                       "root_gt_hash": "h" + g, "root_gt_size": 1, "config_hash": "cfg"})
        for role, iid in (("root", "i" + g), ("child", "c" + g)):
            nodes.append({"graph_id": g, "intent_id": iid, "role": role, "is_seed": role == "root",
                          "source_task": g.split("-")[-1],
                          "benchmark": b, "adapter": "synthetic@1", "env_id": "env-" + b, "base_json": "{}",
                          "conditions": [{"slot": "slot", "op": "=", "value_json": "1"}], "gt_kind": "states",
                          "gt_hash": "h" + iid, "gt_value": ["s1"]})
        edges.append({"graph_id": g, "src": "i" + g, "dst": "c" + g, "operator": "relax", "delta_json": "{}",
                      "provenance": "synthetic", "gt_moved": True, "benchmark": b})
    for b, tasks in (("bench-a", ("g1", "g2", "g3")), ("bench-b", ("g1", "g2"))):
        for t in tasks:
            built = f"{b}-{t}" in (a1, a2, b1)
            ledger.append({"benchmark": b, "task_id": t, "status": "built" if built else "dropped",
                           "code": "built" if built else "seed:no_write_actions", "detail": "",
                           "graph_id": f"{b}-{t}" if built else None, "intent_id": None, "children": 1 if built else 0,
                           "moved_edges": 1 if built else 0})
    return {"cells": cells, "attempts": attempts, "samples": samples, "llm_calls": calls,
            "graphs": graphs, "nodes": nodes, "edges": edges, "graph_ledger": ledger}


def tables() -> dict[str, pa.Table]:
    return {name: corpus.table(name, r) for name, r in rows().items()}


EXPECTED = {
    # benchmark: (tasks, graphs, cells, rejection rate, samples)
    "bench-a": (3, 2, 3, round(1 / 3, 4), 2),
    "bench-b": (2, 1, 1, 0.0, 1),
    "all": (5, 3, 4, 0.25, 3),
}

MODELS = {"writer": "offline/writer", "extractor_a": "offline/lexical", "extractor_b": "offline/parse"}


def publish(artifacts: Any, parent: str | None = None, tbls: dict[str, pa.Table] | None = None, **kw: Any) -> str:
    return corpus.publish(tbls or tables(), artifacts=artifacts, parent=parent, config={"benchmarks": ["bench-a", "bench-b"]},
                          code_version="test", input_hashes={"bench-a": {"f": "0" * 64}}, models=MODELS,
                          card_versions={FE: "card1"}, **kw)
