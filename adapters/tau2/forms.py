"""How tau2 customers say each value: the surface forms behind tau2's value domains (DESIGN 6a).

Forms come from host data and a small vocabulary of how people talk about it: option values
with their units spelled out ("8GB" = "8 gigabytes"), none/yes/no options as negations ("no
backlight", "not waterproof"), letter sizes as words, cards by brand and last digits, orders and
reservations with or without their prefix, dates in common formats, the host's own ids (tau2's
simulated users and LLM writers quote them). The domain of each requirement is its true value plus
the legal alternatives the write kinds enumerate; list values (items, flights, passengers) are
said part by part.
"""

from __future__ import annotations

import calendar
import re
from typing import Any

from miscue.canonical import canonical_json
from miscue.language import Detail, Domains, LegalValue, Member, SlotDomain
from miscue.schema import Intent

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
    # the price order of a new item (adapters.tau2.variants): "the cheapest one"
    ("price", "lowest"): ("the cheapest", "cheapest", "least expensive", "lowest price", "lowest priced", "most affordable",
                          "cheapest one", "cheapest version", "cheapest option"),
    ("price", "highest"): ("the most expensive", "most expensive", "priciest", "highest price", "highest priced",
                           "top of the line"),
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
CABINS = {"basic_economy": ("basic economy", "basic", "economy basic"),
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


def _names(option: str) -> tuple[str, ...]:
    words_ = option.lower().split()
    out = [option.lower(), words_[-1], words_[-1] + "s", *words_[:-1]]  # "screen size": also "screen"
    if option.lower() == "color":
        out.append("colour")
    return tuple(dict.fromkeys(out))


def _order_forms(oid: str) -> tuple[str, ...]:
    bare = oid.lstrip("#")
    return (f"order {oid}", oid, bare, f"order {bare}", f"order number {bare}", bare.lstrip("W"))


def _reservation_forms(rid: str) -> tuple[str, ...]:
    return (f"reservation {rid}", rid, f"booking {rid}", f"confirmation {rid}", f"reservation id {rid}")


def _count_forms(n: int, nouns: tuple[str, ...], uncounted: bool = False) -> tuple[str, ...]:
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
        forms += [f"{n} paid", "all paid", "all of them paid"] + (["both paid", "both of them paid"] if n == 2 else [])
    if n == 1:
        forms += [f"a {nouns[0].rstrip('s')}", f"one {nouns[0].rstrip('s')}"]
    return tuple(forms)


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
        return _order_forms(value)
    if field == "reservation":
        return _reservation_forms(value)
    if field == "reason":
        return REASONS.get(value, (str(value),))
    if field == "payment":
        return payment_forms(value, user)
    if field == "address":
        return address_forms(value)
    if field == "cabin":
        return CABINS.get(value, (str(value),))
    if field in ("bags", "paid_bags"):
        return _count_forms(int(value), BAG_NOUNS if field == "bags" else ("paid bags", "extra bags", "bags to pay for"), True)
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


FIELD_NAMES = {
    "order": ("order",), "reason": ("reason", "because", "since"), "payment": ("pay", "payment", "charge", "card",
                                                                          "refund", "difference", "bill", "put it on"),
    "items": ("item", "items"), "address": ("address", "ship", "live", "moved", "deliver"),
    "reservation": ("reservation", "booking", "trip", "flight"), "cabin": ("cabin", "class", "seat", "fare"),
    "flights": ("flight", "flights"), "bags": ("bag", "bags", "luggage", "suitcase", "baggage"),
    "paid_bags": ("paid", "pay for"), "insurance": ("insurance",), "trip": ("trip",), "amount": ("certificate", "voucher"),
    "passengers": ("passenger", "passengers", "name", "traveller", "traveler"), "origin": ("from", "departing"),
    "destination": ("to", "arriving"),
}


def _legal(slot_values: list[Any], forms_of: Any) -> tuple[LegalValue, ...]:
    out, seen = [], set()
    for v in slot_values:
        key = canonical_json(v)
        if key not in seen:
            seen.add(key)
            out.append(LegalValue(v, forms_of(v)))
    return tuple(out)


SAME = {"flights": ("same flights", "current flights", "existing flights", "flights unchanged", "keep the flights",
                     "keeping the flights", "keeping flights", "keep flights", "same flight", "current flight",
                     "existing flight", "flights as they are", "unchanged", "as booked", "same itinerary",
                     "without touching flights", "without changing the flights", "same two flights", "existing",
                     "its current", "their current", "current ones", "flights as is", "keep the same flights"),
        "passengers": ("same passengers", "passengers unchanged", "without touching passengers"),
        "cabin": ("same cabin", "cabin unchanged", "current cabin", "same class")}


def _list_domain(slot: str, truth: list[Any], alternatives: list[list[Any]], part_forms: Any, names: tuple[str, ...],
                 anchors: tuple[str, ...], truth_forms: tuple[str, ...] = ()) -> SlotDomain:
    """A list value said part by part (order lines, flight segments, passengers)."""
    parts: dict[str, Member] = {}
    values = []
    for value in [truth, *alternatives]:
        keys = []
        for part in value:
            key = canonical_json(part)
            if key not in parts:
                strong, weak = part_forms(part)
                parts[key] = Member(key, strong, weak)
            keys.append(key)
        extra = truth_forms if value is truth else ()
        values.append(LegalValue(value, (" and ".join(parts[k].forms[0] for k in keys), *extra), members=frozenset(keys)))
    unique = {v.key: v for v in reversed(values)}
    ordered = [unique[canonical_json(truth)]] + [v for k, v in unique.items() if k != canonical_json(truth)]
    return SlotDomain(slot, truth, tuple(ordered), names, anchors, parts=tuple(parts.values()))


def tau2_domains(adapter: Any, intent: Intent) -> Domains:
    """Every requirement of a tau2 intent with its legal values and their surface forms."""
    user = adapter.db.raw["users"].get(intent.base.get("customer", ""), {})
    items_of: dict[str, list[dict[str, Any]]] = {}
    orders_of: dict[str, str] = {}
    for c in intent.conditions:
        label, _, field = c.slot.partition(".")
        if field == "items":
            items_of[label] = c.value
        if field in ("order", "reservation"):
            orders_of[label] = c.value
    slots: dict[str, SlotDomain] = {}
    for c in intent.conditions:
        label, _, field = c.slot.partition(".")
        alternatives = adapter.domain(intent, c.slot)
        anchor_id = orders_of.get(label)
        anchors = ((_order_forms(anchor_id) if anchor_id.startswith("#") else _reservation_forms(anchor_id))
                   if anchor_id else ()) + OPERATION_FORMS.get(label.split("#")[0], ())
        head, _, option = field.partition(".")
        if option and head.startswith("item"):
            j = int(head[4:])
            if label not in items_of:  # lines a requirement need not name: the ones every reading of the intent takes
                items_of[label] = adapter.resolved(intent, f"{label}.items") or []
            items = items_of[label]
            product = items[j - 1] if j <= len(items) else {"product": ""}
            values = [c.value, *alternatives, *_all_option_values(adapter, intent, label, product, option)]
            legal = _legal(values, lambda v, o=option: option_forms(o, v))
            if c.op in BOUND_FORMS:  # the truth is a bound: said with its own words around the value's forms
                said = tuple(b.format(f) for f in legal[0].forms[:4] for b in BOUND_FORMS[c.op])
                legal = (LegalValue(c.value, said + legal[0].forms), *legal[1:])
            slots[c.slot] = SlotDomain(c.slot, c.value, legal, _names(option),
                                       product_forms(product, [p["product"] for p in items]),
                                       ordered=adapter.is_ordered_slot(intent, c.slot), has_current=True)
        elif field == "items":
            names = sorted({d["product"] for d in c.value} | {d["product"] for alt in alternatives for d in alt})
            slots[c.slot] = _list_domain(c.slot, c.value, alternatives, lambda d, ns=names: (product_forms(d, ns), ()),
                                         FIELD_NAMES["items"], anchors)
        elif field == "flights":
            current = _current(adapter, anchor_id, "flights")
            slots[c.slot] = _list_domain(
                c.slot, c.value, alternatives,
                lambda s: ((s["flight_number"], f"flight {s['flight_number']}",
                            *(f"{s['flight_number']} on {d}" for d in date_forms(s["date"])[:3])), date_forms(s["date"])),
                FIELD_NAMES["flights"], anchors,
                SAME["flights"] if current is not None and _segments_of(current) == _segments_of(c.value) else ())
        elif field == "passengers":
            slots[c.slot] = _list_domain(
                c.slot, c.value, alternatives,
                lambda p: ((f"{p['first_name']} {p['last_name']}",), (p["first_name"], p["dob"], *date_forms(p["dob"])[:2])),
                FIELD_NAMES["passengers"], anchors)
        elif field == "payment" and isinstance(c.value, list):
            # besides the host's alternatives, the truth with one method swapped for another the
            # customer holds: what "my travel certificate" means when they hold two
            swaps = [c.value[:i] + [other] + c.value[i + 1:] for i in range(len(c.value))
                     for other in user.get("payment_methods", {}) if other not in c.value]
            slots[c.slot] = _list_domain(c.slot, c.value, alternatives + swaps, lambda pid: (payment_forms(pid, user), ()),
                                         FIELD_NAMES["payment"], anchors)
        else:
            values = [c.value, *alternatives]
            slots[c.slot] = SlotDomain(c.slot, c.value, _legal(values, lambda v, f=field: scalar_forms(f, v, user)),
                                       FIELD_NAMES.get(field, (field,)), anchors,
                                       ordered=adapter.is_ordered_slot(intent, c.slot),
                                       has_current=field in ("cabin", "address", "bags"),
                                       identifier=field in ("order", "reservation", "payment"), instrument=field == "payment")
    return Domains(slots, _details(adapter, intent))


def _current(adapter: Any, reservation: str | None, field: str) -> Any:
    """A reservation's current value of a field (None: not a reservation)."""
    res = adapter.db.raw.get("reservations", {}).get(reservation or "")
    return None if res is None else res.get(field)


def _segments_of(flights: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(s["flight_number"], s["date"]) for s in flights]


def _all_option_values(adapter: Any, intent: Intent, label: str, product: dict[str, Any], option: str) -> list[Any]:
    """Every value the product's variants take for ``option`` (available or not): a text may name
    one that is sold out, and the grounder must still read it as that value."""
    name = product.get("product")
    out = []
    for p in adapter.db.raw["products"].values():
        if p["name"] == name:
            out += sorted({v["options"][option] for v in p["variants"].values() if option in v["options"]})
    return out


def _details(adapter: Any, intent: Intent) -> tuple[Detail, ...]:
    labels = [lab.split("#")[0] for lab in intent.base.get("request", [])]
    details = [Detail("operation", "request", OPERATION_FORMS.get(lab, (lab.replace("_", " "),)), true=True)
               for lab in dict.fromkeys(labels)]
    for i, m in enumerate(adapter.mismatches(intent)):
        sibling = next((lab for lab in m.reading.base.get("request", []) if lab not in labels), None)
        forms = OPERATION_FORMS.get(sibling or "", ()) or (m.phrase,)
        details.append(Detail("operation", f"mismatch:{i}", (m.phrase, *forms)))
    for i, e in enumerate(adapter.extras(intent)):
        details.append(Detail("extra", f"extra:{i}", extra_forms(e)))
    return tuple(details)


def extra_forms(extra: Any) -> tuple[str, ...]:
    """An extra detail's forms: the new address a customer volunteers, the bag count they add."""
    added = [c for c in extra.reading.conditions]
    forms = [extra.phrase]
    for c in added:
        if c.slot == "user_address.address":
            forms += list(address_forms(c.value))
        if c.slot == "change_bags.bags":
            forms += list(_count_forms(int(c.value), BAG_NOUNS))
    return tuple(dict.fromkeys(forms))
