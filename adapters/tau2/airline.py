"""The airline write kinds: book, change flights (and cabin), change bags, change passengers,
cancel and send a certificate.

Users name reservations, flights by number and date, cabins, passengers and payment methods;
a changed flight is enumerated over the available same-route, same-date alternatives.
"""

from __future__ import annotations

import itertools
import operator
from datetime import date
from typing import Any

from miscue.adapters.tau2.kinds import DB, LiftError, WriteKind, cartesian, others, pick
from miscue.host import NotExecutable

CABINS = ("basic_economy", "economy", "business")
CERTIFICATE_AMOUNTS = (50, 100, 150, 200, 250, 300, 400, 500)
FREE_BAGS = {  # airline policy: free checked bags per passenger by membership and cabin
    "regular": {"basic_economy": 0, "economy": 1, "business": 2},
    "silver": {"basic_economy": 1, "economy": 2, "business": 3},
    "gold": {"basic_economy": 2, "economy": 3, "business": 4},
}


def find_reservation(db: DB, rid: str) -> dict[str, Any] | None:
    return db.table("reservations").get(rid)


def _user_reservations(db: DB, customer: str) -> list[str]:
    return list(db.user(customer)["reservations"])


def _segments(flights: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"flight_number": f["flight_number"], "date": f["date"]} for f in flights]


def _price(db: DB, seg: dict[str, Any], cabin: str) -> int | None:
    day = db.table("flights").get(seg["flight_number"], {}).get("dates", {}).get(seg["date"], {})
    return day.get("prices", {}).get(cabin) if day.get("status") == "available" else None


def alternatives(db: DB, seg: dict[str, Any]) -> list[dict[str, Any]]:
    """Available flights on the same route and date as ``seg`` (including itself)."""
    flights = db.table("flights")
    base = flights.get(seg["flight_number"])
    if base is None:
        return []
    out = []
    for fn, f in sorted(flights.items()):
        if f["origin"] == base["origin"] and f["destination"] == base["destination"]:
            if f["dates"].get(seg["date"], {}).get("status") == "available":
                out.append({"flight_number": fn, "date": seg["date"]})
    return out


def search(db: DB, origin: str, destination: str, date: str) -> list[list[dict[str, Any]]]:
    """Every itinerary tau2's search tools offer between two airports on a date: the nonstop
    flights, then the one-stop pairs whose second flight leaves the stop after the first lands
    (the next day when the first lands after midnight), each flight available on its date."""
    flights = db.table("flights")

    def leaving(airport: str, day: str, after: str = "") -> list[dict[str, Any]]:
        return [f for _, f in sorted(flights.items()) if f["origin"] == airport
                and f["dates"].get(day, {}).get("status") == "available" and f["scheduled_departure_time_est"] > after]

    out = [[{"flight_number": f["flight_number"], "date": date}] for f in leaving(origin, date)
           if f["destination"] == destination]
    for first in leaving(origin, date):
        lands = first["scheduled_arrival_time_est"]
        day2 = f"{date[:-2]}{int(date[-2:]) + 1:02d}" if "+1" in lands else date
        for second in leaving(first["destination"], day2, lands.replace("+1", "")):
            if second["destination"] == destination:
                out.append([{"flight_number": first["flight_number"], "date": date},
                            {"flight_number": second["flight_number"], "date": day2}])
    return out


def price_rank(db: DB, journey: list[dict[str, Any]], cabin: str) -> tuple[int, bool] | None:
    """Where a one-way journey stands by its fare in ``cabin`` among every itinerary between its
    ends on its date (0: the cheapest), and whether it is also the cheapest nonstop; None when
    another itinerary costs the same (then "the cheapest" does not name it alone)."""
    flights = db.table("flights")
    if not journey or any(s["flight_number"] not in flights for s in journey):
        return None
    origin, destination = flights[journey[0]["flight_number"]]["origin"], flights[journey[-1]["flight_number"]]["destination"]

    def fare(itinerary: list[dict[str, Any]]) -> int | None:
        prices = [_price(db, s, cabin) for s in itinerary]
        return None if any(p is None for p in prices) else sum(prices)  # type: ignore[arg-type]

    mine = fare(journey)
    found = [(f, len(i)) for i in search(db, origin, destination, journey[0]["date"]) if (f := fare(i)) is not None]
    if mine is None or sum(1 for f, _ in found if f == mine) != 1:
        return None
    nonstop = len(journey) == 1 and all(f > mine for f, n in found if n == 1 and f != mine)
    return sum(1 for f, _ in found if f < mine), nonstop


