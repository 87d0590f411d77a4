"""The value domains of a tau2 intent (DESIGN 6a): for each requirement, its true value, the legal
alternatives the write kinds enumerate and the ways customers say each (:mod:`miscue.adapters.tau2.forms`);
list values (items, flights, passengers) said part by part; the operations and extra details a
customer may mention. Forms a reader recognises but a writer is not offered (an order named by
what it holds, the flights of a reservation no requirement names) are kept apart.
"""

from __future__ import annotations

import json
from typing import Any

from miscue.adapters.tau2.airline import price_rank
from miscue.adapters.tau2.forms import (BAG_NOUNS, BOUND_FORMS, HEARD_SYNONYMS, OPERATION_FORMS, address_forms, all_paid_forms,
                                  count_forms, date_forms, fare_forms, option_forms, option_names, order_content_forms,
                                  order_forms, payment_forms, payment_heard, product_forms, reservation_forms, scalar_forms)
from miscue.adapters.tau2.retail import describe_line
from miscue.adapters.tau2.variants import PRICE
from miscue.canonical import canonical_json
from miscue.language import Detail, Domains, LegalValue, Member, SlotDomain
from miscue.schema import Intent


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


def _legal(slot_values: list[Any], forms_of: Any, recognised: Any = None) -> tuple[LegalValue, ...]:
    out, seen = [], set()
    for v in slot_values:
        key = canonical_json(v)
        if key not in seen:
            seen.add(key)
            out.append(LegalValue(v, forms_of(v), recognised=recognised(v) if recognised else ()))
    return tuple(out)


SAME = {"flights": ("same flights", "current flights", "existing flights", "flights unchanged", "keep the flights",
                     "keeping the flights", "keeping flights", "keep flights", "same flight", "current flight",
                     "existing flight", "flights as they are", "unchanged", "as booked", "same itinerary",
                     "without touching flights", "without changing the flights", "same two flights", "existing",
                     "its current", "their current", "current ones", "flights as is", "keep the same flights"),
        "passengers": ("same passengers", "passengers unchanged", "without touching passengers"),
        "cabin": ("same cabin", "cabin unchanged", "current cabin", "same class")}


def _list_domain(slot: str, truth: list[Any], alternatives: list[list[Any]], part_forms: Any, names: tuple[str, ...],
                 anchors: tuple[str, ...], truth_forms: tuple[str, ...] = (),
                 truth_recognised: tuple[str, ...] = ()) -> SlotDomain:
    """A list value said part by part (order lines, flight segments, passengers); ``part_forms(part)``: its
    strong forms, its weak ones and, optionally, the ones readers recognise but writers are not offered."""
    parts: dict[str, Member] = {}
    values = []
    for value in [truth, *alternatives]:
        keys = []
        for part in value:
            key = canonical_json(part)
            if key not in parts:
                parts[key] = Member(key, *part_forms(part))
            keys.append(key)
        extra = truth_forms if value is truth else ()
        values.append(LegalValue(value, (" and ".join(parts[k].forms[0] for k in keys), *extra), members=frozenset(keys),
                                 recognised=truth_recognised if value is truth else ()))
    unique = {v.key: v for v in reversed(values)}
    ordered = [unique[canonical_json(truth)]] + [v for k, v in unique.items() if k != canonical_json(truth)]
    return SlotDomain(slot, truth, tuple(ordered), names, anchors, parts=tuple(parts.values()))


