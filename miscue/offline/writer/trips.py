"""Sentence plans for an airline's reservations: book, change the flights or cabin, change the
bags or the passengers, cancel, ask for compensation. Each act is said as a request (``ask``) or
as a situation that asks for nothing (``tell``); see :mod:`miscue.offline.writer.orders`."""

from __future__ import annotations

import re

from miscue.briefs import Act
from miscue.offline.writer.orders import frame
from miscue.offline.writer.says import Told
from miscue.offline.writer.voice import Voice, article, cap, join, low, sentence


def _res(told: Told, a: str) -> str | None:
    return told.said(told.one(a, "reservation"))


def _pay(kind: str, pay: str | None, v: Voice, tell: bool = False) -> str:
    if not pay:
        return ""
    if tell and " and " in pay:
        t = ("I'd be paying with {p}.", "I'd split it between {p}.")
    elif tell:
        t = ("{P} is what I'd pay with.", "{P} would cover it.", "I'd be paying with {p}.")
    elif kind == "book":
        t = ("Pay with {p}.", "I'll pay with {p}.", "Charge it to {p}.", "Please use {p} for payment.")
    elif kind == "change_bags":
        t = ("Charge the bag fees to {p}.", "Use {p} for the bags.", "I'll pay for them with {p}.")
    else:
        t = ("Charge any difference to {p}.", "Use {p} for any fare difference.", "Put the difference on {p}.",
             "Any difference can go on {p}.", "{P} is fine for the difference.")
    return v.pick(t).replace("{P}", cap(pay)).replace("{p}", low(pay))


_CLAUSE = ("don't", "do not", "skip", "decline", "i ", "i'd", "i'll", "please", "we ", "no need", "leave")


def _extras(items: list[str], v: Voice) -> list[str]:
    """Bags and insurance as a customer lists them: noun phrases together ("one checked bag and
    travel insurance, please"), a clause on its own ("Skip the insurance.")."""
    # "without travel insurance" lists as "no travel insurance" ("I'll have one bag and no travel insurance")
    nouns = [re.sub(r"^without\b", "no", x) for x in items if not x.lower().startswith(_CLAUSE)]
    clauses = [sentence(x) for x in items if x.lower().startswith(_CLAUSE)]
    out = []
    if nouns:
        out.append(sentence(v.pick((join(nouns), f"I'll have {join(nouns)}", f"{', '.join(nouns)}, please"))))
    return out + clauses


def _trip_word(trip: str | None) -> str:
    if not trip:
        return "flight"
    t = trip.lower()
    if "round" in t or "return" in t:
        return f"{trip} flight"
    return f"{trip} flight"


def book_ask(act: Act, told: Told, v: Voice, first: bool, verb: str | None = None) -> list[str]:
    a = act.label
    origin, dest = told.said(told.one(a, "origin")), told.said(told.one(a, "destination"))
    trip, cabin = told.said(told.one(a, "trip")), told.said(told.one(a, "cabin"))
    flights, pax = told.said(told.one(a, "flights")), told.said(told.one(a, "passengers"))
    bags, paid = told.said(told.one(a, "bags")), told.said(told.one(a, "paid_bags"))
    insurance, pay = told.said(told.one(a, "insurance")), told.said(told.one(a, "payment"))
    what = article(_trip_word(trip))
    route = (f" from {origin}" if origin else "") + (f" to {dest}" if dest else "")
    vp = verb or f"book {what}{route}"
    if flights:
        vp += f" on {flights}"
    if cabin:
        bare = "class" not in cabin.lower() and "cabin" not in cabin.lower()
        vp += v.pick((f" in {cabin}", f", {cabin}", f" in {cabin} class" if bare
                      else f" in {cabin}"))
    out = [frame(vp, v, first)]
    if pax:
        many = " and " in pax
        out.append(v.pick((f"It's for {pax}.", f"The passengers are {pax}." if many else f"The passenger is {pax}.",
                           f"Passengers: {pax}." if many else f"Passenger: {pax}.",
                           f"We're {pax}." if many else f"Just one traveller, {pax}.")))
    out += _extras([x for x in (bags, paid, insurance) if x], v)
    if line := _pay("book", pay, v):
        out.append(line)
    return out


def book_tell(act: Act, told: Told, v: Voice) -> list[str]:
    a = act.label
    origin, dest = told.said(told.one(a, "origin")), told.said(told.one(a, "destination"))
    trip, cabin = told.said(told.one(a, "trip")), told.said(told.one(a, "cabin"))
    flights, pax = told.said(told.one(a, "flights")), told.said(told.one(a, "passengers"))
    bags, paid = told.said(told.one(a, "bags")), told.said(told.one(a, "paid_bags"))
    insurance, pay = told.said(told.one(a, "insurance")), told.said(told.one(a, "payment"))
    route = (f" from {origin}" if origin else "") + (f" to {dest}" if dest else "")
    first = f"My plan is to fly {trip or ''}{route}".replace("  ", " ")
    if flights:
        first += f" on {flights}"
    if cabin:
        first += f", in {cabin}"
    out = [sentence(first)]
    if pax:
        out.append(v.pick((f"The travellers are {pax}.", f"It's {pax} travelling.") if " and " in pax else
                          (f"The traveller is {pax}.", f"It's just {pax} travelling.")))
    out += _extras([x for x in (bags, paid, insurance) if x], v)
    if line := _pay("book", pay, v, tell=True):
        out.append(line)
    return out


