"""How a tau2 customer speaks, as the adapter's side of the writer's cards: the context line,
the request, each requirement's name and spoken value, the extras a customer volunteers and
the sibling writes a customer may wrongly ask for.

The vocabulary itself (request phrases, field names, spoken payments, addresses, flights) is
in :mod:`miscue.adapters.tau2.words`; this mixin puts it together per intent over the database.
"""

from __future__ import annotations

from typing import Any

from miscue.adapters.tau2 import words
from miscue.adapters.tau2.domains import tau2_domains, tau2_value_ids
from miscue.adapters.tau2.airline import STOPS, find_reservation, measures
from miscue.adapters.tau2.kinds import DB, NO_TOOL
from miscue.adapters.tau2.retail import describe_line, find_order, known_addresses, resolve_items, words_address
from miscue.adapters.tau2.variants import PRICE
from miscue.briefs import Act, Identity, Role
from miscue.host import Extra, Limit, Mismatch
from miscue.language import Domains
from miscue.schema import Condition, Intent


BOUND_WORDS = {">=": "or above", "<=": "or below"}

_ACT_KINDS = {("retail", "cancel"): "cancel", ("retail", "return"): "return", ("retail", "exchange"): "exchange",
              ("retail", "modify_items"): "modify_items", ("retail", "modify_address"): "modify_address",
              ("retail", "modify_payment"): "modify_payment", ("retail", "user_address"): "update_address",
              ("airline", "book"): "book", ("airline", "change_flights"): "change_flights",
              ("airline", "change_bags"): "change_bags", ("airline", "change_passengers"): "change_passengers",
              ("airline", "cancel"): "cancel_reservation", ("airline", "certificate"): "compensation"}
_ROLE_KINDS = {"order", "reservation", "items", "payment", "reason", "address", "cabin", "flights", "passengers", "bags",
               "paid_bags", "insurance", "trip", "origin", "destination", "amount"}


def _held_to(option: str, value: Any) -> str:
    """How a customer holds a new item to an option value ("it has to be the 8-inch one")."""
    v = str(value)
    if option in ("color", "colour"):
        return f"it has to be {v}"
    if any(ch.isdigit() for ch in v):
        return f"it has to be the {v} one"
    return f"it has to have {option} {v}"


#: the times a customer may hold new flights to, as the form names them (hours after midnight, as the
#: host's schedule gives them; a minute is the step of a strict bound), and the longest connection
FLIGHT_TIMES = {
    "out_departs": ("the time the outbound flights leave, in hours after midnight (9:30 am is 9.5)", 1 / 60),
    "out_arrives": ("the time the outbound flights land, in hours after midnight (9:30 pm is 21.5)", 1 / 60),
    "back_departs": ("the time the return flights leave, in hours after midnight", 1 / 60),
    "back_arrives": ("the time the return flights land, in hours after midnight", 1 / 60),
    "connection": ("the longest connection between the new flights, in minutes", 1.0),
}


