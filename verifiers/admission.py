"""Executable admission (DESIGN section 6, step 6): the literal reading(s) of the request, as the
agreed reading says it (never the plan), are executed in the host environment and the class rule
applied. No executed reading, no admission. Each executed reading records where it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from miscue.host import Adapter, NotExecutable
from miscue.reading import NO_VALUE, Departure, Extra, ReadingForm, addition_of, limit_of, normalise
from miscue.reading import Reading as ReadingRecord
from miscue.schema import Condition, GroundTruth, Intent, Verdict
from miscue.taxonomy import ExtractionClass
from miscue.verifiers.agreement import overlap


@dataclass
class Reading:
    name: str
    intent: Intent | None
    truth: GroundTruth | None = None
    error: str | None = None
    # "reading": built from the agreed reading; a composite's merged reading records "text" (as
    # every version has); "extraction" only in versions of the retired forms path
    source: str = "text"

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


def _run(adapter: Adapter, name: str, intent: Intent, source: str, refusal_kind: str | None = None) -> Reading:
    """Execute one reading. With ``refusal_kind``, an environment's refusal (its policy forbids
    every way of doing it) is the reading's outcome: no answer, of that kind."""
    try:
        return Reading(name, intent, adapter.ground_truth(intent), source=source)
    except NotExecutable as exc:
        refused = GroundTruth.of(refusal_kind, []) if refusal_kind is not None and exc.refusal else None
        return Reading(name, intent, refused, f"{exc.code}: {exc.detail}", source)


_STRICT = {"<": "<=", ">": ">="}


def _bounded(adapter: Adapter, root: Intent, form: ReadingForm, extra: Extra) -> Intent | None:
    """The truth plus the bound ``extra`` puts on a limit the host lists (None when it is not
    written as one): one of its named values, or a number (a strict bound is the next value in:
    under $150 is <= $149.99)."""
    found = limit_of(extra, form)
    if found is None:  # not written as a listed limit: nothing to ask the host (its limits cost executions)
        return None
    limit = next((x for x in adapter.limits(root) if x.name == found.name), None)
    if limit is None:
        return None
    if limit.words:  # the customer's own words, checked by the host's own matching
        return root.with_condition(Condition(slot=limit.slot + normalise(found.value or ""), value=normalise(found.value or "")))
    if found.value is not None:  # one of the detail's named values
        return root.with_condition(Condition(slot=limit.slot, value=dict(limit.values)[found.value]))
    number = found.number  # type: ignore[assignment]
    if found.op == "=":  # exactly N: at most N and at least N
        return root.with_condition(Condition(slot=limit.slot, op="<=", value=number)).with_condition(
            Condition(slot=limit.slot, op=">=", value=number))
    step = limit.step if found.op in _STRICT else 0.0
    bound = number - step if found.op == "<" else number + step
    return root.with_condition(Condition(slot=limit.slot, op=_STRICT.get(found.op, found.op),  # type: ignore[arg-type]
                                         value=round(bound, 6)))


def _limited(adapter: Adapter, root: Intent, form: ReadingForm, reading: ReadingRecord) -> Intent | None:
    """The truth bounded by the reading's first extra written as a limit (None: none is)."""
    return next((b for e in reading.extras if (b := _bounded(adapter, root, form, e)) is not None), None)


def without_met_limits(adapter: Adapter, root: Intent, truth: GroundTruth, form: ReadingForm,
                       reading: ReadingRecord) -> ReadingRecord:
    """``reading`` without the extras that bound a limit the truth already meets ("nonstop" for
    flights that are nonstop): executed, such a detail leaves the answer as it is, so it agrees with
    the truth and is no departure (the form: a detail that agrees with a true value is no extra)."""
    def met(extra: Extra) -> bool:
        bounded = _bounded(adapter, root, form, extra)
        if bounded is None:
            return False
        r = _run(adapter, "truth_plus_limit", bounded, "reading")
        return r.truth is not None and r.truth.hash == truth.hash

    kept = [e for e in reading.extras if not met(e)]
    return reading if len(kept) == len(reading.extras) else reading.model_copy(update={"extras": kept})


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
        r = _run(adapter, "mismatched_operation", entry.reading, "reading", refusal_kind=truth.kind)
        refused = r.truth is None or r.truth.empty
        ok = not truth.empty and (refused or r.truth.hash != truth.hash)  # type: ignore[union-attr]
        return Admission(None if ok else _reject("mismatch_reaches_truth"), [r])
    if found.cls == ExtractionClass.extras:
        bounded = _limited(adapter, root, form, reading)
        if bounded is not None:  # a limit on a number the host checks: an answer it leaves out is a change
            r = _run(adapter, "truth_plus_limit", bounded, "reading")
            if r.truth is None:
                return Admission(_reject("extra_not_executable", r.error or ""), [r])
            narrows = r.truth.issubset(truth) and len(r.truth.value) < len(truth.value)
            return Admission(None if narrows or r.truth.hash != truth.hash else _reject("extra_did_not_narrow"), [r])
        asked = next((a for e in reading.extras if (a := addition_of(e, form)) is not None), None)
        if asked is not None:  # something more asked done, as the form lists it: the truth and that (refused: nothing)
            entry = next((e for e in adapter.additions(root) if e.act == asked), None)
            if entry is None:
                return Admission(_reject("extra_not_compilable", repr(asked)))
            r = _run(adapter, "truth_plus_addition", entry.reading, "reading", refusal_kind=truth.kind)
            if r.truth is None:
                return Admission(_reject("extra_not_executable", r.error or ""), [r])
            return Admission(None if r.truth.hash != truth.hash else _reject("extra_did_not_narrow"), [r])
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
