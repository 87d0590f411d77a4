"""Composite fault plans (k >= 2 faults in one request, DESIGN section 7).

Everything here builds on the single-fault :class:`~miscue.planning.single.Planner`: a composite
draw is k cells of one graph with pre-assigned, distinct targets, and each component's materials
come from ``Planner.attempt`` on a one-target cell (one code path for both).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from miscue.briefs import WriterBrief
from miscue.canonical import content_hash
from miscue.planning.single import AttemptPlan, CellPlan, PlanError, Planner
from miscue.schema import FaultSpec, IntentGraph
from miscue.taxonomy import WHOLE_MESSAGE_TYPES, fault_type, takes_slot

# the order components are issued in on the composite card: precision-critical first, the
# whole-message faults last (they frame everything else)
CARD_ORDER = ("factual_error", "vagueness_subjectivity", "lexical_ambiguity", "syntactic_ambiguity",
              "referential_ambiguity", "false_presupposition", "irrelevant_information", "tool_capability_mismatch",
              "insufficient_information", "contextual_irrelevance", "indirect_intent")


def card_order(types: Iterable[str]) -> list[str]:
    order = {t: i for i, t in enumerate(CARD_ORDER)}
    return sorted(types, key=lambda t: (order.get(t, len(order)), t))


def needs_transform(types: Iterable[str]) -> bool:
    """k >= 3 with a whole-message fault and at least one content fault: the whole-message
    transformation is applied by a second, transformation-only writer call."""
    types = list(types)
    whole = [t for t in types if t in WHOLE_MESSAGE_TYPES]
    return len(types) >= 3 and bool(whole) and len(whole) < len(types)


@dataclass(frozen=True)
class CompositeDraw:
    """k distinct fault types with their pre-assigned targets (None for non-slot components)."""

    graph_id: str
    k: int
    draw_index: int
    components: tuple[FaultSpec, ...]

    @property
    def combo(self) -> tuple[str, ...]:
        return tuple(sorted(c.fault_type for c in self.components))

    @property
    def types(self) -> list[str]:
        return [c.fault_type for c in self.components]

    @property
    def targets(self) -> list[str | None]:
        return [c.target for c in self.components]

    @property
    def two_pass(self) -> bool:
        return needs_transform(self.types)

    @property
    def cell_id(self) -> str:
        return content_hash(self.graph_id, self.k, self.draw_index, [c.model_dump() for c in self.components])


def structural_violation(types: list[str], n_conditions: int) -> str | None:
    """Why a combination of fault types cannot be composed (None when it can)."""
    fts = [fault_type(t) for t in types]
    if len(set(types)) != len(types):
        return "repeated_type"
    if sum(1 for f in fts if f.consumes_slot) > n_conditions:
        return "more_slot_faults_than_conditions"
    if sum(1 for f in fts if f.family.value == "expression") > 1:
        return "two_expression_faults"
    if "false_presupposition" in types and "irrelevant_information" in types:
        return "presupposition_with_added_detail"
    if "tool_capability_mismatch" in types and "indirect_intent" in types:
        return "wrong_instrument_without_a_request"
    if len(types) >= 3:
        if "indirect_intent" in types and ({"false_presupposition", "irrelevant_information"} & set(types)):
            return "k3_hearsay_with_premise_or_extra"
        if "factual_error" in types and "false_presupposition" in types:
            return "k3_wrong_value_with_false_premise"
    return None


# domain prior for ties in the assignment order: expression faults have the narrowest slot rules
ASSIGN_ORDER = ("vagueness_subjectivity", "lexical_ambiguity", "syntactic_ambiguity", "referential_ambiguity",
                "factual_error", "false_presupposition", "insufficient_information")
def assignment_order(types: Iterable[str], targets: Mapping[str, tuple[str | None, ...]]) -> list[str]:
    """The slot-taking types in the order they get their targets: most constrained (fewest
    candidate slots) first, the domain prior breaking ties."""
    needing = [t for t in types if takes_slot(t) and any(s is not None for s in targets.get(t, ()))]
    prior = {t: i for i, t in enumerate(ASSIGN_ORDER)}
    return sorted(needing, key=lambda t: (len({s for s in targets[t] if s is not None}), prior.get(t, 99), t))


@dataclass
class CompositeAttemptPlan:
    """One attempt of a draw: every component's single-fault plan (brief, materials, values)."""

    draw: CompositeDraw
    attempt: int
    components: list[AttemptPlan]

    @property
    def k(self) -> int:
        return len(self.components)

    @property
    def two_pass(self) -> bool:
        return self.draw.two_pass

    @property
    def briefs(self) -> list[WriterBrief]:
        return [c.brief for c in self.components]

    @property
    def content(self) -> list[AttemptPlan]:
        """The components written by the first call (all of them unless two-pass)."""
        if not self.two_pass:
            return list(self.components)
        return [c for c in self.components if c.component.fault_type not in WHOLE_MESSAGE_TYPES]

    @property
    def whole(self) -> list[AttemptPlan]:
        """The whole-message components applied by the second, transformation-only call."""
        if not self.two_pass:
            return []
        return [c for c in self.components if c.component.fault_type in WHOLE_MESSAGE_TYPES]

    def get(self, type_id: str) -> AttemptPlan | None:
        return next((c for c in self.components if c.component.fault_type == type_id), None)

    def transform_briefs(self) -> list[WriterBrief]:
        """The whole-message briefs for the second pass, showing only the requirements no
        component touches: the transformation never sees the true value of a requirement the
        first pass got wrong or left out, so it cannot restore it."""
        touched = {c.component.target for c in self.components if c.component.target}
        return [c.brief.model_copy(update={"requirements": [r for r in c.brief.requirements if r.slot not in touched]})
                for c in self.whole]