def _itineraries(db: DB, segments: list[dict[str, Any]], one_change: bool) -> list[list[dict[str, Any]]]:
    """Itineraries built from same-route same-date alternatives of each segment."""
    if one_change:
        out = []
        for i, seg in enumerate(segments):
            for alt in alternatives(db, seg):
                if alt != seg:
                    out.append(segments[:i] + [alt] + segments[i + 1 :])
        return out
    pools = [alternatives(db, seg) or [seg] for seg in segments]
    return [list(p) for p in itertools.islice(itertools.product(*pools), 64)]  # the first 64, however many


STOPS = "stops"  # a bound a customer may hold new flights to ("it has to be nonstop"): stops<= / >= / =
#: the times of the new flights, in hours after midnight (Eastern, as the host's schedule; a next-day
#: arrival adds 24), and their longest connection in minutes: bounds a customer may hold them to
#: ("it must land before 4pm", "only if the outbound leaves before 9 am", "a connection under 90 minutes")
TIMES = ("out_departs", "out_arrives", "back_departs", "back_arrives", "connection")
MEASURES = (STOPS, *TIMES)
BOUND_FIELDS = tuple(f"{m}{op}" for m in MEASURES for op in ("", "<=", ">="))


def ways(db: DB, segments: list[dict[str, Any]], ends: tuple[str, str]) -> list[list[dict[str, Any]]]:
    """A journey's ways: each runs until it reaches one of its ends (the trip's origin or
    destination). A round trip that turns at another airport (flights changed to a neighbouring
    one: DTW-LGA to DTW-JFK) turns after its longest wait between two flights, when that is a day
    or more."""
    flights = db.table("flights")
    dest = [flights.get(s["flight_number"], {}).get("destination") for s in segments]
    cuts = [i for i, d in enumerate(dest) if d in ends]  # a way ends with these segments
    first = flights.get(segments[0]["flight_number"], {}).get("origin") if segments else None
    if len(cuts) < 2 and len(segments) > 1 and dest[-1] == first:
        gap, at = max((_days_between(segments[i], segments[i + 1]), i) for i in range(len(segments) - 1))
        if gap >= 1:
            cuts = sorted({at, len(segments) - 1})
    bounds = [-1, *cuts] + ([] if cuts and cuts[-1] == len(segments) - 1 else [len(segments) - 1])
    return [segments[a + 1:b + 1] for a, b in zip(bounds, bounds[1:]) if b > a]


def measures(db: DB, segments: list[dict[str, Any]], ends: tuple[str, str]) -> dict[str, float]:
    """What a customer may hold new flights to: the stops, when each way leaves and arrives, and
    the longest connection (a measure the journey does not have -- no return -- is left out)."""
    flights = db.table("flights")
    parts = ways(db, segments, ends)
    out: dict[str, float] = {STOPS: max((len(w) for w in parts), default=0) - 1}
    connections = []
    for name, way in zip(("out", "back"), parts[:2]):
        start = way[0]
        out[f"{name}_departs"] = _hours(flights.get(start["flight_number"], {}), "departure", start, start)
        out[f"{name}_arrives"] = _hours(flights.get(way[-1]["flight_number"], {}), "arrival", way[-1], start)
        for a, b in zip(way, way[1:]):
            landed = _hours(flights.get(a["flight_number"], {}), "arrival", a, start)
            leaves = _hours(flights.get(b["flight_number"], {}), "departure", b, start)
            connections.append(round((leaves - landed) * 60))
    if connections:
        out["connection"] = max(connections)
    return out