def _one_line_apart(current: list[Any], order: dict[str, Any]) -> list[list[Any]]:
    """The order's line sets one line fewer or one more than ``current`` (a return's lines)."""
    lines = order.get("items", [])
    descs = list(dict.fromkeys(canonical_json(describe_line(x, lines)) for x in lines))
    said = {canonical_json(d) for d in current}
    fewer = [[d for d in current if d is not gone] for gone in current] if len(current) > 1 else []
    return fewer + [[*current, json.loads(d)] for d in descs if d not in said]


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
    # an operation whose order or reservation is no requirement (the customer need not say it:
    # "downgrade all my business trips") still has one, which customers name ("JG7FMM refund to
    # my Visa") and whose present values they keep ("flights unchanged"): recognised, not offered
    held_of: dict[str, str] = {}
    for label in dict.fromkeys(c.slot.partition(".")[0] for c in intent.conditions):
        if label not in orders_of:
            for field in ("reservation", "order"):
                if isinstance(held := adapter.resolved(intent, f"{label}.{field}"), str):
                    held_of[label] = held
                    break
    orders = adapter.db.raw.get("orders", {})
    slots: dict[str, SlotDomain] = {}
    told: dict[str, dict[str, tuple[str, ...]]] = {}  # a new item's requirements told by its other options
    for c in intent.conditions:
        label, _, field = c.slot.partition(".")
        alternatives = adapter.domain(intent, c.slot)
        anchor_id = orders_of.get(label) or held_of.get(label)
        anchors = ((order_forms(anchor_id) if anchor_id.startswith("#") else reservation_forms(anchor_id))
                   if anchor_id else ()) + OPERATION_FORMS.get(label.split("#")[0], ())
        head, _, option = field.partition(".")
        if option and head.startswith("item"):
            j = int(head[4:])
            if label not in items_of:  # lines a requirement need not name: the ones every reading of the intent takes
                items_of[label] = adapter.resolved(intent, f"{label}.items") or []
            items = items_of[label]
            product = items[j - 1] if j <= len(items) else {"product": ""}
            values = [c.value, *alternatives, *_all_option_values(adapter, intent, label, product, option)]
            prefix = f"{label}.{head}."
            if prefix not in told:
                order = orders.get(orders_of.get(label) or held_of.get(label, ""), {})
                told[prefix] = _told_by_other_options(adapter, intent, prefix, product, order)
            telling = told[prefix].get(option, ()) if c.op == "=" else ()
            legal = _legal(values, lambda v, o=option: option_forms(o, v),
                           lambda v, t=c.value, f=telling, o=option: (f if v == t else ()) + HEARD_SYNONYMS.get((o, v), ()))
            if c.op in BOUND_FORMS:  # the truth is a bound: said with its own words around the value's forms
                said = tuple(b.format(f) for f in legal[0].forms[:4] for b in BOUND_FORMS[c.op])
                legal = (LegalValue(c.value, said + legal[0].forms), *legal[1:])
            slots[c.slot] = SlotDomain(c.slot, c.value, legal, option_names(option),
                                       product_forms(product, [p["product"] for p in items]),
                                       ordered=adapter.is_ordered_slot(intent, c.slot), has_current=True)
        elif field == "items":
            if label.split("#")[0] == "return":  # "the kettle alone", "the pet bed as well": readings of a return too
                order = orders.get(orders_of.get(label) or held_of.get(label, ""), {})
                alternatives = [*alternatives, *_one_line_apart(c.value, order)]
            names = sorted({d["product"] for d in c.value} | {d["product"] for alt in alternatives for d in alt})
            slots[c.slot] = _list_domain(c.slot, c.value, alternatives, lambda d, ns=names: (product_forms(d, ns), ()),
                                         FIELD_NAMES["items"], anchors)
        elif field == "flights":
            current = _current(adapter, anchor_id, "flights")
            same = SAME["flights"] if current is not None and _segments_of(current) == _segments_of(c.value) else ()
            cabin = next((x.value for x in intent.conditions if x.slot == f"{label}.cabin"), None) \
                or _current(adapter, anchor_id, "cabin")
            by_fare = fare_forms(price_rank(adapter.db, c.value, cabin)) if cabin else ()
            slots[c.slot] = _list_domain(
                c.slot, c.value, alternatives,
                lambda s: ((s["flight_number"], f"flight {s['flight_number']}",
                            *(f"{s['flight_number']} on {d}" for d in date_forms(s["date"])[:3])), date_forms(s["date"])),
                FIELD_NAMES["flights"], anchors, *(((), same + by_fare) if label in held_of else (same, by_fare)))
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
            slots[c.slot] = _list_domain(c.slot, c.value, alternatives + swaps,
                                         lambda pid: (payment_forms(pid, user), (), payment_heard(pid, user)),
                                         FIELD_NAMES["payment"], anchors)
        else:
            values = [c.value, *alternatives]
            contents = (lambda v: order_content_forms(orders.get(v, {}))) if field == "order" else None
            if field == "payment":  # "my balance": heard, a name several methods share, never offered
                contents = lambda v: payment_heard(v, user)  # noqa: E731
            if field == "paid_bags":  # "add 2 bags, both paid": the paid count is the bag count said
                bags = next((x.value for x in intent.conditions if x.slot == f"{label}.bags"), None)
                contents = lambda v, b=bags: all_paid_forms(int(v)) if v == b else ()  # noqa: E731
            slots[c.slot] = SlotDomain(c.slot, c.value, _legal(values, lambda v, f=field: scalar_forms(f, v, user), contents),
                                       FIELD_NAMES.get(field, (field,)), anchors,
                                       ordered=adapter.is_ordered_slot(intent, c.slot),
                                       has_current=field in ("cabin", "address", "bags"),
                                       identifier=field in ("order", "reservation", "payment"), instrument=field == "payment")
    return Domains(slots, _details(adapter, intent), {label: canonical_json(held) for label, held in held_of.items()})


