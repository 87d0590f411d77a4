"""Per-component verification of composite faults (DESIGN section 7).

A composite text carries k planned components. It is admitted only when

1. the second pass (k >= 3 with a whole-message fault) repaired nothing: every content
   component's mark that the first pass carried is still in the final text
   (``composite:repaired_by_transform``);
2. the mechanical text checks hold for k faults at once (budget grows with k, every requirement
   no component touches is conveyed verbatim, each component's own mark is present);
3. both extractors' multi-flaw blind answers contain every planned component (class, and the
   assigned requirement for slot components), and no flaw outside the plan is found by both
   (``composite:component_missing`` / ``composite:unplanned_fault``);
4. no two components claim the same requirement or the same words, and nothing a component
   claims lies inside the off-topic passage (``composite:same_slot`` / ``composite:same_span``
   / ``composite:value_inside_off_topic``);
5. every component's targeted answers agree with each other and with the plan, and the
   component is admitted on its own by the single-fault rule of :func:`verifiers.admission.admit`;
6. the merged literal reading (every component's reading applied to the truth at once, built
   from the extractions) is executed and recorded; its failure is recorded, not fatal, unless no
   component reading was executed at all (``composite:no_executed_reading``).

Codes of single-fault rules keep their stage prefix (``text:``, ``agree:``, ``admit:``) with the
component named in the detail; whole-message rules are ``composite:`` codes, recorded at the
stage they belong to (a second-pass repair at ``write``, claims and unplanned faults at
``agree``, a composite with no executed reading at ``admit``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from miscue.host import Adapter, NotExecutable
from miscue.briefs import BlindExtraction, TargetedExtraction
from miscue.canonical import canonical_json
from miscue.planning import AttemptPlan, CompositeAttemptPlan
from miscue.schema import Condition, GroundTruth, Intent, Verdict
from miscue.taxonomy import WHOLE_MESSAGE_TYPES, ExtractionClass, fault_type, takes_slot
from miscue.writing import composite_word_budget
from verifiers.admission import Admission, Reading, admit
from verifiers.agreement import targeted_agree
from verifiers.text import _META, _SNAKE_ASSIGN, REQUEST_PHRASES, contains, norm, words

Key = tuple[str, "str | None"]


def _v(stage: str, code: str, detail: str = "") -> Verdict:
    return Verdict(stage=stage, code=code, detail=detail)  # type: ignore[arg-type]


def flaw_of(ap: AttemptPlan) -> str:
    return fault_type(ap.component.fault_type).extraction.value


def planned_key(ap: AttemptPlan) -> Key:
    """What an extractor must report for this component: its class, and the assigned
    requirement when the component takes one."""
    t = ap.component.fault_type
    return flaw_of(ap), (ap.component.target if takes_slot(t) else None)


def found_key(b: BlindExtraction) -> Key:
    slot_classes = ("substituted", "presupposed", "withheld", "marked", "ambiguous")
    return b.flaw, (b.requirement if b.flaw in slot_classes else None)


# ------------------------------------------------------------------------------- text checks


def _occurrences(text: str, value: str) -> int:
    v = norm(value)
    return f" {norm(text)} ".count(f" {v} ") if v else 0


def _still_present(ap: AttemptPlan, text: str, hidden: set[str]) -> bool:
    """The target's true value occurs more often than the other requirements that are stated
    with it (or contain it) account for: another requirement may share the value."""
    b = ap.brief
    t = b.requirement(b.target)
    if t is None or not contains(text, t.spoken):
        return False
    shared = sum(_occurrences(r.spoken, t.spoken) for r in b.requirements if r.slot != t.slot and r.slot not in hidden)
    return _occurrences(text, t.spoken) > shared


def mark_failure(ap: AttemptPlan, text: str, strict: bool = False, hidden: set[str] | None = None) -> str | None:
    """The component's own mark in ``text`` (None: present), as the single-fault text rules
    read it; ``strict`` also asks for the marks a faithful rewrite must keep (the companion of
    a misplaced modifier, the pointer or subjective word, the word with two senses).
    ``hidden``: requirements whose true value other components keep out of the text."""
    b, m = ap.brief, ap.brief.materials
    ft = fault_type(b.fault_type)
    t = b.requirement(b.target)
    cls = ft.extraction
    hidden = hidden or set()
    if t is not None:
        if cls == ExtractionClass.substituted:
            if _still_present(ap, text, hidden):
                return "true_value_still_present"
            if not m.wrong_value or not contains(text, m.wrong_value):
                return "asserted_value_absent"
        elif cls == ExtractionClass.presupposed:
            if not contains(text, t.spoken):
                return "doubted_value_absent"
            if not m.fallback or not contains(text, m.fallback):
                return "fallback_value_absent"
        elif cls in (ExtractionClass.withheld, ExtractionClass.marked) or ft.id == "lexical_ambiguity":
            if _still_present(ap, text, hidden):
                return "withheld_value_present" if cls == ExtractionClass.withheld else "unresolved_value_present"
            if strict and ft.id == "referential_ambiguity" and m.pointer and not contains(text, m.pointer):
                return "pointer_absent"
            if strict and ft.id == "vagueness_subjectivity" and m.vague_word and not contains(text, m.vague_word):
                return "subjective_word_absent"
            if strict and ft.id == "lexical_ambiguity" and m.ambiguous_word and not contains(text, m.ambiguous_word):
                return "ambiguous_word_absent"
        elif ft.id == "syntactic_ambiguity":
            if not contains(text, t.spoken):
                return "requirement_not_conveyed"
            if strict and m.companion and not contains(text, m.companion):
                return "companion_absent"
    if cls == ExtractionClass.extras and (not m.extra or not contains(text, m.extra)):
        return "extra_detail_absent"
    if cls == ExtractionClass.mismatch and (not m.mismatch or not contains(text, m.mismatch)):
        return "mismatched_operation_absent"
    if cls == ExtractionClass.oblique:
        low = f" {norm(text)} "
        if any(f" {norm(p)} " in low for p in REQUEST_PHRASES):
            return "request_language_present"
    return None


def hidden_slots(plan: CompositeAttemptPlan) -> set[str]:
    """Requirements whose true value the plan keeps out of the text (wrong value, omitted,
    pointer, subjective description, word with two senses)."""
    keep_out = (ExtractionClass.substituted, ExtractionClass.withheld, ExtractionClass.marked)
    return {ap.component.target for ap in plan.components if ap.component.target
            and (fault_type(ap.component.fault_type).extraction in keep_out or ap.component.fault_type == "lexical_ambiguity")}


def repaired_by_transform(plan: CompositeAttemptPlan, first: str, final: str) -> Verdict | None:
    """A content component whose mark the first pass carried and the second pass lost."""
    hidden = hidden_slots(plan)
    for ap in plan.content:
        before = mark_failure(ap, first, strict=True, hidden=hidden)
        after = mark_failure(ap, final, strict=True, hidden=hidden)
        if before is None and after is not None:
            return _v("write", "composite:repaired_by_transform", f"{ap.component.fault_type}: {after}")
    return None


def check_composite_text(plan: CompositeAttemptPlan, text: str | None, leaks: list[str] | None = None) -> Verdict | None:
    """The mechanical checks of DESIGN section 6 step 2, adapted to k faults at once."""
    if text is None or not text.strip():
        return _v("text", "text:empty")
    reqs = plan.briefs[0].requirements
    slots = [r.slot for r in reqs]
    if any(s in text for s in slots if "." in s or ":" in s) or _SNAKE_ASSIGN.search(text):
        return _v("text", "text:internal_syntax")
    meta = _META.search(text)
    if meta:
        return _v("text", "text:meta_commentary", meta.group(0))
    types = [ap.component.fault_type for ap in plan.components]
    budget = composite_word_budget(plan.k, len(reqs), "contextual_irrelevance" in types,
                                   sum(words(ap.brief.materials.extra or "") for ap in plan.components))
    if words(text) > budget:
        return _v("text", "text:too_long", f"{words(text)} words > {budget}")
    for leak in leaks or []:
        if leak and contains(text, leak):
            return _v("text", "text:answer_identifier_leaked", leak)
    touched = {ap.component.target for ap in plan.components if ap.component.target and takes_slot(ap.component.fault_type)}
    for r in reqs:
        if r.slot not in touched and not contains(text, r.spoken):
            return _v("text", "text:requirement_not_conveyed", r.phrase)
    hidden = hidden_slots(plan)
    for ap in plan.components:
        failure = mark_failure(ap, text, hidden=hidden)
        if failure:
            return _v("text", f"text:{failure}", f"component {ap.component.fault_type}")
    return None


# ------------------------------------------------------------------------------- extraction


@dataclass
class CompositeExtraction:
    """Both extractors' answers on one composite text: the multi-flaw blind lists and the
    targeted form per planned component (keyed by fault type)."""

    blind_a: list[BlindExtraction] | None = None
    blind_b: list[BlindExtraction] | None = None
    targeted_a: dict[str, TargetedExtraction | None] = field(default_factory=dict)
    targeted_b: dict[str, TargetedExtraction | None] = field(default_factory=dict)


def missing_components(plan: CompositeAttemptPlan, found: list[BlindExtraction] | None, who: str) -> Verdict | None:
    """Every planned component must be in this extractor's multi-flaw blind answer."""
    if found is None:
        return _v("extract", "extract:unparseable", f"extractor {who} gave no usable multi-flaw answer")
    keys = {found_key(b) for b in found}
    for ap in plan.components:
        if planned_key(ap) not in keys:
            cls, slot = planned_key(ap)
            return _v("agree", "composite:component_missing",
                      f"extractor {who} did not find {ap.component.fault_type} ({cls} on {slot!r}); found {sorted(map(str, keys))}")
    return None


