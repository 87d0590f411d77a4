"""How tau2 customers say each value: the surface forms behind tau2's value domains (DESIGN 6a).

Forms come from host data and a small vocabulary of how people talk about it: option values
with their units spelled out ("8GB" = "8 gigabytes"), none/yes/no options as negations ("no
backlight", "not waterproof"), letter sizes as words, cards by brand and last digits, orders and
reservations with or without their prefix, dates in common formats, the host's own ids (tau2's
simulated users and LLM writers quote them); orders also by what they hold ("the laptop order").
Which slot takes which values, and which forms a writer is offered, is :mod:`miscue.adapters.tau2.domains`.
"""

from __future__ import annotations

import calendar
import re
from typing import Any


SIZE_WORDS = {"XS": ("extra small", "x-small", "xs"), "S": ("small",), "M": ("medium",), "L": ("large",),
              "XL": ("extra large", "x-large", "xl"), "XXL": ("xxl", "2xl")}
UNITS = {"gb": ("gb", "gigabytes", "gigabyte", "gig", "gigs"), "tb": ("tb", "terabyte", "terabytes"),
         "mp": ("mp", "megapixels", "megapixel"), "l": ("l", "liters", "litres", "liter", "litre"),
         "ft": ("ft", "feet", "foot"), "inch": ("inch", "inches", "in"), "lbs": ("lbs", "pounds", "pound", "lb"),
         "w": ("w", "watt", "watts"), "cups": ("cups", "cup"), "cup": ("cup", "cups"), "hours": ("hours", "hour", "hr"),
         "degrees": ("degrees", "degree"), "bar": ("bar",), "x": ("x", "times")}
ADJECTIVES = {"water resistance": "water resistant", "waterproof": "waterproof", "backlight": "backlit"}
NEGATIONS = {"backlight": ("no backlight", "without backlight", "without a backlight", "no backlighting", "not backlit",
                           "non backlit", "unlit", "no lighting", "no lights", "without lighting", "no led",
                           "dont light up", "doesnt light up", "do not light up", "not lit", "no light up", "no glow"),
             "features": ("no extra features", "no features", "no extras", "basic", "plain")}
