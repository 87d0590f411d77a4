"""Necessity by execution: does an intent reach exactly a given outcome, or others too?

Deciding that a condition is needed only takes one outcome its removal makes reachable, so the
recipes of the relaxed intent are executed in growing batches and the search stops at the first
outcome outside the truth (most conditions are needed, and most relaxed intents show it early).
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence

from miscue.errors import MiscueError
from miscue.schema import GroundTruth, Intent

FIRST_BATCH = 8


class Executes(Protocol):
    def compile(self, intent: Intent) -> Sequence[Any]: ...

    def execute(self, intent: Intent, recipes: Sequence[Any]) -> GroundTruth: ...


def outcome_change(host: Executes, intent: Intent, truth: GroundTruth) -> str | None:
    """None when ``intent``'s ground truth equals ``truth``; otherwise how it differs."""
    try:
        recipes = list(host.compile(intent))
    except MiscueError:
        return "cannot be executed without it"
    allowed, seen = set(truth.value), set()
    i, step = 0, FIRST_BATCH
    while i < len(recipes):
        got = set(host.execute(intent, recipes[i:i + step]).value)
        if got - allowed:
            return "other outcomes are reachable without it"
        seen |= got
        i, step = i + step, step * 4
    if not seen:
        return "nothing is reachable without it"
    return None if seen == allowed else "the outcome changes without it"
