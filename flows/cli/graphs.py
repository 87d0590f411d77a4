"""``miscue graphs``: build (and check) the intent graphs of each benchmark."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from miscue.flows.cli.app import ARTIFACTS, AS_JSON, QUIET, app, clip, err, exit_codes, out
from miscue.flows.cli.progress import progress, progress_mode
from miscue.flows.stages.benchmark import report_progress
from miscue.flows.registry import ADAPTERS, HostOptions, adapter_for
from miscue.graphs import GraphBuilder
from miscue.requirements import audit


def load_host(benchmark: str, options: HostOptions):
    """The benchmark's adapter; while it streams its data (WebShop's files) it reports the MB read."""
    label = f"reading {benchmark} (MB)"
    return adapter_for(benchmark, HostOptions(options.webshop_data,
                                              lambda done, total: report_progress(label, done >> 20, total >> 20)))


def build_graphs(benchmark: str, artifacts: Path, options: HostOptions = HostOptions()) -> dict[str, Any]:
    """Build one benchmark's graphs into ``artifacts/graphs/<benchmark>/``; returns the summary."""
    started = time.perf_counter()
    adapter = load_host(benchmark, options)
    builder = GraphBuilder(adapter)
    seeds, done = len(adapter.load_seeds()), 0

    def tick(_task_id: str) -> None:
        nonlocal done
        done += 1
        report_progress(f"graphs {benchmark}", done, seeds)

    build = builder.build(progress=tick)
    from miscue.corpus import graph_store  # Parquet: imported by the commands that write or read graphs

    directory = graph_store.write(build, artifacts / "graphs" / benchmark)
    summary = build.summary()
    summary["requirements"] = audit.counts(build.ledger)
    summary["tasks_audit"] = audit.task_rows(build.ledger)
    summary["seconds"] = round(time.perf_counter() - started, 2)
    summary["directory"] = str(directory)
    return summary


def check_graphs(benchmark: str, artifacts: Path, options: HostOptions = HostOptions()) -> dict[str, Any]:
    """Re-execute every stored node with a fresh adapter and compare ground-truth hashes."""
    adapter = adapter_for(benchmark, options)
    from miscue.corpus import graph_store

    nodes = graph_store.read_nodes(artifacts / "graphs" / benchmark)
    mismatches = [
        {"graph_id": gid, "intent_id": intent.intent_id, "stored": truth.hash, "now": now.hash}
        for gid, intent, truth in nodes
        if (now := adapter.reexecute(intent)).hash != truth.hash
    ]
    return {"benchmark": benchmark, "nodes_checked": len(nodes), "mismatches": mismatches}


def _summary_table(s: dict[str, Any]) -> Table:
    t = Table(title=f"intent graphs: {s['benchmark']}", show_header=True)
    t.add_column("measure")
    t.add_column("value", justify="right")
    t.add_row("tasks", str(s["tasks"]))
    t.add_row("validated seeds", str(s["validated_seeds"]))
    t.add_row("graphs", str(s["graphs"]))
    for code, n in s["drops"].items():
        t.add_row(f"dropped: {code}", str(n))
    for op, n in s["children_per_operator"].items():
        t.add_row(f"children: {op}", str(n))
    provenance = s["children_by_provenance"]
    t.add_row("children (real / synthetic)", f"{provenance.get('real', 0)} / {provenance.get('synthetic', 0)}")
    t.add_row("moved edges", f"{s['moved_edges']} of {s['children']}")
    req = s.get("requirements", {})
    if req:
        t.add_row("requirements: tasks settled (changed)", f"{req.get('tasks', 0)} ({req.get('tasks_changed', 0)})")
        t.add_row("requirements before / after", f"{req.get('before.conditions', 0)} / {req.get('after.conditions', 0)}")
        t.add_row("neither necessary nor stated: before / after",
                  f"{req.get('before.neither', 0)} / {req.get('after.neither', 0)}")
    if "check" in s:
        c = s["check"]
        t.add_row("check: nodes re-executed", str(c["nodes_checked"]))
        t.add_row("check: hash mismatches", str(len(c["mismatches"])))
    t.add_row("seconds", str(s["seconds"]))
    return t