def _hours(flight: dict[str, Any], which: str, seg: dict[str, Any], start: dict[str, Any]) -> float:
    """A flight's scheduled ``which`` time on ``seg``'s date, in hours after midnight of the day
    ``start`` leaves ("01:30:00+1" the next day)."""
    clock = str(flight.get(f"scheduled_{which}_time_est", "00:00:00"))
    clock, _, later = clock.partition("+")
    h, m, *_ = (int(x) for x in clock.split(":"))
    return 24 * (_days_between(start, seg) + int(later or 0)) + h + m / 60


def _days_between(a: dict[str, Any], b: dict[str, Any]) -> int:
    return (date.fromisoformat(b["date"]) - date.fromisoformat(a["date"])).days


_TESTS = {"": operator.eq, "<=": operator.le, ">=": operator.ge}


def within_bounds(given: dict[str, Any], measured: dict[str, float]) -> bool:
    """Whether a journey's measures meet the bounds among the given fields (a bound on a measure it
    does not have is not met)."""
    return all(key in measured and test(measured[key], given[f"{key}{op}"])
               for key in MEASURES for op, test in _TESTS.items() if f"{key}{op}" in given)


def _num(x: float) -> int | float:
    return int(x) if float(x).is_integer() else round(x, 2)


def bags_contradict(field: str, value: Any, given: dict[str, Any]) -> bool:
    """A bag count the rest of the request contradicts: fewer checked bags than the paid ones it
    also states, or more paid ones than its bags ("1 checked bag, 2 bags to pay for" -- the tools
    would take it, no one asks for it)."""
    if field == "bags" and "paid_bags" in given:
        return value < given["paid_bags"]
    if field == "paid_bags" and "bags" in given:
        return value > given["bags"]
    return False


class Book(WriteKind):
    tool, label = "book_reservation", "book"

    def accepts(self, field):
        return field in self.fields or field in BOUND_FIELDS
    fields = ("origin", "destination", "trip", "cabin", "flights", "passengers", "payment", "bags", "insurance", "paid_bags")

    def ordered(self, field):
        return field in ("bags", "cabin", "paid_bags")

    @staticmethod
    def _policy_nonfree(db: DB, customer: str, f: dict[str, Any]) -> int:
        free = FREE_BAGS[db.user(customer)["membership"]][f["cabin"]] * len(f["passengers"])
        return max(0, f["bags"] - free)

    def lift(self, args, db, customer, ctx=None):
        fields = {
            "origin": args["origin"],
            "destination": args["destination"],
            "trip": args["flight_type"],
            "cabin": args["cabin"],
            "flights": _segments(args["flights"]),
            "passengers": args["passengers"],
            "payment": [pm["payment_id"] for pm in args["payment_methods"]],
            "bags": args["total_baggages"],
            "insurance": args["insurance"],
        }
        if args["nonfree_baggages"] != self._policy_nonfree(db, customer, fields):
            fields["paid_bags"] = args["nonfree_baggages"]
        return fields

    def _build(self, db: DB, customer: str, f: dict[str, Any]) -> dict[str, Any] | None:
        user = db.user(customer)
        pax = len(f["passengers"])
        prices = [_price(db, seg, f["cabin"]) for seg in f["flights"]]
        if any(p is None for p in prices):
            return None  # a segment is not bookable: the tool would refuse
        nonfree = f.get("paid_bags", self._policy_nonfree(db, customer, f))
        total = sum(prices) * pax + (30 * pax if f["insurance"] == "yes" else 0) + 50 * nonfree
        methods, remaining = [], total
        for i, pid in enumerate(f["payment"]):
            pm = user["payment_methods"].get(pid)
            if pm is None:
                return None
            last = i == len(f["payment"]) - 1
            amount = remaining if last or "amount" not in pm else min(pm["amount"], remaining)
            methods.append({"payment_id": pid, "amount": _num(amount)})
            remaining -= amount
        return {
            "user_id": customer,
            "origin": f["origin"],
            "destination": f["destination"],
            "flight_type": f["trip"],
            "cabin": f["cabin"],
            "flights": f["flights"],
            "passengers": f["passengers"],
            "payment_methods": methods,
            "total_baggages": f["bags"],
            "nonfree_baggages": nonfree,
            "insurance": f["insurance"],
        }

    def choices(self, given, db, customer, ctx=None):
        if "passengers" not in given:
            raise NotExecutable("not_enumerable", "book.passengers")
        if "flights" not in given:
            raise NotExecutable("not_enumerable", "book.flights")
        flights = db.table("flights")
        segs = given["flights"]
        airports = sorted({flights[s["flight_number"]]["destination"] for s in segs if s["flight_number"] in flights})
        first = flights.get(segs[0]["flight_number"], {}).get("origin")
        pools = [
            pick(given, "origin", [first] if first else []),
            pick(given, "destination", [a for a in airports if a != first]),
            pick(given, "trip", ("one_way", "round_trip")),
            pick(given, "cabin", CABINS),
            [segs],
            [given["passengers"]],
            pick(given, "payment", [[p] for p in db.payment_ids(customer)]),
            pick(given, "bags", range(0, 4)),
            pick(given, "insurance", ("yes", "no")),
        ]
        out = []
        for combo in cartesian(pools):
            chosen = dict(zip(self.fields, combo))
            if not within_bounds(given, measures(db, segs, (chosen["origin"], chosen["destination"]))):
                continue
            if "paid_bags" in given:
                chosen["paid_bags"] = given["paid_bags"]
            args = self._build(db, customer, chosen)
            if args is not None:
                out.append((args, chosen))
        return out

    def domain(self, field, given, db, customer):
        if field == "cabin":
            return others(CABINS, given.get("cabin"))
        if field == "insurance":
            return others(("yes", "no"), given.get("insurance"))
        if field in ("bags", "paid_bags"):
            return [b for b in (given[field] - 1, given[field] + 1) if b >= 0]
        if field == "payment":
            return [[p] for p in db.payment_ids(customer) if p not in given["payment"]]
        if field == "flights":
            return _itineraries(db, given["flights"], one_change=True)[:12]
        return []

    def contradicts(self, field, value, given):
        return bags_contradict(field, value, given)


