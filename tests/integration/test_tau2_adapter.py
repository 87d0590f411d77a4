"""The tau2 adapters on the real tau2 package data and environments (no mocks)."""

import os
import subprocess
import sys
from collections import Counter

import pytest

from miscue.host import NotExecutable
from miscue.adapters.tau2.exec import NaiveExecutor, ToolCall
from miscue.schema import Condition
from miscue.flows.registry import adapter_for

from support.grounded import read


def checks(adapter):
    return {s.task_id: adapter.validate(s) for s in adapter.load_seeds()}


def test_seed_validation_and_reasons(retail, airline):
    r, a = checks(retail), checks(airline)
    assert len(r) == 114 and len(a) == 50
    rc, ac = Counter(c.code for c in r.values()), Counter(c.code for c in a.values())
    assert rc["ok"] >= 100 and ac["ok"] == 30
    # 12 asks for a refund the tools refuse, 105 an exchange the gift card cannot pay:
    # tau2 replays them (swallowing the error) and nothing changes
    assert r["12"].code == r["105"].code == "seed:state_unchanged"
    assert "original payment method" in r["12"].detail
    assert a["0"].code == "seed:no_write_actions"
    assert all(c.detail for c in list(r.values()) + list(a.values()) if not c.ok)


def test_lifted_conditions_speak_like_a_user(retail):
    intent = retail.validate(next(s for s in retail.load_seeds() if s.task_id == "0")).intent
    conds = {c.slot: c.value for c in intent.conditions}
    assert conds["exchange.order"] == "#W2378156"
    assert conds["exchange.item1.switch type"] == "clicky"
    assert {"product": "Mechanical Keyboard"} in conds["exchange.items"]
    assert not any(str(v).isdigit() and len(str(v)) == 10 for v in conds.values()), "no item ids"
    assert intent.base == {"customer": "yusuf_rossi_9620", "request": ["exchange"]}


def test_withholding_widens_and_adding_narrows(retail):
    intent = retail.validate(next(s for s in retail.load_seeds() if s.task_id == "0")).intent
    truth = retail.ground_truth(intent)
    assert len(truth.value) == 1
    assert retail.ground_truth(intent.without("exchange.payment")).issuperset(truth)
    wider_option = retail.ground_truth(intent.without("exchange.item1.switch type"))
    assert wider_option.issuperset(truth) and len(wider_option.value) > 1
    other = retail.domain(intent, "exchange.item1.switch type")
    assert other and "clicky" not in other
    moved = retail.ground_truth(intent.with_condition(Condition(slot="exchange.item1.switch type", value=other[0])))
    assert moved.hash != truth.hash or moved.empty


def test_a_reading_that_leaves_every_new_item_open_is_refused_before_it_is_enumerated(retail):
    """Task 20 changes four items of an order: with every new item's options dropped (a merged reading of
    several withheld requirements) the variants' product runs to millions of argument sets; the
    enumeration stops at MAX_CHOICES with too_many_readings instead of filling the memory."""
    import resource
    import time

    from miscue.adapters.tau2.kinds import MAX_CHOICES

    intent = retail.validate(next(s for s in retail.load_seeds() if s.task_id == "20")).intent
    options = [c.slot for c in intent.conditions if c.slot.startswith("modify_items.item")]
    assert len(options) >= 6
    open_ = intent
    for slot in options:
        open_ = open_.without(slot)
    before, started = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, time.perf_counter()
    with pytest.raises(NotExecutable) as err:
        retail.ground_truth(open_)
    assert err.value.code == "too_many_readings" and str(MAX_CHOICES) in err.value.detail
    grew_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    print(f"refused in {time.perf_counter() - started:.3f} s, peak memory grew {grew_mb:.0f} MB")
    # one option left open still executes, and widens the answer
    assert len(retail.ground_truth(intent.without(options[0])).value) >= 1