#: (option, value) -> more ways to say it, where the words are the product's own (a form two values
#: share is deliberate: "water resistant" fits IPX4 and IPX7, so a text that says only that is ambiguous)
VALUE_SYNONYMS = {
    ("water resistance", "not resistant"): ("not water resistant", "no water resistance", "without water resistance",
                                             "not waterproof", "non water resistant"),
    ("water resistance", "IPX4"): ("splash resistant", "splash proof", "sweat resistant", "water resistant", "not waterproof"),
    ("water resistance", "IPX7"): ("waterproof", "fully waterproof", "water resistant"),
    ("lens type", "non-polarized"): ("not polarized", "unpolarized", "non polarised", "not polarised"),
    ("lens type", "polarized"): ("polarised",),
    ("armrest", "none"): ("no armrests", "without armrests", "armless"),
    ("armrest", "adjustable"): ("adjustable armrests",), ("armrest", "fixed"): ("fixed armrests",),
    ("cover type", "hard cover"): ("hardcover", "hardback"), ("cover type", "soft cover"): ("softcover", "paperback"),
    ("size", "full size"): ("full-size", "full sized", "100%"), ("size", "60%"): ("60 percent",),
    ("size", "80%"): ("80 percent", "tenkeyless"),
    ("power source", "AC adapter"): ("ac powered", "plug in", "plugs in", "plugged in", "corded"),
    ("power source", "USB"): ("usb powered", "plug in", "plugs in", "plugged in", "corded"),
    ("switch type", "linear"): ("quiet",), ("switch type", "tactile"): ("quiet",), ("switch type", "clicky"): ("loud",),
    ("connectivity", "wireless"): ("bluetooth",), ("features", "none"): ("no extra features", "basic"),
    ("design", "custom"): ("printed", "printed design", "personalised", "personalized"),
    ("design", "graphic"): ("printed", "printed design"),
    ("skin tone", "dark"): ("deep", "deep tan", "deep-tan", "tan"), ("skin tone", "medium"): ("tan", "deep tan", "olive"),
    ("battery type", "AA batteries"): ("aa", "battery powered", "aa battery"),
    # the price order of a new item (miscue.adapters.tau2.variants): "the cheapest one"
    ("price", "lowest"): ("the cheapest", "cheapest", "least expensive", "lowest price", "lowest priced", "most affordable",
                          "cheapest one", "cheapest version", "cheapest option"),
    ("price", "highest"): ("the most expensive", "most expensive", "priciest", "highest price", "highest priced",
                           "top of the line"),
}
#: (option, value) -> words readers hear for it but writers are not offered: names customers use
#: that several values share ("works with Home": Google Home or Apple Home) -- a text saying only
#: that is ambiguous, and a writer should not be led to it
HEARD_SYNONYMS = {
    ("compatibility", "Google Assistant"): ("google home", "works with home", "work with home", "compatible with home",
                                            "home compatible"),
    ("compatibility", "Apple HomeKit"): ("homekit", "apple home", "works with home", "work with home",
                                         "compatible with home", "home compatible"),
    ("compatibility", "Amazon Alexa"): ("alexa", "amazon echo", "echo"),
    ("size", "80%"): ("compact",), ("size", "60%"): ("compact",),  # a keyboard smaller than full size
    ("power source", "battery"): ("batteries", "battery operated"),  # "runs on batteries"; no writer's "batteries power"
}
#: a bound on an ordered option ("i7 or above"): the ways a customer says it, around the value's own forms
BOUND_FORMS = {">=": ("{} or above", "{} or higher", "{} or better", "{} or more", "at least {}", "{} and up", "minimum {}"),
               "<=": ("{} or below", "{} or lower", "{} or less", "at most {}", "up to {}", "no more than {}", "maximum {}")}

SYNONYMS = {"grey": ("gray",), "space grey": ("space gray",), "ac adapter": ("wall plug", "mains"),
            "battery": ("battery powered", "cordless"), "1080p": ("full hd",),
            "wi-fi": ("wifi", "wi fi"), "wi-fi + cellular": ("wifi and cellular", "wi-fi and cellular", "cellular", "lte"),
            "rechargeable": ("rechargeable battery",), "aa batteries": ("aa battery", "aa"),
            "in-ear": ("in ear", "earbuds"), "over-ear": ("over ear",), "on-ear": ("on ear",)}
REASONS = {"no longer needed": ("no longer needed", "no longer need", "dont need", "don't need", "do not need",
                                "not needed", "no longer necessary", "no need", "changed my mind", "dont want",
                                "don't want", "no longer want", "not needed anymore", "no use for"),
           "ordered by mistake": ("ordered by mistake", "by mistake", "by accident", "accidentally", "mistakenly",
                                  "in error", "didnt mean to", "didn't mean to", "did not mean to", "ordered it wrong",
                                  "wrong order", "mistake", "accidental")}
CABINS = {"basic_economy": ("basic economy", "basic", "economy basic", "coach"),  # "coach": either economy fare
          "economy": ("economy", "economy class", "main cabin", "coach", "standard economy", "regular economy"),
          "business": ("business", "business class")}
OPERATIONS = {
    "cancel": ("cancel", "cancellation", "call off"), "exchange": ("exchange", "swap", "switch", "trade"),
    "return": ("return", "send back", "refund", "send it back"), "modify_items": ("change", "modify", "switch", "swap", "update"),
    "modify_address": ("change the address", "update the address", "ship to", "shipping address"),
    "modify_payment": ("change the payment", "pay with", "switch the payment"),
    "user_address": ("update my address", "moved", "my address", "default address"),
    "book": ("book", "reserve", "booking"), "change_flights": ("change", "move", "rebook", "switch"),
    "change_bags": ("bags", "baggage", "luggage"), "change_passengers": ("passenger", "name", "update"),
    "certificate": ("certificate", "voucher", "compensation"),
}


