"""Planning, text checks, agreement and executable admission on real tau2 graphs (small task
slices of the real hosts, built in a second or so).

The extractions here are written by hand (no model involved) so each rule is exercised on
exactly the case it must accept or reject.
"""

import pytest

from miscue.flows.registry import adapter_for
from miscue.graphs import GraphBuilder
from miscue.briefs import BlindExtraction, TargetedExtraction, WriterBrief
from miscue.planning import Planner
from miscue.taxonomy import FAULT_TYPES
from miscue.verifiers.admission import admit
from miscue.verifiers.agreement import blind_matches_plan, grounded_values, targeted_agree
from miscue.verifiers.text import check_text


#: retail task 0, and task 7 whose graph plans a lexical ambiguity; one airline task
RETAIL_SLICE, AIRLINE_SLICE = ["0", "7"], ["7"]


@pytest.fixture(scope="module")
def retail():
    return adapter_for("tau2-retail", tasks=RETAIL_SLICE)


@pytest.fixture(scope="module")
def retail_graphs(retail):
    return GraphBuilder(retail).build()


@pytest.fixture(scope="module")
def airline_graphs():
    adapter = adapter_for("tau2-airline", tasks=AIRLINE_SLICE)
    return adapter, GraphBuilder(adapter).build()


@pytest.fixture(scope="module")
def task0(retail, retail_graphs):
    graph = next(g for g in retail_graphs.graphs if g.task_id == "0")
    return retail, graph, Planner(retail)


def _plan(task0, fault):
    adapter, graph, planner = task0
    cell = next(c for c in planner.cells(graph, [fault]))
    assert cell.status == "planned", cell.reason
    return planner.attempt(cell, graph, 0)


def _check(task0, brief: WriterBrief, text: str):
    adapter, graph, _ = task0
    return check_text(adapter, graph.root.intent, graph.root.ground_truth, brief, text)


def _plain(brief: WriterBrief, drop: str | None = None, extra: str = "") -> str:
    parts = [f"{r.phrase} is {r.spoken}" for r in brief.requirements if r.slot != drop]
    return f"I'd like to {brief.request}: " + "; ".join(parts) + extra + "."


def test_every_type_is_planned_or_explained(task0, airline_graphs):
    adapter, graph, planner = task0
    cells = planner.cells(graph, list(FAULT_TYPES))
    assert {c.fault_type for c in cells} == set(FAULT_TYPES)
    assert all(c.status == "planned" or c.reason for c in cells)
    airline, build = airline_graphs
    air = Planner(airline).cells(build.graphs[0], list(FAULT_TYPES))
    mismatch = next(c for c in air if c.fault_type == "tool_capability_mismatch")
    assert mismatch.status == "unsupported" and "airline" in mismatch.reason


def test_factual_error_admitted_only_with_a_consequential_wrong_value(task0):
    adapter, graph, _ = task0
    plan = _plan(task0, "factual_error")
    brief, target = plan.brief, plan.brief.target
    wrong = brief.materials.wrong_value
    text = _plain(brief, drop=target) + f" and {brief.requirement(target).phrase} is {wrong}"
    assert _check(task0, brief, text) is None
    assert _check(task0, brief, _plain(brief)).code == "text:true_value_still_present"
    ex = TargetedExtraction(flaw="substituted", requirement=target, stated_value=wrong)
    assert blind_matches_plan(brief, BlindExtraction(flaw="substituted", requirement=target), "a") is None
    assert targeted_agree(brief, ex, ex) is None
    ok = admit(adapter, graph.root.intent, graph.root.ground_truth, brief, ex, text=text)
    assert ok.admitted and ok.executed == 1 and ok.readings[0].truth.hash != graph.root.ground_truth.hash
    assert ok.readings[0].source == "text"  # the wrong value was read from the text, not from the plan
    true_value = brief.requirement(target).spoken
    same = admit(adapter, graph.root.intent, graph.root.ground_truth, brief, ex.model_copy(update={"stated_value": true_value}),
                 text=_plain(brief))
    assert same.verdict.code == "admit:stated_value_not_a_legal_value"  # the truth is no other value
    bogus = admit(adapter, graph.root.intent, graph.root.ground_truth, brief,
                  ex.model_copy(update={"stated_value": "purple unicorn"}))
    assert bogus.verdict.code == "admit:stated_value_not_a_legal_value"


def test_agreement_rejects_wrong_slot_and_disagreeing_values(task0):
    plan = _plan(task0, "factual_error")
    brief = plan.brief
    other = next(r.slot for r in brief.requirements if r.slot != brief.target)
    assert blind_matches_plan(brief, BlindExtraction(flaw="substituted", requirement=other), "b").code == "agree:slot_mismatch"
    assert blind_matches_plan(
        brief, BlindExtraction(flaw="withheld", requirement=brief.target), "a").code == "agree:flaw_mismatch"
    assert blind_matches_plan(brief, None, "a").code == "extract:unparseable"
    a = TargetedExtraction(flaw="substituted", requirement=brief.target, stated_value=brief.materials.wrong_value)
    b = a.model_copy(update={"stated_value": "something else"})
    assert targeted_agree(brief, a, b).code == "agree:stated_value_mismatch"


