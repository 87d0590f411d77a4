"""The stand-in-model dry run (issue 17): the exact prompts of a fixed set of single-fault cells,
answered by capable models standing in for real ones, run through the unchanged attempt pipeline.

The set: every fault type on each host, ``PER_TYPE`` cells per type (spread over the type's
planned cells in build order), attempt 0. Two rendering steps write the prompts under
``tests/data/dryrun/`` (see its README): the writer's prompts, then, once the stand-in writer's
replies are there, the reading form for those texts (one prompt per cell: readers A and B get
the same). Replies are keyed by the sha of the exact prompt they answer; a reply whose prompt
changed (a card edited, a brief replanned) is *stale* and named with its card versions.

A run puts one model mix behind the gateway the pipeline calls, nothing else: ``standin``
roles answer from the reply files, the others are the embedded offline models.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from miscue.flows.registry import adapter_for
from miscue.flows.stages.attempt import AttemptPipeline
from miscue.flows.stages.benchmark import offline_gateway
from miscue.flows.stages.single import SingleCell, SinglePlan
from miscue import stoppable, writing
from miscue.canonical import canonical_json
from miscue.graphs import GraphBuilder
from miscue.host import Adapter
from miscue.llm import Exchange, Gateway
from miscue.model_replies import parse_writer
from miscue.planning import CellPlan, Planner
from miscue.schema import Attempt, IntentGraph
from miscue.taxonomy import FAULT_TYPES

BENCHMARKS = ("tau2-retail", "tau2-airline", "webshop")
PER_TYPE = {"tau2-retail": 2, "tau2-airline": 2, "webshop": 1}
CELLS, WRITER_PROMPTS = "cells.jsonl", "prompts_writer.jsonl"
READ_PROMPTS = "prompts_read.jsonl"  # the reading form (DESIGN section 6): one prompt per cell, both readers
REPLIES = {"writer": "replies_writer.jsonl"}
READ_REPLIES = {"extractor_a": "replies_read_a.jsonl", "extractor_b": "replies_read_b.jsonl"}
BASELINE = "baseline_offline.json"


def prompt_sha(messages: list[dict[str, Any]]) -> str:
    """The identity of an exact prompt (what a reply answers)."""
    return hashlib.sha256(canonical_json(messages).encode("utf-8")).hexdigest()[:16]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> int:
    rows = list(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
    return len(rows)


@dataclass
class Cell:
    """One dry-run cell, planned on its host's built graph."""

    benchmark: str
    graph: IntentGraph
    plan: CellPlan
    planner: Planner

    @property
    def cell_id(self) -> str:
        return self.plan.cell_id

    def attempt_plan(self) -> SinglePlan:
        return SingleCell(self.graph, self.plan, self.planner, 1).plan(0)

    def record(self) -> dict[str, Any]:
        return {"cell_id": self.cell_id, "benchmark": self.benchmark, "task_id": self.graph.task_id,
                "graph_id": self.graph.graph_id, "fault_type": self.plan.fault_type}


@dataclass
class Host:
    adapter: Adapter
    graphs: dict[str, IntentGraph]
    planner: Planner


def load_hosts(benchmarks: Iterable[str] = BENCHMARKS) -> dict[str, Host]:
    out = {}
    for b in benchmarks:
        adapter = adapter_for(b)
        graphs = GraphBuilder(adapter).build().graphs
        out[b] = Host(adapter, {g.graph_id: g for g in graphs}, Planner(adapter))
    return out