def unplanned(plan: CompositeAttemptPlan, a: list[BlindExtraction], b: list[BlindExtraction]) -> tuple[list[Key], list[Key]]:
    """Flaws outside the plan: (found by both extractors, found by one only)."""
    planned = {planned_key(ap) for ap in plan.components}
    ka = {found_key(x) for x in a} - planned
    kb = {found_key(x) for x in b} - planned
    return sorted(ka & kb, key=str), sorted(ka ^ kb, key=str)


# ------------------------------------------------------------------------------- claims


def _intervals(text: str, needle: str | None) -> list[tuple[int, int]]:
    needle = (needle or "").strip().strip(".,;:!?")
    if not needle:
        return []
    pattern = r"(?<!\w)" + r"\s+".join(re.escape(p) for p in needle.split()) + r"(?!\w)"
    return [m.span() for m in re.finditer(pattern, text, re.IGNORECASE)]


def _inside(text: str, inner: str | None, outer: str | None) -> bool:
    """Every occurrence of ``inner`` overlaps an occurrence of ``outer`` (it cannot be read
    anywhere else in the text)."""
    spans_in, spans_out = _intervals(text, inner), _intervals(text, outer)
    if not spans_in or not spans_out:
        return False
    return all(any(s < oe and os_ < e for os_, oe in spans_out) for s, e in spans_in)


