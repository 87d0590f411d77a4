"""Fault plans (DESIGN sections 6 and 7): single-fault cells with, per attempt, the target and the
type's materials (:mod:`~miscue.planning.single`), and composite draws of k >= 2 faults with
pre-assigned distinct targets (:mod:`~miscue.planning.composite`)."""

from miscue.planning.composite import (CARD_ORDER, CompositeAttemptPlan, CompositeDraw, CompositePlanner, assignment_order,
                                       card_order, needs_transform, structural_violation)
from miscue.planning.materials import POINTERS, plain_forms, pointers, rank, vague_phrases
from miscue.planning.single import (OFF_TOPICS, AttemptPlan, CellPlan, PlanError, Planner,
                                    content_words, value_from_spoken)

__all__ = [
    "CARD_ORDER", "OFF_TOPICS", "POINTERS", "AttemptPlan", "CellPlan", "CompositeAttemptPlan",
    "CompositeDraw", "CompositePlanner", "PlanError", "Planner", "assignment_order", "card_order", "content_words",
    "needs_transform", "plain_forms", "pointers", "rank", "structural_violation", "vague_phrases", "value_from_spoken",
]
