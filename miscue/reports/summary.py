"""A run's rejection-rate summary, computed from its ledger records in memory.

Rates follow the reference denominator (cells = graphs x applicable types; a cell is rejected
when no attempt was admitted) and are also given per attempt.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any, Sequence

from miscue.schema import Attempt, Cell, LLMCall


def _rate(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def single_fault_summary(cells: Sequence[Cell], attempts: Sequence[Attempt], calls: Sequence[LLMCall]) -> dict[str, Any]:
    """Per fault type and overall: cells, admissions, cell- and attempt-level rejection rates,
    extractor agreement, verdicts, model calls, tokens and cost of one run."""
    by_type: dict[str, Counter] = defaultdict(Counter)
    for c in cells:
        by_type[c.fault_types[0]][c.status] += 1
    attempted = [c for c in cells if c.status in ("admitted", "rejected")]
    admitted = [c for c in cells if c.status == "admitted"]
    per_type = {}
    for t, counts in sorted(by_type.items()):
        tried = counts["admitted"] + counts["rejected"]
        type_attempts = [a for a in attempts if a.fault_types == [t]]
        both = [a for a in type_attempts if a.blind_b or a.reading_b]
        agreed = [a for a in both if not str(a.code or "").startswith(("agree:", "extract:"))]
        per_type[t] = {
            "cells": tried, "admitted": counts["admitted"], "rejected": counts["rejected"],
            "skipped": counts["skipped"], "unsupported": counts["unsupported"],
            "cell_rejection_rate": _rate(counts["rejected"], tried),
            "attempts": len(type_attempts),
            "attempt_rejection_rate": _rate(sum(1 for a in type_attempts if not a.admitted), len(type_attempts)),
            "extractor_agreement": _rate(len(agreed), len(both)),
        }
    model_calls = [c for c in calls if not c.cached]
    unsupported = sorted({(c.fault_types[0], c.detail) for c in cells if c.status == "unsupported"})
    return {
        "graphs": len({c.graph_id for c in cells}),
        "cells": len(attempted),
        "admitted": len(admitted),
        "cell_rejection_rate": _rate(len(attempted) - len(admitted), len(attempted)),
        "attempts": len(attempts),
        "attempt_rejection_rate": _rate(sum(1 for a in attempts if not a.admitted), len(attempts)),
        "types_admitted": sorted(t for t, v in per_type.items() if v["admitted"]),
        "per_type": per_type,
        "verdicts": dict(Counter(a.code for a in attempts if not a.admitted).most_common()),
        "skipped_reasons": dict(Counter(c.detail for c in cells if c.status == "skipped").most_common()),
        "unsupported": [{"fault_type": t, "reason": r} for t, r in unsupported],
        "model_calls": len(model_calls),
        "store_hits": len(calls) - len(model_calls),
        "calls_per_admitted_sample": _rate(len(calls), len(admitted)),
        "tokens": sum(c.prompt_tokens + c.completion_tokens for c in model_calls),
        "cost": round(sum(c.cost for c in model_calls), 6),
        "attempts_without_executed_reading_admitted": sum(1 for a in attempts if a.admitted and not a.readings_executed),
    }