def _entangled(text: str, a: str | None, b: str | None) -> bool:
    """Both claims occur in the text and no occurrence of one is apart from an occurrence of
    the other: they cannot be read as two separate stretches of the text."""
    sa, sb = _intervals(text, a), _intervals(text, b)
    if not sa or not sb:
        return False
    return all(x < ye and y < xe for x, xe in sa for y, ye in sb)


def _claimed(ex: TargetedExtraction | None) -> list[str]:
    """The words a component's targeted answer claims in the text."""
    if ex is None:
        return []
    return [x for x in (ex.stated_value, ex.clause, ex.surface, ex.detail, ex.operation) if x]


def claims_conflict(plan: CompositeAttemptPlan, text: str, ex: CompositeExtraction) -> Verdict | None:
    """Two components on the same requirement or the same words; anything claimed, or a
    requirement's value, inside the off-topic passage."""
    owner: dict[str, str] = {}
    for ap in plan.components:
        t = ap.component.fault_type
        for who, answers in (("a", ex.targeted_a), ("b", ex.targeted_b)):
            got = answers.get(t)
            slot = got.requirement if got is not None and takes_slot(t) else None
            if slot is None:
                continue
            if slot in owner and owner[slot] != t:
                return _v("agree", "composite:same_slot", f"{owner[slot]} and {t} both on {slot!r} (extractor {who})")
            owner[slot] = t
    noise = [answers.get("contextual_irrelevance") for answers in (ex.targeted_a, ex.targeted_b)]
    spans = [n.span for n in noise if n is not None and n.span]
    comps = [ap for ap in plan.components if ap.component.fault_type != "contextual_irrelevance"]
    for span in spans:
        for ap in comps:
            for answers in (ex.targeted_a, ex.targeted_b):
                for claimed in _claimed(answers.get(ap.component.fault_type)):
                    if _inside(text, claimed, span):
                        return _v("agree", "composite:same_span",
                                  f"{ap.component.fault_type} claims {claimed!r} inside the off-topic passage")
        for r in plan.briefs[0].requirements:
            if _inside(text, r.spoken, span):
                return _v("agree", "composite:value_inside_off_topic", f"{r.phrase}: {r.spoken!r}")
    for i, x in enumerate(comps):
        for y in comps[i + 1:]:
            for answers in (ex.targeted_a, ex.targeted_b):
                for cx in _claimed(answers.get(x.component.fault_type)):
                    for cy in _claimed(answers.get(y.component.fault_type)):
                        if _entangled(text, cx, cy):
                            return _v("agree", "composite:same_span",
                                      f"{x.component.fault_type} {cx!r} and {y.component.fault_type} {cy!r}")
    return None


