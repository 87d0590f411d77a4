"""Ways customers really phrase things, verified on the real hosts by the forms path's rule grammar
(`miscue verify --forms`: the blind and targeted forms read through the grounder, which these
phrasings were taught; the reading path's offline readers are baselines measured on the verifier
set, not taught phrase by phrase).

Each request is from the tune part of the third hand-written round (tests/data/verifier_set.jsonl,
ids r3-/a3-/w3-), where the verifier rejected it before: an extra option said in shorthand ("size
large" is no budget, "an upholstered bed frame" tells nothing happened), a wish with a condition
or a precedent ("the 5-tier one if they make it", "like my old pair had"), a premise that values
"sell out", a pointer that names what it restates ("the same flights as my trip, HAT097 and
HAT251"), bags and certificates said without their usual words ("no luggage", "my $250
certificate"), an imperative after "but", "I'm after", a sign-off in another language, money said
as an idiom ("won't break the bank"), "without any water resistance"; the reservation an operation
acts on when no requirement names it ("downgrade all my business bookings, flights unchanged"), a
message signed with the customer's name and e-mail, a move told over two clauses, a card named for
the difference when no requirement asks for a payment, a hint whose clauses name the operation, a bag
volunteered on the second of two reservations, an option the cheapest item is held to, a
flavour among many a shop offers; and
two written for this file: a condition put on the item ("and it needs to be a casual dress"), and a
value that holds an operation's verb ("noise cancelling" asks to cancel nothing).
"""

from __future__ import annotations

import tempfile

import pytest

from miscue.flows.registry import adapter_for
from miscue.flows.stages.verify import verify_sync
from miscue.config import ModelOptions
from miscue.llm import Gateway

