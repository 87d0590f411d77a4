"""Dual-extraction agreement: the two extractors must agree with each other and with the plan.

The blind forms are compared on flaw class and requirement; the targeted forms on the
type-specific fields (same stated value, same fallback, overlapping spans …). Readings
(:mod:`miscue.reading`) are compared on the class and target code derives from each, and on
what each reads the target as (:func:`readings_agree`).
"""

from __future__ import annotations

from collections.abc import Callable

from miscue.briefs import BlindExtraction, TargetedExtraction, WriterBrief
from miscue.host import Adapter
from miscue.reading import Departure, Reading, ReadingForm, single_class
from miscue.schema import Intent, Verdict
from miscue.taxonomy import ExtractionClass, Target, fault_type
from miscue.verifiers.text import norm

MIN_NOISE_WORDS = 25


def _v(stage: str, code: str, detail: str = "") -> Verdict:
    return Verdict(stage=stage, code=f"{stage}:{code}", detail=detail)  # type: ignore[arg-type]


def overlap(a: str | None, b: str | None) -> float:
    """Share of the shorter span's words that the other span also has."""
    wa, wb = set(norm(a or "").split()), set(norm(b or "").split())
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / min(len(wa), len(wb))


def _value_words(text: str | None) -> str:
    """A quoted value's words; "$", "#" and a plural "s" make no difference ("$100" / "100",
    "#W123" / "W123", "1 checked bags" / "1 checked bag")."""
    out = []
    for w in norm(text or "").replace("$", "").replace("#", "").split():
        out.append(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return " ".join(out)


#: the legal values of the target requirement a quoted value names (empty: none, or no target)
Values = Callable[[str], frozenset[str]]


def grounded_values(adapter: Adapter, root: Intent, slot: str | None) -> Values:
    """:data:`Values` read by the intent's grounder: "no water resistance" and "not resistant" both
    name the earbuds' "not resistant", so two extractors quoting them agree on one value."""
    grounder = adapter.grounder(root)

    def values(quote: str) -> frozenset[str]:
        if slot is None or not quote.strip():
            return frozenset()
        return frozenset(k for m in grounder.ground(quote).mentions if m.kind in ("value", "member")
                         and slot in (m.candidates or m.slots) for k in m.values)
    return values


def same_value(a: str | None, b: str | None, values: Values | None = None) -> bool:
    """Word-wise equal, or one contained in the other, or (``values``) naming the same legal values."""
    na, nb = _value_words(a), _value_words(b)
    if not (na and nb):
        return False
    if na == nb or f" {na} " in f" {nb} " or f" {nb} " in f" {na} ":
        return True
    return values is not None and bool(va := values(a or "")) and va == values(b or "")


def blind_matches_plan(brief: WriterBrief, blind: BlindExtraction | None, who: str) -> Verdict | None:
    """Does one extractor's blind answer match the plan (family/class and target requirement)?"""
    if blind is None:
        return _v("extract", "unparseable", f"extractor {who} gave no usable blind answer")
    ft = fault_type(brief.fault_type)
    if blind.flaw != ft.extraction.value:
        return _v("agree", "flaw_mismatch", f"extractor {who} found {blind.flaw!r}, plan is {ft.extraction.value!r}")
    if ft.target in (Target.slot, Target.ordered_slot, Target.about_slot) and blind.requirement != brief.target:
        return _v("agree", "slot_mismatch", f"extractor {who} points at {blind.requirement!r}, plan at {brief.target!r}")
    return None


def targeted_agree(brief: WriterBrief, a: TargetedExtraction | None, b: TargetedExtraction | None,
                   values: Values | None = None) -> Verdict | None:
    """Type-specific agreement of both targeted answers with each other and with the plan; with
    ``values``, quoted values agree when they name the same legal values of the target."""
    if a is None or b is None:
        return _v("extract", "unparseable", "a targeted answer was missing or malformed")
    ft = fault_type(brief.fault_type)
    m = brief.materials
    cls = ft.extraction
    if cls == ExtractionClass.substituted:
        if not (same_value(a.stated_value, m.wrong_value, values) and same_value(b.stated_value, m.wrong_value, values)):
            return _v("agree", "stated_value_mismatch", f"{a.stated_value!r} / {b.stated_value!r} vs planned {m.wrong_value!r}")
    elif cls == ExtractionClass.presupposed:
        # a null fallback ("or null" is in the form) is no contrary reading: admission reads the
        # fallback the text grounds; only a fallback quoted otherwise than planned disagrees
        if not all(same_value(x.fallback, m.fallback, values) or not x.fallback for x in (a, b)):
            return _v("agree", "fallback_mismatch", f"{a.fallback!r} / {b.fallback!r} vs planned {m.fallback!r}")
        if not (a.clause and b.clause):
            return _v("agree", "no_presupposition", "an extractor quoted no premise clause")
    elif cls == ExtractionClass.marked:
        if not (a.surface and b.surface) or overlap(a.surface, b.surface) == 0:
            return _v("agree", "surface_mismatch", f"{a.surface!r} / {b.surface!r}")
    elif cls == ExtractionClass.ambiguous:
        # a second sense, when named, must be the planned one and named by both; without one the
        # second reading is the requirement left open (the word also fits other things)
        other = m.senses[1] if len(m.senses) > 1 else None
        named = [x.second_reading for x in (a, b) if x.second_reading]
        planned = other if ft.id == "lexical_ambiguity" else (named[0] if named else None)
        if len(named) == 1 or (named and not all(same_value(x, planned, values) for x in named)):
            return _v("agree", "reading_mismatch", f"{a.second_reading!r} / {b.second_reading!r} vs planned {other!r}")
        if not (a.surface and b.surface) or overlap(a.surface, b.surface) == 0:
            return _v("agree", "surface_mismatch", f"{a.surface!r} / {b.surface!r}")
    elif cls == ExtractionClass.extras:
        if overlap(a.detail, b.detail) < 0.5 or overlap(a.detail, m.extra) < 0.5:
            return _v("agree", "extra_mismatch", f"{a.detail!r} / {b.detail!r}")
    elif cls == ExtractionClass.mismatch:
        if overlap(a.operation, b.operation) < 0.5 or overlap(a.operation, m.mismatch) < 0.5:
            return _v("agree", "operation_mismatch", f"{a.operation!r} / {b.operation!r}")
    elif cls == ExtractionClass.noise:
        if min(len((a.span or "").split()), len((b.span or "").split())) < MIN_NOISE_WORDS:
            return _v("agree", "off_topic_too_short", f"{a.span!r} / {b.span!r}")
        if overlap(a.span, b.span) < 0.5:
            return _v("agree", "span_mismatch", "the off-topic spans do not overlap")
    elif cls == ExtractionClass.oblique:
        if a.request_stated is not False or b.request_stated is not False:
            return _v("agree", "request_stated", f"{a.request_stated!r} / {b.request_stated!r}")
    return None


# -- agreement on readings (DESIGN section 6, step 5) ---------------------------------------------


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
