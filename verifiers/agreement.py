"""Dual-extraction agreement (DESIGN section 6, step 5): the two extractors must agree with each
other and with the plan.

Readings (:mod:`miscue.reading`) are compared on the class and target code derives from each,
and on what each reads the target as (:func:`readings_agree`).
"""

from __future__ import annotations

from miscue.reading import Departure, Reading, ReadingForm, single_class
from miscue.schema import Verdict
from miscue.taxonomy import ExtractionClass
from miscue.verifiers.text import norm


def _v(stage: str, code: str, detail: str = "") -> Verdict:
    return Verdict(stage=stage, code=f"{stage}:{code}", detail=detail)  # type: ignore[arg-type]


def overlap(a: str | None, b: str | None) -> float:
    """Share of the shorter span's words that the other span also has."""
    wa, wb = set(norm(a or "").split()), set(norm(b or "").split())
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / min(len(wa), len(wb))


def reading_matches_plan(form: ReadingForm, reading: Reading, plan: Departure | None, who: str) -> Verdict | None:
    """Does one extractor's reading derive the plan's class and target? (The gate after
    extractor A: when it fails, B is not asked.)"""
    d = single_class(reading, form)
    if isinstance(d, Verdict):
        return _v("agree", "two_faults", f"extractor {who}: {d.detail}")
    if d == plan:
        return None
    if d is None or plan is None or d.cls != plan.cls:
        return _v("agree", "flaw_mismatch", f"extractor {who} reads {_said(d)}, the plan is {_said(plan)}")
    return _v("agree", "slot_mismatch", f"extractor {who} points at {d.target!r}, the plan at {plan.target!r}")


def readings_agree(form: ReadingForm, a: Reading, b: Reading, plan: Departure | None) -> Verdict | None:
    """Both extractors' readings derive the same single class and target, and the plan's
    (``plan``: the planned departure; None for a request planned plain); the target is read
    alike -- the same committed value, the same candidates, overlapping quotes, the same
    operation, overlapping extras or off-topic spans. Every other requirement is read as stated
    by both (a second departure is two faults: :func:`miscue.reading.single_class`)."""
    found: dict[str, Departure | None] = {}
    for who, r in (("a", a), ("b", b)):
        d = single_class(r, form)
        if isinstance(d, Verdict):
            return _v("agree", "two_faults", f"extractor {who}: {d.detail}")
        found[who] = d
    da, db = found["a"], found["b"]
    if da != db:
        return _v("agree", "extractors_disagree", f"extractor a reads {_said(da)}, extractor b {_said(db)}")
    if da is None or plan is None or da.cls != plan.cls:
        if da == plan:
            return None
        return _v("agree", "flaw_mismatch", f"both read {_said(da)}, the plan is {_said(plan)}")
    if da.target != plan.target:
        return _v("agree", "slot_mismatch", f"both point at {da.target!r}, the plan at {plan.target!r}")
    return read_alike(a, b, da)


def read_alike(a: Reading, b: Reading, d: Departure) -> Verdict | None:
    """Both readings read the departure ``d`` alike: the same committed value, candidates that
    agree, overlapping quotes; the same operation; overlapping extras or off-topic spans."""
    if d.target is not None:
        ra, rb = a.requirements[d.target], b.requirements[d.target]
        if d.cls in (ExtractionClass.substituted, ExtractionClass.presupposed) and ra.value != rb.value:
            return _v("agree", "value_mismatch", f"{ra.value!r} / {rb.value!r}")
        if d.cls in (ExtractionClass.marked, ExtractionClass.ambiguous) and not candidates_agree(ra.candidates, rb.candidates):
            return _v("agree", "candidates_mismatch", f"{sorted(ra.candidates)} / {sorted(rb.candidates)}")
        if (ra.quote or rb.quote) and overlap(ra.quote, rb.quote) == 0:
            return _v("agree", "span_mismatch", f"{ra.quote!r} / {rb.quote!r}")
    elif d.cls == ExtractionClass.mismatch and a.operation != b.operation:
        return _v("agree", "operation_mismatch", f"{a.operation!r} / {b.operation!r}")
    elif d.cls == ExtractionClass.extras and overlap(" ".join(e.quote for e in a.extras),
                                                    " ".join(e.quote for e in b.extras)) < 0.5:
        return _v("agree", "extra_mismatch", f"{[e.quote for e in a.extras]} / {[e.quote for e in b.extras]}")
    elif d.cls == ExtractionClass.noise and overlap(a.off_topic, b.off_topic) < 0.5:
        return _v("agree", "span_mismatch", "the off-topic spans do not overlap")
    return None


def candidates_agree(a: list[str], b: list[str]) -> bool:
    """Two readers agree on what words leave open when they list the same values, or share two
    or more (each lists every value it thinks the words could mean; the readings both see are
    the ones executed: :func:`agreed_reading`)."""
    return set(a) == set(b) or len(set(a) & set(b)) >= 2


def agreed_reading(a: Reading, b: Reading, found: Departure | None | list[Departure]) -> Reading:
    """A's reading with each target's candidates cut to the ones B reads too (what admission
    executes); ``found``: the departure, or a composite's departures."""
    cut = {d.target for d in (found if isinstance(found, list) else [found])
           if d is not None and d.target is not None and d.cls in (ExtractionClass.marked, ExtractionClass.ambiguous)}
    if not cut:
        return a
    reqs = dict(a.requirements)
    for slot in cut:
        reqs[slot] = reqs[slot].model_copy(update={"candidates": [c for c in reqs[slot].candidates
                                                                  if c in b.requirements[slot].candidates]})
    return a.model_copy(update={"requirements": reqs})


def _said(d: Departure | None) -> str:
    return "a plain request" if d is None else d.cls.value + (f" on {d.target}" if d.target else "")