def test_extractors_quoting_one_value_in_other_words_agree(task0):
    """Agreement is on values, not phrases: "not backlit" and "without a backlight" both name the
    keyboard's backlight "none" (two extractors, or an extractor and the plan, quoting it
    differently agree), while "RGB" names another value and still disagrees."""
    adapter, graph, _ = task0
    brief = _plan(task0, "false_presupposition").brief
    brief = brief.model_copy(update={"materials": brief.materials.model_copy(update={"fallback": "no backlight"})})
    values = grounded_values(adapter, graph.root.intent, brief.target)
    assert values("not backlit") == values("no backlight") != frozenset()
    a = TargetedExtraction(flaw="presupposed", requirement=brief.target, clause="you are out of them", fallback="not backlit")
    b = a.model_copy(update={"fallback": "without a backlight"})
    assert targeted_agree(brief, a, b, values) is None
    assert targeted_agree(brief, a, b).code == "agree:fallback_mismatch"  # word by word they differ
    rgb = a.model_copy(update={"fallback": "RGB"})
    assert targeted_agree(brief, a, rgb, values).code == "agree:fallback_mismatch"
    assert grounded_values(adapter, graph.root.intent, None)("not backlit") == frozenset()


def test_withheld_needs_the_drop_to_change_the_answer(task0):
    adapter, graph, _ = task0
    plan = _plan(task0, "insufficient_information")
    brief = plan.brief
    assert _check(task0, brief, _plain(brief)).code == "text:withheld_value_present"
    assert _check(task0, brief, _plain(brief, drop=brief.target)) is None
    res = admit(adapter, graph.root.intent, graph.root.ground_truth, brief,
                TargetedExtraction(flaw="withheld", requirement=brief.target))
    assert res.admitted and res.readings[0].truth.issuperset(graph.root.ground_truth)


def test_wrong_instrument_is_refused_by_the_environment(task0):
    adapter, graph, _ = task0
    plan = _plan(task0, "tool_capability_mismatch")
    ex = TargetedExtraction(flaw="mismatch", operation=plan.brief.materials.mismatch)
    res = admit(adapter, graph.root.intent, graph.root.ground_truth, plan.brief, ex)
    assert res.admitted and res.readings[0].truth.empty  # modify on a delivered order: refused
    nothing = admit(adapter, graph.root.intent, graph.root.ground_truth, plan.brief,
                    ex.model_copy(update={"operation": "sing a song"}))
    assert nothing.verdict.code == "admit:operation_not_compilable"


def test_extra_detail_is_executed(task0):
    adapter, graph, _ = task0
    plan = _plan(task0, "irrelevant_information")
    ex = TargetedExtraction(flaw="extras", detail=plan.brief.materials.extra)
    res = admit(adapter, graph.root.intent, graph.root.ground_truth, plan.brief, ex)
    assert res.admitted and res.readings[0].truth.hash != graph.root.ground_truth.hash
    assert _check(task0, plan.brief, _plain(plan.brief)).code == "text:extra_detail_absent"


def test_lexical_readings_must_differ_with_one_true(task0, retail, retail_graphs):
    planner = Planner(retail)
    for graph in retail_graphs.graphs:
        cell = planner.cells(graph, ["lexical_ambiguity"])[0]
        if cell.status == "planned":
            break
    plan = planner.attempt(cell, graph, 0)
    brief = plan.brief
    ex = TargetedExtraction(flaw="ambiguous", requirement=brief.target, surface=brief.materials.ambiguous_word,
                            second_reading=brief.materials.senses[1])
    res = admit(retail, graph.root.intent, graph.root.ground_truth, brief, ex)
    assert res.admitted and len(res.readings) == 2
    same = admit(retail, graph.root.intent, graph.root.ground_truth, brief,
                 ex.model_copy(update={"second_reading": brief.materials.senses[0]}))
    assert same.verdict.code == "admit:second_reading_not_a_legal_value"  # the truth is no second reading


def test_noise_and_oblique_text_rules(task0):
    adapter, graph, _ = task0
    noise = _plan(task0, "contextual_irrelevance").brief
    res = admit(adapter, graph.root.intent, graph.root.ground_truth, noise, TargetedExtraction(flaw="noise", span="x"))
    assert res.admitted and res.executed == 1
    oblique = _plan(task0, "indirect_intent").brief
    assert _check(task0, oblique, _plain(oblique)).code == "text:request_language_present"
    assert _check(task0, oblique, "exchange.order = 1").code == "text:internal_syntax"
    assert _check(task0, oblique, "As an AI, " + _plain(oblique)).code == "text:meta_commentary"
    assert _check(task0, oblique, " ".join(["word"] * 200)).code == "text:too_long"


