"""Wrong instruments and limits on the reading path, executed in the real tau2 environments
(DESIGN section 4, tool capability mismatch; section 6, the extras rule).

A reading names an operation among the adapter's mismatches, or writes an extra as a bound on one
of the limits its form lists; admission executes that reading. These tests build the readings by
hand (what a reader would return) and run the real admission on real tasks.
"""

from __future__ import annotations

import pytest

from miscue.flows.stages.verify import task_intent
from miscue.planning import Planner
from miscue.reading import Departure, Extra, Reading, RequirementReading, limit_of, single_class
from miscue.taxonomy import ExtractionClass
from miscue.verifiers.admission import admit_reading, without_met_limits


def _plain(form, **changes) -> Reading:
    """Every requirement stated with its true value, the task's operation, then ``changes``."""
    reqs = {r.slot: RequirementReading(status="stated", value=r.truth) for r in form.requirements}
    return Reading(requirements=reqs, operation=form.operation).model_copy(update=changes)


def _task(adapter, task: str):
    intent, truth = task_intent(adapter, task)
    return intent, truth, Planner(adapter).reading_form(intent)


@pytest.mark.parametrize("task, phrase, refused", [
    ("38", "refund the compensation to a card", True),  # no tool refunds a delay to a card: nothing is reached
    ("40", "edit the saved passenger profiles on the account", True),  # no tool edits saved travellers
    ("16", "cancel reservation M05KNL", False),  # cancelling is not changing the flights: another state
    ("40", "cancel reservation 3RK2T9", True),  # cancel to rebook with the new name: the policy refuses it
    ("12", "cancel reservation YAX4DR", True),  # cancel to rebook with a bag more: refused too
    ("9", "remove the passengers from reservation NQNU5R", True),  # no tool takes passengers off: nothing is reached
    ("40", "take a passenger off reservation 3RK2T9 and add another", True),  # nor swaps one for another
])
def test_an_airline_write_asked_through_the_wrong_instrument_is_admitted(airline, task, phrase, refused):
    intent, truth, form = _task(airline, task)
    assert phrase in form.operations
    admission = admit_reading(airline, intent, truth, form, _plain(form, operation=phrase),
                              Departure(ExtractionClass.mismatch))
    assert admission.admitted, admission.verdict
    assert admission.executed == 1  # a refusal is the reading's outcome: the attempt has an executed reading
    (reading,) = admission.readings
    assert reading.truth.empty == refused  # type: ignore[union-attr]
    assert refused or reading.truth.hash != truth.hash  # type: ignore[union-attr]


def test_the_default_address_or_a_cancellation_is_the_wrong_instrument_for_an_orders_address(retail):
    intent, truth, form = _task(retail, "17")  # move pending order #W8665881 to another suite
    assert form.operations[1:] == ("change the default address on the account", "cancel order #W8665881")
    for phrase in form.operations[1:]:
        admission = admit_reading(retail, intent, truth, form, _plain(form, operation=phrase),
                                  Departure(ExtractionClass.mismatch))
        assert admission.admitted, (phrase, admission.verdict)
        assert admission.readings[0].truth.hash != truth.hash  # type: ignore[union-attr]


def test_a_return_is_the_wrong_instrument_for_an_exchange(retail):
    intent, truth, form = _task(retail, "7")  # exchange the desk lamp of a delivered order
    assert form.operations[1:] == ("change the items of order #W6390527", "return the items of order #W6390527")
    for phrase, refused in zip(form.operations[1:], (True, False)):  # a change is refused on a delivered order
        admission = admit_reading(retail, intent, truth, form, _plain(form, operation=phrase),
                                  Departure(ExtractionClass.mismatch))
        assert admission.admitted, (phrase, admission.verdict)
        assert admission.readings[0].truth.empty == refused  # type: ignore[union-attr]