class ChangeFlights(WriteKind):
    tool, label = "update_reservation_flights", "change_flights"
    fields = ("reservation", "cabin", "flights", "payment")

    def accepts(self, field):
        return field in self.fields or field in BOUND_FIELDS

    def ordered(self, field):
        return field == "cabin"

    def lift(self, args, db, customer, ctx=None):
        return {
            "reservation": args["reservation_id"],
            "cabin": args["cabin"],
            "flights": _segments(args["flights"]),
            "payment": args["payment_id"],
        }

    def choices(self, given, db, customer, ctx=None):
        out = []
        for rid in pick(given, "reservation", _user_reservations(db, customer)):
            res = find_reservation(db, rid)
            if res is None:
                continue
            itineraries = (
                [given["flights"]] if "flights" in given
                else _itineraries(db, _segments(res["flights"]), one_change=False)
            )
            ends = (res["origin"], res["destination"])
            itineraries = [i for i in itineraries if within_bounds(given, measures(db, i, ends))]
            for cabin, flights, pay in cartesian([pick(given, "cabin", CABINS), itineraries,
                                                  pick(given, "payment", db.payment_ids(customer))]):
                chosen = {"reservation": rid, "cabin": cabin, "flights": flights, "payment": pay}
                out.append(({"reservation_id": rid, "cabin": cabin, "flights": flights, "payment_id": pay}, chosen))
        return out

    def domain(self, field, given, db, customer):
        if field == "reservation":
            return others(_user_reservations(db, customer), given.get("reservation"))
        if field == "cabin":
            return others(CABINS, given.get("cabin"))
        if field == "payment":
            return others(db.payment_ids(customer), given.get("payment"))
        if field == "flights":
            return _itineraries(db, given["flights"], one_change=True)[:12]
        return []