# ------------------------------------------------------------------------------- merged reading


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


def _moved_reading(adm: Admission, truth: GroundTruth) -> Reading | None:
    """The component's literal reading that departs from the truth (the last such one)."""
    moved = [r for r in adm.readings if r.intent is not None and (r.truth is None or r.truth.hash != truth.hash)]
    if moved:
        return moved[-1]
    return adm.readings[-1] if adm.readings else None


# ------------------------------------------------------------------------------- the verdict


@dataclass
class ComponentResult:
    plan: AttemptPlan
    found_a: bool = False
    found_b: bool = False
    targeted_a: TargetedExtraction | None = None
    targeted_b: TargetedExtraction | None = None
    admission: Admission | None = None
    verdict: Verdict | None = None

    def record(self) -> dict[str, Any]:
        c = self.plan.component
        cls, slot = planned_key(self.plan)
        return {
            "fault_type": c.fault_type, "target": c.target, "flaw": cls, "requirement": slot,
            "materials": self.plan.brief.materials.model_dump(exclude_none=True, exclude_defaults=True),
            "found_a": self.found_a, "found_b": self.found_b,
            "targeted_a": self.targeted_a.model_dump(exclude_none=True) if self.targeted_a else None,
            "targeted_b": self.targeted_b.model_dump(exclude_none=True) if self.targeted_b else None,
            "admitted": bool(self.admission and self.admission.admitted),
            "readings": [r.record() for r in self.admission.readings] if self.admission else [],
            "verdict": self.verdict.code if self.verdict else None,
        }


