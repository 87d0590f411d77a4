"""Composite faults (issue 6, DESIGN section 7) on the real tau2 graphs (and WebShop when present).

Planner rules, the composite card and forms, the per-component verifier on hand-written texts and
hand-written extractions (so each rule is exercised on exactly the case it must accept or reject),
and the offline writer's second pass. The offline end-to-end runs with the coverage acceptance
are tests/integration/test_composite_runs.py.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from miscue import writing
from miscue.briefs import BlindExtraction, ExtractionInput, TargetedExtraction
from miscue.offline import extractors, provider, writer
from miscue.planning import (
    CompositeDraw,
    CompositePlanner,
    Planner,
    assignment_order,
    card_order,
    needs_transform,
    structural_violation,
)
from miscue.schema import FaultSpec
from miscue.taxonomy import FAULT_TYPES, fault_type, takes_slot
from miscue.verifiers.agreement import overlap
from miscue.verifiers.composite import (
    CompositeExtraction,
    check_composite_text,
    repaired_by_transform,
    verify_composite,
)

ALL = list(FAULT_TYPES)
HOST_WORDS = ("retail", "airline", "webshop", "tau2", "flight", "reservation", "keyboard", "cabin",
              "benchmark", "order #", "luggage", "baggage")
OFF_TOPIC = ("My neighbour has been teaching his parrot to whistle old songs every single morning, and by now the "
             "whole street knows the tunes by heart. Yesterday the bird finally got the chorus right and we all "
             "clapped from our balconies like it was a concert. His wife says the parrot is now more famous than "
             "either of them, and the children from the school down the road stop at the fence every afternoon "
             "to hear it. Somebody even suggested entering it in the summer fair, although nobody is quite sure "
             "which category a whistling parrot would belong to. Anyway, enough about that.")


@pytest.fixture(scope="module")
def composer(retail):
    return CompositePlanner(Planner(retail))


def _draw(composer, graphs, types, seed=0):
    """A draw of exactly ``types`` on the first graph where it is possible (targets assigned by
    the planner's own rule)."""
    for g in graphs:
        cells = composer.cells(g, ALL)
        if any(cells[t].status != "planned" for t in types) or structural_violation(types, len(g.root.intent.conditions)):
            continue
        assigned = CompositePlanner.assign(types, {t: cells[t].targets for t in types}, random.Random(seed))
        if assigned is None:
            continue
        return g, CompositeDraw(g.graph_id, len(types), 0, tuple(FaultSpec(fault_type=t, target=assigned.get(t))
                                                                     for t in card_order(types)))
    raise AssertionError(f"no graph takes {types}")


def _text(plan, *, wrong=True, omit=True, extra=True, noise=None, extra_in_noise=False):
    """A hand-written composite text: the wrong value, the omission and the added detail of the
    plan's components, everything else verbatim."""
    b = plan.briefs[0]
    fe, ins, irr = plan.get("factual_error"), plan.get("insufficient_information"), plan.get("irrelevant_information")
    parts = []
    for r in b.requirements:
        if ins is not None and omit and r.slot == ins.component.target:
            continue
        value = fe.brief.materials.wrong_value if fe is not None and wrong and r.slot == fe.component.target else r.spoken
        parts.append(f"{r.phrase} is {value}")
    text = f"I'd like to {b.request}: " + "; ".join(parts) + "."
    detail = irr.brief.materials.extra if irr is not None else None
    if detail and extra and not extra_in_noise:
        text += f" Also, {detail}."
    if noise:
        passage = noise if not extra_in_noise else noise.replace("Anyway,", f"And {detail}. Anyway,")
        text = passage + " " + text
    return text


def _blind(plan, *more):
    out = []
    for ap in plan.components:
        cls = fault_type(ap.component.fault_type).extraction.value
        out.append(BlindExtraction(flaw=cls, requirement=ap.component.target if takes_slot(ap.component.fault_type) else None))
    return out + list(more)


def _targeted(plan, text, **override):
    out = {}
    for ap in plan.components:
        t, m = ap.component.fault_type, ap.brief.materials
        if t == "factual_error":
            out[t] = TargetedExtraction(flaw="substituted", requirement=ap.component.target, stated_value=m.wrong_value)
        elif t == "insufficient_information":
            out[t] = TargetedExtraction(flaw="withheld", requirement=ap.component.target)
        elif t == "irrelevant_information":
            out[t] = TargetedExtraction(flaw="extras", detail=m.extra)
        elif t == "contextual_irrelevance":
            out[t] = TargetedExtraction(flaw="noise", span=text[:text.index("Anyway") + len("Anyway, enough about that.")])
    out.update(override)
    return out


# ---------------------------------------------------------------------------------------------
# Planning
# ---------------------------------------------------------------------------------------------


def test_structural_rules():
    assert structural_violation(["factual_error", "factual_error"], 5) == "repeated_type"
    assert (structural_violation(["factual_error", "insufficient_information", "lexical_ambiguity"], 2)
            == "more_slot_faults_than_conditions")
    assert structural_violation(["lexical_ambiguity", "referential_ambiguity"], 5) == "two_expression_faults"
    assert structural_violation(["false_presupposition", "irrelevant_information"], 5) == "presupposition_with_added_detail"
    assert structural_violation(["tool_capability_mismatch", "indirect_intent"], 5) == "wrong_instrument_without_a_request"
    # k >= 3 only
    assert structural_violation(["indirect_intent", "false_presupposition"], 5) is None
    assert (structural_violation(["indirect_intent", "false_presupposition", "insufficient_information"], 5)
            == "k3_hearsay_with_premise_or_extra")
    assert structural_violation(["factual_error", "false_presupposition"], 5) is None
    assert (structural_violation(["factual_error", "false_presupposition", "contextual_irrelevance"], 5)
            == "k3_wrong_value_with_false_premise")
    assert structural_violation(
        ["factual_error", "irrelevant_information", "contextual_irrelevance", "referential_ambiguity"], 5) is None
    assert needs_transform(["factual_error", "contextual_irrelevance", "insufficient_information"])
    assert not needs_transform(["factual_error", "contextual_irrelevance"])  # k = 2: one pass
    assert not needs_transform(["factual_error", "insufficient_information", "irrelevant_information"])  # no whole-message fault


def test_draws_obey_the_rules_with_distinct_pre_assigned_targets(composer, retail_build, airline, airline_build):
    checked = 0
    for planner, graphs in ((composer, retail_build.graphs[:30]),
                            (CompositePlanner(Planner(airline)), airline_build.graphs[:15])):
        for g in graphs:
            cells = planner.cells(g, ALL)
            for k in (2, 3, 4):
                for i in range(3):
                    d = planner.draw(g, k, i, ALL)
                    if isinstance(d, str):
                        continue
                    checked += 1
                    assert d.k == k and len(set(d.types)) == k
                    assert structural_violation(d.types, len(g.root.intent.conditions)) is None
                    assert all(cells[t].status == "planned" for t in d.types)
                    slots = [c.target for c in d.components if takes_slot(c.fault_type)]
                    assert None not in slots and len(set(slots)) == len(slots), d
                    assert all(c.target in cells[c.fault_type].targets for c in d.components if takes_slot(c.fault_type))
                    assert all(c.target is None for c in d.components if not takes_slot(c.fault_type))
                    assert list(d.types) == card_order(d.types)
                    assert d.two_pass == needs_transform(d.types)
    assert checked > 200


def test_draws_are_seeded_by_graph_k_and_index(retail, retail_build, composer):
    fresh = CompositePlanner(Planner(retail))
    graphs = retail_build.graphs[:8]
    for g in graphs:
        for k in (2, 4):
            assert [composer.draw(g, k, i, ALL) for i in range(4)] == [fresh.draw(g, k, i, ALL) for i in range(4)]
    g = graphs[0]
    assert len({composer.draw(g, 2, i, ALL).combo for i in range(10)}) > 1, "the draw index changes the draw"
    assert len({composer.draw(h, 2, 0, ALL).combo for h in graphs}) > 1, "the graph changes the draw"
    first = composer.draw(g, 2, 0, ALL)
    again = composer.draw(g, 2, 0, ALL, avoid=[first.combo])
    assert again.combo != first.combo, "an avoided combination is re-drawn"
    # coverage preference: among the candidates the lowest score wins, deterministically
    least = composer.draw(g, 2, 0, ALL, score=lambda c: 0 if "contextual_irrelevance" in c else 1, candidates=8)
    assert "contextual_irrelevance" in least.combo
    assert least == composer.draw(g, 2, 0, ALL, score=lambda c: 0 if "contextual_irrelevance" in c else 1, candidates=8)


def test_targets_are_assigned_most_constrained_first():
    targets = {"factual_error": ("a", "b", "c"), "insufficient_information": ("a",), "referential_ambiguity": ("a", "b"),
               "contextual_irrelevance": (None,)}
    order = assignment_order(list(targets), targets)
    assert order == ["insufficient_information", "referential_ambiguity", "factual_error"]
    for seed in range(20):
        got = CompositePlanner.assign(list(targets), targets, random.Random(seed))
        assert got == {"insufficient_information": "a", "referential_ambiguity": "b", "factual_error": "c"}
    # the domain prior breaks ties between equally constrained types
    tie = {"factual_error": ("a", "b"), "vagueness_subjectivity": ("a", "b")}
    assert assignment_order(list(tie), tie) == ["vagueness_subjectivity", "factual_error"]
    assert CompositePlanner.assign(["factual_error", "insufficient_information"],
                                   {"factual_error": ("a",), "insufficient_information": ("a",)}, random.Random(0)) is None


def test_component_materials_come_from_the_single_fault_planner(retail, composer, retail_build):
    g, d = _draw(composer, retail_build.graphs, ["factual_error", "insufficient_information", "irrelevant_information"])
    planner = composer.planner
    root, truth = g.root.intent, g.root.ground_truth
    for attempt in range(3):
        plan = composer.attempt(d, g, attempt)
        assert [ap.component for ap in plan.components] == list(d.components)
        fe = plan.get("factual_error")
        wrongs = [planner.spoken(root, fe.component.target, v) for v, _ in planner.alternatives(root, truth, fe.component.target)]
        assert fe.brief.materials.wrong_value in wrongs and fe.brief.target == fe.component.target
        assert plan.get("irrelevant_information").brief.materials.extra in [e.phrase for e in retail.extras(root)]
        assert all(ap.brief.attempt == attempt for ap in plan.components)


# ---------------------------------------------------------------------------------------------
# The composite card, the second pass and the forms
# ---------------------------------------------------------------------------------------------


def test_composite_card_issues_every_component_with_its_target(composer, retail_build):
    g, d = _draw(composer, retail_build.graphs, ["factual_error", "insufficient_information", "irrelevant_information",
                                                 "contextual_irrelevance"])
    plan = composer.attempt(d, g, 0)
    assert plan.two_pass and [ap.component.fault_type for ap in plan.whole] == ["contextual_irrelevance"]
    messages, version = writing.render_composite(plan.briefs)
    user = messages[1]["content"]
    assert user.count("Flaw to carry:") == 4 and "== Flaw 4 of 4 ==" in user
    for ap in plan.components:
        t = ap.brief.requirement(ap.component.target)
        if t is not None:
            assert f"Assigned requirement: {t.phrase}" in user
    payload = json.loads(user.split("<composite>")[1].split("</composite>")[0])
    assert [c["fault_type"] for c in payload["components"]] == d.types
    assert "Three to five" in messages[0]["content"]
    assert version == writing.render_composite(list(reversed(plan.briefs)))[1], (
        "the version depends on the cards, not their order")
    assert version != writing.render_composite(plan.briefs[:2])[1]
    with pytest.raises(ValueError, match="distinct"):
        writing.render_composite([plan.briefs[0], plan.briefs[0]])
    with pytest.raises(ValueError, match="whole-message"):
        writing.render_transform("text", plan.briefs[:1], [])
    for name in ("composite.j2", "transform.j2", "extract_multi.j2"):
        source = (writing.PROMPTS_DIR / name).read_text(encoding="utf-8").lower()
        assert not [w for w in HOST_WORDS if w in source], name
    assert set(writing.composite_versions()) == {"composite", "transform", "extract_multi", "extract_component"}


def test_second_pass_hides_faulted_truths_and_its_slips_are_caught(composer, retail_build):
    g, d = _draw(composer, retail_build.graphs, ["factual_error", "insufficient_information", "contextual_irrelevance"])
    adapter, root, truth = composer.planner.adapter, g.root.intent, g.root.ground_truth
    kept = slipped = 0
    for attempt in range(40):
        plan = composer.attempt(d, g, attempt)
        touched = {ap.component.target for ap in plan.components}
        assert all(not (touched & {r.slot for r in b.requirements}) for b in plan.transform_briefs())
        first = writer.write_composite([ap.brief for ap in plan.content])
        messages, _ = writing.render_transform(first, plan.transform_briefs(), [])
        final = provider.answer("offline/writer", messages)
        assert final == writer.write_transform(first, plan.transform_briefs(), [])
        verdict = repaired_by_transform(adapter, root, plan, first, final)
        if writer.slips(first, attempt):
            slipped += 1
            assert verdict is not None and verdict.code == "composite:repaired_by_transform", final
        else:
            kept += 1
            assert verdict is None and final.endswith(first) and check_composite_text(adapter, root, truth, plan, final) is None
    assert kept and slipped


def test_multi_form_never_reveals_the_plan_and_routes_to_every_detector(composer, retail_build):
    g, d = _draw(composer, retail_build.graphs, ["factual_error", "insufficient_information", "irrelevant_information"])
    plan = composer.attempt(d, g, 0)
    b = plan.briefs[0]
    # the extractors are shown the requirements with their legal values, as the composite stage shows them
    shown = plan.components[0].extraction
    assert shown is not None and any(r.options for r in shown)
    neutral = ExtractionInput(context=b.context, request=b.request, requirements=shown,
                              text=writer.write_plain(b.model_copy(update={"fault_type": "none"})))
    messages, version = writing.render_multi(neutral)
    content = " ".join(m["content"] for m in messages).lower()
    assert "<form>multi</form>" in content and version == writing.composite_versions()["extract_multi"]
    names = {n for ft in FAULT_TYPES for n in (ft, ft.replace("_", " "))} | {"irrelevant", "insufficient", "factual"}
    assert not [n for n in names if n in content]
    for r in shown:  # the truth and every legal value are shown on purpose, all alike
        for said in sorted({r.spoken, *r.says, *(x for o in r.options for x in (o.say, *o.also))}, key=len, reverse=True):
            content = content.replace(said.lower(), "")
    for ap in plan.components:
        for value in (ap.brief.materials.wrong_value, ap.brief.materials.extra):
            assert not value or value.lower() not in content
    text = _text(plan)
    inp = neutral.model_copy(update={"text": text})
    want = {(f.flaw, f.requirement) for f in _blind(plan)}
    for model in ("offline/lexical", "offline/parse"):
        found = writing.parse_multi(provider.answer(model, writing.render_multi(inp)[0]))
        assert want <= {(f.flaw, f.requirement) for f in found}, (model, found)
        single = writing.parse_blind(provider.answer(model, writing.render_blind(inp)[0]))
        assert (single.flaw, single.requirement) in want, "the single form stops at the first flaw"
        extra = writing.parse_targeted(provider.answer(model, writing.render_component(inp, "extras")[0]))
        assert extra.flaw == "extras" and overlap(extra.detail, plan.get("irrelevant_information").brief.materials.extra) >= 0.5
    assert writing.parse_multi('{"flaws": [{"flaw": "withheld", "requirement": "x"}, {"flaw": "none"}]}') == \
        [BlindExtraction(flaw="withheld", requirement="x")]
    assert writing.parse_multi('{"flaws": "nope"}') is None and writing.parse_multi("no json") is None


def test_extras_are_not_read_inside_the_off_topic_passage(composer, retail_build):
    g, d = _draw(composer, retail_build.graphs, ["irrelevant_information", "contextual_irrelevance"])
    plan = composer.attempt(d, g, 0)
    b = plan.briefs[0]
    inp = ExtractionInput(context=b.context, request=b.request, requirements=b.requirements,
                          text=_text(plan, noise=OFF_TOPIC))
    for ex in extractors.EXTRACTORS.values():
        found = {(f.flaw, f.requirement) for f in ex.blind_multi(inp)}
        assert found == {("noise", None), ("extras", None)}, (ex.name, found)
        assert overlap(ex.targeted_multi(inp, "extras").detail, plan.get("irrelevant_information").brief.materials.extra) >= 0.5


# ---------------------------------------------------------------------------------------------
# The per-component verifier (hand-written texts and extractions)
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def three(composer, retail_build):
    g, d = _draw(composer, retail_build.graphs, ["factual_error", "insufficient_information", "irrelevant_information"])
    return g, composer.attempt(d, g, 0)


def _verify(retail, g, plan, text, blind_a=None, blind_b=None, ta=None, tb=None):
    ta = ta if ta is not None else _targeted(plan, text)
    ex = CompositeExtraction(blind_a if blind_a is not None else _blind(plan), blind_b if blind_b is not None else _blind(plan),
                             ta, tb if tb is not None else ta)
    return verify_composite(retail, g.root.intent, g.root.ground_truth, plan, text, ex)


def test_a_faithful_composite_is_admitted_per_component_and_its_merged_reading_executed(retail, three):
    g, plan = three
    text = _text(plan)
    assert check_composite_text(retail, g.root.intent, g.root.ground_truth, plan, text) is None
    res = _verify(retail, g, plan, text)
    assert res.admitted, res.verdict
    assert all(c.admission.admitted and c.admission.executed >= 1 for c in res.components)
    truth = g.root.ground_truth
    merged = res.merged
    fe, ins = plan.get("factual_error"), plan.get("insufficient_information")
    assert merged.truth is not None and merged.truth.hash != truth.hash
    assert merged.intent.condition(fe.component.target).value == fe.values["wrong_value"]
    assert merged.intent.condition(ins.component.target) is None
    assert len(merged.intent.conditions) > len(g.root.intent.conditions) - 1, "the extra detail's requirement is added"
    assert set(res.merged_info["applied"]) == {"factual_error", "insufficient_information", "irrelevant_information"}
    record = res.evidence()
    assert [c["fault_type"] for c in record["components"]] == [ap.component.fault_type for ap in plan.components]
    assert all(c["found_a"] and c["found_b"] and c["admitted"] and c["readings"] for c in record["components"])


def test_mechanical_checks_grow_with_k(retail, three):
    g, plan = three

    def check(text):
        return check_composite_text(retail, g.root.intent, g.root.ground_truth, plan, text)

    text = _text(plan)
    n_req = len(plan.briefs[0].requirements)
    budget = writing.composite_word_budget(3, n_req, False, len(plan.get("irrelevant_information").brief.materials.extra.split()))
    assert budget > 130 + 2 * 25 - 1
    filler = " ".join(["really"] * (budget - len(text.split())))
    assert check(text + " " + filler) is None, "within the k-fault budget"
    assert check(text + " " + filler + " again").code == "text:too_long"
    assert check(_text(plan, wrong=False)).code == "text:true_value_still_present"
    assert check(_text(plan, omit=False)).code == "text:withheld_value_present"
    assert check(_text(plan, extra=False)).code == "text:extra_detail_absent"
    fe = plan.get("factual_error").component.target
    retained = next(r for r in plan.briefs[0].requirements if r.slot not in {ap.component.target for ap in plan.components})
    dropped = text.replace(f"{retained.phrase} is {retained.spoken}", f"{retained.phrase} is whatever")
    assert fe != retained.slot and check(dropped).code == "text:requirement_not_conveyed"


def test_transformation_that_silently_repaired_a_content_fault_is_rejected(composer, retail_build):
    g, d = _draw(composer, retail_build.graphs, ["factual_error", "insufficient_information", "contextual_irrelevance"])
    plan = composer.attempt(d, g, 0)
    assert plan.two_pass
    first = _text(plan)

    def repaired(final):
        return repaired_by_transform(composer.planner.adapter, g.root.intent, plan, first, final)

    assert repaired(OFF_TOPIC + " " + first) is None
    fixed = OFF_TOPIC + " " + _text(plan, wrong=False)  # the wrong value put right by the second pass
    verdict = repaired(fixed)
    assert verdict.code == "composite:repaired_by_transform" and verdict.stage == "write" and "factual_error" in verdict.detail
    restored = OFF_TOPIC + " " + _text(plan, omit=False)  # the omitted requirement put back
    assert "insufficient_information" in repaired(restored).detail
    # the same repaired text, run on through extraction, is not admitted either
    res = _verify(composer.planner.adapter, g, plan, fixed,
                  blind_a=[b for b in _blind(plan) if b.flaw != "substituted"])
    assert not res.admitted and res.verdict.code == "composite:component_missing"


def test_two_components_on_the_same_slot_are_rejected(retail, three):
    g, plan = three
    text = _text(plan)
    ins = plan.get("insufficient_information").component.target
    ta = _targeted(plan, text, factual_error=TargetedExtraction(flaw="substituted", requirement=ins,
                                                                stated_value=plan.get("factual_error").brief.materials.wrong_value))
    res = _verify(retail, g, plan, text, tb=ta)
    assert res.verdict.code == "composite:same_slot", res.verdict


def test_the_extra_detail_inside_the_off_topic_passage_is_rejected(retail, composer, retail_build):
    g, d = _draw(composer, retail_build.graphs, ["irrelevant_information", "contextual_irrelevance"])
    plan = composer.attempt(d, g, 0)
    good = _text(plan, noise=OFF_TOPIC)
    assert _verify(retail, g, plan, good).admitted
    inside = _text(plan, noise=OFF_TOPIC, extra_in_noise=True)
    span = inside[:inside.index("Anyway, enough about that.") + len("Anyway, enough about that.")]
    ta = _targeted(plan, inside, contextual_irrelevance=TargetedExtraction(flaw="noise", span=span))
    res = _verify(retail, g, plan, inside, ta=ta)
    assert res.verdict.code == "composite:same_span" and "irrelevant_information" in res.verdict.detail


def test_an_unplanned_fault_found_by_both_extractors_is_rejected(retail, three):
    g, plan = three
    text = _text(plan)
    other = next(r.slot for r in plan.briefs[0].requirements if r.slot not in {ap.component.target for ap in plan.components})
    extra = BlindExtraction(flaw="marked", requirement=other)
    both = _verify(retail, g, plan, text, blind_a=_blind(plan, extra), blind_b=_blind(plan, extra))
    assert both.verdict.code == "composite:unplanned_fault" and other in both.verdict.detail
    one = _verify(retail, g, plan, text, blind_a=_blind(plan, extra))
    assert one.admitted and one.unplanned_one == [("marked", other)], "one extractor alone is recorded, not fatal"
    missing = _verify(retail, g, plan, text, blind_b=[b for b in _blind(plan) if b.flaw != "withheld"])
    assert missing.verdict.code == "composite:component_missing" and "insufficient_information" in missing.verdict.detail


def test_a_component_is_agreed_on_and_admitted_on_its_own_rule(retail, three):
    g, plan = three
    text = _text(plan)
    fe = plan.get("factual_error")
    truth_value = plan.briefs[0].requirement(fe.component.target).spoken
    # both extractors agree on a stated value that is not the planned one: the component's agreement fails
    ta = _targeted(plan, text, factual_error=TargetedExtraction(flaw="substituted", requirement=fe.component.target,
                                                                stated_value=truth_value))
    res = _verify(retail, g, plan, text, ta=ta)
    assert res.verdict.code == "agree:stated_value_mismatch" and "factual_error" in res.verdict.detail
    # a plan whose "wrong" value is the truth, written so: agreement holds, the single-fault admission rule
    # rejects it (admission reads the value from the text, and the truth is no other legal value)
    same = replace(fe, brief=fe.brief.model_copy(
        update={"materials": fe.brief.materials.model_copy(update={"wrong_value": truth_value})}))
    plan2 = replace(plan, components=[same if ap is fe else ap for ap in plan.components])
    res = _verify(retail, g, plan2, _text(plan2), ta=ta)
    assert res.verdict.code == "admit:stated_value_not_a_legal_value" and "factual_error" in res.verdict.detail
    assert [c.admission is not None for c in res.components] == [True, False, False], "admission stops at the failing component"


# ---------------------------------------------------------------------------------------------
# End to end, offline, with coverage control
# ---------------------------------------------------------------------------------------------
