"""The merged literal reading of a composite: every component's reading applied to the truth at once."""

from __future__ import annotations

from typing import Any

from miscue.canonical import canonical_json
from miscue.host import Adapter, NotExecutable
from miscue.schema import Condition, GroundTruth, Intent
from miscue.verifiers.admission import Admission, Reading



def _base_delta(root: dict[str, Any], reading: dict[str, Any], merged: dict[str, Any]) -> dict[str, Any]:
    out = dict(merged)
    for key, value in reading.items():
        if root.get(key) == value:
            continue
        if isinstance(value, list) and isinstance(root.get(key), list) and isinstance(out.get(key), list):
            added = [x for x in value if x not in root[key]]
            out[key] = list(out[key]) + [x for x in added if x not in out[key]]
        else:
            out[key] = value
    return out


def merged_reading(adapter: Adapter, root: Intent, readings: dict[str, Reading | None]) -> tuple[Reading, dict[str, Any]]:
    """All components' literal readings applied to the truth at once. Each reading's change
    against the truth (base frame, values changed, requirements dropped or added) is carried
    over; a requirement an operation renamed is followed by its value."""
    mismatch = readings.get("tool_capability_mismatch")
    start = mismatch.intent if mismatch is not None and mismatch.intent is not None else root
    base = dict(start.base)
    conds: dict[tuple[str, str], Condition] = {(c.slot, c.op): c for c in start.conditions}
    applied: list[str] = ["tool_capability_mismatch"] if start is not root else []
    skipped: list[str] = []
    root_keys = {(c.slot, c.op): c for c in root.conditions}

    def locate(key: tuple[str, str]) -> tuple[str, str] | None:
        if key in conds:
            return key
        value = canonical_json(root_keys[key].value) if key in root_keys else None
        renamed = [k for k, c in conds.items() if k not in root_keys and c.op == key[1] and canonical_json(c.value) == value]
        return renamed[0] if len(renamed) == 1 else None

    for t, r in readings.items():
        if t == "tool_capability_mismatch" or r is None or r.intent is None:
            continue
        reading = r.intent
        if reading.intent_id == root.intent_id:
            continue
        have = {(c.slot, c.op): c for c in reading.conditions}
        ok = True
        for key in root_keys:
            if key not in have:  # dropped by this reading
                at = locate(key)
                if at is None:
                    ok = False
                    continue
                conds.pop(at, None)
        for key, c in have.items():
            if key in root_keys and root_keys[key] == c:
                continue
            if key in root_keys:  # value changed
                at = locate(key)
                if at is None:
                    ok = False
                    continue
                conds[at] = Condition(slot=at[0], op=c.op, value=c.value)
            else:  # added
                conds[key] = c
        base = _base_delta(root.base, reading.base, base)
        (applied if ok else skipped).append(t)
    record: dict[str, Any] = {"applied": applied, "not_applicable": skipped}
    try:
        intent = root.replace(conditions=list(conds.values()), base=base)
    except ValueError as exc:
        return Reading("merged", None, None, f"merge_conflict: {exc}"), record
    try:
        return Reading("merged", intent, adapter.ground_truth(intent)), record
    except NotExecutable as exc:
        return Reading("merged", intent, None, f"{exc.code}: {exc.detail}"), record


def moved_reading(adm: Admission, truth: GroundTruth) -> Reading | None:
    """The component's literal reading that departs from the truth (the last such one)."""
    moved = [r for r in adm.readings if r.intent is not None and (r.truth is None or r.truth.hash != truth.hash)]
    if moved:
        return moved[-1]
    return adm.readings[-1] if adm.readings else None