def _current(adapter: Any, reservation: str | None, field: str) -> Any:
    """A reservation's current value of a field (None: not a reservation)."""
    res = adapter.db.raw.get("reservations", {}).get(reservation or "")
    return None if res is None else res.get(field)


def _segments_of(flights: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(s["flight_number"], s["date"]) for s in flights]


def tau2_value_ids(adapter: Any, intent: Intent) -> dict[str, dict[str, tuple[str, ...]]]:
    """The item ids that name a requirement's values (DESIGN 6a), from the intent's own conditions
    only: per option of a new item, the ids of the product's available variants (a variant's id
    says each of its options; the customer's own lines are the item being replaced); per list
    of items, each line's id for the item it holds ("return item 3358616356"); per payment, each
    method's id (a list value's methods part by part)."""
    orders = adapter.db.raw.get("orders", {})
    products = adapter.db.raw.get("products", {}).values()
    by_label = {c.slot.partition(".")[0]: c.value for c in intent.conditions if c.slot.endswith(".order")}
    items_of = {c.slot.partition(".")[0]: c.value for c in intent.conditions if c.slot.endswith(".items")}
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for c in intent.conditions:
        label, _, field = c.slot.partition(".")
        if label not in by_label:  # an order no requirement names (the customer need not say it) still has one
            held = adapter.resolved(intent, f"{label}.order")
            by_label[label] = held if isinstance(held, str) else ""
        lines = orders.get(by_label[label], {}).get("items", [])
        head, _, option = field.partition(".")
        if option and head.startswith("item") and label in items_of and int(head[4:]) <= len(items_of[label]):
            product = items_of[label][int(head[4:]) - 1]
            held = {line.get("item_id") for line in lines}
            ids: dict[str, tuple[str, ...]] = {}
            for p in products:
                if p["name"] != product.get("product"):
                    continue
                for item_id, variant in sorted(p["variants"].items()):
                    if option in variant["options"] and variant.get("available") and item_id not in held:
                        key = canonical_json(variant["options"][option])
                        ids[key] = ids.get(key, ()) + (f"item {item_id}",)
            out[c.slot] = ids
        elif field == "items" and lines:
            parts = {canonical_json(part): part for value in [c.value, *adapter.domain(intent, c.slot)] for part in value}
            out[c.slot] = {key: tuple(f"item {line['item_id']}" for line in lines if line.get("name") == part.get("product"))
                           for key, part in parts.items()}
        elif field == "payment":  # a payment method's id names it ("credit_card_7901829"), alone or as a part
            methods = [m for value in [c.value, *adapter.domain(intent, c.slot)]
                       for m in (value if isinstance(value, list) else [value])]
            out[c.slot] = {canonical_json(m): (m,) for m in methods if isinstance(m, str)}
    return out


def _all_option_values(adapter: Any, intent: Intent, label: str, product: dict[str, Any], option: str) -> list[Any]:
    """Every value the product's variants take for ``option`` (available or not): a text may name
    one that is sold out, and the grounder must still read it as that value."""
    name = product.get("product")
    out = []
    for p in adapter.db.raw["products"].values():
        if p["name"] == name:
            out += sorted({v["options"][option] for v in p["variants"].values() if option in v["options"]})
    return out