def test_modify_items_pair_order_is_kept(retail):
    """Upstream quirk: modify_pending_order_items copies the last new item to every line."""
    seeds = {s.task_id: s for s in retail.load_seeds()}
    call = next(c for c in retail.golden_calls(seeds["20"]) if c.name == "modify_pending_order_items")
    args = call.arguments
    if len(args["item_ids"]) > 1:
        swapped = dict(args, item_ids=args["item_ids"][::-1], new_item_ids=args["new_item_ids"][::-1])
        a = retail.run((call,), use_cache=False)
        b = retail.run((ToolCall.make(call.name, swapped),), use_cache=False)
        assert a.ok and b.ok and a.state != b.state


def _accepted_basic_economy_change(airline):
    """A flight change on a basic-economy reservation that tau2's tool accepts."""
    from miscue.adapters.tau2.airline import alternatives

    db = airline.db.raw
    for rid, res in db["reservations"].items():
        if res["cabin"] != "basic_economy" or res.get("status") == "cancelled" or len(res["flights"]) != 1:
            continue
        seg = {k: res["flights"][0][k] for k in ("flight_number", "date")}
        if seg["date"] <= "2024-05-16":
            continue
        card = next((p for p in db["users"][res["user_id"]]["payment_methods"] if p.startswith("credit_card")), None)
        for alt in alternatives(airline.db, seg):
            if alt == seg or card is None:
                continue
            call = ToolCall.make("update_reservation_flights",
                                 {"reservation_id": rid, "cabin": "basic_economy", "flights": [alt], "payment_id": card})
            if airline.run((call,), use_cache=False).ok:
                return res, call
    raise AssertionError("no accepted basic-economy flight change found")


def test_airline_policy_gate_blocks_what_the_tools_allow(airline):
    from miscue.schema import Intent

    res, call = _accepted_basic_economy_change(airline)  # the tool accepts it ...
    args = call.arguments
    intent = Intent(benchmark="tau2-airline", adapter=airline.adapter_id, env_id=airline.env_id,
                    base={"customer": res["user_id"], "request": ["change_flights"]},
                    conditions=(Condition(slot="change_flights.reservation", value=args["reservation_id"]),
                                Condition(slot="change_flights.cabin", value="basic_economy"),
                                Condition(slot="change_flights.flights", value=args["flights"]),
                                Condition(slot="change_flights.payment", value=args["payment_id"])))
    with pytest.raises(NotExecutable) as exc:  # ... but the policy forbids it
        airline.compile(intent)
    assert exc.value.code == "policy"


def test_compile_rejects_unknown_slots(retail):
    intent = retail.validate(next(s for s in retail.load_seeds() if s.task_id == "0")).intent
    with pytest.raises(NotExecutable) as exc:
        retail.compile(intent.with_condition(Condition(slot="exchange.colour_of_sky", value="blue")))
    assert exc.value.code == "unknown_slot"


def test_fast_path_leaves_the_database_pristine(airline):
    intent = airline.validate(next(s for s in airline.load_seeds() if s.task_id == "8")).intent
    airline.run(airline.compile(intent)[0].calls, use_cache=False)
    assert airline.executor.full_hash() == NaiveExecutor("airline").run(()).state


