"""The Markdown datasheet of a corpus version, written from its manifest."""

from __future__ import annotations

from typing import Any


COLUMN_DOCS: dict[str, dict[str, str]] = {
    "samples": {
        "_": "One row per admitted sample: a request that carries the planned fault, "
             "verified by two extractors and by execution.",
        "sample_id": "content hash of graph, fault plan and request text",
        "benchmark": "host benchmark (e.g. tau2-retail)",
        "task_id": "the host task the true intent was lifted from",
        "graph_id": "the intent graph (graphs.graph_id)",
        "intent_id": "the true (root) intent",
        "k": "number of fault components (1 = single fault)",
        "fault_types": "the planned fault type(s)",
        "families": "their families (intention, premise, parameter, expression)",
        "targets": "target slot per component (null for whole-message / added-detail faults)",
        "query": "the opening request as the user says it",
        "conditions_json": "the true conditions (canonical JSON: slot, op, value)",
        "gt_kind": "ground-truth kind (database states for tau2)",
        "gt_hash": "hash of the ground-truth outcome set",
        "gt_value": "the acceptable outcomes (state hashes)",
        "shift_options": "the graph's children: operator, delta, target intent, its ground-truth hash, "
                         "whether the truth moved, a scripted announcement",
        "evidence_json": "the extractors' readings and the writer's materials (in rows carried over from a version of "
                         "the retired forms path: its blind and targeted outputs)",
        "readings_json": "the literal reading(s) executed for admission, with their outcomes",
        "readings_executed": "how many literal readings were executed (0 is never admitted)",
        "models_json": "model id per role",
        "card_version": "hash of the prompt card used by the writer",
        "attempt": "which attempt of the cell was admitted (0-based)",
        "split": "the host task's split",
    },
    "attempts": {
        "_": "The full ledger: every attempt of every planned cell, admitted or not, with a stable verdict code.",
        "cell_id": "the cell (graph x fault plan)",
        "attempt": "attempt index within the cell (0-based)",
        "query": "the request text the writer wrote (null when writing failed)",
        "materials_json": "the plan's materials given to the writer (target, wrong value, extra detail ...)",
        "blind_a": "the retired forms path's blind answer of extractor A; null except in rows carried over from a "
                   "version built on that path",
        "blind_b": "the same for extractor B",
        "targeted_a": "the retired forms path's targeted answer of extractor A; null except in such carried-over rows",
        "targeted_b": "the same for extractor B",
        "reading_a": "extractor A's reading of the text (per requirement a status, value, candidates and verbatim "
                     "quote; the operation, extras, off-topic passage, whether it asks), JSON",
        "reading_b": "extractor B's reading (null when A's already failed the plan), JSON",
        "readings_json": "literal readings executed for admission and their outcomes",
        "readings_executed": "number of literal readings executed",
        "truth_hash": "ground-truth hash of the true intent",
        "call_ids": "model exchanges of this attempt (llm_calls.call_id)",
        "card_version": "writer card hash",
        "admitted": "true when this attempt was admitted",
        "stage": "the stage that decided: plan, write, text, extract, agree, admit",
        "code": "stable verdict code, e.g. text:leaked_slot_name or admitted",
        "detail": "human-readable detail of the verdict",
    },
    "cells": {
        "_": "One row per (graph, fault type): admitted, rejected (no admitted attempt), "
             "skipped (not applicable to this intent) or unsupported (by this host).",
        "status": "admitted | rejected | skipped | unsupported",
        "code": "admitted, the last attempt's verdict code, or plan:<status>",
        "detail": "verdict detail or the skip / unsupported reason",
        "attempts_used": "attempts made for the cell",
        "sample_id": "the admitted sample (null otherwise)",
    },
    "llm_calls": {
        "_": "One row per model request issued by the pipeline (answered by a model or from the exchange store).",
        "call_id": "sha256 of the canonical request (model, messages, parameters, card version): the exchange store key",
        "role": "writer | extractor_a | extractor_b",
        "model": "litellm model string",
        "cached": "answered from the exchange store by this row's run (no model call). Provenance: not in the content hash",
        "prompt_tokens": "prompt tokens of the exchange",
        "completion_tokens": "completion tokens of the exchange",
        "cost": "cost in USD of the exchange (0 for the offline baselines)",
        "latency_s": "latency of the model call when it was made. Provenance",
        "attempts": "requests sent for the exchange, retries included. Provenance",
        "card_version": "card hash the request was rendered from",
        "fault_types": "fault types of the attempts that issued this request",
        "run_version": "the version whose run produced this row (carried-over rows keep their parent's). Provenance",
    },
    "graphs": {
        "_": "One row per intent graph: a host task's true intent and its executed alternatives.",
        "env_id": "environment identity (host data included)",
        "root_intent_id": "the true intent",
        "children": "number of child intents",
        "moved_edges": "edges whose ground truth differs from the root's",
        "refine": "children per operator", "relax": "children per operator",
        "substitute": "children per operator", "pivot": "children per operator",
        "root_gt_hash": "root ground-truth hash", "root_gt_size": "number of acceptable outcomes of the root",
        "config_hash": "hash of the graph-relevant configuration",
    },
    "nodes": {
        "_": "Every intent of every graph with its executed ground truth.",
        "role": "root | child", "is_seed": "the intent is a host task's own intent",
        "source_task": "task the intent came from", "base_json": "the non-negotiable frame",
        "conditions": "the conditions (slot, op, canonical JSON value)",
    },
    "edges": {
        "_": "Root -> child edges of each graph.",
        "src": "root intent", "dst": "child intent", "operator": "refine | relax | substitute | pivot",
        "delta_json": "what changed", "provenance": "real (another host task) | synthetic",
        "gt_moved": "the child's ground truth differs from the root's",
    },
    "graph_ledger": {
        "_": "One row per host task: whether it became a graph, and if not, why (Tasks in the report).",
        "status": "built | dropped | duplicate", "code": "stable code of the outcome",
    },
}