CASES = [
    # (benchmark, task, text, claimed type, claimed slot, the type the verifier must admit it as)
    ("webshop", "172", "Short sleeve tee in navy, size large, under $40.", "irrelevant_information", None,
     "irrelevant_information"),
    ("webshop", "197", "Looking for an upholstered queen bed frame, platform style, less than $390.", None, None,
     "irrelevant_information"),
    ("webshop", "0", "Storage bookshelf in oak under $200, the 5-tier one if they make it.", "irrelevant_information", None,
     "irrelevant_information"),
    ("webshop", "1", "Please grab me some squat-proof leggings in XL under $60, with side pockets like my old pair had.",
     "irrelevant_information", None, "irrelevant_information"),
    ("webshop", "37", "A white dress with an elastic waist please, under $80 - and it needs to be a casual dress.",
     "irrelevant_information", None, "irrelevant_information"),
    ("webshop", "193", "Hi, can you find me wireless earbuds with ear hooks and noise cancelling, in the color I mentioned "
     "before, less than 110 dollars?", "referential_ambiguity", "option:color", "referential_ambiguity"),
    ("webshop", "104", "Mediums allways sell out first, so I'll settle for a large - heavyweight cotton-blend hoodie, "
     "under 70 dollars.", "false_presupposition", "option:size", "false_presupposition"),
    ("tau2-airline", "25", "hi im ivan_muller_7015, i want to book my friend Ivan Smith (dob 1986-03-14) on the exact same "
     "flights as my trip, HAT097 and HAT251 on may 17, Detroit to Seattle, one way, economy. no travel insurance. pay with "
     "my gift card and put the rest on my mastercard 6710", "insufficient_information", "book.bags", "insufficient_information"),
    ("tau2-airline", "35", "aarav_ahmed_6699 - book me one-way JFK to SFO on May 24, HAT069 connecting to HAT258, economy "
     "class, passenger Aarav Ahmed DOB 1985-04-04, no luggage and no insurance, on my Mastercard.", None, None,
     "lexical_ambiguity"),
    ("tau2-airline", "20", "Hi - mia_li_3668. Book me one-way JFK to Seattle on May 20: HAT136 and then HAT039, economy, "
     "for Mia Li (1990-04-05). I've got a lot of luggage to check. No insurance. Use my $250 certificate and put the rest "
     "on the Visa ending 7447.", "vagueness_subjectivity", "book.bags", "vagueness_subjectivity"),
    ("tau2-airline", "11", "james_patel_9828. On GV1N64 keep HAT003 on 5/19 and HAT290 on 5/20 but put all of us in a "
     "cheaper cabin.", None, None, "vagueness_subjectivity"),
    ("tau2-airline", "39", "Bonjour, this is amelia_davis_8890. Please cancel my reservatons 8C8K4E and LU15PA, merci.",
     None, None, "insufficient_information"),
    ("webshop", "62", "I'm after gluten-free rooibos tea in tea bags, the 40-count box, under $50. Caffiene free too, since I "
     "drink it at night.", None, None, "irrelevant_information"),
    # any option value some answers take, not only the six most common ones (task 40: the flavour)
    ("webshop", "40", "gluten free herbal tea, the box of 40 bags, chamomile if possible, under $30 please",
     "irrelevant_information", None, "irrelevant_information"),
    ("webshop", "66", "Whole bean French roast coffee, something that won't break the bank.", "vagueness_subjectivity", "price",
     "vagueness_subjectivity"),
    ("tau2-retail", "60", "Hi, it's Chen Johnson, zip 77004. I'd like to exchange the wireless earbuds from order W5061109 for "
     "blue ones without any water resistance, and put any difference on my PayPal.", "tool_capability_mismatch", None,
     "tool_capability_mismatch"),
    # reservations no requirement names, still named and kept ("flights unchanged", "on that trip")
    ("tau2-airline", "18", "omar_davis_3817 here. Downgrade all my business reservations to economy, flights unchanged: JG7FMM "
     "refund to my Visa, X7BYG1 to the Visa ending 7803, 2FBBAH to gift card ending 1935, EQ1G6C to gift "
     "card ending 7880, BOH180 to the Visa ending 2172.", None, None,
     "lexical_ambiguity"),
    ("tau2-airline", "32", "Hi, ivan_rossi_8555. On OWZ4XL, first bump it from basic economy up to economy on the current "
     "flights, then move it to the HAT041 nonstop EWR-LAX on May 21 in economy - both charges on my Visa "
     "1777. I'll be travelling with 1 checked bag on that trip, fyi.", None, None,
     "irrelevant_information"),
    # a bag volunteered on the second of two reservations (each reservation has its own extra)
    ("tau2-airline", "42", "sophia_martin_4574: cancel FDZ0T5 and HSR97W please, I got double booked. fwiw I was going to "
     "bring one checked bag on HSR97W.", None, None, "irrelevant_information"),
    # an option no requirement names, held to by the cheapest item (the cheapest white lamp is another)
    ("tau2-retail", "44", "Aarav Anderson, zip 19031. On order #W9300146, please switch the desk lamp to the cheapest one "
     "you sell that's white, and refund the difference to my gift card.", None, None, "irrelevant_information"),
    # a message signed with the customer's name and e-mail; a move told over two clauses
    ("tau2-retail", "75", "For order #W6908222 I want to exhange the wireless earbuds for a pair with 4 hours of battery and no"
     " water resistance. Liam Moore, liam.moore6985@example.com", None, None,
     "insufficient_information"),
    ("tau2-retail", "85", "Hi, this is Yusuf Hernandez, yusuf.hernandez8836@example.com. I want to change the fleece jacket in "
     "my pending order to a red one, size large, with the half zipper. By the way, I've moved, I'm at 271 "
     "Sunset Drive, Suite 421, Dallas, TX 75243 now.", "irrelevant_information", None,
     "irrelevant_information"),
    # the customer's only card named for the difference, though no requirement asks for a payment
    ("tau2-retail", "64", "James Sanchez, Chicago 60623. pending order W7464385 - pls swap the action camera to a black one "
     "that's waterproof. Paypal for any difference, thx", None, None, "insufficient_information"),
    ("tau2-retail", "93", "Lei Wilson, 32255. I'd like to exchange the laptop from order #W4073673 for a black one with an i7 "
     "and a 1TB SSD. Put any extra charge on credit_card_3677959 (my mastercard).", "insufficient_information",
     "exchange.item1.ram", "insufficient_information"),
    # a hint whose long clauses name the operation ("better they are cancelled") is no off-topic chatter
    ("tau2-airline", "39", "Bonjour, amelia_davis_8890 here. My travel for this month is finished, malheureusement: the "
     "bookings 8C8K4E, LU15PA and MSJ4OA, I will not fly any of them, and my sister says it is better they are cancelled so "
     "the seats can go to other travellers.", None, None, "indirect_intent"),
    # from the fifth round's tune part: a count of the travellers, which names a requirement, no
    # added detail; an absence said by what it rules out
    # ("artificial flavoring that half the group complained about"); a shorthand list whose noun
    # has a relative clause ("... mouse that can hop between multiple devices, max $90")
    ("tau2-airline", "8", "Sophia Silva (sophia_silva_7557): one-way economy O'Hare to PHL on May 26, flight HAT271, the "
     "same one I took May 10. Two travelers: me and Kevin Smith, DOB April 12 2001. No checked bags. Pay with my travel "
     "certificate ending 5380.", None, None, "insufficient_information"),
    ("webshop", "29", "Our hiking club burns through snack packs fast, so the box of 24 one-ounce bags is what lasts us a "
     "season. Last year's batch had artificial flavoring that half the group complained about, while the roasted-nut mix "
     "with dark chocolate vanished first. The treasurer says we have $50 for it.", None, None, "indirect_intent"),
    ("webshop", "26", "Black wireless mouse that can hop between multiple devices, max $90. Needs silent clicks too, my "
     "roommate goes to bed early.", "irrelevant_information", None, "irrelevant_information"),
    # a word for a kind of colour, where the shop has two of the kind: a pattern (floral print or
    # leopard), a neutral (warm neutrals or nude matte)
    ("webshop", "213", "need a v neck dress, 2XL, one with a pattern on it. budget is 60 dollars", None, None,
     "lexical_ambiguity"),
    ("webshop", "54", "Could you find an eyeshadow palette in neutral tones? Talc-free, with a mirror built in, and no "
     "more than $30.", "lexical_ambiguity", "option:color", "lexical_ambiguity"),
    # "1XL" is plus size 1X in some brands and XL in others (task 136 sells both)
    ("webshop", "136", "need full-length leggings that are squat proof, 1XL please, max 40 bucks", None, None,
     "lexical_ambiguity"),
    # an item added in shorthand, described in -ed ("chamomile flavored" tells no story) or closed
    # with a please (which asks for nothing itself)
    ("webshop", "40", "herbal tea, gluten free, the box of 40, under 30 dollars. chamomile flavored", None, None,
     "irrelevant_information"),
    ("webshop", "37", "Looking for a white dress with an elastic waist, under $80, size small please", None, None,
     "irrelevant_information"),
    # "red tea" is rooibos (red bush) or hibiscus, and task 9 sells both
    ("webshop", "9", "Herbal tea for digestion and sleep - the red tea one, 20 count, pack of 6. Under $20.", None, None,
     "lexical_ambiguity"),
    # what the shopper's hair is like, said of it ("my hair feels so dry"), for a "dry hair" shampoo
    ("webshop", "17", "Ever since I started bleaching it, my hair feels so dry. My stylist says my shampoo has to be color "
     "safe with natural ingredients and no fragrance at all. The 16.9 oz size lasts me ages, and $30 is my ceiling for "
     "shampoo.", None, None, "indirect_intent"),
    # a premise that says no such variant exists ("there's no 10x model"); the old item's colour
    # said after "exchanging the" is what the customer has, not the fallback
    ("tau2-retail", "52", "Sofia Li, 78260. There's no 10x model of my digital camera I bet, so please exchange it for the "
     "5x one, everything else the same. PayPal for any difference.", None, None, "false_presupposition"),
    ("tau2-retail", "80", "Amelia Gonzalez, amelia.gonzalez4271@example.com. Order #W7209932: I'm exchanging the blue "
     "polyester v-neck tee in small. Red sold out ages ago, so make the new one black, XXL, cotton, crew neck; gift card "
     "for the difference.", "false_presupposition", "exchange.item1.color", "false_presupposition"),
    # a traveller's date of birth identifies them, whatever its format: no added detail
    ("tau2-airline", "8", "Sophia Silva, sophia_silva_7557. I'd like to book HAT271 from Chicago O'Hare to Philadelphia on "
     "May 26, one way, economy, for me and Kevin Smith, born 04/12/2001. No checked bags, and pay with just my $500 travel "
     "certificate (ending 5380).", None, None, "insufficient_information"),
    # an option the cheapest item is held to by a condition ("so long as it ...")
    ("tau2-retail", "44", "Aarav Anderson, 19031 here. In pending order W9300146 change the desk lamp to the cheapest desk "
     "lamp you have in stock, so long as it runs on battery; put the difference on my gift card.", None, None,
     "irrelevant_information"),
]


