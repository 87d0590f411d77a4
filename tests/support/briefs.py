"""Hand-built writer briefs in two domains (a retail exchange, an airline flight change), one plan
per fault type: the fixtures of the offline-model and card tests (independent of any host)."""

from __future__ import annotations

from miscue.briefs import Act, ExtractionInput, Identity, Materials, Option, Requirement, Role, WriterBrief
from miscue.reading import FormRequirement, ReadingForm

RETAIL = dict(
    benchmark="tau2-retail",
    context="You are a customer of an online store, chatting with its customer service agent.",
    request="exchange an item from a delivered order",
    requirements=[
        Requirement(slot="order_id", phrase="the order", spoken="#W2378156", role=Role(kind="order", noun="order", act="x")),
        Requirement(slot="old_item", phrase="the item to exchange", spoken="the mechanical keyboard",
                    parts=[Option(say="mechanical keyboard")], role=Role(kind="items", noun="items", act="x")),
        Requirement(slot="new_switch_type", phrase="the switch type of the new mechanical keyboard", spoken="clicky",
                    role=Role(kind="option", noun="switch type", of="mechanical keyboard", part=0, act="x")),
        Requirement(slot="new_size", phrase="the size of the new mechanical keyboard", spoken="full size", ordered=True,
                    role=Role(kind="option", noun="size", of="mechanical keyboard", part=0, act="x")),
        Requirement(slot="payment_method_id", phrase="the payment method", spoken="my credit card ending in 7447",
                    role=Role(kind="payment", noun="payment method", act="x")),
    ],
    acts=[Act(label="x", kind="exchange", say="exchange an item from a delivered order")],
    identity=Identity(name="Yusuf Rossi", facts={"zip": "19122", "email": "yusuf.rossi7301@example.com"},
                      ways=[["name", "zip"], ["email"]]),
)
RETAIL_PLANS = {
    "indirect_intent": (None, {}),
    "contextual_irrelevance": (None, {"off_topic": "my neighbour's vegetable garden"}),
    "factual_error": ("new_switch_type", {"wrong_value": "tactile"}),
    "false_presupposition": ("new_switch_type", {"fallback": "linear"}),
    "tool_capability_mismatch": (None, {"mismatch": "return the mechanical keyboard for a refund"}),
    "insufficient_information": ("new_switch_type", {}),
    "irrelevant_information": (None, {"extra": "I'd prefer the replacement to have a white backlight"}),
    "lexical_ambiguity": ("payment_method_id", {"ambiguous_word": "my card",
                                                "senses": ["my credit card ending in 7447", "my gift card"]}),
    "syntactic_ambiguity": ("new_switch_type", {"companion": "the old mechanical keyboard", "modifier": "with clicky switches"}),
    "referential_ambiguity": ("old_item", {"pointer": "the usual one"}),
    "vagueness_subjectivity": ("new_size", {"vague_word": "a decent size"}),
}

AIRLINE = dict(
    benchmark="tau2-airline",
    context="You are a passenger talking to an airline's customer service agent about an existing booking.",
    request="change the flights on a reservation",
    requirements=[
        Requirement(slot="reservation_id", phrase="the reservation", spoken="4WQ150",
                    role=Role(kind="reservation", noun="reservation", act="y")),
        Requirement(slot="new_date", phrase="the new travel date", spoken="May 24", ordered=True,
                    role=Role(kind="flights", noun="flights", act="y")),
        Requirement(slot="cabin_class", phrase="the cabin", spoken="business", role=Role(kind="cabin", noun="cabin", act="y")),
        Requirement(slot="payment_id", phrase="the payment method", spoken="my Visa card ending in 2051",
                    role=Role(kind="payment", noun="payment method", act="y")),
    ],
    acts=[Act(label="y", kind="change_flights", say="change the flights on a reservation")],
    identity=Identity(name="Ana Silva", facts={"user id": "ana_silva_4512"}, ways=[["user id"]]),
)
AIRLINE_PLANS = {
    "indirect_intent": (None, {}),
    "contextual_irrelevance": (None, {"off_topic": "the marathon I am training for"}),
    "factual_error": ("new_date", {"wrong_value": "May 25"}),
    "false_presupposition": ("cabin_class", {"fallback": "economy"}),
    "tool_capability_mismatch": (None, {"mismatch": "cancel the reservation and book a new one"}),
    "insufficient_information": ("reservation_id", {}),
    "irrelevant_information": (None, {"extra": "with one checked bag"}),
    "lexical_ambiguity": ("payment_id", {"ambiguous_word": "my Visa",
                                         "senses": ["my Visa card ending in 2051", "my Visa debit card"]}),
    "syntactic_ambiguity": ("cabin_class", {"companion": "the other cabin"}),
    "referential_ambiguity": ("reservation_id", {"pointer": "the reservation I mentioned"}),
    "vagueness_subjectivity": ("cabin_class", {"vague_word": "a nicer cabin"}),
}

DOMAINS = {"retail": (RETAIL, RETAIL_PLANS), "airline": (AIRLINE, AIRLINE_PLANS)}


def make_brief(domain: str, fault_type: str, attempt: int = 0) -> WriterBrief:
    base, plans = DOMAINS[domain]
    target, materials = plans[fault_type]
    return WriterBrief(**base, fault_type=fault_type, target=target, materials=Materials(**materials),
                       attempt=attempt)


#: what an extraction form adds to each requirement (as the planner does from host data): other
#: ways of saying the true value, and the other legal values with theirs
FORM = {
    "order_id": (["W2378156", "order #W2378156"], [("#W1234567", [])]),
    "old_item": (["mechanical keyboard"], [("the wireless mouse", ["mouse"])]),
    "new_switch_type": (["clicky switches"], [("tactile", ["tactile switches"]), ("linear", ["linear switches"])]),
    "new_size": (["full-size", "full sized"], [("80%", ["tenkeyless"]), ("60%", [])]),
    "payment_method_id": (["my card", "card ending in 7447", "credit card ending 7447"],
                          [("my gift card", ["my card", "gift card"])]),
    "reservation_id": (["reservation 4WQ150"], [("XK12ZP", [])]),
    "new_date": (["May 24th", "the 24th"], [("May 25", ["May 25th", "the 25th"]), ("May 26", ["May 26th"])]),
    "cabin_class": (["business class"], [("economy", ["economy class"]), ("basic economy", [])]),
    "payment_id": (["my Visa", "Visa ending in 2051", "card ending 2051"], [("my Visa debit card", ["my Visa", "Visa debit"])]),
}


def extraction_input(brief: WriterBrief, text: str) -> ExtractionInput:
    reqs = [r.model_copy(update={"says": FORM[r.slot][0],
                                 "options": [Option(say=say, also=also) for say, also in FORM[r.slot][1]]})
            for r in brief.requirements]
    return ExtractionInput(context=brief.context, request=brief.request, requirements=reqs, text=text)


def reading_form(brief: WriterBrief) -> ReadingForm:
    """A reading form of the brief's requirements (the true value and the other options, as said)."""
    reqs = tuple(FormRequirement(slot=r.slot, phrase=r.phrase, truth=r.spoken,
                                 values=tuple(dict.fromkeys([r.spoken, *(o.say for o in r.options)])),
                                 says=tuple(r.says))
                 for r in extraction_input(brief, "").requirements)
    return ReadingForm(requirements=reqs, operation=brief.request, operations=(brief.request, "cancel a pending order"))
