"""Composite faults (issue 6, DESIGN section 7) on the real tau2 graphs (and WebShop when present).

Planner rules, the composite card, the mechanical checks for k faults, what the offline readers
read in a composite text, and the offline writer's second pass. The per-component verifier on
hand-written readings is tests/unit/test_reading_agreement.py; the offline end-to-end runs with
the coverage acceptance are tests/integration/test_composite_runs.py.
"""

from __future__ import annotations

import json
import random

import pytest

from miscue import writing
from miscue.briefs import ExtractionInput
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
from miscue.reading import Departure, departures
from miscue.taxonomy import FAULT_TYPES, ExtractionClass, takes_slot
from miscue.verifiers.agreement import overlap
from miscue.verifiers.composite import mechanical_composite

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
    for name in ("composite.j2", "transform.j2"):
        source = (writing.PROMPTS_DIR / name).read_text(encoding="utf-8").lower()
        assert not [w for w in HOST_WORDS if w in source], name
    assert set(writing.composite_versions()) == {"composite", "transform"}


def test_second_pass_hides_faulted_truths_and_keeps_the_first_pass(composer, retail_build):
    """The transformation pass never sees a faulted requirement; when it does not slip (the offline
    writer slips on purpose on some attempts, as models do) the first pass stands verbatim in the
    final text, within the mechanical checks for k faults. What a slip lost, the readers read."""
    g, d = _draw(composer, retail_build.graphs, ["factual_error", "insufficient_information", "contextual_irrelevance"])
    adapter, root = composer.planner.adapter, g.root.intent
    kept = slipped = 0
    for attempt in range(40):
        plan = composer.attempt(d, g, attempt)
        touched = {ap.component.target for ap in plan.components}
        assert all(not (touched & {r.slot for r in b.requirements}) for b in plan.transform_briefs())
        first = writer.write_composite([ap.brief for ap in plan.content])
        messages, _ = writing.render_transform(first, plan.transform_briefs(), [])
        final = provider.answer("offline/writer", messages)
        assert final == writer.write_transform(first, plan.transform_briefs(), [])
        if writer.slips(first, attempt):
            slipped += 1
        else:
            kept += 1
            assert final.endswith(first) and mechanical_composite(adapter, root, plan, final) is None
    assert kept and slipped


def test_extras_are_not_read_inside_the_off_topic_passage(composer, retail_build):
    g, d = _draw(composer, retail_build.graphs, ["irrelevant_information", "contextual_irrelevance"])
    plan = composer.attempt(d, g, 0)
    b = plan.briefs[0]
    inp = ExtractionInput(context=b.context, request=b.request, requirements=plan.components[0].extraction or b.requirements,
                          text=_text(plan, noise=OFF_TOPIC))
    form = composer.planner.reading_form(g.root.intent)
    for ex in extractors.EXTRACTORS.values():
        reading = ex.read(inp, form)
        found = set(departures(reading, form))
        assert found == {Departure(ExtractionClass.noise), Departure(ExtractionClass.extras)}, (ex.name, found)
        said = " ".join(e.quote for e in reading.extras)
        assert overlap(said, plan.get("irrelevant_information").brief.materials.extra) >= 0.5


# ---------------------------------------------------------------------------------------------
# The mechanical checks for k faults
# ---------------------------------------------------------------------------------------------


def test_mechanical_checks_grow_with_k(retail, composer, retail_build):
    g, d = _draw(composer, retail_build.graphs, ["factual_error", "insufficient_information", "irrelevant_information"])
    plan = composer.attempt(d, g, 0)

    def check(text):
        return mechanical_composite(retail, g.root.intent, plan, text)

    text = _text(plan)
    n_req = len(plan.briefs[0].requirements)
    budget = writing.composite_word_budget(3, n_req, False, len(plan.get("irrelevant_information").brief.materials.extra.split()))
    assert budget > 130 + 2 * 25 - 1
    filler = " ".join(["really"] * (budget - len(text.split())))
    assert check(text + " " + filler) is None, "within the k-fault budget"
    assert check(text + " " + filler + " again").code == "text:too_long"
    assert check("  ").code == "text:empty"