@pytest.fixture(scope="module")
def lamp(retail, retail_graphs):
    """Retail task 7 (exchange a desk lamp for a low-brightness, AC-adapter one) and its reading form."""
    from miscue.reading import ReadingForm

    root = next(g for g in retail_graphs.graphs if g.task_id == "7").root
    domains = retail.grounder(root.intent).domains
    form = ReadingForm.of_domains(domains, {}, retail.request_phrase(root.intent),
                                  [m.phrase for m in retail.mismatches(root.intent)])
    return root, form


def _reading(form, operation=None, **slots):
    from miscue.reading import Reading

    reqs = {r.slot: {"status": "stated", "value": r.truth, "candidates": [], "quote": ""} for r in form.requirements}
    for slot, fields in slots.items():
        reqs[slot] = {**reqs[slot], **fields}
    return Reading.model_validate({"requirements": reqs, "operation": operation or form.operation})


@pytest.mark.parametrize("cls, slot, fields, operation, admitted", [
    ("substituted", "exchange.item1.brightness", {"status": "stated_other", "value": "medium"}, None, True),
    ("withheld", "exchange.item1.power source", {"status": "not_said", "value": "(no value)"}, None, True),
    ("ambiguous", "exchange.item1.brightness", {"status": "ambiguous", "value": "(no value)",
                                                "candidates": ["low", "medium"]}, None, True),
    ("ambiguous", "exchange.item1.brightness", {"status": "ambiguous", "value": "(no value)",
                                                "candidates": ["low"]}, None, False),  # no second reading
    # a modifier that may belong to something else: the other reading leaves the brightness unsaid
    ("ambiguous", "exchange.item1.brightness", {"status": "ambiguous", "value": "(no value)",
                                                "candidates": ["low", "(no value)"]}, None, True),
    ("mismatch", None, {}, "change the items of order #W6390527", True),
    (None, None, {}, None, True),  # read plain (an off-topic passage, no ask): executed as stated, it is the truth
])
def test_an_agreed_reading_is_executed(retail, lamp, cls, slot, fields, operation, admitted):
    """Admission runs the reading, never the plan: the host values behind the read values are
    executed in the real tau2 environment and the class rule applies."""
    from miscue.reading import Departure, single_class
    from miscue.taxonomy import ExtractionClass
    from miscue.verifiers.admission import admit_reading

    root, form = lamp
    reading = _reading(form, operation, **({slot: fields} if slot else {}))
    found = single_class(reading, form)
    assert found == (Departure(ExtractionClass(cls), slot) if cls else None)
    result = admit_reading(retail, root.intent, root.ground_truth, form, reading, found)
    assert result.admitted is admitted, result.verdict
    assert all(r.source == "reading" for r in result.readings) and (result.readings or not admitted)
    if cls is None:
        assert result.readings[0].truth.hash == root.ground_truth.hash
    if cls == "substituted":  # the medium-brightness lamp on an AC adapter is another item
        assert result.readings[0].truth.hash != root.ground_truth.hash


@pytest.mark.parametrize("fault", [
    "factual_error", "insufficient_information", "contextual_irrelevance", "indirect_intent", "false_presupposition",
    # a known loss of the offline baseline, measured by perf/reading_path.py: the lexical reader also
    # takes part of the vague words for an added detail, so its reading departs twice
    pytest.param("vagueness_subjectivity", marks=pytest.mark.xfail(strict=True, reason="offline reader: two departures")),
])
def test_the_offline_readers_answer_the_reading_form(task0, fault):
    """Both offline readers return the reading object a model returns, from their own evidence:
    on the offline writer's text for a planned cell, each reading holds to the text and derives
    the planned class and target, and the two agree (measured over a whole corpus by
    perf/reading_path.py)."""
    from miscue.briefs import ExtractionInput
    from miscue.offline.extractors import EXTRACTORS
    from miscue.offline.writer import write
    from miscue.reading import Departure, ReadingForm, check
    from miscue.taxonomy import SLOT_TARGETS, fault_type
    from miscue.verifiers.agreement import readings_agree

    adapter, graph, planner = task0
    brief = _plan(task0, fault).brief
    text = write(brief)
    intent = graph.root.intent
    reqs = planner.requirements(intent, options=True)
    form = ReadingForm.of(reqs, adapter.request_phrase(intent), [m.phrase for m in adapter.mismatches(intent)])
    inp = ExtractionInput(context=brief.context, request=brief.request, requirements=reqs, text=text)
    readings = [EXTRACTORS[name].read(inp, form) for name in ("lexical", "parse")]
    assert [check(r, form, text) for r in readings] == [[], []], text
    t = fault_type(fault)
    plan = Departure(t.extraction, brief.target if t.target in SLOT_TARGETS else None)
    assert readings_agree(form, *readings, plan) is None, text