@dataclass
class CompositeResult:
    verdict: Verdict | None
    components: list[ComponentResult]
    merged: Reading | None = None
    merged_info: dict[str, Any] = field(default_factory=dict)
    unplanned_both: list[Key] = field(default_factory=list)
    unplanned_one: list[Key] = field(default_factory=list)

    @property
    def admitted(self) -> bool:
        return self.verdict is None

    @property
    def executed(self) -> int:
        n = sum(c.admission.executed for c in self.components if c.admission)
        return n + (1 if self.merged is not None and self.merged.truth is not None else 0)

    def readings(self) -> dict[str, Any]:
        merged = None
        if self.merged is not None:
            merged = {**self.merged.record(), **self.merged_info}
        return {"components": {c.plan.component.fault_type: [r.record() for r in c.admission.readings] if c.admission else []
                               for c in self.components},
                "merged": merged}

    def evidence(self) -> dict[str, Any]:
        return {"components": [c.record() for c in self.components],
                "unplanned_both": [list(k) for k in self.unplanned_both],
                "unplanned_one": [list(k) for k in self.unplanned_one]}


def verify_composite(adapter: Adapter, root: Intent, truth: GroundTruth, plan: CompositeAttemptPlan, text: str,
                     ex: CompositeExtraction) -> CompositeResult:
    """Steps 3-6 of the module docstring on the final ``text`` (steps 1-2 run before any
    extractor call, in :func:`repaired_by_transform` and :func:`check_composite_text`)."""
    comps = [ComponentResult(ap) for ap in plan.components]
    result = CompositeResult(None, comps)
    for c in comps:
        key = planned_key(c.plan)
        c.found_a = ex.blind_a is not None and key in {found_key(b) for b in ex.blind_a}
        c.found_b = ex.blind_b is not None and key in {found_key(b) for b in ex.blind_b}
        c.targeted_a = ex.targeted_a.get(c.plan.component.fault_type)
        c.targeted_b = ex.targeted_b.get(c.plan.component.fault_type)

    def done(verdict: Verdict | None) -> CompositeResult:
        result.verdict = verdict
        return result

    verdict = missing_components(plan, ex.blind_a, "a") or missing_components(plan, ex.blind_b, "b")
    if verdict is not None:
        return done(verdict)
    result.unplanned_both, result.unplanned_one = unplanned(plan, ex.blind_a or [], ex.blind_b or [])
    if result.unplanned_both:
        return done(_v("agree", "composite:unplanned_fault",
                       "found by both extractors: " + ", ".join(f"{f} on {s!r}" if s else f for f, s in result.unplanned_both)))
    verdict = claims_conflict(plan, text, ex)
    if verdict is not None:
        return done(verdict)
    for c in comps:
        t = c.plan.component.fault_type
        verdict = targeted_agree(c.plan.brief, c.targeted_a, c.targeted_b)
        if verdict is not None:
            c.verdict = verdict
            return done(verdict.model_copy(update={"detail": f"component {t}: {verdict.detail}"}))
        for who, got in (("a", c.targeted_a), ("b", c.targeted_b)):
            if got is not None and takes_slot(t) and got.requirement not in (None, c.plan.component.target):
                c.verdict = _v("agree", "agree:slot_mismatch",
                               f"component {t}: extractor {who}'s targeted answer on {got.requirement!r}, plan {c.plan.component.target!r}")
                return done(c.verdict)
    for c in comps:
        c.admission = admit(adapter, root, truth, c.plan.brief, c.targeted_a)  # type: ignore[arg-type]
        if not c.admission.admitted:
            c.verdict = c.admission.verdict
            assert c.verdict is not None
            return done(c.verdict.model_copy(update={"detail": f"component {c.plan.component.fault_type}: {c.verdict.detail}"}))
        if c.admission.executed == 0:
            c.verdict = _v("admit", "admit:no_executed_reading", f"component {c.plan.component.fault_type}")
            return done(c.verdict)
    readings = {c.plan.component.fault_type: _moved_reading(c.admission, truth) for c in comps if c.admission}  # type: ignore[arg-type]
    readings = {t: r for t, r in readings.items() if t not in WHOLE_MESSAGE_TYPES}
    result.merged, result.merged_info = merged_reading(adapter, root, readings)
    if result.merged.truth is not None:
        result.merged_info["moved"] = result.merged.truth.hash != truth.hash
    if sum(c.admission.executed for c in comps if c.admission) == 0:
        return done(_v("admit", "composite:no_executed_reading"))
    return done(None)