def forms(*args):
    return verify_sync(*args, reading=False)


@pytest.fixture(scope="module")
def gateway():
    with tempfile.TemporaryDirectory() as tmp:
        yield Gateway(ModelOptions().resolve(), f"{tmp}/store")


@pytest.fixture(scope="module")
def adapters():
    return {}


@pytest.mark.parametrize("benchmark,task,text,claimed,slot,fault", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_the_request_is_admitted_as_its_fault(gateway, adapters, benchmark, task, text, claimed, slot, fault):
    adapter = adapters.get(benchmark) or adapters.setdefault(benchmark, adapter_for(benchmark))
    result = forms(adapter, gateway, task, text, claimed, slot)
    assert result.admitted, result.verdict
    assert result.fault_type == fault


def test_a_clean_request_said_the_same_ways_is_not_admitted(gateway, adapters):
    """The same phrasings with nothing left out or added: no fault found."""
    adapter = adapters.get("tau2-airline") or adapters.setdefault("tau2-airline", adapter_for("tau2-airline"))
    text = ("Bonjour, this is amelia_davis_8890. Please cancel my reservations 8C8K4E, LU15PA and MSJ4OA because my "
            "plans changed, merci.")
    result = forms(adapter, gateway, "39", text)
    assert result.verdict is not None and result.verdict.code == "extract:no_fault_found"


def test_a_question_in_text_speak_is_a_request(gateway, adapters):
    """"can u find me ..." asks, as "can you" does: a clean request, not a hint."""
    adapter = adapters.get("webshop") or adapters.setdefault("webshop", adapter_for("webshop"))
    result = forms(adapter, gateway, "40", "can u find me gluten free herbal tea, the 40 count box, under 30 dollars")
    assert result.verdict is not None and result.verdict.code == "extract:no_fault_found", result.verdict


def test_lets_asks(gateway, adapters):
    """"let's exchange it for ..." is a request: the clean exchange is no hint (but "let's see" asks nothing)."""
    adapter = adapters.get("tau2-retail") or adapters.setdefault("tau2-retail", adapter_for("tau2-retail"))
    text = "sofia li, zip 78260. let's exchange my digital camera for the 10x zoom version, everything else the same; paypal " \
           "for any difference."
    result = forms(adapter, gateway, "52", text)
    assert result.verdict is not None and result.verdict.code == "extract:no_fault_found", result.verdict


def test_a_jeans_size_is_read_with_its_own_numbers(gateway, adapters):
    """"34W x 32L" is that size to both extractors, not also 32W x 32L (the parse extractor's fuzzy
    windows must say every number of a form, each as often, and no other)."""
    adapter = adapters.get("webshop") or adapters.setdefault("webshop", adapter_for("webshop"))
    result = forms(adapter, gateway, "51", "Slim fit jeans, 34W x 32L, under $60.")
    assert result.found["a"]["class"] == result.found["b"]["class"] == "none", result.found


def test_the_return_leg_of_a_trip_is_no_return_operation(gateway, adapters):
    """"leave the May 27 return as it is" names a flight: the clean change has no wrong operation."""
    adapter = adapters.get("tau2-airline") or adapters.setdefault("tau2-airline", adapter_for("tau2-airline"))
    text = ("james_taylor_7043 here. On reservation 1N99U6 please move the May 19 outbound to the HAT266 nonstop from Las "
            "Vegas to Houston, economy, and leave the May 27 return (HAT112) as it is.")
    result = forms(adapter, gateway, "30", text)
    assert result.verdict is not None and result.verdict.code == "extract:no_fault_found", result.verdict


def test_a_colour_named_within_its_kind_is_no_ambiguity(gateway, adapters):
    """"floral print" names one of the patterned colours: the dress is fully stated."""
    adapter = adapters.get("webshop") or adapters.setdefault("webshop", adapter_for("webshop"))
    result = forms(adapter, gateway, "213", "need a v neck dress, 2XL, in the floral print. budget is 60 dollars")
    assert result.verdict is not None and result.verdict.code == "extract:no_fault_found"


def test_where_the_customer_lives_is_an_added_detail_even_when_an_order_ships_there(gateway, adapters):
    """Retail task 111 ships an order to the customer's new home; saying in an aside that they live
    there now is the added detail (a profile address update), though every word of the address is
    also the value of a requirement."""
    adapter = adapters.get("tau2-retail") or adapters.setdefault("tau2-retail", adapter_for("tau2-retail"))
    text = ("Hey, Yara Silva here - zip 77159. I'd like to change the wristwatch in my pending order so it's one with black "
            "dial and leather strap. I also need to send order #W3730488 to 555 Highland Drive Suite 872, New York, NY 10116. "
            "And please change the laptop in my other pending order so it's a space gray one with i5 processor and 256 "
            "gigabytes SSD storage. Oh, and I now live at 555 Highland Drive, Suite 872, New York, NY 10116, USA.")
    result = forms(adapter, gateway, "111", text, "irrelevant_information")
    assert result.admitted, result.verdict
