"""Pydantic records shared by every stage (DESIGN section 3).

Values keep their JSON type (numbers stay numbers); identities are content hashes over the
canonical encoding in :mod:`miscue.canonical`, computed separately from the stored value.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

import networkx as nx
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from miscue.canonical import canonical_json, content_hash

SCHEMA_VERSION = 1

Op = Literal["=", "<=", ">=", "in"]


class Condition(BaseModel):
    """One requirement ``(slot, op, value)``; ``value`` keeps its JSON type."""

    model_config = ConfigDict(frozen=True)

    slot: str
    op: Op = "="
    value: Any

    @property
    def key(self) -> str:
        return canonical_json([self.slot, self.op, self.value])

    def with_value(self, value: Any) -> "Condition":
        return Condition(slot=self.slot, op=self.op, value=value)


def sort_conditions(conditions: Any) -> tuple[Condition, ...]:
    return tuple(sorted(conditions, key=lambda c: c.key))


class Intent(BaseModel):
    """A goal: the non-negotiable ``base`` frame plus a canonically sorted condition set."""

    model_config = ConfigDict(frozen=True)

    benchmark: str
    adapter: str  # adapter name@version: part of the identity
    env_id: str
    base: dict[str, Any]
    conditions: tuple[Condition, ...]
    intent_id: str = ""

    @model_validator(mode="after")
    def _canonicalise(self) -> "Intent":
        ordered = sort_conditions(self.conditions)
        seen: set[tuple[str, str]] = set()
        for c in ordered:
            if (c.slot, c.op) in seen:
                raise ValueError(f"intent has two conditions on slot {c.slot!r} with op {c.op!r}")
            seen.add((c.slot, c.op))
        object.__setattr__(self, "conditions", ordered)
        ident = content_hash(self.adapter, self.env_id, self.base, [c.key for c in ordered])
        if self.intent_id and self.intent_id != ident:
            raise ValueError(f"intent_id {self.intent_id} does not match its content ({ident})")
        object.__setattr__(self, "intent_id", ident)
        return self

    @property
    def slots(self) -> list[str]:
        return [c.slot for c in self.conditions]

    def condition(self, slot: str) -> Condition | None:
        return next((c for c in self.conditions if c.slot == slot), None)

    def replace(self, conditions: Any = None, base: dict[str, Any] | None = None) -> "Intent":
        return Intent(
            benchmark=self.benchmark,
            adapter=self.adapter,
            env_id=self.env_id,
            base=self.base if base is None else base,
            conditions=tuple(self.conditions if conditions is None else conditions),
        )

    def without(self, slot: str) -> "Intent":
        return self.replace(conditions=[c for c in self.conditions if c.slot != slot])

    def with_condition(self, cond: Condition) -> "Intent":
        rest = [c for c in self.conditions if (c.slot, c.op) != (cond.slot, cond.op)]
        return self.replace(conditions=rest + [cond])


class GroundTruth(BaseModel):
    """The set of acceptable outcomes of an intent: ``value`` is a sorted list of outcome keys."""

    model_config = ConfigDict(frozen=True)

    kind: str  # e.g. "db_states" (tau2), "purchases" (WebShop)
    value: tuple[str, ...]
    hash: str

    @classmethod
    def of(cls, kind: str, outcomes: Any) -> "GroundTruth":
        value = tuple(sorted(set(outcomes)))
        return cls(kind=kind, value=value, hash=content_hash(kind, list(value), length=32))

    @field_validator("value")
    @classmethod
    def _sorted(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if list(v) != sorted(set(v)):
            raise ValueError("ground-truth value must be sorted and duplicate-free")
        return v

    @property
    def empty(self) -> bool:
        return not self.value

    def issubset(self, other: "GroundTruth") -> bool:
        return self.kind == other.kind and set(self.value) <= set(other.value)

    def issuperset(self, other: "GroundTruth") -> bool:
        return other.issubset(self)


class Operator(str, Enum):
    refine = "refine"
    relax = "relax"
    substitute = "substitute"
    pivot = "pivot"


class Provenance(str, Enum):
    real = "real"
    synthetic = "synthetic"


class Node(BaseModel):
    model_config = ConfigDict(frozen=True)

    intent: Intent
    ground_truth: GroundTruth
    is_seed: bool = False
    source_task: str | None = None  # the host task behind a real node


class Edge(BaseModel):
    model_config = ConfigDict(frozen=True)

    src: str
    dst: str
    operator: Operator
    delta: dict[str, Any]
    provenance: Provenance
    gt_moved: bool


class IntentGraph(BaseModel):
    """A star of depth 1: the seed's root intent and its typed alternative goals."""

    model_config = ConfigDict(frozen=True)

    graph_id: str
    benchmark: str
    env_id: str
    task_id: str
    root: Node
    children: tuple[Node, ...]
    edges: tuple[Edge, ...]
    config_hash: str

    @staticmethod
    def identity(env_id: str, root: Node, children: Any, config_hash: str) -> str:
        return content_hash(env_id, root.intent.intent_id, sorted(c.intent.intent_id for c in children), config_hash)

    @property
    def nodes(self) -> tuple[Node, ...]:
        return (self.root, *self.children)

    def to_networkx(self) -> nx.DiGraph:
        g = nx.DiGraph(graph_id=self.graph_id, benchmark=self.benchmark, env_id=self.env_id)
        for n in self.nodes:
            g.add_node(n.intent.intent_id, node=n)
        for e in self.edges:
            g.add_edge(e.src, e.dst, edge=e, operator=e.operator.value, gt_moved=e.gt_moved)
        return g