def test_exchange_is_no_wrong_instrument_for_a_pending_orders_items(retail):
    """tau2's own customers say "exchange" for changing a pending order's items: the form offers
    no exchange beside the change; cancelling and returning are the wrong instruments it lists."""
    _, _, form = _task(retail, "85")
    assert form.operations == (form.operation, "cancel order #W2466703", "return the items of order #W2466703",
                               "cancel an item of order #W2466703 and add another to it")


@pytest.mark.parametrize("task, condition, admitted", [
    ("85", "the price of the new fleece jacket in dollars < 150", True),  # the true variant costs $153.18
    ("85", "the price of the new fleece jacket in dollars <= $160", False),  # it already meets the cap
    ("85", "the price of the new fleece jacket in dollars = 153.18", False),  # exactly what it costs
    ("85", "the price of the new fleece jacket in dollars = 150", True),  # no variant costs exactly that
    ("85", "price of the jacket < 150", False),  # not a listed name: the enumerated extras, none of which says it
])
def test_a_price_cap_on_a_new_item_is_executed(retail, task, condition, admitted):
    intent, truth, form = _task(retail, task)
    reading = _plain(form, extras=[Extra(quote="under $150", condition=condition)])
    admission = admit_reading(retail, intent, truth, form, reading, Departure(ExtractionClass.extras))
    assert admission.admitted == admitted, admission.verdict
    if admitted:  # the cap leaves no variant: the literal reading has no answer, a strict narrowing
        assert admission.readings[0].truth.empty


@pytest.mark.parametrize("condition, code", [
    ("the number of stops each way on the new flights = 0", None),  # no ATL-PHL nonstop that day
    ("the number of stops each way on the new flights <= 1", "admit:extra_did_not_narrow"),
    ("the number of stops each way on the new flights = 1", "admit:extra_did_not_narrow"),  # what it is
    ("the number of stops each way on the new flights > 1", None),  # no two-stop itinerary either
])
def test_a_stop_limit_on_new_flights_is_executed(airline, condition, code):
    intent, truth, form = _task(airline, "16")
    reading = _plain(form, extras=[Extra(quote="it needs to be a nonstop", condition=condition)])
    admission = admit_reading(airline, intent, truth, form, reading, Departure(ExtractionClass.extras))
    assert (admission.verdict.code if admission.verdict else None) == code


@pytest.mark.parametrize("condition, code", [
    ("the color of the new desk lamp = silver", None),  # the cheapest lamp is black: another one is taken
    ("the color of the new desk lamp = black", "admit:extra_did_not_narrow"),  # what the cheapest already is
    ("the color of the new desk lamp = gold", "admit:extra_not_compilable"),  # no such value: no limit read
])
def test_a_named_value_on_a_new_items_option_is_executed(retail, condition, code):
    intent, truth, form = _task(retail, "44")  # the cheapest desk lamp in place of the ordered one
    reading = _plain(form, extras=[Extra(quote="in silver", condition=condition)])
    admission = admit_reading(retail, intent, truth, form, reading, Departure(ExtractionClass.extras))
    assert (admission.verdict.code if admission.verdict else None) == code


def test_a_limit_is_read_from_its_formal_condition_only(retail):
    _, _, form = _task(retail, "44")
    price, _ = form.limits[0]
    colour, values = next(x for x in form.limits if x[0].startswith("the color"))
    assert set(values) >= {"black", "silver"}
    conditions = (f"{price} < 150", f"{price.upper()} >= $75.50", f"{price}<=0", f"{price} under 150",
                  f"{colour} = Silver", f"{colour} = gold", f"{colour} <= 3", f"{price} = cheap", "colour = red",
                  f"{price} < 1e3", f"{price} < 1.5.0", f"{price} > $ 99")
    read = [limit_of(Extra(quote="q", condition=c), form) for c in conditions]
    assert [(r.op, r.number, r.value) if r else None for r in read] == [
        ("<", 150.0, None), (">=", 75.5, None), ("<=", 0.0, None), None,
        ("=", None, "silver"), None, None, None, None, None, None, (">", 99.0, None)]


