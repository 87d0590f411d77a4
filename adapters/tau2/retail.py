"""The retail write kinds: cancel, return, exchange and modify-items, the order address and
payment, and the user's default address.

Users name orders, products and the option values that pick a new item (never item ids); an
order line is described by its product name plus the fewest options that tell it from the
order's other lines of the same product.
"""

from __future__ import annotations

import itertools
from typing import Any, Iterable

from miscue.adapters.tau2.kinds import MAX_CHOICES, DB, Choice, LiftError, WriteKind, cartesian, others, pick, too_many
from miscue.adapters.tau2.variants import BOUND_OPS, PRICE, PRICE_ORDERS, ItemSpec, item_specs, parse_field, select
from miscue.host import NotExecutable

CANCEL_REASONS = ("no longer needed", "ordered by mistake")
ADDRESS_FIELDS = ("address1", "address2", "city", "state", "country", "zip")


def _address(d: dict[str, Any]) -> dict[str, Any]:
    return {k: d[k] for k in ADDRESS_FIELDS}


def known_addresses(db: DB, customer: str) -> list[dict[str, Any]]:
    user = db.user(customer)
    found = [_address(user["address"])]
    for oid in user["orders"]:
        found.append(_address(db.table("orders")[oid]["address"]))
    return others(found, None)


def words_address(user: dict[str, Any]) -> dict[str, Any] | None:
    return _address(user["address"]) if user.get("address") else None


def user_orders(db: DB, customer: str) -> list[str]:
    return list(db.user(customer)["orders"])


def find_order(db: DB, order_id: str) -> dict[str, Any] | None:
    return db.table("orders").get(order_id)


def order_of(db: DB, customer: str, given: dict[str, Any]) -> dict[str, Any] | None:
    """The order an items write is on: the one named, or else the one order of the customer whose
    lines the items describe (a customer names the tablet, not the order id)."""
    if "order" in given:
        return find_order(db, given["order"])
    if "items" not in given:
        return None
    found = [o for oid in user_orders(db, customer) if (o := find_order(db, oid)) and resolve_items(o, given["items"])]
    return found[0] if len(found) == 1 else None


def describe_line(line: dict[str, Any], lines: list[dict[str, Any]], prefer: Iterable[str] = ()) -> dict[str, Any]:
    """A product name, plus the fewest options that tell this line from same-product lines (the
    ``prefer``-red ones first: the options a customer's instructions name)."""
    rest = [x for x in lines if x["product_id"] == line["product_id"] and x["item_id"] != line["item_id"]]
    options: dict[str, Any] = {}
    first = set(prefer)
    for key in sorted(line["options"], key=lambda k: (k not in first, k)):
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


def resolve_items(order: dict[str, Any], descs: list[dict[str, Any]]) -> list[tuple[str, ...]]:
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


def variants_of(db: DB, product_id: str) -> dict[str, Any]:
    return db.table("products")[product_id]["variants"]


def _item_product(db: DB, item_id: str) -> str:
    for pid, product in db.table("products").items():
        if item_id in product["variants"]:
            return pid
    raise NotExecutable("unknown_item", item_id)


def _matching_variants(db: DB, product_id: str, wanted: dict[str, Any]) -> list[str]:
    return sorted(
        vid
        for vid, v in variants_of(db, product_id).items()
        if v["available"] and all(v["options"].get(k) == val for k, val in wanted.items())
    )


def _new_item_conditions(db: DB, old_line: dict[str, Any], new_id: str) -> dict[str, Any]:
    """The option values that pick ``new_id`` among the product's available variants."""
    pid = old_line["product_id"]
    variants = variants_of(db, pid)
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
            for o, r in cartesian([pick(given, "order", user_orders(db, customer)), pick(given, "reason", CANCEL_REASONS)])
        ]

    def domain(self, field, given, db, customer):
        if field == "order":
            return others(user_orders(db, customer), given.get("order"))
        if field == "reason":
            return others(CANCEL_REASONS, given.get("reason"))
        return []


class ModifyAddress(RetailKind):
    tool, label, fields = "modify_pending_order_address", "modify_address", ("order", "address")

    def lift(self, args, db, customer, ctx=None):
        return {"order": args["order_id"], "address": _address(args)}

    def choices(self, given, db, customer, ctx=None):
        return [
            ({"order_id": o, **a}, {"order": o, "address": a})
            for o, a in cartesian([pick(given, "order", user_orders(db, customer)),
                                   pick(given, "address", known_addresses(db, customer))])
        ]

    def domain(self, field, given, db, customer):
        if field == "order":
            return others(user_orders(db, customer), given.get("order"))
        if field == "address":
            return others(known_addresses(db, customer), given.get("address"))
        return []


class UserAddress(RetailKind):
    tool, label, fields = "modify_user_address", "user_address", ("address",)

    def lift(self, args, db, customer, ctx=None):
        return {"address": _address(args)}

    def choices(self, given, db, customer, ctx=None):
        return [({"user_id": customer, **a}, {"address": a}) for a in pick(given, "address", known_addresses(db, customer))]

    def domain(self, field, given, db, customer):
        return others(known_addresses(db, customer), given.get("address")) if field == "address" else []


