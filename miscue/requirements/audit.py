"""The intent audit (issue 16): per task, every condition as lifted and as settled, which are
necessary and which stated; per host, the counts before (as lifted from the golden actions) and
after (as settled against the instructions). Read from the graph-stage ledger alone."""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable

from miscue.schema import GraphLedgerEntry, RequirementRow

REQUIREMENT = ("kept", "added")


def _before(rows: list[RequirementRow]) -> list[RequirementRow]:
    return [r for r in rows if r.necessary_before is not None]


def _after(rows: list[RequirementRow]) -> list[RequirementRow]:
    return [r for r in rows if r.status in REQUIREMENT]


def counts(ledger: Iterable[GraphLedgerEntry]) -> dict[str, Any]:
    """Per host: conditions before/after, how many are necessary, stated, or neither."""
    c: Counter = Counter()
    for entry in ledger:
        if entry.requirements is None:
            continue
        rows = entry.requirements
        before, after = _before(rows), _after(rows)
        c["tasks"] += 1
        c["tasks_changed"] += {(r.slot, r.op, r.value_json) for r in before} != {(r.slot, r.op, r.value_json) for r in after}
        c["tasks_with_notes"] += bool(entry.notes)
        c["notes"] += len(entry.notes or [])
        for name, group, necessary in (("before", before, lambda r: r.necessary_before), ("after", after, lambda r: r.necessary)):
            c[f"{name}.conditions"] += len(group)
            c[f"{name}.necessary"] += sum(1 for r in group if necessary(r))
            c[f"{name}.stated"] += sum(1 for r in group if r.stated)
            c[f"{name}.stated_only"] += sum(1 for r in group if r.stated and not necessary(r))
            c[f"{name}.neither"] += sum(1 for r in group if not r.stated and not necessary(r))
        for r in rows:
            c[f"status.{r.status}"] += 1
    return dict(sorted(c.items()))


def task_rows(ledger: Iterable[GraphLedgerEntry]) -> list[dict[str, Any]]:
    """One record per settled task: its requirements, context, and notes."""
    out = []
    for entry in ledger:
        if entry.requirements is None:
            continue
        out.append({
            "task_id": entry.task_id, "status": entry.status, "code": entry.code, "intent_id": entry.intent_id,
            "requirements": [r.model_dump() for r in entry.requirements], "notes": list(entry.notes or []),
        })
    return out
