"""Fault plans: single-fault cells and, per attempt, the target and materials (DESIGN 6, 7).

A cell is (graph, fault type). Its targets are the slots the type may take on the graph's root
(applicability is decided by executing: a slot is droppable when dropping it changes the
answer). Each attempt picks a target and the type's materials (a wrong value, a fallback,
a pointer …) deterministically from (cell, attempt), always in the domain's spoken words, and
keeps the real values behind them for admission.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from miscue.host import Adapter, Extra, Mismatch, NotExecutable
from miscue.briefs import Materials, Option, Requirement, WriterBrief
from miscue.canonical import canonical_json, content_hash
from miscue.language import Member, SlotDomain, words
from miscue.reading import WORDS, ReadingForm, general_forms
from miscue.planning.materials import ambiguous_words, companions, numbers, plain_forms, pointers, said_form, vague_phrases
from miscue.schema import FaultSpec, GroundTruth, Intent, IntentGraph
from miscue.taxonomy import ExtractionClass, FaultType, SlotFacts, applicable, fault_type

OFF_TOPICS = (
    "my sister's wedding", "the half marathon I am training for", "my vegetable garden", "the neighbours' new puppy",
    "our kitchen renovation", "my book club", "the weather this week", "my daughter's school play", "a camping trip",
    "learning to bake bread", "my new job", "the football season", "my grandmother's birthday", "a pottery class",
    "the traffic on my commute", "a documentary I watched",
)
MAX_FORMS = 24  # other ways of saying one value, shown to a model
MAX_OPTIONS = 12  # other legal values of one requirement, shown to the extractors
_WORD = re.compile(r"[a-z0-9]+")
_STOP = {"the", "a", "an", "my", "of", "on", "in", "and", "with", "to", "for", "ending"}


def content_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP]


@dataclass(frozen=True)
class CellPlan:
    benchmark: str
    task_id: str
    graph_id: str
    fault_type: str
    status: str  # planned | skipped | unsupported
    reason: str = ""
    targets: tuple[str | None, ...] = ()

    @property
    def cell_id(self) -> str:
        return content_hash(self.graph_id, [FaultSpec(fault_type=self.fault_type).model_dump()])


@dataclass
class AttemptPlan:
    """The brief for one attempt plus the real values behind its spoken materials, and what the
    extractors are shown of the requirements (the brief's, with every other legal value)."""

    brief: WriterBrief
    component: FaultSpec
    extraction: list[Requirement] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)  # e.g. {"wrong_value": 12, "fallback": "economy"}
    extra: Extra | None = None
    mismatch: Mismatch | None = None


class PlanError(Exception):
    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(code)
        self.code, self.detail = code, detail