def choose_cells(hosts: dict[str, Host], per_type: dict[str, int] = PER_TYPE) -> list[Cell]:
    """Every type on every host, ``per_type`` cells each, spread over its planned cells (each
    type from another starting graph)."""
    out = []
    for b, host in hosts.items():
        planned: dict[str, list[tuple[IntentGraph, CellPlan]]] = defaultdict(list)
        for g in host.graphs.values():
            for c in host.planner.cells(g, list(FAULT_TYPES)):
                if c.status == "planned":
                    planned[c.fault_type].append((g, c))
        for k, ft in enumerate(FAULT_TYPES):
            pool, n = planned.get(ft, []), per_type.get(b, 1)
            start = (k * len(pool)) // len(FAULT_TYPES)  # each type starts elsewhere: many graphs, many shapes
            for i in range(min(n, len(pool))):
                g, c = pool[(start + (i * len(pool)) // n) % len(pool)]
                out.append(Cell(b, g, c, host.planner))
    return out


def cells_from_file(hosts: dict[str, Host], rows: list[dict[str, Any]]) -> tuple[list[Cell], list[str]]:
    """The committed cells, replanned on today's graphs; the ids of those no longer planned."""
    out, gone = [], []
    for row in rows:
        host = hosts.get(row["benchmark"])
        graph = host.graphs.get(row["graph_id"]) if host else None
        plan = next((c for c in host.planner.cells(graph, [row["fault_type"]]) if c.status == "planned"), None) \
            if host and graph else None
        if plan is None or plan.cell_id != row["cell_id"]:
            gone.append(row["cell_id"])
        else:
            out.append(Cell(row["benchmark"], graph, plan, host.planner))  # type: ignore[union-attr,arg-type]
    return out, gone


# -- rendering ------------------------------------------------------------------------------------


def writer_prompt(cell: Cell) -> dict[str, Any]:
    messages, version = writing.render_writer(cell.attempt_plan().brief)
    return {**cell.record(), "role": "writer", "card_version": version, "prompt_sha": prompt_sha(messages),
            "messages": messages}


def reading_prompt(cell: Cell, host: Host, text: str) -> dict[str, Any]:
    """The reading form for the writer's ``text`` (the one prompt each extractor gets);
    ``text_check``: the mechanical check's code when the text fails it (no reader is asked)."""
    plan = cell.attempt_plan()
    assert plan.form is not None
    root = cell.graph.root
    verdict = plan.check_text(host.adapter, root.intent, root.ground_truth, text, None)  # type: ignore[arg-type]
    messages, version = writing.render_read(plan.extraction_input(text), plan.form)
    return {**cell.record(), "form": "read", "card_version": version, "prompt_sha": prompt_sha(messages),
            "text_check": verdict.code if verdict else None, "messages": messages}


def request_prompts(requests: list[dict[str, Any]], adapters: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The reading prompt of each given request (``id``, ``benchmark``, ``task_id``, ``text``): what
    ``miscue verify`` sends both extractors about a text it did not write (``adapters``: hosts to
    share with other runs)."""
    from miscue.flows.stages.verify import reading_input, task_intent

    out: list[dict[str, Any]] = []
    adapters = {} if adapters is None else adapters
    for row in requests:
        adapter = adapters.get(row["benchmark"]) or adapters.setdefault(row["benchmark"], adapter_for(row["benchmark"]))
        intent, _ = task_intent(adapter, row["task_id"])
        inp, form = reading_input(adapter, Planner(adapter), intent, row["text"])
        messages, version = writing.render_read(inp, form)
        out.append({"id": row["id"], "cell_id": row["id"], "form": "read", "card_version": version,
                    "prompt_sha": prompt_sha(messages), "messages": messages})
    return out


# -- replies --------------------------------------------------------------------------------------


@dataclass
class Replies:
    """One role's committed replies, keyed by prompt sha; the stale ones named."""

    role: str
    by_sha: dict[str, str] = field(default_factory=dict)
    stale: list[str] = field(default_factory=list)
    present: bool = False


def load_replies(role: str, current: dict[str, dict[str, Any]], data: Path, files: dict[str, str] = REPLIES) -> Replies:
    """``current``: today's prompts by (cell_id, form) -> their record (prompt_sha, card_version)."""
    path = data / files[role]
    out = Replies(role, present=path.is_file())
    for row in read_jsonl(path):
        key = (row["cell_id"], row.get("form", "writer"))
        now = current.get(key)  # type: ignore[call-overload]
        if now is None:
            out.stale.append(f"{row['cell_id']} {key[1]}: no such prompt any more (reply for card {row.get('card_version')})")
        elif now["prompt_sha"] != row["prompt_sha"]:
            why = (f"card {row.get('card_version')} -> {now['card_version']}" if row.get("card_version") != now["card_version"]
                   else f"same card {now['card_version']}, prompt {row['prompt_sha']} -> {now['prompt_sha']}")
            out.stale.append(f"{row['cell_id']} {now.get('fault_type', '')} {key[1]}: stale ({why})")
        else:
            out.by_sha[row["prompt_sha"]] = row["text"]
    return out


class StandInGateway:
    """The gateway the pipeline calls: ``standins`` roles answer from replies (an unknown prompt
    gets an empty reply: the pipeline's own verdict for a model that said nothing usable), the
    other roles go to the real (offline) gateway."""

    def __init__(self, real: Gateway, standins: dict[str, Replies]) -> None:
        self.real, self.standins, self.config = real, standins, real.config
        self.missing: Counter[str] = Counter()

    async def complete(self, role: str, messages: list[dict[str, Any]], card_version: str,
                       schema: dict[str, Any] | None = None) -> Exchange:
        replies = self.standins.get(role)
        if replies is None:
            return await self.real.complete(role, messages, card_version, schema)  # type: ignore[arg-type]
        sha = prompt_sha(messages)
        if sha not in replies.by_sha:
            self.missing[role] += 1
        return Exchange(call_id=f"standin:{role}:{sha}", role=role, model=f"standin/{role}", text=replies.by_sha.get(sha, ""))


@dataclass
class DryRun:
    """The committed cells replanned on today's graphs, and every role's replies checked against
    today's prompts (the reading prompts are rendered for the fresh writer replies)."""

    hosts: dict[str, Host]
    cells: list[Cell]
    gone: list[str]
    writer: Replies
    writer_prompts: dict[tuple[str, str], dict[str, Any]]
    read: dict[str, Replies] = field(default_factory=dict)  # the readers' replies, per extractor
    read_prompts: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    @property
    def stale(self) -> list[str]:
        return (self.writer.stale + [s for r in self.read.values() for s in r.stale]
                + [f"{c}: cell no longer planned" for c in self.gone])

    def writer_text(self, cell: Cell) -> str | None:
        sha = self.writer_prompts[(cell.cell_id, "writer")]["prompt_sha"]
        return parse_writer(self.writer.by_sha[sha]) if sha in self.writer.by_sha else None


def load(data: Path, hosts: dict[str, Host] | None = None) -> DryRun:
    hosts = hosts or load_hosts()
    cells, gone = cells_from_file(hosts, read_jsonl(data / CELLS))
    writer_now = {(p["cell_id"], "writer"): p for p in (writer_prompt(c) for c in cells)}
    writer = load_replies("writer", writer_now, data)
    run = DryRun(hosts, cells, gone, writer, writer_now)
    for cell in cells:
        text = run.writer_text(cell)
        if text is not None:
            p = reading_prompt(cell, hosts[cell.benchmark], text)
            run.read_prompts[(p["cell_id"], p["form"])] = p
    run.read = {role: load_replies(role, run.read_prompts, data, READ_REPLIES) for role in READ_REPLIES}
    return run


# -- runs -----------------------------------------------------------------------------------------


async def _run_cells(cells: list[Cell], hosts: dict[str, Host], gateway: Any) -> list[Attempt]:
    rows = []
    for cell in cells:
        pipeline = AttemptPipeline(hosts[cell.benchmark].adapter, gateway)
        _, attempts, _ = await pipeline.cell(SingleCell(cell.graph, cell.plan, cell.planner, 1))
        rows += attempts
    return rows


def run_mode(cells: list[Cell], hosts: dict[str, Host], store: Path, standins: dict[str, Replies]) -> list[Attempt]:
    """Attempt 0 of every cell, with ``standins`` roles answered from the reply files (the writer's,
    and the readers' answers to the reading form)."""
    gateway = StandInGateway(offline_gateway(store), standins)
    return stoppable.run(_run_cells(cells, hosts, gateway))


def per_type(rows: list[Attempt]) -> dict[str, tuple[int, int]]:
    """fault type -> (admitted, cells)."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        out[r.fault_types[0]][1] += 1
        out[r.fault_types[0]][0] += int(bool(r.admitted))
    return {t: (a, n) for t, (a, n) in sorted(out.items())}


def table(modes: dict[str, list[Attempt]]) -> str:
    """The per-type admission table (one column per mode) and every rejection in one line."""
    types = sorted({r.fault_types[0] for rows in modes.values() for r in rows})
    counts = {m: per_type(rows) for m, rows in modes.items()}
    lines = ["| type | " + " | ".join(modes) + " |", "|---|" + "---|" * len(modes)]
    for t in types:
        lines.append(f"| {t} | " + " | ".join("{}/{}".format(*counts[m].get(t, (0, 0))) for m in modes) + " |")
    total = {m: (sum(a for a, _ in c.values()), sum(n for _, n in c.values())) for m, c in counts.items()}
    lines.append("| **all** | " + " | ".join(f"{a}/{n} ({100 * a / max(n, 1):.0f}%)" for a, n in total.values()) + " |")
    for m, rows in modes.items():
        for r in rows:
            if not r.admitted:
                lines.append(f"- ({m}) {r.benchmark} {r.fault_types[0]} {r.cell_id[:10]}: {r.code} {(r.detail or '')[:120]}")
    return "\n".join(lines)


def rate(rows: list[Attempt]) -> float:
    return sum(1 for r in rows if r.admitted) / max(len(rows), 1)


def baseline_record(rows: list[Attempt]) -> dict[str, Any]:
    counts = per_type(rows)
    return {"admitted": sum(a for a, _ in counts.values()), "cells": len(rows),
            "per_type": {t: a for t, (a, _) in counts.items()}}


# -- the verifier on labelled requests with stand-in readers (issue 39) ----------------------------


def labelled_replies(rows: list[dict[str, Any]], data: Path, files: dict[str, str],
                     adapters: dict[str, Any] | None = None) -> dict[str, Replies]:
    """The committed reading replies (per extractor role, ``files``) for the labelled requests
    ``rows``, checked against today's reading prompts of those requests."""
    current = {(p["id"], "read"): p for p in request_prompts(rows, adapters)}
    return {role: load_replies(role, current, data, files) for role in files}


def evaluate_with(items: list[Any], standins: dict[str, Replies] | None, store: Path,
                  concurrency: int = 4, adapters: dict[str, Any] | None = None) -> tuple[Any, Counter[str]]:
    """``miscue eval-verifier`` on ``items`` (:class:`~miscue.flows.stages.evaluate.LabelledRequest`)
    with ``standins`` answering as extractors A and B (None: the offline readers), and how many
    prompts each stand-in had no reply for (``adapters``: hosts to share with another run)."""
    import asyncio

    from miscue.flows.stages.evaluate import evaluate

    real = offline_gateway(store)
    gateway = StandInGateway(real, standins) if standins is not None else real
    result = asyncio.run(evaluate(items, gateway, concurrency=concurrency, adapters=adapters))  # type: ignore[arg-type]
    return result, gateway.missing if isinstance(gateway, StandInGateway) else Counter()