def test_a_cancellation_is_the_wrong_instrument_for_a_pending_orders_payment(retail):
    intent, truth, form = _task(retail, "40")  # pay pending order #W4923227 with another card
    assert intent.base["request"] == ["modify_payment"]
    (phrase,) = form.operations[1:]
    assert phrase == "cancel order #W4923227"
    admission = admit_reading(retail, intent, truth, form, _plain(form, operation=phrase),
                              Departure(ExtractionClass.mismatch))
    assert admission.admitted, admission.verdict
    assert admission.readings[0].truth.hash != truth.hash  # type: ignore[union-attr]


def test_a_return_is_the_wrong_instrument_for_a_pending_orders_items(retail):
    """Returning a pending order's item to buy another: the store refuses a return of an order not
    yet delivered, while the change of its items executes."""
    intent, truth, form = _task(retail, "3")  # a purple polyester v-neck for the t-shirt of pending #W4776164
    assert form.operations[1:] == ("cancel order #W4776164", "return the items of order #W4776164",
                                   "cancel an item of order #W4776164 and add another to it")
    for phrase in form.operations[2:]:  # refused; no tool swaps one item of an order: nothing is reached
        admission = admit_reading(retail, intent, truth, form, _plain(form, operation=phrase),
                                  Departure(ExtractionClass.mismatch))
        assert admission.admitted, (phrase, admission.verdict)
        assert admission.readings[0].truth.empty  # type: ignore[union-attr]


@pytest.mark.parametrize("condition, code", [
    ("the price of each returned item in dollars > 100", None),  # the $50.88 t-shirt and $52.03 puzzle stay
    ("the price of each returned item in dollars >= 1000", None),  # none of the three: nothing is returned
    ("the price of each returned item in dollars > 10", "admit:extra_did_not_narrow"),  # every item costs more
])
def test_a_price_bound_on_the_items_returned_is_executed(retail, condition, code):
    intent, truth, form = _task(retail, "108")  # return a t-shirt, a jigsaw puzzle and an e-reader
    assert ("the price of each returned item in dollars", ()) in form.limits
    reading = _plain(form, extras=[Extra(quote="only the ones over $100", condition=condition)])
    admission = admit_reading(retail, intent, truth, form, reading, Departure(ExtractionClass.extras))
    assert (admission.verdict.code if admission.verdict else None) == code
    if code is None:
        assert admission.readings[0].truth.hash != truth.hash  # type: ignore[union-attr]


@pytest.mark.parametrize("condition, kept", [
    ("the number of stops each way on the new flights = 0", False),  # HAT266 and HAT112 are nonstop
    ("the number of stops each way on the new flights <= 1", False),
    ("the number of stops each way on the new flights = 1", True),  # no one-stop pair among the named flights
    ("the number of stops each way on the new flights >= 1", True),
    ("nonstop = yes", True),  # no listed limit: not executed, left to admission
])
def test_an_extra_the_truth_already_meets_is_no_departure(airline, condition, kept):
    """A limit that leaves the truth's answer as it is agrees with the truth: code drops it from the
    reading before the class is derived, so "nonstop" beside the named nonstop flights is no second fault."""
    intent, truth, form = _task(airline, "30")  # reservation 1N99U6 moved to nonstop HAT266, back on HAT112
    reading = _plain(form, extras=[Extra(quote="nonstop", condition=condition)])
    assert len(without_met_limits(airline, intent, truth, form, reading).extras) == int(kept)


def test_the_stops_of_a_round_trip_that_turns_at_another_airport(airline):
    """Reservation VA5SGQ (DTW-LGA) moves to the nonstop HAT169 DTW-JFK and HAT033 JFK-DTW: neither way
    reaches LGA, so the trip turns where it waits two days -- nonstop each way, not one stop."""
    intent, truth, form = _task(airline, "29")
    for n, met in ((0, True), (1, False)):
        reading = _plain(form, extras=[Extra(quote="the nonstops", condition=f"{form.limits[0][0]} = {n}")])
        assert (without_met_limits(airline, intent, truth, form, reading).extras == []) == met