def change_flights_ask(act: Act, told: Told, v: Voice, first: bool, verb: str | None = None) -> list[str]:
    a = act.label
    res = _res(told, a) or "my reservation"
    flights_r = told.one(a, "flights")
    cabin, flights, pay = told.said(told.one(a, "cabin")), told.said(flights_r), told.said(told.one(a, "payment"))
    same = told.unchanged(flights_r)
    details = []
    if verb:  # the operation asked for instead; what the customer wants still said after it
        vp = verb
        if flights or cabin:
            want = " ".join(x for x in ((f"on {flights}" if flights and not same else ""), (f"in {cabin}" if cabin else "")) if x)
            details.append(v.pick((f"I'd want to be {want}.", f"Ideally {want}.")) if want else "")
        if _res(told, a) and not any(w in verb for w in res.split() if any(c.isdigit() for c in w)):
            details.insert(0, v.pick((f"It's {res}.", f"That's {res}.")))
    elif cabin and (same or not flights):
        vp = v.pick((f"change {res} to {cabin}", f"move {res} to {cabin}", f"switch {res} to {cabin}"))
        if flights:
            vp += v.pick((", keeping the same flights", " on the same flights", ", same flights", " without changing the flights",
                          " but keep my flights"))
    elif flights:
        vp = v.pick((f"change {res} to {flights}", f"move {res} to {flights}", f"rebook {res} on {flights}"))
        if cabin:
            vp += v.pick((f" in {cabin}", f", {cabin}"))
    else:
        vp = f"change {res}"
    out = [frame(vp, v, first), *[d for d in details if d]]
    if line := _pay("change_flights", pay, v):
        out.append(line)
    return out


def change_flights_tell(act: Act, told: Told, v: Voice) -> list[str]:
    a = act.label
    res = _res(told, a) or "my reservation"
    flights_r = told.one(a, "flights")
    cabin, flights, pay = told.said(told.one(a, "cabin")), told.said(flights_r), told.said(told.one(a, "payment"))
    bits = []
    if cabin:
        bits.append(f"I'd be much happier in {cabin}")
    if flights:
        bits.append("on the same flights" if told.unchanged(flights_r) else f"on {flights}")
    out = [sentence(f"For {res}, " + (" ".join(bits) if bits else "the current setup doesn't work for me"))]
    if line := _pay("change_flights", pay, v, tell=True):
        out.append(line)
    return out


def bags_ask(act: Act, told: Told, v: Voice, first: bool, verb: str | None = None) -> list[str]:
    a = act.label
    res = _res(told, a) or "my reservation"
    bags, paid, pay = told.said(told.one(a, "bags")), told.said(told.one(a, "paid_bags")), told.said(told.one(a, "payment"))
    total = ", ".join(x for x in (bags, paid) if x)
    vp = verb or (v.pick((f"put {total} on {res}", f"make it {total} on {res}")) if total else f"change the luggage on {res}")
    out = [frame(vp, v, first)]
    if line := _pay("change_bags", pay, v):
        out.append(line)
    return out


def bags_tell(act: Act, told: Told, v: Voice) -> list[str]:
    a = act.label
    res = _res(told, a) or "my reservation"
    bags, paid, pay = told.said(told.one(a, "bags")), told.said(told.one(a, "paid_bags")), told.said(told.one(a, "payment"))
    total = " and ".join(x for x in (bags, paid) if x)
    out = [f"I'll be travelling with {total} on {res}." if total else f"My luggage for {res} has changed."]
    if line := _pay("change_bags", pay, v, tell=True):
        out.append(line)
    return out


def passengers_ask(act: Act, told: Told, v: Voice, first: bool, verb: str | None = None) -> list[str]:
    a = act.label
    res = _res(told, a) or "my reservation"
    pax = told.said(told.one(a, "passengers"))
    vp = verb or (v.pick((f"update the passengers on {res} to {pax}", f"change the passenger details on {res} to {pax}"))
                  if pax else f"update the passengers on {res}")
    return [frame(vp, v, first)]


def passengers_tell(act: Act, told: Told, v: Voice) -> list[str]:
    a = act.label
    res = _res(told, a) or "my reservation"
    pax = told.said(told.one(a, "passengers"))
    return [f"The passenger details on {res} are off; they should read {pax}." if pax
            else f"The passenger details on {res} are off."]


def cancel_ask(act: Act, told: Told, v: Voice, first: bool, verb: str | None = None) -> list[str]:
    res = _res(told, act.label) or "my reservation"
    return [frame(verb or v.pick((f"cancel {res}", f"cancel {res}", f"call off {res}")), v, first)]


def cancel_tell(act: Act, told: Told, v: Voice) -> list[str]:
    res = _res(told, act.label) or "my reservation"
    return [v.pick((f"My plans fell through, so {res} won't be used.", f"{cap(res)} is off - the trip isn't happening."))]


def compensation_ask(act: Act, told: Told, v: Voice, first: bool, verb: str | None = None) -> list[str]:
    amount = told.said(told.one(act.label, "amount"))
    what = f"the {amount} certificate" if amount else "a certificate"
    vp = verb or v.pick((f"get {what} for my delayed flight", f"receive {what} I was promised for the delay"))
    return [frame(vp, v, first)]


def compensation_tell(act: Act, told: Told, v: Voice) -> list[str]:
    amount = told.said(told.one(act.label, "amount"))
    return [f"My last flight was delayed for hours, and the agent told me a {amount} certificate would make up for it."
            if amount else "My last flight was delayed for hours."]


TRIP_PLANS = {
    "book": (book_ask, book_tell), "change_flights": (change_flights_ask, change_flights_tell),
    "change_bags": (bags_ask, bags_tell), "change_passengers": (passengers_ask, passengers_tell),
    "cancel_reservation": (cancel_ask, cancel_tell), "compensation": (compensation_ask, compensation_tell),
}