def _audit_tables(s: dict[str, Any]) -> list[Table]:
    """The intent audit: per-host counts before/after, then every settled task's conditions."""
    req = s["requirements"]
    counts = Table(title=f"intent audit: {s['benchmark']} (conditions as lifted -> as settled)")
    for col in ("", "conditions", "necessary", "stated", "stated only", "neither"):
        counts.add_column(col, justify="right" if col else "left")
    for when in ("before", "after"):
        counts.add_row(when, *(str(req.get(f"{when}.{k}", 0))
                               for k in ("conditions", "necessary", "stated", "stated_only", "neither")))
    statuses = ", ".join(f"{k.split('.', 1)[1]} {v}" for k, v in req.items() if k.startswith("status."))
    counts.caption = (f"{req.get('tasks', 0)} tasks, {req.get('tasks_changed', 0)} changed; conditions: {statuses}; "
                      f"notes {req.get('notes', 0)} on {req.get('tasks_with_notes', 0)} tasks")
    per_task = Table(title=f"requirements per task: {s['benchmark']}", show_lines=False)
    for col in ("task", "status", "requirement", "necessary", "instructions", "why"):
        per_task.add_column(col, overflow="fold")
    for task in s["tasks_audit"]:
        for i, r in enumerate(task["requirements"]):
            cond = f"{r['slot']} {r['op']} {clip(r['value_json'], 60)}"
            nec = {True: "yes", False: "no", None: "-"}[r["necessary"]]
            said = r["instruction"] + (f" ({clip(r['said'], 40)})" if r["said"] else "")
            per_task.add_row(task["task_id"] if i == 0 else "", r["status"], cond, nec, said, r["reason"])
        for note in task["notes"]:
            per_task.add_row("", "note", note, "", "", "")
    return [per_task, counts]


@app.command()
def graphs(
    benchmark: list[str] = typer.Option(list(ADAPTERS), "--benchmark", "-b", help=f"one of: {', '.join(ADAPTERS)} (repeatable)"),
    as_json: bool = AS_JSON,
    check: bool = typer.Option(False, "--check", help="re-execute every node and fail if any hash differs"),
    webshop_data: Path = typer.Option(None, "--webshop-data", file_okay=False,
                                      help="WebShop's data directory (items_shuffle*.json, items_ins_v2*.json, "
                                           "items_human_ins.json); default: $MISCUE_WEBSHOP_DATA, else the shipped catalogue"),
    show_audit: bool = typer.Option(False, "--audit", help="print the intent audit: each task's requirements, which are "
                                    "necessary or stated in its instructions, what was dropped or relaxed and why"),
    quiet: bool = QUIET,
    artifacts: Path = ARTIFACTS,
) -> None:
    """Build intent graphs (and the graph-stage ledger) of each benchmark."""
    results = []
    failed = False
    options = HostOptions(webshop_data=webshop_data)
    for bench in benchmark:
        with exit_codes(), progress(progress_mode(quiet, as_json)):
            summary = build_graphs(bench, artifacts, options=options)
            if check:
                summary["check"] = check_graphs(bench, artifacts, options)
                failed |= bool(summary["check"]["mismatches"])
        if not show_audit:
            summary.pop("tasks_audit")
        results.append(summary)
        if not as_json:
            if show_audit:
                for table in _audit_tables(summary):
                    out.print(table)
            out.print(_summary_table(summary))
    if as_json:
        out.print_json(json.dumps(results[0] if len(results) == 1 else {"benchmarks": results}))
    if failed:
        err.print("[bold red]check failed:[/] re-executed ground truth differs from the stored hashes")
        raise typer.Exit(1)
