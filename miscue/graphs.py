"""Intent graphs (DESIGN section 5): validated retrieval first, synthesis to fill gaps.

Every node's ground truth is executed by the adapter; the consistency battery runs on every
graph and its failures are verdicts; every task ends in the graph-stage ledger with a reason.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable


from miscue.canonical import canonical_json
from miscue.config import GraphConfig
from miscue.host import Adapter, NotExecutable
from miscue.requirements.necessity import outcome_change
from miscue.schema import (
    Condition,
    Edge,
    GraphLedgerEntry,
    GroundTruth,
    Intent,
    IntentGraph,
    Node,
    Operator,
    Provenance,
)

OPERATOR_ORDER = tuple(Operator)  # refine, relax, substitute, pivot


def classify(parent: Intent, child: Intent) -> tuple[Operator, dict[str, Any]] | None:
    """Condition-set algebra: which branch ``child`` is of ``parent`` (None: not a branch)."""
    if parent.env_id != child.env_id:
        return None
    if parent.base != child.base:
        return Operator.pivot, {"pivot_to": child.base}
    a = {c.key: c for c in parent.conditions}
    b = {c.key: c for c in child.conditions}
    if a.keys() == b.keys():
        return None
    if a.keys() < b.keys():
        return Operator.refine, {"added": [b[k].model_dump() for k in sorted(b.keys() - a.keys())]}
    if b.keys() < a.keys():
        return Operator.relax, {"removed": [a[k].model_dump() for k in sorted(a.keys() - b.keys())]}
    slots_a = {(c.slot, c.op): c for c in parent.conditions}
    slots_b = {(c.slot, c.op): c for c in child.conditions}
    if slots_a.keys() == slots_b.keys():
        changed = [
            [s, op, slots_a[(s, op)].value, slots_b[(s, op)].value]
            for (s, op) in sorted(slots_a)
            if slots_a[(s, op)].key != slots_b[(s, op)].key
        ]
        return Operator.substitute, {"changed": changed}
    return None


@dataclass
class Candidate:
    intent: Intent
    operator: Operator
    delta: dict[str, Any]
    provenance: Provenance
    source_task: str | None = None
    truth: GroundTruth | None = None


@dataclass
class GraphBuild:
    benchmark: str
    graphs: list[IntentGraph]
    ledger: list[GraphLedgerEntry]
    candidate_rejections: Counter = field(default_factory=Counter)

    def summary(self) -> dict[str, Any]:
        drops = Counter(e.code for e in self.ledger if e.status != "built")
        per_op = Counter(e.operator.value for g in self.graphs for e in g.edges)
        prov = Counter(e.provenance.value for g in self.graphs for e in g.edges)
        return {
            "benchmark": self.benchmark,
            "tasks": len(self.ledger),
            "validated_seeds": sum(1 for e in self.ledger if e.status == "built" or e.code.startswith(("graph:", "duplicate:"))),
            "graphs": len(self.graphs),
            "drops": dict(sorted(drops.items())),
            "children_per_operator": {op.value: per_op.get(op.value, 0) for op in OPERATOR_ORDER},
            "children_by_provenance": dict(sorted(prov.items())),
            "children": sum(len(g.children) for g in self.graphs),
            "moved_edges": sum(1 for g in self.graphs for e in g.edges if e.gt_moved),
            "candidate_rejections": dict(sorted(self.candidate_rejections.items())),
        }


class GraphBuilder:
    """Builds the intent graphs of one adapter's environment."""

    def __init__(self, adapter: Adapter, config: GraphConfig | None = None) -> None:
        self.adapter = adapter
        slice_ = list(adapter.task_slice) if adapter.task_slice is not None else None
        self.config = config or GraphConfig(**adapter.graph_config(), tasks=slice_)
        self.config_hash = self.config.config_hash(adapter.adapter_id)
        self._truths: dict[str, GroundTruth] = {}
        self.rejections: Counter = Counter()
        self._stated: dict[str, frozenset[str]] = {}  # root intent id -> slots its instructions state

    # ---------------------------------------------------------------- requirements
    def _needless(self, cand: Candidate, exempt: frozenset[str]) -> str | None:
        """A condition of the candidate whose removal leaves its ground truth unchanged (None: every
        one is needed, or stated by the root's instructions). Issue 16: a node asks only for what
        its outcome needs."""
        assert cand.truth is not None
        for cond in cand.intent.conditions:
            if cond.slot in exempt:
                continue
            without = cand.intent.replace(conditions=[c for c in cand.intent.conditions if c.key != cond.key])
            known = self._truths.get(without.intent_id)
            if known is not None and known.hash != cand.truth.hash:
                continue
            if outcome_change(self.adapter, without, cand.truth) is None:
                return cond.slot
        return None

    # ------------------------------------------------------------------ ground truth
    def truth(self, intent: Intent) -> GroundTruth:
        if intent.intent_id not in self._truths:
            self._truths[intent.intent_id] = self.adapter.ground_truth(intent)
        return self._truths[intent.intent_id]

    # -------------------------------------------------------------------- candidates
    def _synthesise(self, root: Intent, truth: GroundTruth, op: Operator) -> list[Candidate]:
        cap = self.config.max_synthetic_per_operator
        out: list[Candidate] = []
        if op == Operator.relax and len(root.conditions) > 1:
            for cond in root.conditions:
                child = root.without(cond.slot)
                out.append(Candidate(child, op, {"removed": [cond.model_dump()]}, Provenance.synthetic))
        elif op == Operator.refine:
            witnesses = self.adapter.witnesses(root, truth)
            if len(witnesses) >= 2:
                held = Counter(canonical_json([s, v]) for w in witnesses for s, v in w.items())
                present = {c.slot for c in root.conditions}
                props = []
                for w in witnesses:
                    for slot, value in w.items():
                        n = held[canonical_json([slot, value])]
                        if slot not in present and 0 < n < len(witnesses):
                            props.append((-n, canonical_json([slot, value]), slot, value))
                for _, _, slot, value in sorted(set((a, b, c, canonical_json(d)) for a, b, c, d in props)):
                    cond = Condition(slot=slot, value=json.loads(value))
                    out.append(Candidate(root.with_condition(cond), op, {"added": [cond.model_dump()]}, Provenance.synthetic))
        elif op == Operator.substitute:
            for cond in root.conditions:
                for value in self.adapter.domain(root, cond.slot):
                    new = cond.with_value(value)
                    delta = {"changed": [[cond.slot, cond.op, cond.value, value]]}
                    out.append(Candidate(root.with_condition(new), op, delta, Provenance.synthetic))
        return out[:cap]

    def _evaluate(self, root: Intent, truth: GroundTruth, cand: Candidate) -> Candidate | None:
        """Execute a candidate; None (and a counted reason) when it cannot be a child."""
        if cand.provenance == Provenance.synthetic:
            reason = self.adapter.invalid_reason(cand.intent)
            if reason:
                self.rejections[f"candidate:{reason}"] += 1
                return None
        try:
            gt = self.truth(cand.intent)
        except NotExecutable as exc:
            self.rejections[f"candidate:{exc.code}"] += 1
            return None
        if gt.empty:
            self.rejections["candidate:empty_answer"] += 1
            return None
        if cand.operator == Operator.refine and not gt.issubset(truth):
            self.rejections["candidate:refine_not_narrower"] += 1
            return None
        if cand.operator == Operator.relax and not gt.issuperset(truth):
            self.rejections["candidate:relax_not_wider"] += 1
            return None
        if cand.operator == Operator.substitute and gt.hash == truth.hash:
            self.rejections["candidate:shift_invisible"] += 1  # the oracle cannot tell it apart
            return None
        cand.truth = gt
        return cand

    @staticmethod
    def _rank_key(truth: GroundTruth, cand: Candidate) -> tuple:
        gt = cand.truth
        assert gt is not None
        union = set(gt.value) | set(truth.value)
        jaccard = len(set(gt.value) & set(truth.value)) / len(union) if union else 1.0
        return (cand.provenance != Provenance.real, gt.hash == truth.hash, jaccard, cand.intent.intent_id)

    # ------------------------------------------------------------------------- build
    def build(self, progress: Callable[[str], None] | None = None) -> GraphBuild:
        tasks = self.config.tasks
        seeds = [s for s in self.adapter.load_seeds() if tasks is None or s.task_id in tasks]
        ledger: dict[str, GraphLedgerEntry] = {}
        valid: list[tuple[str, Intent]] = []
        first_of: dict[str, str] = {}
        bench = self.adapter.benchmark
        settled: dict[str, dict[str, Any]] = {}  # task id -> the requirement record of its ledger entry
        for seed in seeds:
            check = self.adapter.validate(seed)
            if not check.ok or check.intent is None:
                ledger[seed.task_id] = GraphLedgerEntry(benchmark=bench, task_id=seed.task_id, status="dropped", code=check.code,
                                                        detail=check.detail)
                if progress:
                    progress(seed.task_id)
                continue
            intent = check.intent
            if check.settled is not None:
                settled[seed.task_id] = {"requirements": check.settled.rows, "notes": check.settled.notes}
                self._stated.setdefault(intent.intent_id, frozenset(
                    r.slot for r in check.settled.rows if r.status in ("kept", "added") and r.stated))
            if intent.intent_id in first_of:
                ledger[seed.task_id] = GraphLedgerEntry(
                    benchmark=bench, task_id=seed.task_id, status="duplicate", code="duplicate:same_intent",
                    detail=f"the same intent as task {first_of[intent.intent_id]}", intent_id=intent.intent_id,
                    **settled.get(seed.task_id, {}),
                )
                if progress:
                    progress(seed.task_id)
                continue
            first_of[intent.intent_id] = seed.task_id
            valid.append((seed.task_id, intent))

        graphs: list[IntentGraph] = []
        for task_id, root in valid:
            graph, entry = self._build_one(task_id, root, valid)
            ledger[task_id] = entry.model_copy(update=settled.get(task_id, {}))
            if graph is not None:
                graphs.append(graph)
            if progress:
                progress(task_id)
        ordered = [ledger[s.task_id] for s in seeds]
        return GraphBuild(bench, graphs, ordered, Counter(self.rejections))

    def _build_one(self, task_id: str, root: Intent,
                   pool: list[tuple[str, Intent]]) -> tuple[IntentGraph | None, GraphLedgerEntry]:
        bench = self.adapter.benchmark

        def drop(code: str, detail: str = "") -> tuple[None, GraphLedgerEntry]:
            return None, GraphLedgerEntry(benchmark=bench, task_id=task_id, status="dropped", code=code, detail=detail,
                                          intent_id=root.intent_id)

        try:
            truth = self.truth(root)
        except NotExecutable as exc:
            return drop("graph:root_not_executable", str(exc))
        if truth.empty:
            return drop("graph:root_empty_answer")

        by_op: dict[Operator, list[Candidate]] = {op: [] for op in OPERATOR_ORDER}
        for other_id, other in pool:
            if other_id == task_id:
                continue
            branch = classify(root, other)
            if branch is not None:
                by_op[branch[0]].append(Candidate(other, branch[0], branch[1], Provenance.real, other_id))
        chosen: list[Candidate] = []
        seen: set[str] = {root.intent_id}
        needless: Counter = Counter()  # operator -> synthetic candidates refused for a condition nothing needs
        for op in OPERATOR_ORDER:
            quota = self.config.quota.get(op, 0)
            admitted = [c for c in (self._evaluate(root, truth, c) for c in by_op[op]) if c is not None]
            if len(admitted) < quota and op != Operator.pivot:  # pivots are retrieval-only
                synth = [c for c in (self._evaluate(root, truth, c) for c in self._synthesise(root, truth, op)) if c is not None]
                admitted += synth
            admitted.sort(key=lambda c: self._rank_key(truth, c))
            picked = 0
            for cand in admitted:
                if picked >= quota:
                    break
                if cand.intent.intent_id in seen:
                    continue  # dedupe by intent, real ranked above synthetic
                stated = self._stated.get(root.intent_id, frozenset())
                if cand.provenance == Provenance.synthetic and self._needless(cand, stated):
                    self.rejections["candidate:needless_condition"] += 1
                    needless[op] += 1
                    continue
                seen.add(cand.intent.intent_id)
                chosen.append(cand)
                picked += 1

        if not chosen:
            return drop("graph:no_branch", "no candidate of any operator survived execution")
        moved = sum(1 for c in chosen if c.truth is not None and c.truth.hash != truth.hash)
        if moved < self.config.min_moved_edges:
            return drop("graph:no_moved_edge", f"{len(chosen)} children, none changes the answer")
        if self.config.require_full_quota:
            counts = Counter(c.operator for c in chosen)
            short = [f"{op.value} {counts.get(op, 0)}/{q}" + (f" ({needless[op]} refused: a condition the outcome does not need)"
                                                               if needless[op] else "")
                     for op, q in self.config.quota.items() if counts.get(op, 0) < q]
            if short:
                return drop("graph:quota_short", ", ".join(short))

        root_node = Node(intent=root, ground_truth=truth, is_seed=True, source_task=task_id)
        children = tuple(Node(intent=c.intent, ground_truth=c.truth, is_seed=False, source_task=c.source_task) for c in chosen)  # type: ignore[arg-type]
        edges = tuple(
            Edge(src=root.intent_id, dst=c.intent.intent_id, operator=c.operator, delta=c.delta,
                 provenance=c.provenance, gt_moved=c.truth.hash != truth.hash)  # type: ignore[union-attr]
            for c in chosen
        )
        graph = IntentGraph(
            graph_id=IntentGraph.identity(root.env_id, root_node, children, self.config_hash),
            benchmark=bench, env_id=root.env_id, task_id=task_id, root=root_node,
            children=children, edges=edges, config_hash=self.config_hash,
        )
        failures = battery(graph, self.adapter)
        if failures:
            return drop(f"battery:{failures[0]}", "; ".join(failures))
        return graph, GraphLedgerEntry(
            benchmark=bench, task_id=task_id, status="built", code="built", graph_id=graph.graph_id,
            intent_id=root.intent_id, children=len(children), moved_edges=moved,
        )


