"""Executable admission: the literal reading(s) of the request, built from what the *text* says
(its grounded values, and what the extraction points at), are executed in the host environment
(DESIGN section 6, step 5). No reading, no admission.

Readings come from the text first: the value the text grounds for the target, every legal value
an ambiguous word leaves open, the operation or extra detail it names. The extraction decides
which requirement and which class; where the text grounds nothing the extraction's quoted value
is resolved against the same value domain. Each reading records where it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from miscue.briefs import TargetedExtraction, WriterBrief
from miscue.host import Adapter, NotExecutable
from miscue.reading import NO_VALUE, Departure, ReadingForm
from miscue.reading import Reading as ReadingRecord
from miscue.schema import GroundTruth, Intent, Verdict
from miscue.taxonomy import ExtractionClass, fault_type
from miscue.verifiers.agreement import overlap
from miscue.verifiers.reading import TextReading, read


@dataclass
class Reading:
    name: str
    intent: Intent | None
    truth: GroundTruth | None = None
    error: str | None = None
    source: str = "text"  # text | extraction | plan

    def record(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "intent_id": self.intent.intent_id if self.intent else None,
            "conditions": [c.model_dump() for c in self.intent.conditions] if self.intent else None,
            "base": self.intent.base if self.intent else None,
            "gt_hash": self.truth.hash if self.truth else None,
            "gt_size": len(self.truth.value) if self.truth else None,
            "error": self.error,
            "source": self.source,
        }


@dataclass
class Admission:
    verdict: Verdict | None  # None: admitted
    readings: list[Reading] = field(default_factory=list)

    @property
    def admitted(self) -> bool:
        return self.verdict is None

    @property
    def executed(self) -> int:
        return sum(1 for r in self.readings if r.truth is not None)


def _reject(code: str, detail: str = "") -> Verdict:
    return Verdict(stage="admit", code=f"admit:{code}", detail=detail)


def _run(adapter: Adapter, name: str, intent: Intent, source: str = "text") -> Reading:
    try:
        return Reading(name, intent, adapter.ground_truth(intent), source=source)
    except NotExecutable as exc:
        return Reading(name, intent, None, f"{exc.code}: {exc.detail}", source)


def _detail_reading(adapter: Adapter, root: Intent, reading: TextReading, kind: str,
                    said: str | None) -> tuple[Intent | None, str]:
    """The executable reading of the extra detail / mismatched operation the text names."""
    pool = adapter.extras(root) if kind == "extra" else adapter.mismatches(root)
    refs = [m.ref for m in reading.grounding.details("extra" if kind == "extra" else "operation")
            if m.ref and m.ref.startswith(f"{'extra' if kind == 'extra' else 'mismatch'}:")]
    for ref in refs:
        i = int(ref.split(":")[1])
        if i < len(pool):
            return pool[i].reading, "text"
    best = max(pool, key=lambda e: overlap(e.phrase, said), default=None)
    if best is not None and overlap(best.phrase, said) >= 0.5:
        return best.reading, "extraction"
    return None, ""


def admit(adapter: Adapter, root: Intent, truth: GroundTruth, brief: WriterBrief, ex: TargetedExtraction,
          reading: TextReading | None = None, text: str | None = None) -> Admission:
    """Build the literal reading(s) from the text (and the extraction ``ex``), execute them,
    apply the class rule. ``reading``/``text``: the request (without either, only the
    extraction's quoted words say what was read)."""
    ft = fault_type(brief.fault_type)
    cls = ft.extraction
    if reading is None:
        reading = read(adapter, root, text or "")
    slot = ex.requirement or brief.target
    cond = root.condition(slot) if slot else None

    if cls in (ExtractionClass.noise, ExtractionClass.oblique):
        r = _run(adapter, "as_stated", root)
        ok = r.truth is not None and r.truth.hash == truth.hash
        return Admission(None if ok else _reject("noise_changed_answer"), [r])

    if cls in (ExtractionClass.extras, ExtractionClass.mismatch):
        kind = "extra" if cls == ExtractionClass.extras else "mismatch"
        said = ex.detail if kind == "extra" else ex.operation
        intent, source = _detail_reading(adapter, root, reading, kind, said)
        if intent is None:
            return Admission(_reject(f"{'extra' if kind == 'extra' else 'operation'}_not_compilable", repr(said)))
        r = _run(adapter, "truth_plus_extra" if kind == "extra" else "mismatched_operation", intent, source)
        if kind == "extra":
            if r.truth is None or r.truth.empty:
                return Admission(_reject("extra_not_executable", r.error or "empty answer"), [r])
            narrows = r.truth.issubset(truth) and len(r.truth.value) < len(truth.value)
            return Admission(None if narrows or r.truth.hash != truth.hash else _reject("extra_did_not_narrow"), [r])
        refused = r.truth is None or r.truth.empty
        ok = not truth.empty and (refused or r.truth.hash != truth.hash)  # type: ignore[union-attr]
        return Admission(None if ok else _reject("mismatch_reaches_truth"), [r])

    if cond is None:
        return Admission(_reject("target_not_in_intent", repr(slot)))
    domain = adapter.grounder(root).domains[cond.slot]
    state = reading[cond.slot]

    def stated_values(said: str | None) -> tuple[list[Any], str]:
        """The legal values the text gives for the target (else the extraction's quote resolves to)."""
        keys = [k for k in state.values if k != domain.truth_key] if state.state in ("other", "doubted") else []
        if keys:
            return [domain.value(k).value for k in keys if domain.value(k)], "text"  # type: ignore[union-attr]
        resolved = adapter.grounder(root).resolve(cond.slot, said)  # a set: read it in the domain's order
        return [v.value for v in domain.values if v.key in resolved and v.key != domain.truth_key], "extraction"

    if cls == ExtractionClass.substituted:
        values, source = stated_values(ex.stated_value)
        if not values:
            return Admission(_reject("stated_value_not_a_legal_value", repr(ex.stated_value)))
        readings = [_run(adapter, "stated_value", root.with_condition(cond.with_value(v)), source) for v in values]
        ok = all(r.truth is not None and not r.truth.empty and r.truth.hash != truth.hash for r in readings)
        return Admission(None if ok else _reject("substitution_without_consequence"), readings)

    if cls == ExtractionClass.presupposed:
        values, source = stated_values(ex.fallback)
        if values:
            readings = [_run(adapter, "fallback", root.with_condition(cond.with_value(v)), source) for v in values]
        else:
            readings = [_run(adapter, "doubted_slot_dropped", root.without(cond.slot))]
        ok = all(r.truth is not None and not r.truth.empty and r.truth.hash != truth.hash for r in readings)
        return Admission(None if ok else _reject("presupposition_without_consequence"), readings)

    if cls in (ExtractionClass.withheld, ExtractionClass.marked):
        if len(root.conditions) < 2:  # nothing else is asked: every legal value it leaves open is a reading
            readings = [_run(adapter, "value_left_open", root.with_condition(cond.with_value(v.value)))
                        for v in domain.values if v.key != domain.truth_key]
            if not readings:
                return Admission(_reject("nothing_retained", "the requirement has no other legal value"))
        else:
            readings = [_run(adapter, "slot_dropped", root.without(cond.slot))]
        ok = any(r.truth is not None and not r.truth.empty and r.truth.hash != truth.hash for r in readings)
        return Admission(None if ok else _reject("withhold_did_not_widen"), readings)

    if cls == ExtractionClass.ambiguous:
        first = _run(adapter, "reading_1", root)
        if state.state == "ambiguous" and len(state.values) > 1:  # the readings the text's words leave open
            others = [k for k in state.values if k != domain.truth_key]
            seconds = [_run(adapter, "reading_2", root.with_condition(cond.with_value(domain.value(k).value)))  # type: ignore[union-attr]
                       for k in others if domain.value(k)]
        elif ex.second_reading is not None:
            values, source = stated_values(ex.second_reading)
            if not values:
                return Admission(_reject("second_reading_not_a_legal_value", repr(ex.second_reading)), [first])
            seconds = [_run(adapter, "reading_2", root.with_condition(cond.with_value(v)), source) for v in values]
        else:
            seconds = [_run(adapter, "reading_2_attached_elsewhere", root.without(cond.slot))]
        readings = [first, *seconds]
        if any(r.truth is None for r in readings):
            return Admission(_reject("reading_not_executable", next(r.error or "" for r in readings if r.truth is None)),
                             readings)
        if all(r.truth.hash == first.truth.hash for r in seconds):  # type: ignore[union-attr]
            return Admission(_reject("readings_agree"), readings)
        matches = sum(1 for r in readings if r.truth.hash == truth.hash)  # type: ignore[union-attr]
        return Admission(None if matches == 1 else _reject("no_reading_matches_truth"), readings)

    return Admission(_reject("no_rule_for_class", cls.value))


# -- admission of an agreed reading (DESIGN section 6, step 6) -----------------------------------


def admit_reading(adapter: Adapter, root: Intent, truth: GroundTruth, form: ReadingForm, reading: ReadingRecord,
                  found: Departure | None) -> Admission:
    """Execute the literal reading of the text as the agreed ``reading`` says it (never the plan)
    and apply the class rule of DESIGN section 6: a substituted or doubted value changes the
    answer; a requirement left unsaid, pointed at or vague widens it (each candidate, or the slot
    dropped); an ambiguous one gives readings that differ with exactly one the truth; an extra
    narrows it or changes the state; another operation is refused or reaches another state; an
    off-topic passage or a request never asked leaves the truth as it is."""
    if found is None or found.cls in (ExtractionClass.noise, ExtractionClass.oblique):
        r = _run(adapter, "as_stated", root, "reading")
        ok = r.truth is not None and r.truth.hash == truth.hash
        return Admission(None if ok else _reject("noise_changed_answer"), [r])
    if found.cls == ExtractionClass.mismatch:
        entry = next((m for m in adapter.mismatches(root) if m.phrase == reading.operation), None)
        if entry is None:
            return Admission(_reject("operation_not_compilable", repr(reading.operation)))
        r = _run(adapter, "mismatched_operation", entry.reading, "reading")
        refused = r.truth is None or r.truth.empty
        ok = not truth.empty and (refused or r.truth.hash != truth.hash)  # type: ignore[union-attr]
        return Admission(None if ok else _reject("mismatch_reaches_truth"), [r])
    if found.cls == ExtractionClass.extras:
        said = " ".join(f"{e.quote} {e.condition}" for e in reading.extras)
        best = max(adapter.extras(root), key=lambda e: overlap(e.phrase, said), default=None)
        if best is None or overlap(best.phrase, said) < 0.5:
            return Admission(_reject("extra_not_compilable", repr(said)))
        r = _run(adapter, "truth_plus_extra", best.reading, "reading")
        if r.truth is None or r.truth.empty:
            return Admission(_reject("extra_not_executable", r.error or "empty answer"), [r])
        narrows = r.truth.issubset(truth) and len(r.truth.value) < len(truth.value)
        return Admission(None if narrows or r.truth.hash != truth.hash else _reject("extra_did_not_narrow"), [r])

    slot = found.target or ""
    cond, req, read_as = root.condition(slot), form.requirement(slot), reading.requirements[slot]
    if cond is None:
        return Admission(_reject("target_not_in_intent", repr(slot)))

    def as_value(said: str, name: str) -> Reading:
        return _run(adapter, name, root.with_condition(cond.with_value(req.legal_value(said))), "reading")

    others = [c for c in read_as.candidates if c != req.truth and c in req.values]
    if found.cls in (ExtractionClass.substituted, ExtractionClass.presupposed) and read_as.value not in req.values \
            and read_as.value != NO_VALUE:
        return Admission(_reject("stated_value_not_a_legal_value", repr(read_as.value)))
    if found.cls == ExtractionClass.substituted:
        if read_as.value in (NO_VALUE, req.truth):
            return Admission(_reject("stated_value_not_a_legal_value", repr(read_as.value)))
        readings = [as_value(read_as.value, "stated_value")]
        ok = all(r.truth is not None and not r.truth.empty and r.truth.hash != truth.hash for r in readings)
        return Admission(None if ok else _reject("substitution_without_consequence"), readings)
    if found.cls == ExtractionClass.presupposed:
        readings = ([as_value(read_as.value, "fallback")] if read_as.value not in (NO_VALUE, req.truth)
                    else [_run(adapter, "doubted_slot_dropped", root.without(slot), "reading")])
        ok = all(r.truth is not None and not r.truth.empty and r.truth.hash != truth.hash for r in readings)
        return Admission(None if ok else _reject("presupposition_without_consequence"), readings)
    if found.cls in (ExtractionClass.withheld, ExtractionClass.marked):
        readings = [as_value(c, "candidate") for c in others]
        if len(root.conditions) >= 2:  # and the requirement dropped (DESIGN 6, step 6)
            readings.append(_run(adapter, "slot_dropped", root.without(slot), "reading"))
        elif not others:  # nothing else is asked: every legal value it leaves open is a reading
            readings = [as_value(v, "value_left_open") for v in req.values if v != req.truth]
            if not readings:
                return Admission(_reject("nothing_retained", "the requirement has no other legal value"))
        ok = any(r.truth is not None and not r.truth.empty and r.truth.hash != truth.hash for r in readings)
        return Admission(None if ok else _reject("withhold_did_not_widen"), readings)
    if found.cls == ExtractionClass.ambiguous:
        # a modifier that may belong to something else: one reading leaves the requirement unsaid
        unsaid = [_run(adapter, "reading_2", root.without(slot), "reading")] if NO_VALUE in read_as.candidates else []
        if not (others or unsaid):
            return Admission(_reject("no_second_reading", f"candidates {read_as.candidates}"))
        readings = [_run(adapter, "reading_1", root, "reading"), *(as_value(c, "reading_2") for c in others), *unsaid]
        if any(r.truth is None for r in readings):
            return Admission(_reject("reading_not_executable", next(r.error or "" for r in readings if r.truth is None)),
                             readings)
        if all(r.truth.hash == readings[0].truth.hash for r in readings[1:]):  # type: ignore[union-attr]
            return Admission(_reject("readings_agree"), readings)
        matches = sum(1 for r in readings if r.truth.hash == truth.hash)  # type: ignore[union-attr]
        return Admission(None if matches == 1 else _reject("no_reading_matches_truth"), readings)
    return Admission(_reject("no_rule_for_class", found.cls.value))