def option_forms(option: str, value: Any) -> tuple[str, ...]:
    """The ways customers say one option value of a product."""
    v = str(value)
    low, name = v.lower(), option.lower()
    forms = [v]
    if low == "none":
        forms = [f"no {name}", f"without {name}", f"without a {name}", *NEGATIONS.get(name, ()), "none"]
    elif low == "yes":
        adj = ADJECTIVES.get(name, name)
        forms = [adj, f"with {name}", f"{name} yes", f"is {adj}"]
    elif low == "no":
        adj = ADJECTIVES.get(name, name)
        forms = [f"not {adj}", f"non {adj}", f"no {name}", f"without {name}", f"isnt {adj}", f"{name} no"]
    elif low.startswith(("not ", "non-", "non ")):
        rest = low.split(" ", 1)[1] if " " in low else low[4:]
        forms += [f"no {name}", f"without {name}", f"not {rest}", f"non {rest}", f"non-{rest}", f"un{rest}"]
    elif v in SIZE_WORDS:
        words = SIZE_WORDS[v]
        forms = [v, *words, *(f"size {w}" for w in (v, *words)), *(f"a {w}" for w in words)]
    elif re.fullmatch(r"\d+(?:\.\d+)?", v):
        forms = [f"{name} {v}", v, f"an {v}" if v.startswith("8") else f"a {v}", f"{v} {name}"]
    elif name == "size" and re.fullmatch(r"[a-z]+(?: [a-z]+)?", low):  # "medium", "full size": also "size medium"
        forms += [f"size {v}", f"{v} size"] if "size" not in low else []
    else:
        m = re.fullmatch(r"(\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)?)\s*-?\s*([a-z]+)(.*)", low)
        if m and m.group(2) in UNITS:
            num, unit, rest = m.groups()
            nums = [num, num.replace("-", " to ")] if "-" in num else [num]
            forms += [f"{n} {u}{rest}" for n in nums for u in UNITS[unit]]
            if rest.strip():
                forms += [f"{n} {u}" for n in nums for u in UNITS[unit][:1]]
    forms += SYNONYMS.get(low, ())
    forms += VALUE_SYNONYMS.get((name, v), ())
    return tuple(dict.fromkeys(forms))


def date_forms(iso: str) -> tuple[str, ...]:
    y, m, d = (int(x) for x in iso.split("-"))
    month, mon = calendar.month_name[m], calendar.month_abbr[m]
    suffix = "th" if 11 <= d <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(d % 10, "th")
    return (f"{month} {d}", f"{month} {d}{suffix}", f"{mon} {d}", f"{d} {month}", f"{d}{suffix} of {month}",
            f"the {d}{suffix}", f"{m}/{d}", f"{m}/{d}/{y}", iso, f"{month} {d}, {y}")


def payment_forms(pid: str, user: dict[str, Any]) -> tuple[str, ...]:
    pm = user.get("payment_methods", {}).get(pid, {})
    source = pm.get("source", pid.rsplit("_", 1)[0])
    ident = pid.replace("_", " ")
    if source == "credit_card":
        brand, l4 = str(pm.get("brand", "card")).lower(), str(pm.get("last_four", ""))
        brand_names = {"american express": ("amex",), "mastercard": ("master card",)}.get(brand, ())
        forms = [f"my {brand} card ending in {l4}", f"{brand} ending in {l4}", f"{brand} ending {l4}", f"{brand} {l4}",
                 f"card ending in {l4}", f"card ending {l4}", f"ending in {l4}", f"{brand} card", f"my {brand}", brand,
                 f"credit card ending in {l4}", "credit card", "my card", l4, pid, ident]
        forms += [f"{b} ending in {l4}" for b in brand_names] + list(brand_names)
        return tuple(forms)
    digits = pid.rsplit("_", 1)[-1][-4:]
    if source == "paypal":
        return ("my paypal account", "paypal", "pay pal", "my paypal", pid, ident)
    if source == "gift_card":
        return (f"my gift card ending in {digits}", f"gift card ending in {digits}", f"gift card ending {digits}",
                f"gift card {digits}", "gift card", "giftcard", "my gift card", "gift card balance", "my card", digits, pid,
                ident)
    amount = pm.get("amount")
    worth = f"{amount:g}" if isinstance(amount, (int, float)) else None  # its face value: "my $250 certificate"
    by_value = (f"${worth} certificate", f"{worth} dollar certificate", f"${worth} travel certificate", f"${worth} voucher") \
        if worth else ()
    return (f"my travel certificate ending in {digits}", f"certificate ending in {digits}", f"certificate ending {digits}",
            f"certificate {digits}", f"travel certificate {digits}", "travel certificate", "certificate", "voucher", digits,
            pid, ident, *by_value)