Stage = Literal["seed", "graph", "plan", "write", "text", "extract", "agree", "admit", "audit"]


class Verdict(BaseModel):
    """A stable, machine-readable outcome: ``code`` looks like ``graph:no_moved_edge``."""

    model_config = ConfigDict(frozen=True)

    stage: Stage
    code: str
    detail: str = ""


class GraphLedgerEntry(BaseModel):
    """What happened to one host task at the graph stage."""

    benchmark: str
    task_id: str
    status: Literal["built", "dropped", "duplicate"]
    code: str
    detail: str = ""
    graph_id: str | None = None
    intent_id: str | None = None
    children: int = 0
    moved_edges: int = 0


class FaultSpec(BaseModel):
    """One fault component: a fault type and its target slot (None for whole-message faults)."""

    model_config = ConfigDict(frozen=True)

    fault_type: str
    target: str | None = None


class Cell(BaseModel):
    """A graph and a fault plan of k >= 1 components."""

    model_config = ConfigDict(frozen=True)

    graph_id: str
    components: tuple[FaultSpec, ...] = Field(min_length=1)

    @property
    def k(self) -> int:
        return len(self.components)

    @property
    def cell_id(self) -> str:
        return content_hash(self.graph_id, [c.model_dump() for c in self.components])


class Attempt(BaseModel):
    """One writer output for a cell and everything done to it."""

    cell_id: str
    attempt: int
    text: str | None
    extractions: dict[str, Any] = Field(default_factory=dict)
    readings: list[dict[str, Any]] = Field(default_factory=list)
    model_calls: list[str] = Field(default_factory=list)
    verdict: Verdict
    admitted: bool = False


class Sample(BaseModel):
    """An admitted attempt plus its graph context (DESIGN section 9 lists the fields)."""

    sample_id: str
    benchmark: str
    task_id: str
    graph_id: str
    intent_id: str
    k: int
    fault_types: list[str]
    families: list[str]
    targets: list[str | None]
    query: str
    conditions: list[Condition]
    ground_truth: GroundTruth
    shift_options: list[dict[str, Any]]
    evidence: dict[str, Any]
    models: dict[str, str]
    card_versions: dict[str, str]
    attempt: int
    split: str