class Tau2Speech:
    """The domain's words of :class:`miscue.adapters.tau2.adapter.Tau2Adapter` (a mixin)."""

    db: DB
    domain_name: str

    def _user(self, intent: Intent) -> dict[str, Any]:
        return self.db.raw["users"].get(intent.base.get("customer", ""), {})

    def context_line(self, intent: Intent) -> str:
        name = self._user(intent).get("name", {})
        who = f"{name.get('first_name', '')} {name.get('last_name', '')}".strip() or "a customer"
        if self.domain_name == "retail":
            return f"You are {who}, a customer of an online store, talking to its customer-support agent."
        return f"You are {who}, a customer of an airline, talking to its reservation agent."

    def identity(self, intent: Intent) -> Identity | None:
        """How tau2 users identify themselves to the agent, as the host's user simulator does:
        retail customers by name and zip code or by email, airline customers by user id."""
        user = self._user(intent)
        if not user:
            return None
        name = user.get("name", {})
        full = f"{name.get('first_name', '')} {name.get('last_name', '')}".strip()
        if self.domain_name == "retail":
            facts = {"zip": str(user.get("address", {}).get("zip", "")), "email": str(user.get("email", ""))}
            ways = [["name", "zip"], ["name", "zip"], ["email"], ["name", "email"]]
        else:
            facts = {"user id": str(user.get("user_id", ""))}
            ways = [["user id"], ["user id"], ["name", "user id"]]
        facts = {k: v for k, v in facts.items() if v}
        ways = [w for w in ways if all(k == "name" and full or k in facts for k in w)]
        return Identity(name=full, facts=facts, ways=ways) if ways else None

    def current_value(self, intent: Intent, slot: str) -> Any:
        """The option of the order line being exchanged or modified, the reservation's cabin or
        bag count (None for anything else)."""
        label, _, field = slot.partition(".")
        head, _, option = field.partition(".")
        if option and head.startswith("item"):
            order_c, items_c = intent.condition(f"{label}.order"), intent.condition(f"{label}.items")
            order = find_order(self.db, order_c.value) if order_c else None
            if order is None or items_c is None:
                return None
            resolved = resolve_items(order, items_c.value)
            j = int(head[4:])
            if len(resolved) != 1 or j > len(resolved[0]):
                return None
            line = next((x for x in order["items"] if x["item_id"] == resolved[0][j - 1]), None)
            return line["options"].get(option) if line else None
        if field in ("cabin", "bags"):
            res_c = intent.condition(f"{label}.reservation")
            res = find_reservation(self.db, res_c.value) if res_c else None
            if res is None:
                return None
            return res.get("cabin") if field == "cabin" else res.get("total_baggages")
        return None

    def acts(self, intent: Intent) -> list[Act]:
        out = []
        for label in intent.base.get("request", []):
            base = label.split("#")[0]
            kind = _ACT_KINDS.get((self.domain_name, base), "")
            out.append(Act(label=label, kind=kind, say=self._request_words(label)))
        return out

    def role(self, intent: Intent, slot: str) -> Role:
        label, _, field = slot.partition(".")
        head, _, option = field.partition(".")
        if option and head.startswith("item"):
            j = int(head[4:])
            return Role(kind="option", noun=option, of=self._item_product(intent, label, j), part=j - 1, act=label)
        kind = field if field in _ROLE_KINDS else ""
        noun = {"payment": "refund method" if label.split("#")[0] == "return" else "payment method", "bags": "checked bags",
                "paid_bags": "paid bags", "trip": "trip type", "origin": "departure airport", "destination": "destination",
                "amount": "certificate amount"}.get(field, field.replace("_", " "))
        return Role(kind=kind, noun=noun, act=label)

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
        cond = intent.condition(f"{label}.items")
        # lines the requirements leave unnamed (the new items pin them): the ones every reading takes
        items = cond.value if cond is not None else self.resolved(intent, f"{label}.items")  # type: ignore[attr-defined]
        if items and j <= len(items):
            return items[j - 1]["product"].lower()
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
        return f"{phrase} to {verb}" if "#" not in label else f"{phrase} to {verb} ({words.ordinal(label)})"

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
        head, _, option = field.partition(".")
        if option == PRICE and head.startswith("item"):
            return {"lowest": "the cheapest one", "highest": "the most expensive one"}.get(str(value), str(value))
        bound = next((c.op for c in intent.conditions if c.slot == slot and c.op in BOUND_WORDS and c.value == value), None)
        return f"{value} {BOUND_WORDS[bound]}" if bound else str(value)

    def value_domains(self, intent: Intent) -> Domains:
        """Every requirement's legal values with the ways customers say them (DESIGN 6a;
        :mod:`miscue.adapters.tau2.domains`)."""
        return tau2_domains(self, intent)

    def value_ids(self, intent: Intent) -> dict[str, dict[str, tuple[str, ...]]]:
        return tau2_value_ids(self, intent)

    def extras(self, intent: Intent) -> list[Extra]:
        """Unneeded details a customer volunteers that, taken literally, change the database."""
        labels = list(intent.base.get("request", []))
        out: list[Extra] = []
        if self.domain_name == "retail" and "user_address" not in labels:
            user = self._user(intent)
            known = [a for a in known_addresses(self.db, intent.base["customer"]) if a != words_address(user)]
            home = user.get("address", {})
            moved = known[0] if known else {"address1": "17 Harbor Lane", "address2": "", "city": home.get("city", "Springfield"),
                                             "state": home.get("state", "IL"), "country": "USA", "zip": home.get("zip", "62701")}
            reading = intent.replace(base={**intent.base, "request": labels + ["user_address"]},
                                     conditions=list(intent.conditions) + [Condition(slot="user_address.address", value=moved)])
            out.append(Extra(f"by the way, I now live at {words.spoken_address(moved)}", reading,
                             act=f"set the default address on the account to {words.spoken_address(moved)}"))
        if self.domain_name == "retail":
            out += self._option_extras(intent)
        if self.domain_name == "airline" and "change_bags" not in labels:
            out += self._bag_extras(intent, labels)
        return out

    def _free_options(self, intent: Intent) -> list[tuple[str, str, int, str, Any]]:
        """The options of the new items that no requirement names, as (slot, label, item number,
        option, the value the truth takes), in slot order."""
        truth = self.ground_truth(intent)  # type: ignore[attr-defined]
        chosen = next(iter(self.witnesses(intent, truth)), {})  # type: ignore[attr-defined]
        out = []
        for key, value in sorted(chosen.items()):
            label, _, field = key.partition(".")
            head, _, option = field.partition(".")
            if head.startswith("item") and option and option != PRICE and not any(
                    c.slot.startswith(key) for c in intent.conditions):
                out.append((key, label, int(head[4:]), option, value))
        return out

    def _option_extras(self, intent: Intent) -> list[Extra]:
        """An option of a new item that no requirement names, said as a condition ("only the one
        that runs on batteries"): read literally, another variant (or the cheapest of others) is
        taken. Values the old item has, or that say a requirement, would describe those instead."""
        truth = self.ground_truth(intent)  # type: ignore[attr-defined]
        said = {str(c.value).lower() for c in intent.conditions}
        out: list[Extra] = []
        for key, label, j, option, value in self._free_options(intent):
            old = self._old_line(intent, label, j)
            for other in self.domain(intent, key):  # type: ignore[attr-defined]
                if other == value or str(other).lower() in said or old.get(option) == other:
                    continue
                reading = intent.with_condition(Condition(slot=key, value=other))
                narrowed = self.ground_truth(reading)  # type: ignore[attr-defined]
                if not narrowed.empty and narrowed.hash != truth.hash:
                    out.append(Extra(_held_to(option, other), reading))
        return out

    def _old_line(self, intent: Intent, label: str, j: int) -> dict[str, Any]:
        """The options of the order line a new item replaces (empty when it is not one line)."""
        order = find_order(self.db, self.order_id(intent, label) or "")
        descs = self.resolved(intent, f"{label}.items")  # type: ignore[attr-defined]
        if order is None or not descs:
            return {}
        sets = resolve_items(order, descs)
        if len(sets) != 1 or j > len(sets[0]):
            return {}
        return next((x["options"] for x in order["items"] if x["item_id"] == sets[0][j - 1]), {})

    def _bag_extras(self, intent: Intent, labels: list[str]) -> list[Extra]:
        """One more checked bag on each open reservation the request is about: the customer
        volunteers it, read literally it adds a baggage update. Named by id when the request
        is about several reservations ("on that trip" would not say which)."""
        rids = list(dict.fromkeys(r for lab in labels if (r := self.resolved(intent, f"{lab}.reservation"))))  # type: ignore[attr-defined]
        pays = self.db.payment_ids(intent.base["customer"])
        pay = next((p for kind in ("credit_card", "gift_card") for p in pays if p.startswith(kind)), None)
        out: list[Extra] = []
        for rid in rids if pay else []:
            res = find_reservation(self.db, rid)
            if res is None or res.get("status") == "cancelled":
                continue
            bags = res["total_baggages"] + 1
            reading = intent.replace(
                base={**intent.base, "request": labels + ["change_bags"]},
                conditions=list(intent.conditions) + [
                    Condition(slot="change_bags.reservation", value=res["reservation_id"]),
                    Condition(slot="change_bags.bags", value=bags),
                    Condition(slot="change_bags.payment", value=pay)],
            )
            said = self.spoken_value(intent, "change_bags.bags", bags)
            where = f"on {rid}" if len(rids) > 1 else "on that trip"
            out.append(Extra(f"I will be travelling with {said} {where}", reading,
                             act=f"add one checked bag to reservation {rid}"))
        return out

    def additions(self, intent: Intent) -> list[Extra]:
        """What else a customer may ask done besides the request, as the reading form lists it:
        the extras that ask it, and further writes no writer is given -- another pending order or
        open reservation of the customer cancelled, an order's new address made the account's
        default too, an airline refund sent elsewhere than it was paid from (no tool does: it
        reaches nothing)."""
        labels = list(intent.base.get("request", []))
        out = [e for e in self.extras(intent) if e.act]

        def also(label: str, conds: list[Condition], act: str) -> None:
            n = 1 + sum(lab.split("#")[0] == label for lab in labels)
            fresh = label if n == 1 else f"{label}#{n}"
            renamed = [Condition(slot=f"{fresh}.{c.slot.partition('.')[2]}", value=c.value) for c in conds]
            reading = intent.replace(base={**intent.base, "request": labels + [fresh]},
                                     conditions=list(intent.conditions) + renamed)
            if all(e.act != act for e in out):
                out.append(Extra(act, reading, act=act))

        customer = intent.base["customer"]
        if self.domain_name == "retail":
            touched = {self.order_id(intent, lab) for lab in labels}
            for lab in labels:
                moved = self.resolved(intent, f"{lab}.address") if lab.split("#")[0] == "modify_address" else None  # type: ignore[attr-defined]
                if moved and "user_address" not in labels:
                    also("user_address", [Condition(slot="user_address.address", value=moved)],
                         f"set the default address on the account to {words.spoken_address(moved)}")
            for oid in self.db.user(customer)["orders"]:
                order = find_order(self.db, oid)
                if order is not None and order.get("status") == "pending" and oid not in touched:
                    also("cancel", [Condition(slot="cancel.order", value=oid),
                                    Condition(slot="cancel.reason", value="no longer needed")], f"cancel order {oid}")
        if self.domain_name == "airline":
            touched = {self.resolved(intent, f"{lab}.reservation") for lab in labels}  # type: ignore[attr-defined]
            for rid in self.db.user(customer)["reservations"]:
                res = find_reservation(self.db, rid)
                if res is not None and res.get("status") != "cancelled" and rid not in touched:
                    also("cancel", [Condition(slot="cancel.reservation", value=rid)], f"cancel reservation {rid}")
            if any(lab.split("#")[0] == "cancel" for lab in labels):
                also(NO_TOOL + "refund_elsewhere", [], "send the refund to another payment method than the one paid with")
        return out

    def limits(self, intent: Intent) -> list[Limit]:
        """Details a customer may hold the request to ("as long as it is under $150", "it has to
        be nonstop", "only if it comes in silver"): the price of each new item of an exchange or a
        pending-order change (in dollars) and each of its options no requirement names, the price
        each returned item was bought at, and the stops, times and connections of flights booked or
        changed to."""
        labels = list(intent.base.get("request", []))
        out: list[Limit] = []
        for label in labels:
            base = label.split("#")[0]
            if base in ("exchange", "modify_items"):
                cond = intent.condition(f"{label}.items")
                items = cond.value if cond is not None else self.resolved(intent, f"{label}.items") or []  # type: ignore[attr-defined]
                for j in range(1, len(items) + 1):
                    product = self._item_product(intent, label, j)
                    out.append(Limit(f"the price of the new {product} in dollars", f"{label}.item{j}.{PRICE}", 0.01))
            elif base == "return":
                out.append(Limit("the price of each returned item in dollars", f"{label}.{PRICE}", 0.01))
            elif base in ("book", "change_flights"):
                rid = self.resolved(intent, f"{label}.reservation") if base == "change_flights" else None  # type: ignore[attr-defined]
                whose = f" of reservation {rid}" if rid and sum(lab.split("#")[0] == base for lab in labels) > 1 else ""
                out.append(Limit(f"the number of stops each way on the new flights{whose}", f"{label}.{STOPS}"))
                measured = self._flight_measures(intent, label, base)
                out += [Limit(f"{name}{whose}", f"{label}.{key}", step)
                        for key, (name, step) in FLIGHT_TIMES.items() if key in measured]
        if any(lab.split("#")[0] in ("exchange", "modify_items") for lab in labels):
            out += self._option_limits(intent)
        names = [x.name for x in out]
        return [x for x in out if names.count(x.name) == 1]  # a name that says two limits says neither

    def _flight_measures(self, intent: Intent, label: str, base: str) -> set[str]:
        """The measures the true new flights have (no return: no return times)."""
        segments = self.resolved(intent, f"{label}.flights")  # type: ignore[attr-defined]
        if base == "book":
            ends = (self.resolved(intent, f"{label}.origin"), self.resolved(intent, f"{label}.destination"))  # type: ignore[attr-defined]
        else:
            res = find_reservation(self.db, self.resolved(intent, f"{label}.reservation") or "")  # type: ignore[attr-defined]
            ends = (res["origin"], res["destination"]) if res else (None, None)
        return set(measures(self.db, segments, ends)) if segments else set()

    def _option_limits(self, intent: Intent) -> list[Limit]:
        """Each option of a new item that no requirement names, with its legal values."""
        out: list[Limit] = []
        for key, label, j, option, value in self._free_options(intent):
            values = list(dict.fromkeys([value, *self.domain(intent, key)]))  # type: ignore[attr-defined]
            if len(values) > 1:
                out.append(Limit(f"the {option} of the new {self._item_product(intent, label, j)}", key,
                                 values=tuple((str(v), v) for v in values)))
        return out

    def order_id(self, intent: Intent, label: str) -> str | None:
        """The order a retail write is on: its condition, or the one order its items describe."""
        return self.resolved(intent, f"{label}.order")  # type: ignore[attr-defined]

    def mismatches(self, intent: Intent) -> list[Mismatch]:
        """The request made through the wrong instrument: a sibling write the environment refuses
        for this order or reservation, or that ends in another state, or an operation no tool of
        the host performs (its reading names a request no write kind has: it reaches nothing)."""
        labels = list(intent.base.get("request", []))
        out: list[Mismatch] = []
        for i, label in enumerate(labels):
            for phrase, sibling, conds in self._wrong_instruments(intent, label):
                if sibling in labels or any(m.phrase == phrase for m in out):  # one reading per phrase
                    continue
                rest = [c for c in intent.conditions if c.slot.partition(".")[0] != label]
                reading = intent.replace(base={**intent.base, "request": labels[:i] + [sibling] + labels[i + 1:]},
                                         conditions=rest + conds)
                out.append(Mismatch(phrase, reading))
        return out

    def _wrong_instruments(self, intent: Intent, label: str) -> list[tuple[str, str, list[Condition]]]:
        """(how a customer asks, the sibling request, its conditions) for each wrong instrument of
        one write, the likeliest first: a reservation cancelled (or only some of its flights, which no
        tool does) to be booked again, an item returned
        to be bought again (a pending order's too, which the store refuses), a pending order
        cancelled (to be placed again with its new items, address or payment), passengers taken off a
        reservation instead of cancelling it. "exchange" is not one for a pending order's items:
        tau2's own customers say it."""
        base = label.split("#")[0]
        mine = [c for c in intent.conditions if c.slot.partition(".")[0] == label]
        if self.domain_name == "airline":
            rid = self.resolved(intent, f"{label}.reservation")  # type: ignore[attr-defined]
            cancel = [(f"cancel reservation {rid}", "cancel", [Condition(slot="cancel.reservation", value=rid)])] if rid else []
            if base == "certificate":
                return [("refund the compensation to a card", NO_TOOL + "refund_compensation", [])]
            if base == "change_passengers" and rid:
                return [("edit the saved passenger profiles on the account", NO_TOOL + "edit_saved_passengers", []), *cancel,
                        (f"take a passenger off reservation {rid} and add another", NO_TOOL + "remove_and_add_passenger", [])]
            if base == "cancel" and rid:  # no tool takes the passengers off a reservation
                return [(f"remove the passengers from reservation {rid}", NO_TOOL + "remove_passengers", [])]
            if base == "change_flights" and rid:  # no tool cancels part of a reservation to book that part again
                return [*cancel, (f"cancel some of the flights of reservation {rid}", NO_TOOL + "cancel_some_flights", [])]
            return cancel if base == "change_bags" else []
        oid = self.order_id(intent, label)
        order = find_order(self.db, oid) if oid else None
        if order is None:
            return []
        returned: list[tuple[str, str, list[Condition]]] = []
        if base in ("exchange", "modify_items"):  # the items returned, to be bought again
            items = intent.condition(f"{label}.items")
            lines = items.value if items is not None else self.resolved(intent, f"{label}.items")  # type: ignore[attr-defined]
            paid = intent.condition(f"{label}.payment")
            refund = paid.value if paid is not None else order["payment_history"][0]["payment_method_id"]
            returned = [(f"return the items of order {oid}", "return", [
                Condition(slot="return.order", value=oid), Condition(slot="return.items", value=lines),
                Condition(slot="return.payment", value=refund)])] if lines else []
        if base == "exchange":
            return [(f"change the items of order {oid}", "modify_items",
                     [Condition(slot=f"modify_items.{c.slot.partition('.')[2]}", op=c.op, value=c.value) for c in mine]),
                    *returned]
        cancel = [(f"cancel order {oid}", "cancel", [Condition(slot="cancel.order", value=oid),
                                                    Condition(slot="cancel.reason", value="no longer needed")])]
        if base == "modify_items":  # no tool cancels one item of an order, or adds one
            return [*cancel, *returned, (f"cancel an item of order {oid} and add another to it", NO_TOOL + "swap_one_item", [])]
        if base in ("return", "modify_payment"):
            return cancel
        if base == "cancel":
            lines = [describe_line(x, order["items"]) for x in order["items"]]
            return [(f"return order {oid}", "return", [
                Condition(slot="return.order", value=oid), Condition(slot="return.items", value=lines),
                Condition(slot="return.payment", value=order["payment_history"][0]["payment_method_id"])])]
        if base == "modify_address" and (to := intent.condition(f"{label}.address")) is not None:
            return [("change the default address on the account", "user_address",
                     [Condition(slot="user_address.address", value=to.value)]), *cancel]
        return []
