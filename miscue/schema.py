"""Pydantic records shared by every stage (DESIGN section 3).

Values keep their JSON type (numbers stay numbers); identities are content hashes over the
canonical encoding in :mod:`miscue.canonical`, computed separately from the stored value.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from miscue.canonical import canonical_json, content_hash

if TYPE_CHECKING:
    import networkx as nx

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
        import networkx as nx  # only here: a command that never draws a graph does not pay for it

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


class FaultSpec(BaseModel):
    """One fault component: a fault type and its target slot (None for whole-message faults)."""

    model_config = ConfigDict(frozen=True)

    fault_type: str
    target: str | None = None


# The rows: every table of a corpus (and of a generate run's ledger) is a list of one of the
# records below. miscue.corpus.tables derives each table's Arrow schema from its record, field by
# field in declaration order (int -> int32, float -> float64, str -> string, bool -> bool,
# list[X] -> list<X>, a record -> struct). Values whose shape varies by fault class (materials,
# extractions, readings, evidence) are canonical JSON strings.


class Cell(BaseModel):
    """How one cell ended: a graph and a fault plan of k >= 1 components (``cells`` table)."""

    benchmark: str
    task_id: str
    graph_id: str
    cell_id: str
    k: int
    fault_types: list[str]
    status: Literal["admitted", "rejected", "skipped", "unsupported"]
    code: str
    detail: str = ""
    attempts_used: int = 0
    sample_id: str | None = None


class Attempt(BaseModel):
    """One writer output for a cell and everything done to it (``attempts`` table: the ledger).

    Fields the attempt never reached stay null (an attempt refused at planning has no query,
    no materials, no calls)."""

    benchmark: str
    task_id: str
    graph_id: str
    cell_id: str
    k: int
    fault_types: list[str]
    families: list[str] | None = None
    targets: list[str | None] | None = None
    attempt: int
    query: str | None = None  # the request text, as in samples
    materials_json: str | None = None
    blind_a: str | None = None
    blind_b: str | None = None
    targeted_a: str | None = None
    targeted_b: str | None = None
    reading_a: str | None = None  # the reading path: extractor A's reading of the text, JSON
    reading_b: str | None = None
    readings_json: str | None = None
    readings_executed: int | None = None
    truth_hash: str | None = None
    call_ids: list[str] | None = None
    card_version: str | None = None
    admitted: bool = False
    stage: str | None = None
    code: str | None = None
    detail: str = ""

    def decide(self, verdict: Verdict | None) -> "Attempt":
        """Record the verdict (None: admitted)."""
        if verdict is None:
            self.admitted, self.stage, self.code, self.detail = True, "admit", "admitted", ""
        else:
            self.stage, self.code, self.detail = verdict.stage, verdict.code, verdict.detail
        return self


class ShiftOption(BaseModel):
    """One child goal of a sample's graph, as a user may drift to it."""

    operator: str
    delta_json: str
    to_intent: str
    gt_hash: str
    gt_moved: bool
    announcement: str


class Sample(BaseModel):
    """An admitted attempt plus its graph context (``samples`` table; DESIGN section 9)."""

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
    conditions_json: str
    gt_kind: str
    gt_hash: str
    gt_value: list[str]
    shift_options: list[ShiftOption]
    evidence_json: str
    readings_json: str
    readings_executed: int
    models_json: str
    card_version: str
    attempt: int
    split: str


class LLMCall(BaseModel):
    """One model request issued by the pipeline (``llm_calls`` table). ``cached``, ``latency_s``,
    ``attempts`` and ``run_version`` say how one run obtained the answer, not what it is."""

    benchmark: str
    call_id: str
    role: str
    model: str
    cached: bool
    prompt_tokens: int
    completion_tokens: int
    cost: float
    latency_s: float
    attempts: int
    card_version: str
    fault_types: list[str] | None = None
    run_version: str | None = None


class GraphRow(BaseModel):
    """One intent graph (``graphs`` table)."""

    graph_id: str
    benchmark: str
    env_id: str
    task_id: str
    root_intent_id: str
    children: int
    moved_edges: int
    refine: int
    relax: int
    substitute: int
    pivot: int
    root_gt_hash: str
    root_gt_size: int
    config_hash: str


class ConditionRow(BaseModel):
    slot: str
    op: str
    value_json: str


class NodeRow(BaseModel):
    """One intent of a graph with its executed ground truth (``nodes`` table)."""

    graph_id: str
    intent_id: str
    role: Literal["root", "child"]
    is_seed: bool
    source_task: str | None
    benchmark: str
    adapter: str
    env_id: str
    base_json: str
    conditions: list[ConditionRow]
    gt_kind: str
    gt_hash: str
    gt_value: list[str]


class EdgeRow(BaseModel):
    """One root -> child edge (``edges`` table)."""

    graph_id: str
    src: str
    dst: str
    operator: str
    delta_json: str
    provenance: str
    gt_moved: bool
    benchmark: str


class RequirementRow(BaseModel):
    """One condition of a task's intent, as lifted or as settled, and why it is (or is not) a
    requirement: necessary by execution, or stated in the task's own instructions (issue 16)."""

    slot: str
    op: str
    value_json: str
    #: kept: a requirement; context: not needed and not stated (kept here, not asked of anyone);
    #: relaxed: waived by the instructions; lifted: replaced by what the instructions say; added:
    #: what it was lifted to
    status: Literal["kept", "context", "relaxed", "lifted", "added"]
    necessary: bool | None = None  # removing it changes the settled outcome (None: not executed)
    necessary_before: bool | None = None  # the same, in the intent as lifted (None: not a condition of it)
    instruction: str = "open"  # its grounded state in the instructions (miscue.language.states), or "waived"
    stated: bool = False  # the instructions state it (its value, a description of it, or a preference lifted to it)
    said: str = ""  # what the instructions say for it
    reason: str = ""


class GraphLedgerEntry(BaseModel):
    """What happened to one host task at the graph stage (``graph_ledger`` table)."""

    benchmark: str
    task_id: str
    status: Literal["built", "dropped", "duplicate"]
    code: str
    detail: str = ""
    graph_id: str | None = None
    intent_id: str | None = None
    children: int = 0
    moved_edges: int = 0
    requirements: list[RequirementRow] | None = None  # every condition as lifted and as settled
    notes: list[str] | None = None  # what the instructions say that the settled intent cannot execute