def test_tau2_import_is_quiet_and_ignores_dotenv(tmp_path):
    (tmp_path / ".env").write_text("MISCUE_PLANTED_SECRET=leaked\n")
    code = (
        "import os; from miscue.adapters.tau2 import Tau2Adapter; a = Tau2Adapter('airline');"
        "a.run(tuple(a.golden_calls(next(s for s in a.load_seeds() if s.task_id == '9'))), use_cache=False);"
        "print(os.environ.get('MISCUE_PLANTED_SECRET'))"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": root})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "None"
    assert proc.stderr.strip() == "", proc.stderr[:500]


def test_an_order_named_by_what_it_holds_is_heard_but_never_offered_to_the_writer(retail):
    """Task 30 cancels Olivia Lopez's portable charger order: "the portable charger order" is a
    recognised form of that order -- the extractors' view lists it, the writer's view does not
    (a writer offered it for several orders would name two at once)."""
    from miscue.planning import Planner

    intent = retail.validate(next(s for s in retail.load_seeds() if s.task_id == "30")).intent
    order = retail.value_domains(intent)["cancel.order"].true_value
    assert "portable charger order" in order.recognised and "portable charger order" not in order.forms
    planner = Planner(retail)
    writer = next(r for r in planner.requirements(intent) if r.slot == "cancel.order")
    extractors = next(r for r in planner.requirements(intent, options=True) if r.slot == "cancel.order")
    assert "portable charger order" in extractors.says and "portable charger order" not in writer.says
    reading = retail.grounder(intent).ground("Olivia Lopez, 76171. Cancel the portable charger order, I no longer need it.")
    assert [m.values for m in reading.mentions if m.slots == ("cancel.order",)] == [(order.key,)]


def test_a_new_item_is_also_told_by_an_option_only_its_variant_takes(retail):
    """Retail task 21 switches Ethan Garcia's running shoes to the synthetic pair: the one
    available black pair is synthetic, so "switch the running shoes to black" says the material;
    yellow is the pair he has (it describes that one). In task 99 the one available 20MP camera
    with SD card storage zooms 3x. In task 93 "black" tells no RAM: given the laptop's other
    requirements it would tell every one of them (processor, RAM, screen size, storage)."""
    def intent_of(task):
        return retail.validate(next(s for s in retail.load_seeds() if s.task_id == task)).intent

    shoes = intent_of("21")
    material = retail.value_domains(shoes)["modify_items.item1.material"]
    assert material.true_value.recognised == ("black",)
    assert all(not v.recognised for v in material.values[1:])
    text = "Ethan Garcia, 80280. In my pending order #W9911714 switch the running shoes to black."
    reading = retail.grounder(shoes).ground(text)
    assert [m.values for m in reading.mentions if m.slots == ("modify_items.item1.material",)] == [(material.true_value.key,)]
    camera = retail.value_domains(intent_of("99"))
    assert camera["exchange.item1.zoom"].true_value.recognised == ("SD card",)
    assert not camera["exchange.item1.resolution"].true_value.recognised  # 30MP, 24MP and 20MP cameras zoom 3x with SD
    laptop = retail.value_domains(intent_of("93"))
    assert not any(laptop[f"exchange.item1.{o}"].true_value.recognised for o in ("processor", "ram", "screen size", "storage"))


def test_the_cheapest_item_is_also_told_by_an_option_only_that_variant_takes(retail):
    """Retail task 56 changes Ivan Hernandez's air purifier to the cheapest one: the large ionic
    purifier with smart sensors, the one available purifier with smart sensors -- so "the one
    with smart sensors" names it, and the text conveys the price order without saying "cheapest".
    "Ionic" and "large" do not: other available purifiers are ionic or large."""
    intent = retail.validate(next(s for s in retail.load_seeds() if s.task_id == "56")).intent
    price = retail.value_domains(intent)["modify_items.item1.price"]
    assert price.true_value.value == "lowest" and price.true_value.recognised == ("smart sensors",)
    assert all(not v.recognised for v in price.values[1:])
    text = "ivan_hernandez_6923 here. In my pending order #W4284542 please change the air purifier to the ionic one with " \
           "smart sensors, gift card for the difference."
    state = read(retail, intent, text)["modify_items.item1.price"]
    assert state.state == "true" and state.said() == "smart sensors"
    assert read(retail, intent, text.replace("ionic one with smart sensors", "ionic one"))["modify_items.item1.price"].state \
        == "open"


def test_every_added_bag_paid_is_the_bag_count_said():
    """Airline task 33 adds 2 checked bags, both paid: "add 2 checked bags, all paid" and "... that
    I'll pay for" say a paid count of 2 -- not any count (they were forms of 1, 2 and 3 alike, so
    the paid count read as ambiguous or, for the relative clause, as never said)."""
    airline = adapter_for("tau2-airline")
    intent = airline.validate(next(s for s in airline.load_seeds() if s.task_id == "33")).intent
    head = "yara_garcia_1905, on HXDUBJ move the outbound to HAT072 on May 19 and the return to HAT278 on May 23, economy, "
    for said in ("and add 2 checked bags, all paid", "and add 2 checked bags that I'll pay for", "and 2 checked bags, 2 paid"):
        state = read(airline, intent, f"{head}{said}, gift card ending 1833 for everything.")["change_bags.paid_bags"]
        assert state.state == "true" and state.values == ("2",), said
    paid = airline.value_domains(intent)["change_bags.paid_bags"]
    assert all("all paid" not in v.heard for v in paid.values[1:])


def test_a_value_that_alone_names_the_new_item_tells_all_its_requirements(retail):
    """Retail task 107 exchanges Yara Ito's jigsaw for the 1000-piece intermediate fantasy
    puzzle, the one available fantasy puzzle: "the fantasy one" tells both its piece count and
    its difficulty, and "the 1000-piece fantasy one" conveys the difficulty it never names. In
    task 93 "black" still tells nothing: four available laptops are black."""
    intent = retail.validate(next(s for s in retail.load_seeds() if s.task_id == "107")).intent
    domains = retail.value_domains(intent)
    for option in ("pieces", "difficulty level"):
        assert domains[f"exchange#2.item1.{option}"].true_value.recognised == ("fantasy",)
    text = ("yara ito, zip 75284. Exchange the hiking boots from #W1304208 for a new pair in size 10, and the jigsaw "
            "from #W8353027 for the 1000-piece fantasy one. PayPal for both.")
    state = read(retail, intent, text)["exchange#2.item1.difficulty level"]
    assert state.state == "true" and state.said() == "fantasy"
    laptop = retail.validate(next(s for s in retail.load_seeds() if s.task_id == "93")).intent
    assert not retail.value_domains(laptop)["exchange.item1.ram"].true_value.recognised


def _says(adapter, intent, slot, options=False):
    """The other ways of saying a requirement's value that the writer (or, ``options``, the extractors) is shown."""
    from miscue.planning import Planner

    return next(r for r in Planner(adapter).requirements(intent, options=options) if r.slot == slot).says


def test_works_with_home_fits_google_home_and_apple_home(retail):
    """Retail task 1 wants a thermostat compatible with Google Assistant: "the model that works
    with Home" fits Google Home and Apple Home (HomeKit), both sold -- a lexical ambiguity -- while
    "Google Home" names the truth. Readers hear these names; writers are not offered them."""
    intent = retail.validate(next(s for s in retail.load_seeds() if s.task_id == "1")).intent
    head = "Yusuf Rossi, 19122. From order #W2378156 exchange the smart thermostat for the model that "
    state = read(retail, intent, head + "works with Home.")["exchange.item1.compatibility"]
    assert state.state == "ambiguous" and set(state.values) == {'"Google Assistant"', '"Apple HomeKit"'}
    assert read(retail, intent, head + "works with Google Home.")["exchange.item1.compatibility"].state == "true"
    assert "google home" not in _says(retail, intent, "exchange.item1.compatibility")


def test_my_balance_fits_paypal_and_a_gift_card_and_is_never_offered(retail, airline):
    """Retail task 15 pays Fatima Johnson's exchange difference with PayPal; she also holds a gift
    card. "my balance" fits both (a lexical ambiguity), "my PayPal" names the truth. Readers hear
    the names payment methods share (what the reading form shows of them: the next test); a writer is
    never offered them, on a list of methods either
    (airline task 8 books with a travel certificate: heard as "travel credit", offered by its own names)."""
    from miscue.planning import Planner

    intent = retail.validate(next(s for s in retail.load_seeds() if s.task_id == "15")).intent
    head = "Fatima Johnson, 78712. Change the hiking boots in my pending order to a size 8 and put the difference on my "
    state = read(retail, intent, head + "balance.")["modify_items.payment"]
    assert state.state == "ambiguous" and set(state.values) == {'"paypal_5364164"', '"gift_card_1675628"'}
    assert read(retail, intent, head + "PayPal.")["modify_items.payment"].state == "true"
    assert "my balance" not in _says(retail, intent, "modify_items.payment")  # never offered to a writer

    booked = airline.validate(next(s for s in airline.load_seeds() if s.task_id == "8")).intent
    slot = "book.payment"
    assert booked.condition(slot).value == ["certificate_8045380"]
    cert = next(p for p in airline.value_domains(booked)[slot].parts if "certificate_" in p.key)
    assert "travel credit" in cert.recognised and "travel credit" not in cert.forms
    planner = Planner(airline)
    part = [o for r in planner.requirements(booked) if r.slot == slot for o in r.parts if "certificate" in o.say]
    heard = [o for r in planner.requirements(booked, options=True) if r.slot == slot for o in r.parts if "certificate" in o.say]
    assert part and heard and "travel credit" not in part[0].also and "travel credit" in heard[0].also


@pytest.mark.xfail(strict=True, reason="v10 lists no word that every value of a requirement has ('checked bags'); for a "
                   "requirement of two values that also hides the word of two senses ('my balance' for PayPal and a "
                   "gift card), which readers should see under both. The fix (exempt two-value requirements) changes "
                   "twelve held-back round 15 prompts already answered, so it waits for a form a new round measures "
                   "(tests/data/dryrun/README.md)")
def test_readers_are_shown_the_word_two_payment_methods_share(retail):
    """Retail task 15: "my balance" fits Fatima Johnson's PayPal and her gift card alike -- a word of
    two senses, which the reader's view lists under the true method."""
    intent = retail.validate(next(s for s in retail.load_seeds() if s.task_id == "15")).intent
    assert "my balance" in _says(retail, intent, "modify_items.payment", options=True)


def test_flights_are_also_heard_by_their_fare_among_every_itinerary(airline):
    """Airline task 35 books Aarav Ahmed the second cheapest economy itinerary from JFK to SFO on
    May 24 (HAT069 + HAT258; the cheapest is the nonstop HAT023), task 15 moves Aarav Garcia to
    the cheapest one on his new date. The fare's place is counted over every itinerary tau2's
    search offers (nonstop and one-stop), so "the second cheapest" names task 35's flights and
    "the cheapest" does not; a writer is never offered these words."""
    from miscue.adapters.tau2.airline import price_rank, search
    from miscue.planning import Planner

    def intent(task):
        return airline.validate(next(s for s in airline.load_seeds() if s.task_id == task)).intent

    found = search(airline.db, "JFK", "SFO", "2024-05-24")
    assert [{"flight_number": "HAT023", "date": "2024-05-24"}] in found
    assert [{"flight_number": "HAT069", "date": "2024-05-24"}, {"flight_number": "HAT258", "date": "2024-05-24"}] in found
    book = intent("35")
    assert price_rank(airline.db, book.condition("book.flights").value, "economy") == (1, False)
    head = "Aarav Ahmed, aarav_ahmed_6699. Book me one-way JFK to SFO on May 24 in economy, "
    tail = ". No bags, no insurance; Mastercard ending 7334."
    assert read(airline, book, head + "the second cheapest option" + tail)["book.flights"].state == "true"
    assert read(airline, book, head + "the cheapest option" + tail)["book.flights"].state != "true"
    writer = next(r for r in Planner(airline).requirements(book) if r.slot == "book.flights")
    assert not any("cheapest" in f for f in writer.says)
    change = intent("15")
    text = "aarav_garcia_1177, reservation M05KNL: move me to the cheapest economy flight on the 24th, refund to the card."
    assert read(airline, change, text)["change_flights.flights"].state == "true"