class CompositePlanner:
    """Seeded draws of k-fault combinations with one distinct target per slot-taking fault."""

    def __init__(self, planner: Planner) -> None:
        self.planner = planner
        self._cells: dict[tuple[str, tuple[str, ...]], dict[str, CellPlan]] = {}

    def cells(self, graph: IntentGraph, pool: list[str]) -> dict[str, CellPlan]:
        key = (graph.graph_id, tuple(pool))
        if key not in self._cells:
            self._cells[key] = {c.fault_type: c for c in self.planner.cells(graph, pool)}
        return self._cells[key]

    def usable(self, graph: IntentGraph, pool: list[str]) -> list[str]:
        """The pool's types that are supported and applicable on the graph's root."""
        return sorted(t for t, c in self.cells(graph, pool).items() if c.status == "planned")

    def draw(self, graph: IntentGraph, k: int, draw_index: int, pool: list[str], max_tries: int = 200,
             avoid: Iterable[tuple[str, ...]] = (), score: Callable[[tuple[str, ...]], float] | None = None,
             candidates: int = 1) -> CompositeDraw | str:
        """A draw seeded by (graph, k, draw index); returns the reason string when no valid draw
        was found. Types are drawn uniformly and re-drawn when a structural rule fails, when the
        combination is in ``avoid`` (sorted type tuples) or when no distinct targets exist.
        With ``candidates`` > 1 the first that many valid draws of distinct combinations are
        collected and the one with the lowest ``score`` (e.g. how represented its types already
        are) is returned, the earliest winning ties."""
        root = graph.root.intent
        cells = self.cells(graph, pool)
        usable = self.usable(graph, pool)
        if len(usable) < k:
            return "fewer_applicable_types_than_k"
        avoid = set(avoid)
        rng = random.Random(content_hash(graph.graph_id, k, draw_index))
        last = "no_valid_draw"
        found: list[CompositeDraw] = []
        for _ in range(max_tries):
            types = rng.sample(usable, k)
            reason = structural_violation(types, len(root.conditions))
            if reason:
                last = reason
                continue
            combo = tuple(sorted(types))
            if combo in avoid or any(d.combo == combo for d in found):
                last = "combination_already_drawn"
                continue
            assigned = self.assign(types, {t: cells[t].targets for t in types}, rng)
            if assigned is None:
                last = "no_distinct_targets"
                continue
            comps = tuple(FaultSpec(fault_type=t, target=assigned.get(t)) for t in card_order(types))
            found.append(CompositeDraw(graph.graph_id, k, draw_index, comps))
            if len(found) >= max(1, candidates):
                break
        if not found:
            return last
        if score is None:
            return found[0]
        return min(enumerate(found), key=lambda x: (score(x[1].combo), x[0]))[1]

    @staticmethod
    def assign(types: list[str], targets: Mapping[str, tuple[str | None, ...]], rng: Any) -> dict[str, str] | None:
        """Distinct targets for slot-taking faults, most constrained first (None: impossible)."""
        needing = assignment_order(types, targets)
        out: dict[str, str] = {}

        def place(i: int) -> bool:
            if i == len(needing):
                return True
            t = needing[i]
            options = sorted({s for s in targets[t] if s is not None and s not in out.values()})
            rng.shuffle(options)
            for slot in options:
                out[t] = slot
                if place(i + 1):
                    return True
                del out[t]
            return False

        return out if place(0) else None

    def attempt(self, draw: CompositeDraw, graph: IntentGraph, attempt: int) -> CompositeAttemptPlan:
        """Every component's brief and materials for attempt ``attempt`` of ``draw``: each is the
        single-fault plan of a one-target cell (the pre-assigned target), so both paths share
        the material logic of :meth:`Planner.attempt`."""
        if draw.graph_id != graph.graph_id:
            raise PlanError("plan:graph_mismatch", f"draw for {draw.graph_id}, graph {graph.graph_id}")
        plans = []
        for comp in draw.components:
            cell = CellPlan(benchmark=graph.benchmark, task_id=graph.task_id, graph_id=graph.graph_id,
                            fault_type=comp.fault_type, status="planned", targets=(comp.target,))
            plans.append(self.planner.attempt(cell, graph, attempt))
        return CompositeAttemptPlan(draw, attempt, plans)