def battery(graph: IntentGraph, adapter: Adapter | None = None,
            reexecute: Callable[[Intent], GroundTruth] | None = None) -> list[str]:
    """The consistency battery; returns failure codes (empty when the graph passes)."""
    failures: list[str] = []
    root = graph.root
    nodes = {n.intent.intent_id: n for n in graph.nodes}
    if any(n.ground_truth.empty for n in graph.nodes):
        failures.append("empty_answer")
    if not root.is_seed or any(n.is_seed for n in graph.children):
        failures.append("root_not_only_seed")
    if len({n.intent.env_id for n in graph.nodes}) != 1:
        failures.append("several_environments")
    for e in graph.edges:
        if e.src != root.intent.intent_id or e.dst not in nodes:
            failures.append("dangling_edge")
            continue
        child = nodes[e.dst]
        if e.gt_moved != (child.ground_truth.hash != root.ground_truth.hash):
            failures.append("gt_moved_label_wrong")
        if e.operator == Operator.refine and not child.ground_truth.issubset(root.ground_truth):
            failures.append("refine_not_subset")
        if e.operator == Operator.relax and not child.ground_truth.issuperset(root.ground_truth):
            failures.append("relax_not_superset")
        if classify(root.intent, child.intent) is None or classify(root.intent, child.intent)[0] != e.operator:  # type: ignore[index]
            failures.append("operator_mismatch")
    if not any(e.gt_moved for e in graph.edges):
        failures.append("no_moved_edge")
    if reexecute is None and adapter is not None:
        reexecute = adapter.reexecute
    if reexecute is not None:
        for n in graph.nodes:
            if reexecute(n.intent).hash != n.ground_truth.hash:
                failures.append("not_reproducible")
                break
    return failures