#: what customers call a kind of payment method by what it holds for them, not by its name: the
#: names several kinds share ("my balance": PayPal or a gift card; "voucher": a gift card or a
#: travel certificate) -- heard by readers, never offered to writers as the way to say one method.
#: Not "my account" ("the email on my account" is how customers identify themselves) nor "my
#: credit" (the start of "my credit card")
PAYMENT_HEARD = {"paypal": ("my balance", "paypal balance"), "gift_card": ("my balance", "store credit", "voucher"),
                 "certificate": ("travel credit", "flight credit")}


def payment_heard(pid: str, user: dict[str, Any]) -> tuple[str, ...]:
    """The shared names a customer may use for a payment method (:data:`PAYMENT_HEARD`)."""
    pm = user.get("payment_methods", {}).get(pid, {})
    return PAYMENT_HEARD.get(pm.get("source", pid.rsplit("_", 1)[0]), ())


CHEAPEST = ("cheapest", "cheapest one", "cheapest option", "cheapest flight", "cheapest flights", "cheapest fare",
            "lowest fare", "least expensive", "cheapest itinerary")


def fare_forms(rank: tuple[int, bool] | None) -> tuple[str, ...]:
    """How a customer names flights by their fare (``rank``: :func:`miscue.adapters.tau2.airline.price_rank`):
    "the cheapest one", "the second cheapest", "the cheapest nonstop" -- heard, never offered."""
    if rank is None:
        return ()
    place, nonstop = rank
    forms: tuple[str, ...] = ()
    if place == 0:
        forms = CHEAPEST
    elif place == 1:
        forms = tuple(f"{w} {c}" for w in ("second", "next") for c in CHEAPEST if not c.startswith("lowest")) \
            + ("second lowest fare",)
    if nonstop:
        forms += ("cheapest nonstop", "cheapest non-stop", "cheapest direct", "cheapest direct flight")
    return forms


def address_forms(a: dict[str, Any]) -> tuple[str, ...]:
    street = a["address1"]
    forms = [f"{street}, {a['address2']}" if a.get("address2") else street, street, f"{street} {a['city']}",
             f"{street}, {a['city']}"]
    return tuple(dict.fromkeys(forms))


#: what customers call a product besides its catalogue name (its head word is added by rule)
PRODUCT_ALIASES = {
    "jigsaw puzzle": ("jigsaw",), "luggage set": ("luggage", "suitcases", "suitcase set"), "makeup kit": ("makeup",),
    "vacuum cleaner": ("vacuum", "hoover"), "dumbbell set": ("dumbbells", "weights"), "t-shirt": ("tee", "shirt", "tshirt"),
    "e-reader": ("ereader", "e reader", "reader"), "bicycle": ("bike",), "espresso machine": ("espresso maker",),
    "smartphone": ("phone",), "smart watch": ("smartwatch",), "wristwatch": ("watch",), "led light bulb": ("bulb", "light bulb"),
    "indoor security camera": ("security camera", "security cam"), "action camera": ("action cam",),
    "bluetooth speaker": ("speaker",), "wireless earbuds": ("earbuds", "earphones"), "sneakers": ("trainers",),
    "running shoes": ("shoes", "runners"), "hiking boots": ("boots",), "pet bed": ("dog bed", "cat bed"),
    "smart thermostat": ("thermostat",), "gaming mouse": ("mouse",), "tea kettle": ("kettle",), "electric kettle": ("kettle",),
    "patio umbrella": ("umbrella",), "coffee maker": ("coffee machine",), "fleece jacket": ("fleece", "jacket"),
}