def datasheet(man: dict[str, Any]) -> str:
    """The Markdown datasheet of a version (from its manifest)."""
    models = man.get("models", {})
    offline = man.get("offline_baselines")
    extraction = ("one reading of the text by each of two extractors of different families (per requirement its "
                  "status, legal value, candidates and verbatim quote), checked by code (quotes found, values legal), "
                  "the fault derived from each reading by code")
    composites = "" if not man.get("config", {}).get("composite") else (
        " Composite draws (k faults in one request) are read the same way, once per extractor for all k components, "
        "each component a departure code derives from the reading; each is admitted on its own and the merged reading "
        "executed.")
    note = (man.get("regeneration") or {}).get("note")
    composites += f" Note: {note}." if note else ""
    lines = [
        f"# miscue corpus {man['version']}",
        "",
        f"Parent version: {man.get('parent') or 'none (a fresh build)'}. Created {man['created_at']}. "
        f"Code: `{man['code_version']}`. Configuration hash: `{man['config_hash'][:16]}`.",
        "",
        "## What this is",
        "",
        "Verified *miscommunicated* opening requests over executable agent benchmarks. Each admitted sample pairs a "
        "host task's true intent (an executable condition set whose ground truth was executed in the host's own "
        "environment) with a request written to carry exactly the planned communication fault, the evidence that two "
        "independent extractors recovered that fault, the evidence that executing the request's literal reading gives "
        "a different answer than the truth, and the intent graph of alternative goals with executed ground truth. "
        "Nothing in a sample's ground truth comes from a model.",
        "",
        "## How it was made",
        "",
        "load host tasks -> validate and lift to true intents -> build intent graphs (every node executed) -> plan one "
        "cell per graph and applicable fault type -> up to N attempts per cell: write, mechanical text checks, "
        f"{extraction}, agreement, executable admission of the literal reading -> publish (this directory) -> report. "
        "Every attempt is in `attempts` (with each extractor's reading); every model exchange in "
        f"`llm_calls`.{composites}",
        "",
        "Models: " + ", ".join(f"{role} `{m}`" for role, m in sorted(models.items())) + ".",
        "",
    ]
    if offline:
        lines += [
            "**The models are the embedded offline baselines** (`offline/...`): deterministic, CPU-only algorithms "
            "registered as a litellm provider so the pipeline runs with no keys. The writer realises each fault card's "
            "operation from the intent; the extractors are independent algorithms (cue and value matching vs. parsing "
            "the text into conditions). They are honest baselines for running and testing the pipeline, **not** a "
            "substitute for real models: their requests are templated and far less varied than human or LLM text, and "
            "their agreement and rejection rates say nothing about real models.",
            "",
        ]
    if man.get("regeneration"):
        r = man["regeneration"]
        lines += [f"This version regenerated fault type(s) {', '.join(r.get('fault_types', []))} for "
                  f"{', '.join(r.get('benchmarks', []))} from {man.get('parent')}; every other row was carried over "
                  "unchanged from the parent.", ""]
    lines += [
        "Rejection rates use the reference denominator: cells = graphs x applicable fault types; a cell is rejected "
        "when none of its attempts was admitted. Skipped (not applicable to the intent) and unsupported (by the host) "
        "cells are listed in `cells` but are not in the denominator.",
        "",
        "## Limits",
        "",
        "- Ground truth is what the host environment executes; host bugs are inherited (see DESIGN section 11).",
        "- A fault type a host cannot verify by execution is unsupported there, never admitted silently.",
        "- Single-fault cells (k = 1) only in this version unless `k` says otherwise.",
        "- Samples are as good as the models that wrote and checked them; see the models above.",
        "",
        "## Integrity",
        "",
        "`manifest.json` holds the sha256 of every file and the content hash of every table (sorted canonical rows; "
        "provenance columns excluded, listed per table). `miscue verify-corpus " + man["version"] + "` recomputes them.",
        "",
        "## Tables",
        "",
    ]
    for name, meta in man.get("tables", {}).items():
        docs = COLUMN_DOCS.get(name, {})
        lines += [f"### {name} ({meta['rows']} rows)", "", docs.get("_", ""), "", "| column | meaning |", "|---|---|"]
        shared = {**COLUMN_DOCS["samples"], **COLUMN_DOCS["attempts"]}
        for col in meta["columns"]:
            lines.append(f"| `{col}` | {docs.get(col) or shared.get(col, '')} |")
        lines.append("")
    return "\n".join(lines)