class Planner:
    """Plans single-fault cells on graph roots of one adapter."""

    def __init__(self, adapter: Adapter, identity: bool = True) -> None:
        self.adapter = adapter
        self.identity = identity  # the customer says who they are, as the host's users do
        self._facts: dict[str, list[SlotFacts]] = {}
        self._alts: dict[tuple[str, str], list[tuple[Any, GroundTruth]]] = {}
        self._reqs: dict[tuple[str, bool], list[Requirement]] = {}
        self._forms: dict[str, ReadingForm] = {}

    # ------------------------------------------------------------------ slot knowledge
    def facts(self, intent: Intent, truth: GroundTruth) -> list[SlotFacts]:
        if intent.intent_id not in self._facts:
            self._facts[intent.intent_id] = self.adapter.slot_facts(intent, truth)
        return self._facts[intent.intent_id]

    def alternatives(self, intent: Intent, truth: GroundTruth, slot: str) -> list[tuple[Any, GroundTruth]]:
        """Legal other values of ``slot`` whose reading executes to a different, non-empty answer."""
        key = (intent.intent_id, slot)
        if key not in self._alts:
            cond = intent.condition(slot)
            out = []
            true_spoken = self.spoken(intent, slot, cond.value).lower() if cond else ""
            named = self._named_elsewhere(intent, slot)
            for value in self.adapter.domain(intent, slot):
                spoken = self.spoken(intent, slot, value).lower()
                if not spoken or spoken == true_spoken or true_spoken in spoken or spoken in true_spoken:
                    continue  # a value the text checks could not tell from the truth
                if canonical_json(value) in named:
                    continue  # "cancel reservation X ... also cancel reservation X": one object asked about twice
                if self.adapter.contradicts(intent, slot, value):
                    continue  # "1 checked bag, 2 bags to pay for": the rest of the request says otherwise
                try:
                    gt = self.adapter.ground_truth(intent.with_condition(cond.with_value(value)))  # type: ignore[union-attr]
                except NotExecutable:
                    continue
                if not gt.empty and gt.hash != truth.hash:
                    out.append((value, gt))
            self._alts[key] = out
        return self._alts[key]

    def wrong_values(self, intent: Intent, truth: GroundTruth, slot: str) -> list[tuple[Any, GroundTruth]]:
        """The alternatives a text can state as another value (a factual error, a fallback): none
        whose numbers are those of a way the truth is said ("24 count" for "12 count (pack of 2)",
        which the host also says "24 ct": a reader may take either)."""
        domains = self.adapter.grounder(intent).domains
        if slot not in domains:
            return self.alternatives(intent, truth, slot)
        truth_numbers = {n for n in (numbers(f) for f in domains[slot].true_value.heard) if n}
        return [(v, gt) for v, gt in self.alternatives(intent, truth, slot)
                if numbers(self.spoken(intent, slot, v)) not in truth_numbers]

    def _named_elsewhere(self, intent: Intent, slot: str) -> set[str]:
        """What other requirements of ``intent`` name, when ``slot`` takes the object operated on
        (an order, a reservation; not a card, which two operations may share): a wrong value or a
        fallback among them would ask about one object twice."""
        domains = self.adapter.grounder(intent).domains
        if slot not in domains or not domains[slot].identifier or domains[slot].instrument:
            return set()
        return {canonical_json(c.value) for c in intent.conditions if c.slot != slot}

    def spoken(self, intent: Intent, slot: str, value: Any) -> str:
        return self.adapter.spoken_value(intent, slot, value)

    def requirements(self, intent: Intent, options: bool = False) -> list[Requirement]:
        """The true requirements in the domain's words, each with its role and the other ways
        customers say its value. The writer's view (default) lists only the forms that name the
        true value alone (a form another legal value shares would say something else); the
        extractors' view (``options``) lists every form, the recognised ones too, and every other
        legal value."""
        key = (intent.intent_id, options)
        if key not in self._reqs:
            self._reqs[key] = self._requirements(intent, options)
        return self._reqs[key]

    def _requirements(self, intent: Intent, options: bool) -> list[Requirement]:
        domains = self.adapter.grounder(intent).domains
        out = []
        for c in intent.conditions:
            d = domains[c.slot]
            spoken = self.spoken(intent, c.slot, c.value)
            forms = d.true_value.heard if options else plain_forms(d, d.true_value)
            # a form another legal value shares is shown first under both (only some forms fit in a
            # prompt): a reader sees that the words name two values
            others = d.values[1:MAX_OPTIONS + 1]
            general = general_forms(d.values) if options else set()  # no way to say one value
            shared = {f for v in others for f in v.heard} & set(forms)
            says = _fit([f for f in forms if f != spoken and f not in general], shared, MAX_FORMS)
            parts = [self._part(p, d, plain=not options) for p in d.parts if p.key in d.true_value.members]
            if d.parts:  # a list's other legal values, part by part (another card, another flight)
                alts = [self._part(p) for p in d.parts if p.key not in d.true_value.members][:MAX_OPTIONS]
            else:
                alts = [Option(say=v.spoken, also=_fit([f for f in v.heard[1:] if f not in general], {spoken, *says}, MAX_FORMS)
                               if options
                               else list(v.forms[1:MAX_FORMS + 1])) for v in others]
            out.append(Requirement(slot=c.slot, phrase=self.adapter.slot_phrase(intent, c.slot), spoken=spoken,
                                   ordered=self.adapter.is_ordered_slot(intent, c.slot), says=says, parts=parts,
                                   options=alts if options else [], role=self.adapter.role(intent, c.slot)))
        return out

    def reading_form(self, intent: Intent) -> ReadingForm:
        """The task's reading form (DESIGN section 6, step 3): each true requirement with its legal
        values as the host's value domains say them (the host value behind each kept for
        executing a reading), the task's operation, the mismatched ones the words could point at and
        the limits the host can check."""
        if intent.intent_id not in self._forms:
            phrases = {r.slot: r.phrase for r in self.requirements(intent, options=True)}
            form = ReadingForm.of_domains(
                self.adapter.grounder(intent).domains, phrases, self.adapter.request_phrase(intent),
                [m.phrase for m in self.adapter.mismatches(intent)], self.adapter.value_ids(intent))
            asked = {r.slot for r in form.requirements}
            limits = [(x.name, WORDS if x.words else tuple(said for said, _ in x.values)) for x in self.adapter.limits(intent)]
            self._forms[intent.intent_id] = form.with_host_facts(self.settled(intent, asked), self.implied(intent, asked),
                                                                 limits, [e.act for e in self.adapter.additions(intent)])
        return self._forms[intent.intent_id]

    def implied(self, intent: Intent, asked: set[str]) -> set[str]:
        """The requirements the rest of the true request fixes: dropping one alone leaves the
        answer as it is (DESIGN 6, step 6: a requirement left unsaid is a fault only when the
        answer widens), or the write leaves it as the customer has it (the host says which); a
        text that does not say it departs in nothing."""
        try:
            truth = self.adapter.ground_truth(intent)
        except NotExecutable:
            return set()
        out = {slot for slot in asked if self.adapter.left_as_is(intent, slot)}
        for slot in sorted(asked - out):
            try:
                if self.adapter.ground_truth(intent.without(slot)).hash == truth.hash:
                    out.add(slot)
            except NotExecutable:
                continue
        return out

    def settled(self, intent: Intent, asked: set[str]) -> list[tuple[str, str]]:
        """The true outcome's other details, as customers say them: what every way of reaching the
        truth gives a slot no requirement asks about (the order a return is on, the card a refund
        goes to, the new item's other options). A detail the text adds that agrees with one of them
        changes nothing, so a reader told them does not count it as an extra."""
        try:
            witnesses = self.adapter.witnesses(intent, self.adapter.ground_truth(intent))
        except NotExecutable:
            return []
        if not witnesses:
            return []
        out = []
        for slot, value in witnesses[0].items():
            if slot in asked or any(slot not in w or canonical_json(w[slot]) != canonical_json(value) for w in witnesses[1:]):
                continue
            out.append((self.adapter.slot_phrase(intent, slot), self.spoken(intent, slot, value)))
        return out

    @staticmethod
    def _part(p: Member, d: SlotDomain | None = None, plain: bool = False) -> Option:
        """One part of a list value as customers say it; ``plain``: only the forms no other part
        of the requirement's legal values shares (the writer's view)."""
        also = list(p.forms[1:] if plain else p.heard[1:])
        if plain and d is not None:
            shared = {words(f) for q in d.parts if q.key != p.key for f in (*q.heard, *q.weak)}
            also = [f for f in also if words(f) not in shared]
        return Option(say=p.forms[0], also=also[:MAX_FORMS], partly=list(p.weak[:4]))

    def distinctive(self, intent: Intent, slot: str) -> bool:
        """The slot's spoken value neither contains nor is contained in another requirement's."""
        mine = " ".join(content_words(self.spoken(intent, slot, intent.condition(slot).value)))  # type: ignore[union-attr]
        for c in intent.conditions:
            if c.slot == slot:
                continue
            other = " ".join(content_words(self.spoken(intent, c.slot, c.value)))
            if not mine or f" {mine} " in f" {other} " or f" {other} " in f" {mine} ":
                return False
        return True

    def companions(self, intent: Intent, slot: str) -> list[tuple[str, str]]:
        """What the target's value can attach to besides its own requirement (a part named by
        another requirement, a negated requirement, the item the customer has now), each read
        back as a structural ambiguity by the grounder (:func:`~miscue.planning.materials.companions`)."""
        reqs = self.requirements(intent)
        target = next((r for r in reqs if r.slot == slot), None)
        if target is None:
            return []
        siblings = [(r.slot, said_form([r.spoken, *r.says], r.role.noun), r.role) for r in reqs if r.slot != slot and not r.parts]
        said = said_form([target.spoken, *target.says], target.role.noun)
        return companions(self.adapter.grounder(intent), slot, said, target.role, siblings)

    def lexical(self, intent: Intent, truth: GroundTruth, slot: str) -> list[tuple[str, Any]]:
        """(word, other value): words the host's data make fit the true value and one or two
        others, each other one executing to another answer, all within what the extractors are
        shown of the requirement (its forms and its first other values)."""
        d = self.adapter.grounder(intent).domains[slot]
        if d.parts:
            return []
        alts = {canonical_json(v): v for v, _ in self.alternatives(intent, truth, slot)}
        shown = {v.key for v in d.values[1:MAX_OPTIONS + 1]}
        own = [w for w in d.true_value.forms[:MAX_FORMS + 1]]
        out = []
        for word, other in ambiguous_words(self.adapter.grounder(intent), d, set(alts) & shown):
            o = d.value(other)
            if word in own and o is not None and word in o.forms[:MAX_FORMS + 1]:
                out.append((word, alts[other]))
        return out

    def pointers(self, intent: Intent, slot: str) -> list[str]:
        return pointers(self.adapter.role(intent, slot))

    def vague(self, intent: Intent, slot: str) -> list[str]:
        cond = intent.condition(slot)
        if cond is None:
            return []
        return vague_phrases(self.adapter.role(intent, slot), cond.value, self.adapter.current_value(intent, slot),
                             self.adapter.grounder(intent), slot)

    # ------------------------------------------------------------------------ cells
    def cells(self, graph: IntentGraph, types: list[str]) -> list[CellPlan]:
        root, truth = graph.root.intent, graph.root.ground_truth
        support = self.adapter.fault_support()
        facts = self.facts(root, truth)
        out = []
        for type_id in types:
            ft = fault_type(type_id)
            common = dict(benchmark=graph.benchmark, task_id=graph.task_id, graph_id=graph.graph_id, fault_type=type_id)
            sup = support.get(type_id)
            if sup is None or not sup.supported:
                out.append(CellPlan(**common, status="unsupported", reason=sup.reason if sup else "not declared by the adapter"))
                continue
            targets, reason = self._targets(ft, root, truth, facts)
            if not targets:
                out.append(CellPlan(**common, status="skipped", reason=reason))
            else:
                out.append(CellPlan(**common, status="planned", targets=tuple(targets)))
        return out

    def _targets(self, ft: FaultType, root: Intent, truth: GroundTruth, facts: list[SlotFacts]) -> tuple[list[str | None], str]:
        if ft.extraction == ExtractionClass.extras:
            return ([None], "") if self.adapter.extras(root) else ([], "no_executable_extra_detail")
        if ft.extraction == ExtractionClass.mismatch:
            return ([None], "") if self.adapter.mismatches(root) else ([], "no_mismatched_operation")
        if ft.extraction in (ExtractionClass.noise, ExtractionClass.oblique):
            return [None], ""
        if ft.extraction == ExtractionClass.presupposed:
            slots = [f.slot for f in facts if self.wrong_values(root, truth, f.slot)]
            return (slots, "") if slots else ([], "no_fallback_value")
        verdict = applicable(ft, facts)
        if not verdict.applicable:
            return [], verdict.reason
        slots = list(verdict.slots)
        if ft.id != "syntactic_ambiguity":  # the text checks look for the target's value by its words
            slots = [s for s in slots if self.distinctive(root, s)]
            if not slots:
                return [], "target_value_not_distinctive"
        if ft.extraction == ExtractionClass.substituted:
            slots = [s for s in slots if self.wrong_values(root, truth, s)]
            return (slots, "") if slots else ([], "no_plausible_wrong_value")
        if ft.id == "lexical_ambiguity":
            slots = [s for s in slots if self.lexical(root, truth, s)]
            return (slots, "") if slots else ([], "no_word_with_two_senses")
        if ft.id == "vagueness_subjectivity":
            slots = [s for s in slots if self.vague(root, s)]
            return (slots, "") if slots else ([], "no_vague_description")
        if ft.id == "syntactic_ambiguity":
            slots = [s for s in slots if self.companions(root, s)]
            return (slots, "") if slots else ([], "no_attachment_site")
        return slots, ""

    # --------------------------------------------------------------------- attempts
    def attempt(self, cell: CellPlan, graph: IntentGraph, attempt: int) -> AttemptPlan:
        if cell.status != "planned":
            raise PlanError(f"plan:{cell.status}", cell.reason)
        root, truth = graph.root.intent, graph.root.ground_truth
        ft = fault_type(cell.fault_type)
        target = cell.targets[attempt % len(cell.targets)]
        turn = attempt // len(cell.targets)
        materials = Materials()
        plan = AttemptPlan(
            brief=WriterBrief(benchmark=graph.benchmark, context=self.adapter.context_line(root),
                              request=self.adapter.request_phrase(root), requirements=self.requirements(root),
                              fault_type=ft.id, target=target, attempt=attempt, acts=self.adapter.acts(root),
                              identity=self.adapter.identity(root) if self.identity else None),
            component=FaultSpec(fault_type=ft.id, target=target),
            extraction=self.requirements(root, options=True),
        )
        if ft.extraction in (ExtractionClass.substituted, ExtractionClass.presupposed):
            values = self.wrong_values(root, truth, target)  # type: ignore[arg-type]
            value, _ = values[turn % len(values)]
            key = "wrong_value" if ft.extraction == ExtractionClass.substituted else "fallback"
            setattr(materials, key, self.spoken(root, target, value))  # type: ignore[arg-type]
            plan.values[key] = value
        elif ft.id == "referential_ambiguity":
            found = self.pointers(root, target)  # type: ignore[arg-type]
            materials.pointer = found[turn % len(found)]
        elif ft.id == "vagueness_subjectivity":
            found = self.vague(root, target)  # type: ignore[arg-type]
            materials.vague_word = found[turn % len(found)]
        elif ft.id == "lexical_ambiguity":
            pairs = self.lexical(root, truth, target)  # type: ignore[arg-type]
            word, other = pairs[turn % len(pairs)]
            cond = root.condition(target)  # type: ignore[arg-type]
            materials.ambiguous_word = word
            materials.senses = [self.spoken(root, target, cond.value), self.spoken(root, target, other)]  # type: ignore[union-attr,arg-type]
            plan.values["other_sense"] = other
        elif ft.id == "syntactic_ambiguity":
            companion, modifier = self.companions(root, target)[turn % len(self.companions(root, target))]  # type: ignore[arg-type]
            materials.companion, materials.modifier = companion, modifier
        elif ft.extraction == ExtractionClass.extras:
            extras = self.adapter.extras(root)
            plan.extra = extras[turn % len(extras)]
            materials.extra = plan.extra.phrase
        elif ft.extraction == ExtractionClass.mismatch:
            mismatches = self.adapter.mismatches(root)
            plan.mismatch = mismatches[turn % len(mismatches)]
            materials.mismatch = plan.mismatch.phrase
        elif ft.extraction == ExtractionClass.noise:
            materials.off_topic = OFF_TOPICS[(attempt + int(graph.graph_id[:4], 16)) % len(OFF_TOPICS)]
        plan.brief = plan.brief.model_copy(update={"materials": materials})
        return plan


def _fit(forms: list[str], wanted: set[str], n: int) -> list[str]:
    """At most ``n`` of ``forms``, in their order: up to half of them ``wanted`` ones, the rest the
    others as they come (a value's first forms, its ids among them, stay)."""
    keep = set([f for f in forms if f in wanted][:n // 2])
    keep |= set([f for f in forms if f not in keep][:n - len(keep)])
    return [f for f in forms if f in keep]


def value_from_spoken(adapter: Adapter, intent: Intent, slot: str, spoken: str | None) -> tuple[bool, Any]:
    """Map a value as stated in a text back to the slot's legal values (exact spoken match)."""
    if not spoken:
        return False, None
    norm = " ".join(content_words(spoken))
    cond = intent.condition(slot)
    candidates = ([cond.value] if cond else []) + adapter.domain(intent, slot)
    for value in candidates:
        if " ".join(content_words(adapter.spoken_value(intent, slot, value))) == norm:
            return True, value
    for value in candidates:  # tolerate a stated value that adds or drops filler words
        said = " ".join(content_words(adapter.spoken_value(intent, slot, value)))
        if said and (said in norm or norm in said) and len(norm) >= 2:
            return True, value
    return False, canonical_json(spoken)