@pytest.mark.parametrize("task, limit, bound, narrows", [
    ("35", "the time the outbound flights land", "< 16", True),  # HAT069 then HAT258 lands at 19:00
    ("35", "the time the outbound flights land", "<= 19", False),
    ("24", "the time the outbound flights leave", "< 9", False),  # HAT069 leaves at 6:00
    ("24", "the time the outbound flights leave", "> 9", True),
    ("21", "the time the return flights land", "<= 18", True),  # the return lands at 20:00
    ("20", "the longest connection between the new flights", "< 90", False),  # 30 minutes in Atlanta
    ("20", "the longest connection between the new flights", "< 20", True),
])
def test_a_time_limit_on_new_flights_is_executed(airline, task, limit, bound, narrows):
    """"It must land before 4pm", "only if the outbound leaves before 9 am", "a connection under 90
    minutes": limits the form lists by name, executed against the host's schedule (a bound the true
    flights meet is no extra at all)."""
    intent, truth, form = _task(airline, task)
    name = next(n for n, _ in form.limits if n.startswith(limit))
    reading = _plain(form, extras=[Extra(quote="q", condition=f"{name} {bound}")])
    kept = without_met_limits(airline, intent, truth, form, reading)
    assert bool(kept.extras) == narrows
    if narrows:
        admission = admit_reading(airline, intent, truth, form, reading, Departure(ExtractionClass.extras))
        assert admission.admitted, admission.verdict


def test_only_a_round_trip_lists_the_return_times(airline):
    one_way = {n for n, _ in _task(airline, "35")[2].limits}
    round_trip = {n for n, _ in _task(airline, "21")[2].limits}
    assert not any("return" in n for n in one_way)
    assert {n for n in round_trip if "return" in n} == {"the time the return flights leave, in hours after midnight",
                                                        "the time the return flights land, in hours after midnight"}


def test_the_flights_a_cabin_upgrade_keeps_need_not_be_said(airline):
    """'Cancel NQNU5R and bump M20IZO up to business': the upgrade keeps M20IZO's flights, which the
    customer never names; unsaid, they are no second fault beside the payment left out."""
    intent, truth, form = _task(airline, "37")
    flights = next(r for r in form.requirements if r.slot == "change_flights.flights")
    assert flights.implied and airline.left_as_is(intent, flights.slot)
    assert not any(airline.left_as_is(intent, r.slot) for r in form.requirements if r is not flights)
    reading = _plain(form, requirements={**_plain(form).requirements,
                                         flights.slot: RequirementReading(status="not_said"),
                                         "change_flights.payment": RequirementReading(status="not_said")})
    assert single_class(reading, form) == Departure(ExtractionClass.withheld, "change_flights.payment")
    _, _, changed = _task(airline, "30")  # new flights: a reading that finds them unsaid departs
    assert not next(r for r in changed.requirements if r.slot.endswith(".flights")).implied


@pytest.mark.parametrize("task, act, empty", [
    ("81", "cancel order #W9154975", False),  # two orders cancelled, and a third asked besides
    ("17", "set the default address on the account to 123 Elm Street, Suite 641, Austin, TX 78712, USA", False),
])
def test_something_more_asked_done_in_retail_is_executed_as_listed(retail, task, act, empty):
    """An extra that asks another write the form lists ("might as well cancel #W9154975 too", "make
    that my default address as well"): the truth and that write, another state."""
    intent, truth, form = _task(retail, task)
    assert act in form.additions
    reading = _plain(form, extras=[Extra(quote="too", condition=act.upper())])
    admission = admit_reading(retail, intent, truth, form, reading, Departure(ExtractionClass.extras))
    assert admission.admitted, admission.verdict
    assert admission.readings[0].truth.hash != truth.hash and admission.readings[0].truth.empty == empty


