"""Every card, rendered for every request shape the built graphs of the three hosts produce
(several operations, two items of one product, one value for two requirements), states rules
that can all be followed at once: the length rule is the one the text checks apply, no internal
label reaches the writer, and no rule forbids what another one (or the material) demands."""

from __future__ import annotations

import re

import pytest

from miscue.adapters.webshop import WebShopAdapter
from miscue.briefs import WriterBrief
from miscue.graphs import GraphBuilder
from miscue.planning import AttemptPlan, Planner
from miscue.planning.materials import numbers
from miscue.taxonomy import FAULT_TYPES, ExtractionClass, fault_type
from miscue.writer_view import HIDES_TARGET, LABELS, shared_value
from miscue.writing import render_composite, render_writer
from miscue.verifiers.text import mechanical

LIMIT = re.compile(r"never more than (\d+) words")
ANY_LIMIT = re.compile(r"(?:up to|never more than|at most) (\d+) words")


def plans_of(adapter, build) -> list[AttemptPlan]:
    planner = Planner(adapter)
    out = []
    for graph in build.graphs:
        for cell in planner.cells(graph, list(FAULT_TYPES)):
            if cell.status == "planned":
                out.append(planner.attempt(cell, graph, 0))
    return out


@pytest.fixture(scope="module")
def all_plans(retail, airline, retail_build, airline_build) -> dict[str, list[AttemptPlan]]:
    webshop = WebShopAdapter()
    return {"tau2-retail": plans_of(retail, retail_build), "tau2-airline": plans_of(airline, airline_build),
            "webshop": plans_of(webshop, GraphBuilder(webshop).build())}


@pytest.fixture(scope="module")
def all_briefs(all_plans) -> dict[str, list[WriterBrief]]:
    return {bench: [p.brief for p in plans] for bench, plans in all_plans.items()}


def prose(messages: list[dict]) -> tuple[str, str]:
    """The system prompt and the user prompt without its machine-readable JSON."""
    return messages[0]["content"], messages[1]["content"].split("The same brief as machine-readable JSON")[0]


def internal_ids(brief: WriterBrief) -> list[str]:
    return [r.slot for r in brief.requirements if any(c in r.slot for c in ".:_#")]


def test_the_shapes_the_issue_names_are_covered(all_briefs):
    everything = [b for bs in all_briefs.values() for b in bs]
    assert {b.benchmark for b in everything} == {"tau2-retail", "tau2-airline", "webshop"}
    assert {b.fault_type for b in everything} == set(FAULT_TYPES)
    assert any(re.search(r"\(\d+ times\)", b.request) for b in everything)  # several operations of one kind
    assert any(LABELS.search(r.phrase) for b in everything for r in b.requirements)  # labelled twins
    assert any(shared_value(b) for b in everything)  # one value for two requirements
    assert max(len(b.requirements) for b in everything) >= 14


def test_every_card_for_every_request_shape_follows_one_set_of_rules(all_briefs):
    problems: list[str] = []
    rendered = 0
    for benchmark, briefs in all_briefs.items():
        for brief in briefs:
            messages, _ = render_writer(brief)
            system, user = prose(messages)
            rendered += 1
            where = f"{benchmark} {brief.fault_type} {brief.request!r}"
            # the length rule: one number, the one the text checks apply
            limits = {int(n) for n in ANY_LIMIT.findall(system + user)}
            stated = [int(n) for n in LIMIT.findall(system)]
            if len(stated) != 1 or limits != set(stated):
                problems.append(f"{where}: word limits {sorted(limits)}")
                continue
            n = stated[0]
            if mechanical(brief, "word " * n, []) is not None or mechanical(brief, "word " * (n + 1), []) is None:
                problems.append(f"{where}: the prompt says {n} words, the text check applies another budget")
            if len(brief.requirements) > 4 and "One or two sentences" in system:
                problems.append(f"{where}: one or two sentences for {len(brief.requirements)} requirements")
            # no internal label reaches the writer
            leaked = [s for s in internal_ids(brief) if s in system + user] + LABELS.findall(user)
            leaked += re.findall(r"\b[a-z]+_[a-z0-9_]+\b", user)
            if leaked:
                problems.append(f"{where}: internal labels {leaked[:3]}")
            # the material never does what the card forbids
            extra = brief.materials.extra or ""
            if "not as an aside" in user or ("by the way" in extra.lower() and re.search(r"never .*aside|not .*aside", user)):
                problems.append(f"{where}: the card forbids an aside, the material is one: {extra!r}")
            if brief.fault_type == "tool_capability_mismatch" and f'Do not state the true request ("{brief.request}")' in user:
                problems.append(f"{where}: the whole request is forbidden, but its other parts must be asked for")
            # the card names its target so that no other requirement answers to the name
            target = brief.requirement(brief.target)
            if target is not None and sum(1 for r in brief.requirements if r.phrase == target.phrase) > 1 \
                    and f'{target.phrase} ("{target.spoken}")' not in user:
                problems.append(f"{where}: the target {target.phrase!r} is named like another requirement")
            # a value the card hides never stands in another requirement's name
            target = brief.requirement(brief.target)
            cls = fault_type(brief.fault_type).extraction
            if target is not None and (cls in HIDES_TARGET or brief.fault_type == "lexical_ambiguity"):
                listing = user.split("The user's true requirements")[1].split("Flaw to carry")[0]
                lines = [ln for ln in listing.splitlines() if ln.startswith("- ") and f'"{target.spoken}"' not in ln]
                if any(re.search(rf"(?<![\w#]){re.escape(target.spoken)}(?!\w)", ln.split(":")[0]) for ln in lines):
                    problems.append(f"{where}: the hidden value {target.spoken!r} names another requirement")
            if cls == ExtractionClass.withheld and "state the full request" in user.lower():
                problems.append(f"{where}: the full request and an omitted requirement")
            # "exactly once" and "must not appear" are about the target when another requirement shares its value
            if shared_value(brief) and "Note:" not in user:
                problems.append(f"{where}: a value shared with {shared_value(brief)[0].phrase!r} without the note")
    assert rendered > 1000
    assert not problems, f"{len(problems)} contradictions, e.g.\n" + "\n".join(problems[:12])