class ModifyPayment(RetailKind):
    tool, label, fields = "modify_pending_order_payment", "modify_payment", ("order", "payment")

    def lift(self, args, db, customer, ctx=None):
        return {"order": args["order_id"], "payment": args["payment_method_id"]}

    def choices(self, given, db, customer, ctx=None):
        return [
            ({"order_id": o, "payment_method_id": p}, {"order": o, "payment": p})
            for o, p in cartesian([pick(given, "order", user_orders(db, customer)),
                                   pick(given, "payment", db.payment_ids(customer))])
        ]

    def domain(self, field, given, db, customer):
        if field == "order":
            return others(user_orders(db, customer), given.get("order"))
        if field == "payment":
            return others(db.payment_ids(customer), given.get("payment"))
        return []


class ItemsKind(RetailKind):
    """Writes on order lines: return, exchange and modify-items."""

    with_new_items = False
    fields = ("order", "items", "payment")

    def accepts(self, field):
        if field in self.fields:
            return True
        parsed = parse_field(field)
        if not self.with_new_items or parsed is None:
            return False
        return True

    @staticmethod
    def new_item_conditions(given: dict[str, Any]) -> dict[int, ItemSpec]:
        return item_specs(given)

    def lift(self, args, db, customer, ctx=None):
        order = find_order(db, args["order_id"])
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
            "items": [describe_line(line, order["items"]) for line in lines],
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
            return resolve_items(order, given["items"])
        wanted = self.new_item_conditions(given)
        subsets = _line_subsets(order, max(wanted) if wanted else None)
        if not self.order_matters:
            return subsets
        return sorted({p for s in subsets for p in itertools.permutations(s)})

    def choices(self, given, db, customer, ctx=None):
        out: list[Choice] = []
        wanted = self.new_item_conditions(given)
        for oid in pick(given, "order", user_orders(db, customer)):
            order = find_order(db, oid)
            if order is None:
                continue
            for item_ids in self._item_sets(order, given):
                lines = [next(x for x in order["items"] if x["item_id"] == iid) for iid in item_ids]
                descs = ([describe_line(x, order["items"]) for x in lines]
                         if "items" not in given or len(lines) != len(given["items"]) else given["items"])
                news: list[list[str]] = [[]]
                if self.with_new_items:
                    news = [
                        select(variants_of(db, line["product_id"]), wanted.get(j, ItemSpec()))
                        for j, line in enumerate(lines, start=1)
                    ]
                for payment in pick(given, "payment", db.payment_ids(customer)):
                    for new_ids in cartesian(news) if self.with_new_items else [()]:
                        args: dict[str, Any] = {"order_id": oid, "item_ids": list(item_ids)}
                        chosen: dict[str, Any] = {"order": oid, "items": descs, "payment": payment}
                        if self.with_new_items:
                            args["new_item_ids"] = list(new_ids)
                            for j, nid in enumerate(new_ids, start=1):
                                for opt, value in variants_of(db, lines[j - 1]["product_id"])[nid]["options"].items():
                                    chosen[f"item{j}.{opt}"] = value
                        args["payment_method_id"] = payment
                        out.append((args, chosen))
                        if len(out) > MAX_CHOICES:
                            raise too_many(len(out))
        return out

    def domain(self, field, given, db, customer):
        if field == "order":
            return others(user_orders(db, customer), given.get("order"))
        if field == "payment":
            return others(db.payment_ids(customer), given.get("payment"))
        order = order_of(db, customer, given)
        if order is None:
            return []
        if field == "items":
            current = given["items"]
            lines = order["items"]
            alts = []
            for pos in range(len(current)):
                for line in lines:
                    desc = describe_line(line, lines)
                    if desc in current:
                        continue
                    alts.append(current[:pos] + [desc] + current[pos + 1 :])
            return others(alts, current)
        parsed = parse_field(field)
        if parsed is None:
            return []
        j, opt, _ = parsed
        current = next((given[k] for k in (f"item{j}.{opt}", *(f"item{j}.{opt}{op}" for op in BOUND_OPS)) if k in given), None)
        if opt == PRICE:
            return others(PRICE_ORDERS, current)
        if "items" not in given or j > len(given["items"]):
            return []
        resolved = resolve_items(order, given["items"])
        if len(resolved) != 1:
            return []
        pid = _item_product(db, resolved[0][j - 1])
        values = sorted({v["options"][opt] for v in variants_of(db, pid).values() if v["available"] and opt in v["options"]})
        return others(values, current)


#: bounds on the price each returned line was bought at ("only the ones over $100"): a field of a return
RETURNED_PRICE = tuple(f"{PRICE}{op}" for op in BOUND_OPS)


class Return(ItemsKind):
    """A return; ``price<=`` / ``price>=`` keep only the named lines bought within the bound."""

    tool, label = "return_delivered_order_items", "return"

    def accepts(self, field):
        return field in RETURNED_PRICE or super().accepts(field)

    def _item_sets(self, order: dict[str, Any], given: dict[str, Any]) -> list[tuple[str, ...]]:
        bounds = [(field[len(PRICE):], given[field]) for field in RETURNED_PRICE if field in given]
        sets = super()._item_sets(order, given)
        if not bounds:
            return sets
        price = {x["item_id"]: x["price"] for x in order["items"]}
        kept = [tuple(i for i in ids if all(price[i] <= v if op == "<=" else price[i] >= v for op, v in bounds))
                for ids in sets]
        return [ids for ids in kept if ids]


class Exchange(ItemsKind):
    tool, label, with_new_items = "exchange_delivered_order_items", "exchange", True


class ModifyItems(ItemsKind):
    tool, label, with_new_items, order_matters = "modify_pending_order_items", "modify_items", True, True


RETAIL_KINDS: tuple[WriteKind, ...] = (Cancel(), ModifyAddress(), UserAddress(), ModifyPayment(), Return(), Exchange(),
                                       ModifyItems())