@pytest.mark.parametrize("task, act, empty", [
    ("11", "add one checked bag to reservation GV1N64", False),  # paid with the gift card: no credit card on file
    ("9", "send the refund to another payment method than the one paid with", True),  # no tool routes a refund
    ("39", "cancel reservation UDMOP1", True),  # the policy refuses that cancellation: nothing is done as asked
])
def test_something_more_asked_done_in_airline_is_executed_as_listed(airline, task, act, empty):
    intent, truth, form = _task(airline, task)
    assert act in form.additions, form.additions
    reading = _plain(form, extras=[Extra(quote="too", condition=act)])
    admission = admit_reading(airline, intent, truth, form, reading, Departure(ExtractionClass.extras))
    assert admission.admitted, admission.verdict
    assert admission.readings[0].truth.empty == empty


def test_an_addition_the_form_does_not_list_is_not_compiled(retail):
    intent, truth, form = _task(retail, "81")
    reading = _plain(form, extras=[Extra(quote="too", condition="cancel order #W0000000")])
    admission = admit_reading(retail, intent, truth, form, reading, Departure(ExtractionClass.extras))
    assert admission.verdict is not None and admission.verdict.code == "admit:extra_not_compilable"


@pytest.fixture(scope="module")
def webshop():
    from miscue.adapters.webshop import WebShopAdapter

    return WebShopAdapter()


@pytest.mark.parametrize("feature, kept", [
    ("solid wood", True),  # no 3-tier open bookshelf under $50 of the catalogue is said to be: a change
    ("industrial", False),  # every answer is: the truth meets it, no departure
])
def test_a_feature_in_the_shoppers_own_words_is_checked_by_the_hosts_matching(webshop, feature, kept):
    from miscue.flows.stages.verify import task_intent as lift

    intent, truth = lift(webshop, "15")
    form = Planner(webshop).reading_form(intent)
    name = "a feature the product must have"
    reading = _plain(form, extras=[Extra(quote=feature, condition=f"{name} = {feature}")])
    settled = without_met_limits(webshop, intent, truth, form, reading)
    assert len(settled.extras) == int(kept)
    if kept:
        admission = admit_reading(webshop, intent, truth, form, settled, Departure(ExtractionClass.extras))
        assert admission.admitted, admission.verdict
        assert admission.readings[0].truth.hash != truth.hash


def test_a_returns_lines_one_fewer_or_one_more_are_legal_readings(retail):
    """"Return the kettle but keep the pet bed, and the keyboard as well": one reading returns the
    kettle alone, which must be a value a reader can write (and admission execute)."""
    intent, truth, form = _task(retail, "26")  # return the electric kettle and the mechanical keyboard
    items = form.requirement("return.items")
    assert items.truth == "electric kettle and mechanical keyboard"
    assert {"electric kettle", "mechanical keyboard", "electric kettle and mechanical keyboard and pet bed"} <= set(items.values)
    reading = _plain(form, requirements={**_plain(form).requirements, "return.items": RequirementReading(
        status="ambiguous", ambiguity="structure", candidates=["electric kettle and mechanical keyboard", "electric kettle"],
        quote="x")})
    admission = admit_reading(retail, intent, truth, form, reading, Departure(ExtractionClass.ambiguous, "return.items"))
    assert admission.admitted, admission.verdict


def test_general_words_every_value_has_are_no_way_to_say_one(airline):
    """"add checked bags" fits every bag count alike: the form lists no such words under any count,
    so a reader who finds only them reads the count as not said."""
    _, _, form = _task(airline, "22")
    bags = form.requirement("change_bags.bags")
    assert len(bags.values) > 1 and "checked bags" not in bags.says and "bags" not in bags.says
    assert "3 bags" in bags.says


def test_cancelling_some_flights_of_a_reservation_is_a_wrong_instrument_no_tool_has(airline):
    intent, truth, form = _task(airline, "21")  # OBUT9V's return moved to the fastest same-day flights
    phrase = "cancel some of the flights of reservation OBUT9V"
    assert phrase in form.operations
    admission = admit_reading(airline, intent, truth, form, _plain(form, operation=phrase), Departure(ExtractionClass.mismatch))
    assert admission.admitted and admission.readings[0].truth.empty, admission.verdict