def _told_by_other_options(adapter: Any, intent: Intent, prefix: str, product: dict[str, Any],
                           order: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """Per option requirement of one new item (``prefix``: "exchange.item1."), the forms of the
    item's other option values (no requirement) that tell its true value: among the available
    variants holding the item's other requirements, only those with the true value take it
    ("switch the running shoes to black": the one black pair is synthetic; "the 20MP with SD card
    storage": the one such camera zooms 3x). A value telling several requirements this way tells
    none (each would be said only given the others: "a black laptop" does not state its RAM and
    its screen size at once) -- unless the value alone, among every available variant, names the
    new item ("the fantasy jigsaw" when the one available fantasy puzzle has 1000 pieces and is
    intermediate): then it tells all of them. A value the item the customer has now also takes
    describes that item, not the new one."""
    given = {c.slot[len(prefix):]: c.value for c in intent.conditions if c.slot.startswith(prefix) and c.op == "="}
    others = {o: adapter.resolved(intent, prefix + o) for o in _option_names(adapter, product) if o not in given}
    now = [line["options"] for line in order.get("items", []) if line.get("name") == product.get("product")]
    variants = [v["options"] for p in adapter.db.raw["products"].values() if p["name"] == product.get("product")
                for v in p["variants"].values() if v.get("available")]
    out: dict[str, tuple[str, ...]] = {}
    chosen = {**{o: w for o, w in given.items() if o != PRICE}, **{o: w for o, w in others.items() if w is not None}}
    for other, value in others.items():
        if value is None:
            continue
        tells = []  # the requirements this value alone tells
        for option, truth in given.items():
            fitting = [v for v in variants if v.get(other) == value
                       and all(v.get(o) == w for o, w in given.items() if o not in (option, PRICE))]
            if option == PRICE:  # "the one with smart sensors" for the cheapest: the value names that variant alone
                told = bool(fitting) and all(v == chosen for v in fitting)
            else:
                told = bool(fitting) and all(v.get(option) == truth for v in fitting)
            if told and not any(v in now for v in fitting):
                tells.append(option)
        alone = [v for v in variants if v.get(other) == value]
        if alone and all(v == chosen for v in alone) and chosen not in now:
            tells = list(given)  # the value alone names the variant ("the fantasy one"): it tells the whole item
        elif len(tells) > 1:
            tells = []  # each only given the others: none
        for option in tells:
            out[option] = out.get(option, ()) + option_forms(other, value)
    return out


def _option_names(adapter: Any, product: dict[str, Any]) -> list[str]:
    """The option names of a product's variants, in first-seen order."""
    names: dict[str, None] = {}
    for p in adapter.db.raw["products"].values():
        if p["name"] == product.get("product"):
            for v in p["variants"].values():
                names.update(dict.fromkeys(v["options"]))
    return list(names)


def _details(adapter: Any, intent: Intent) -> tuple[Detail, ...]:
    labels = [lab.split("#")[0] for lab in intent.base.get("request", [])]
    details = [Detail("operation", "request", OPERATION_FORMS.get(lab, (lab.replace("_", " "),)), true=True)
               for lab in dict.fromkeys(labels)]
    for i, m in enumerate(adapter.mismatches(intent)):
        sibling = next((lab for lab in m.reading.base.get("request", []) if lab not in labels), None)
        forms = OPERATION_FORMS.get(sibling or "", ()) or (m.phrase,)
        details.append(Detail("operation", f"mismatch:{i}", (m.phrase, *forms)))
    for i, e in enumerate(adapter.extras(intent)):
        about = tuple(str(c.value) for c in e.reading.conditions if c.slot == "change_bags.reservation")
        details.append(Detail("extra", f"extra:{i}", extra_forms(e, intent), anchors=about))
    return tuple(details)


def extra_forms(extra: Any, intent: Intent) -> tuple[str, ...]:
    """An extra detail's forms: the new address a customer volunteers, the bag count they add,
    the option value they hold a new item to."""
    added = [c for c in extra.reading.conditions if intent.condition(c.slot) is None]
    forms = [extra.phrase]
    for c in added:
        if c.slot == "user_address.address":
            forms += list(address_forms(c.value))
        if c.slot == "change_bags.bags":
            forms += list(count_forms(int(c.value), BAG_NOUNS))
        head, _, option = c.slot.partition(".")[2].partition(".")
        if head.startswith("item") and option:
            forms += list(option_forms(option, c.value))
    return tuple(dict.fromkeys(forms))
