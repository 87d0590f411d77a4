"""Rejection-rate statistics computed from the ledger rows alone.

Rates follow the reference denominator (cells = graphs x applicable types; a cell is rejected
when no attempt was admitted) and are also given per attempt.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any


def _rate(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def single_fault_summary(cells: list[dict[str, Any]], attempts: list[dict[str, Any]], calls: list[dict[str, Any]]) -> dict[str, Any]:
    by_type: dict[str, dict[str, Any]] = defaultdict(lambda: Counter())  # type: ignore[arg-type]
    for c in cells:
        by_type[c["fault_types"][0]][c["status"]] += 1
    attempted = [c for c in cells if c["status"] in ("admitted", "rejected")]
    admitted = [c for c in cells if c["status"] == "admitted"]
    per_type = {}
    for t, counts in sorted(by_type.items()):
        tried = counts["admitted"] + counts["rejected"]
        type_attempts = [a for a in attempts if a.get("fault_types") == [t]]
        both = [a for a in type_attempts if a.get("blind_b")]
        agreed = [a for a in both if not str(a.get("code", "")).startswith(("agree:", "extract:"))]
        per_type[t] = {
            "cells": tried, "admitted": counts["admitted"], "rejected": counts["rejected"],
            "skipped": counts["skipped"], "unsupported": counts["unsupported"],
            "cell_rejection_rate": _rate(counts["rejected"], tried),
            "attempts": len(type_attempts),
            "attempt_rejection_rate": _rate(sum(1 for a in type_attempts if not a.get("admitted")), len(type_attempts)),
            "extractor_agreement": _rate(len(agreed), len(both)),
        }
    model_calls = [c for c in calls if not c.get("cached")]
    unsupported = sorted({(c["fault_types"][0], c["detail"]) for c in cells if c["status"] == "unsupported"})
    return {
        "graphs": len({c["graph_id"] for c in cells}),
        "cells": len(attempted),
        "admitted": len(admitted),
        "cell_rejection_rate": _rate(len(attempted) - len(admitted), len(attempted)),
        "attempts": len(attempts),
        "attempt_rejection_rate": _rate(sum(1 for a in attempts if not a.get("admitted")), len(attempts)),
        "types_admitted": sorted(t for t, v in per_type.items() if v["admitted"]),
        "per_type": per_type,
        "verdicts": dict(Counter(a["code"] for a in attempts if not a.get("admitted")).most_common()),
        "skipped_reasons": dict(Counter(c["detail"] for c in cells if c["status"] == "skipped").most_common()),
        "unsupported": [{"fault_type": t, "reason": r} for t, r in unsupported],
        "model_calls": len(model_calls),
        "store_hits": len(calls) - len(model_calls),
        "calls_per_admitted_sample": _rate(len(calls), len(admitted)),
        "tokens": sum(c.get("prompt_tokens", 0) + c.get("completion_tokens", 0) for c in model_calls),
        "cost": round(sum(c.get("cost", 0.0) for c in model_calls), 6),
        "attempts_without_executed_reading_admitted": sum(1 for a in attempts if a.get("admitted") and not a.get("readings_executed")),
    }