class ChangeBags(WriteKind):
    """Bag changes; the paid-bag count follows the policy unless the task states otherwise."""

    tool, label = "update_reservation_baggages", "change_bags"
    fields = ("reservation", "bags", "payment", "paid_bags")

    def ordered(self, field):
        return field in ("bags", "paid_bags")

    @staticmethod
    def _free(db: DB, res: dict[str, Any], cabin_after: dict[str, str]) -> int:
        membership = db.user(res["user_id"])["membership"]
        cabin = cabin_after.get(res["reservation_id"], res["cabin"])
        return FREE_BAGS[membership][cabin] * len(res["passengers"])

    def lift(self, args, db, customer, ctx=None):
        res = find_reservation(db, args["reservation_id"])
        if res is None:
            raise LiftError(f"unknown reservation {args['reservation_id']}")
        fields = {"reservation": args["reservation_id"], "bags": args["total_baggages"], "payment": args["payment_id"]}
        if args["nonfree_baggages"] != max(0, args["total_baggages"] - self._free(db, res, (ctx or {}).get("cabin_after", {}))):
            fields["paid_bags"] = args["nonfree_baggages"]
        return fields

    def choices(self, given, db, customer, ctx=None):
        out = []
        cabin_after = (ctx or {}).get("cabin_after", {})
        for rid in pick(given, "reservation", _user_reservations(db, customer)):
            res = find_reservation(db, rid)
            if res is None:
                continue
            free = self._free(db, res, cabin_after)
            bag_pool = pick(given, "bags", range(res["total_baggages"], res["total_baggages"] + 4))
            for bags, pay in cartesian([bag_pool, pick(given, "payment", db.payment_ids(customer))]):
                paid = given.get("paid_bags", max(0, bags - free))
                args = {"reservation_id": rid, "total_baggages": bags, "nonfree_baggages": paid, "payment_id": pay}
                out.append((args, {"reservation": rid, "bags": bags, "payment": pay}))
        return out

    def domain(self, field, given, db, customer):
        if field == "reservation":
            return others(_user_reservations(db, customer), given.get("reservation"))
        if field in ("bags", "paid_bags"):
            return [b for b in (given[field] - 1, given[field] + 1) if b >= 0]
        if field == "payment":
            return others(db.payment_ids(customer), given.get("payment"))
        return []

    def contradicts(self, field, value, given):
        return bags_contradict(field, value, given)


class ChangePassengers(WriteKind):
    tool, label = "update_reservation_passengers", "change_passengers"
    fields = ("reservation", "passengers")

    def lift(self, args, db, customer, ctx=None):
        return {"reservation": args["reservation_id"], "passengers": args["passengers"]}

    def choices(self, given, db, customer, ctx=None):
        if "passengers" not in given:
            raise NotExecutable("not_enumerable", "change_passengers.passengers")
        return [
            ({"reservation_id": rid, "passengers": given["passengers"]}, {"reservation": rid, "passengers": given["passengers"]})
            for rid in pick(given, "reservation", _user_reservations(db, customer))
        ]

    def domain(self, field, given, db, customer):
        if field == "reservation":
            return others(_user_reservations(db, customer), given.get("reservation"))
        return []


class CancelReservation(WriteKind):
    tool, label, fields = "cancel_reservation", "cancel", ("reservation",)

    def lift(self, args, db, customer, ctx=None):
        return {"reservation": args["reservation_id"]}

    def choices(self, given, db, customer, ctx=None):
        return [({"reservation_id": r}, {"reservation": r}) for r in pick(given, "reservation", _user_reservations(db, customer))]

    def domain(self, field, given, db, customer):
        return others(_user_reservations(db, customer), given.get("reservation")) if field == "reservation" else []


class Certificate(WriteKind):
    tool, label, fields = "send_certificate", "certificate", ("amount",)

    def ordered(self, field):
        return True

    def lift(self, args, db, customer, ctx=None):
        return {"amount": args["amount"]}

    def choices(self, given, db, customer, ctx=None):
        return [({"user_id": customer, "amount": a}, {"amount": a}) for a in pick(given, "amount", CERTIFICATE_AMOUNTS)]

    def domain(self, field, given, db, customer):
        return [a for a in (given["amount"] - 50, given["amount"] + 50) if a > 0] if field == "amount" else []


AIRLINE_KINDS: tuple[WriteKind, ...] = (
    Book(), ChangeFlights(), ChangeBags(), ChangePassengers(), CancelReservation(), Certificate(),
)
