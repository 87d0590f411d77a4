"""Planning, readings, agreement and executable admission on real tau2 graphs (small task
slices of the real hosts, built in a second or so).

The readings here are written by hand (no model involved) so each rule is exercised on exactly
the case it must accept or reject; the offline readers answer the reading form on planned cells.
"""

import pytest

from miscue.flows.registry import adapter_for
from miscue.graphs import GraphBuilder
from miscue.planning import Planner
from miscue.taxonomy import FAULT_TYPES


#: retail task 0, and task 7 whose graph plans a lexical ambiguity; two airline tasks
RETAIL_SLICE, AIRLINE_SLICE = ["0", "7"], ["7", "38"]  # airline 38: a certificate (a card refund is its wrong instrument)


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


def test_every_type_is_planned_or_explained(task0, airline_graphs, monkeypatch):
    adapter, graph, planner = task0
    cells = planner.cells(graph, list(FAULT_TYPES))
    assert {c.fault_type for c in cells} == set(FAULT_TYPES)
    assert all(c.status == "planned" or c.reason for c in cells)
    airline, build = airline_graphs

    def mismatch_cells():
        return [next(c for c in Planner(airline).cells(g, list(FAULT_TYPES)) if c.fault_type == "tool_capability_mismatch")
                for g in build.graphs]

    # an airline write with a wrong instrument (a change of flights asked as a cancellation, a
    # certificate as a card refund) plans the mismatch; a write without one says so
    assert all(airline.mismatches(g.root.intent) for g in build.graphs)
    assert {c.status for c in mismatch_cells()} == {"planned"}
    monkeypatch.setattr(airline, "mismatches", lambda intent: [])
    assert {(c.status, c.reason) for c in mismatch_cells()} == {("skipped", "no_mismatched_operation")}


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
