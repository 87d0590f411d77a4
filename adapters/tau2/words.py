"""How a tau2 customer speaks: requirement phrases, spoken values, extras and wrong instruments.

Users name orders, reservations, products, option values, cards by brand and last digits, and
flights by number and date; they never speak item ids or internal payment ids.
"""

from __future__ import annotations

import calendar
from typing import Any

ORDERED_OPTIONS = {
    "size", "capacity", "storage", "screen size", "length", "battery life", "weight range", "height",
    "pieces", "piece count", "ram", "RAM", "brightness", "backrest height", "kit size", "room size",
    "speed settings", "thickness", "frame size", "diameter", "zoom", "resolution", "pressure",
}

REQUESTS = {
    # retail
    "cancel": "cancel a pending order",
    "exchange": "exchange items from a delivered order",
    "return": "return items from a delivered order",
    "modify_items": "change items in a pending order",
    "modify_address": "change the shipping address of a pending order",
    "modify_payment": "change the payment method of a pending order",
    "user_address": "update my default address",
    # airline
    "book": "book a flight",
    "change_flights": "change the flights or cabin of a reservation",
    "change_bags": "change the checked bags of a reservation",
    "change_passengers": "update the passengers of a reservation",
    "certificate": "get compensation for a flight problem",
}
AIRLINE_CANCEL = "cancel a reservation"

FIELD_PHRASES = {
    "order": "the order",
    "reason": "the reason for cancelling",
    "items": "the items",
    "address": "the new address",
    "reservation": "the reservation",
    "cabin": "the cabin class",
    "flights": "the flights",
    "bags": "the number of checked bags",
    "paid_bags": "the number of checked bags to pay for",
    "insurance": "travel insurance",
    "origin": "the departure airport",
    "destination": "the destination airport",
    "trip": "the trip type",
    "passengers": "the passengers",
    "amount": "the certificate amount",
}


def _date(iso: str) -> str:
    y, m, d = iso.split("-")
    return f"{calendar.month_name[int(m)]} {int(d)}"


def spoken_payment(pid: str, user: dict[str, Any]) -> str:
    pm = user.get("payment_methods", {}).get(pid)
    if pm is None:
        return pid.replace("_", " ")
    source = pm["source"]
    if source == "credit_card":
        brand = pm["brand"].title()
        return f"my {brand}{'' if brand.endswith('card') else ' card'} ending in {pm['last_four']}"
    if source == "paypal":
        return "my PayPal account"
    digits = pid.rsplit("_", 1)[-1][-4:]
    kind = "gift card" if source == "gift_card" else "travel certificate"
    return f"my {kind} ending in {digits}"


def spoken_item(desc: dict[str, Any]) -> str:
    name = f"the {desc['product'].lower()}"
    opts = desc.get("options") or {}
    if opts:
        name += " (" + ", ".join(f"{k} {v}" for k, v in sorted(opts.items())) + ")"
    return name


def spoken_address(a: dict[str, Any]) -> str:
    street = a["address1"] + (f", {a['address2']}" if a.get("address2") else "")
    return f"{street}, {a['city']}, {a['state']} {a['zip']}, {a['country']}"


def spoken_flights(segs: list[dict[str, Any]]) -> str:
    return " and ".join(f"flight {s['flight_number']} on {_date(s['date'])}" for s in segs)


def spoken_passengers(pax: list[dict[str, Any]]) -> str:
    return " and ".join(f"{p['first_name']} {p['last_name']} (born {p['dob']})" for p in pax)


def join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def ordinal(label: str) -> str:
    n = int(label.split("#")[1]) if "#" in label else 1
    return {1: "first", 2: "second", 3: "third"}.get(n, f"number {n}")