def _plural(name: str) -> str:
    return name if name.endswith("s") else name + ("es" if name.endswith(("sh", "ch", "x")) else "s")


def product_forms(desc: dict[str, Any], others: list[str]) -> tuple[str, ...]:
    """An order line as customers name it: its product, its plural, its head word and its common
    names (each alone when no other line of the order shares it), with the options that tell
    same-product lines apart."""
    product = desc["product"].lower()
    if not product:
        return ()
    short = (product.split()[-1], *PRODUCT_ALIASES.get(product, ()))
    taken = {w for o in set(others) if o.lower() != product
             for w in (o.lower(), o.lower().split()[-1], *PRODUCT_ALIASES.get(o.lower(), ()))}
    names = [product] + [w for w in short if w not in taken and w != product]
    names += [_plural(n) for n in names]
    opts = desc.get("options") or {}
    if not opts:
        return tuple(names)
    quals = [" ".join(option_forms(k, v)[0] for k, v in sorted(opts.items()))]
    quals += [f for k, v in sorted(opts.items()) for f in option_forms(k, v)[:4] if len(opts) > 1 or f != quals[0]]
    # a line told apart from its siblings by an option is also named by that option alone ("the 28-inch", "the AA one")
    return (tuple(f"{q} {n}" for q in quals for n in names) + tuple(f"{n} {q}" for q in quals for n in names)
            + tuple(quals) + tuple(names))


OPERATION_FORMS = {
    "cancel": ("cancel", "cancellation", "call off", "cancelled", "canceled"),
    "exchange": ("exchange", "swap", "trade", "replace", "exchanged"),
    "return": ("return", "send back", "send it back", "returned", "refund for"),
    "modify_items": ("modify", "change the items", "update the items", "edit the order", "change my pending order",
                     "change the item"),
}


def option_names(option: str) -> tuple[str, ...]:
    words_ = option.lower().split()
    out = [option.lower(), words_[-1], words_[-1] + "s", *words_[:-1]]  # "screen size": also "screen"
    if option.lower() == "color":
        out.append("colour")
    return tuple(dict.fromkeys(out))


def order_forms(oid: str) -> tuple[str, ...]:
    bare = oid.lstrip("#")
    return (f"order {oid}", oid, bare, f"order {bare}", f"order number {bare}", bare.lstrip("W"))


def order_content_forms(order: dict[str, Any]) -> tuple[str, ...]:
    """An order named by what it holds ("the portable charger order", "the order with the
    tablet"): recognised, never offered to a writer (two orders holding the same product share
    the form, which then names both)."""
    names = {n for item in order.get("items", []) for p in [item.get("name", "").lower()] if p
             for n in (p, *PRODUCT_ALIASES.get(p, ()))}
    out = []
    for n in sorted(names):
        for noun in (n, _plural(n)):
            out += [f"{noun} order", f"order with the {noun}", f"order with {noun}", f"order containing the {noun}",
                    f"order of the {noun}", f"{noun} i ordered", f"{noun} i just ordered", f"{noun} i bought"]
    if (count := len(order.get("items", []))) > 1:  # "the order with the five items"
        out += [f"order with the {count} items", f"order with {count} items", f"{count} item order", f"order of {count} items"]
    status = str(order.get("status", "")).split(" ")[0]  # "pending (item modified)": pending
    if status:  # "the pending order with the five items", told from a delivered one holding as many
        out += [f"{status} {f}" for f in out if f.startswith("order") or f.endswith("order")]
    return tuple(dict.fromkeys(out))


def reservation_forms(rid: str) -> tuple[str, ...]:
    return (f"reservation {rid}", rid, f"booking {rid}", f"confirmation {rid}", f"reservation id {rid}")