def test_composite_cards_carry_no_internal_label(all_briefs):
    """The composite card lists the same requirements: plain words there too."""
    retail = [b for b in all_briefs["tau2-retail"] if LABELS.search(b.request + " ".join(r.phrase for r in b.requirements))]
    assert retail
    for brief in retail[:50]:
        other = brief.model_copy(update={"fault_type": "indirect_intent" if brief.fault_type != "indirect_intent"
                                         else "irrelevant_information", "target": None})
        messages, _ = render_composite([brief, other])
        user = messages[1]["content"].split("The same plan as machine-readable JSON")[0]
        assert not LABELS.search(user), LABELS.search(user)


def test_a_wrong_or_fallback_order_or_reservation_is_none_the_request_already_names(all_briefs):
    """"Cancel reservation X. I also need to cancel reservation X": a wrong value or a fallback for
    the object operated on that another requirement names asks about one object twice."""
    checked, twice = 0, []
    for brief in (b for bs in all_briefs.values() for b in bs):
        said = brief.materials.wrong_value or brief.materials.fallback
        target = next((r for r in brief.requirements if r.slot == brief.target), None)
        if not said or target is None or target.role.kind not in ("order", "reservation"):
            continue
        checked += 1
        if any(r.spoken == said for r in brief.requirements if r.slot != brief.target):
            twice.append((brief.benchmark, brief.target, said))
    assert checked >= 20 and twice == [], twice


def _count(said: str) -> int:
    return int(re.match(r"\d+", said).group())  # type: ignore[union-attr]


def test_no_wrong_or_fallback_bag_count_is_fewer_than_the_paid_bags(all_briefs):
    """Airline task 33 adds 2 checked bags, both paid. A factual error or a settled-for count of "1
    checked bag" beside "2 paid bags" (both had been planned) is a request no one makes, though the
    tools take it; the readers' legal values still hold every count (a text may say any)."""
    checked, incoherent = 0, []
    for brief in all_briefs["tau2-airline"]:
        said = brief.materials.wrong_value or brief.materials.fallback
        target = next((r for r in brief.requirements if r.slot == brief.target), None)
        if not said or target is None or target.role.kind not in ("bags", "paid_bags"):
            continue
        pair = "paid_bags" if target.role.kind == "bags" else "bags"
        other = next((r for r in brief.requirements if r.role.kind == pair and r.role.act == target.role.act), None)
        if other is None:
            continue
        checked += 1
        bags, paid = (_count(said), _count(other.spoken)) if pair == "paid_bags" else (_count(other.spoken), _count(said))
        if bags < paid:
            incoherent.append((brief.fault_type, brief.target, said, other.spoken))
    assert checked >= 2 and incoherent == [], (checked, incoherent)


def test_no_wrong_or_fallback_value_says_the_numbers_of_a_way_the_truth_is_said(all_plans):
    """WebShop task 53's size is "12 count (pack of 2)", which the host also says "24 ct"; a factual
    error stating "24 count" (it had been planned) is read, rightly, as either value. A wrong value
    or a fallback never says exactly the numbers of one of the true value's ways of being said
    (what readers are shown)."""
    checked, same, numbered = 0, [], 0
    for plan in (p for plans in all_plans.values() for p in plans):
        said = plan.brief.materials.wrong_value or plan.brief.materials.fallback
        target = next((r for r in plan.extraction if r.slot == plan.brief.target), None)
        if not said or target is None:
            continue
        checked += 1
        numbered += bool(numbers(said))
        if numbers(said) and any(numbers(f) == numbers(said) for f in (target.spoken, *target.says)):
            same.append((plan.brief.benchmark, plan.brief.target, said, target.spoken))
    assert checked >= 100 and numbered >= 50 and same == [], (checked, numbered, same[:5])