def count_forms(n: int, nouns: tuple[str, ...], uncounted: bool = False) -> tuple[str, ...]:
    """A count said with its noun; ``uncounted``: the bare plural ("with checked bags") is a form
    every count above zero shares (some, how many not said)."""
    forms = [f"{n} {noun}" for noun in nouns]
    if n == 0:  # the likeliest first (an extraction form shows the first few)
        forms = [f"{w} {noun}" for noun in nouns for w in ("no", "0", "without")]
        if "bags" in nouns:  # "no luggage", "nothing to check"
            forms += [*ZERO_BAGS]
    elif uncounted:
        forms += [noun for noun in nouns if noun.endswith("s")]
    if nouns and nouns[0] == "paid bags" and n > 0:  # "add 2 checked bags, both paid"
        forms += [f"{n} paid"] + (["both paid", "both of them paid"] if n == 2 else [])
    if n == 1:
        forms += [f"a {nouns[0].rstrip('s')}", f"one {nouns[0].rstrip('s')}"]
    return tuple(forms)


def all_paid_forms(n: int) -> tuple[str, ...]:
    """Every added bag paid for, said without a count ("add 2 checked bags, both paid", "... that
    I'll pay for"): forms of the paid count equal to the bag count said, not of every count."""
    forms = ["all paid", "all of them paid", "that i'll pay for", "which i'll pay for", "i'll pay for them",
             "i'll pay for all of them", "i will pay for them", "paying for them"]
    return tuple(forms + (["i'll pay for both"] if n == 2 else []))


#: no checked bag, said without a count or a bag noun
ZERO_BAGS = ("no luggage", "no checked luggage", "no baggage", "no checked baggage", "nothing to check", "nothing checked")
BAG_NOUNS = ("checked bags", "bags", "checked bag", "bag", "suitcases", "pieces of luggage", "pieces of checked luggage",
             "checked suitcases")


CITY_ALIASES = {"Las Vegas": ("vegas",), "New York": ("nyc", "new york city"), "San Francisco": ("sf",),
                "Los Angeles": ("la",), "Washington": ("dc", "washington dc")}


def _airports() -> dict[str, str]:
    """IATA code -> city, from the airline host's own tool (host data, not a list of ours)."""
    from tau2.domains.airline.tools import AirlineTools

    return {a.iata: a.city for a in AirlineTools.list_all_airports(None)}


def airport_forms(code: str) -> tuple[str, ...]:
    city = _airports().get(code)
    if city is None:
        return (code,)
    return (code, city, f"{city} {code}", f"{city} ({code})", *CITY_ALIASES.get(city, ()))


def scalar_forms(field: str, value: Any, user: dict[str, Any]) -> tuple[str, ...]:
    if field == "order":
        return order_forms(value)
    if field == "reservation":
        return reservation_forms(value)
    if field == "reason":
        return REASONS.get(value, (str(value),))
    if field == "payment":
        return payment_forms(value, user)
    if field == "address":
        return address_forms(value)
    if field == "cabin":
        return CABINS.get(value, (str(value),))
    if field in ("bags", "paid_bags"):
        return count_forms(int(value), BAG_NOUNS if field == "bags" else ("paid bags", "extra bags", "bags to pay for"), True)
    if field == "insurance":
        return (("with travel insurance", "with insurance", "travel insurance", "insurance", "insured", "add insurance")
                if value == "yes" else ("without travel insurance", "without insurance", "no insurance", "no travel insurance",
                                        "skip the insurance", "dont need insurance", "don't want insurance"))
    if field == "trip":
        if value == "one_way":
            return ("one way", "one-way", "single")
        return ("round trip", "round-trip", "roundtrip", "return trip")
    if field in ("origin", "destination"):
        return airport_forms(value)
    if field == "amount":
        return (f"${value}", f"{value} dollars", f"{value} dollar", f"{value} bucks", f"{value} usd", f"${value} certificate")
    return (str(value).replace("_", " "),)
