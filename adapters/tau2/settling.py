"""The tau2 side of settling a lifted intent into requirements (issue 16; :mod:`miscue.requirements`).

- :func:`expand`: every option of each new item the golden write picked (the settling keeps the
  ones a customer needs or states), and order lines described by the options the instructions name;
- :func:`keeps_current`: an option of a new item whose value the customer's current item has;
- :func:`preference`: "i7 or above" as a bound on an ordered option, "the cheapest" as the new
  item's price order (retail exchanges and pending-order changes); nothing else is executable.
"""

from __future__ import annotations

from typing import Any

from miscue.adapters.tau2.kinds import DB, WriteKind
from miscue.adapters.tau2.retail import ItemsKind, describe_line, order_of, resolve_items, variants_of
from miscue.adapters.tau2.variants import BOUND_OPS, PRICE, comparable, parse_field, select
from miscue.adapters.tau2.forms import option_forms
from miscue.canonical import canonical_json
from miscue.language import norm
from miscue.schema import Condition, Intent

Split = list[tuple[str, WriteKind, dict[str, Any]]]


def current_line(db: DB, customer: str, given: dict[str, Any], j: int) -> dict[str, Any] | None:
    """The order line the ``j``-th new item replaces (None: not one line)."""
    order = order_of(db, customer, given)
    if order is None or j > len(given.get("items", [])):
        return None
    resolved = {r[j - 1] for r in resolve_items(order, given["items"])}
    if len(resolved) != 1:
        return None
    return next(x for x in order["items"] if x["item_id"] in resolved)


def _said(text: str, forms: tuple[str, ...]) -> bool:
    padded = f" {norm(text)} "
    return any(f" {norm(f)} " in padded for f in forms if norm(f))


def expand(db: DB, customer: str, split: Split, intent: Intent, text: str) -> Intent:
    conds = {c.key: c for c in intent.conditions}
    for label, kind, given in split:
        if not isinstance(kind, ItemsKind):
            continue
        order = order_of(db, customer, given)
        items = given.get("items")
        if order is not None and items and any(d.get("options") for d in items):
            # an order line named by the options the instructions mention, where several tell it apart
            said = {k for x in order["items"] for k, v in x["options"].items() if _said(text, option_forms(k, v))}
            lines = [current_line(db, customer, given, j) for j in range(1, len(items) + 1)]
            if all(lines) and said:
                redescribed = [describe_line(x, order["items"], prefer=said) for x in lines]  # type: ignore[arg-type]
                old = intent.condition(f"{label}.items")
                if old is not None and redescribed != items:
                    conds.pop(old.key)
                    new = Condition(slot=f"{label}.items", value=redescribed)
                    conds[new.key] = new
        if not kind.with_new_items:
            continue
        for j, spec in kind.new_item_conditions(given).items():
            line = current_line(db, customer, given, j)
            if line is None:
                continue
            picked = select(variants_of(db, line["product_id"]), spec)
            if len(picked) != 1:
                continue
            options = variants_of(db, line["product_id"])[picked[0]]["options"]
            named = set(spec.exact) | set(spec.bounds)
            for option, value in sorted(options.items()):
                if option not in named:
                    c = Condition(slot=f"{label}.item{j}.{option}", value=value)
                    conds[c.key] = c
    return intent.replace(conditions=list(conds.values()))


def keeps_current(db: DB, customer: str, split: Split, slot: str) -> bool:
    label, _, field = slot.partition(".")
    parsed = parse_field(field)
    if parsed is None or parsed[2] != "=":
        return False
    for lab, kind, given in split:
        if lab == label and isinstance(kind, ItemsKind):
            line = current_line(db, customer, given, parsed[0])
            return line is not None and line["options"].get(parsed[1]) == given.get(field)
    return False


def preference(db: DB, customer: str, split: Split, intent: Intent, slot: str, kind_: str,
               values: tuple[str, ...]) -> Intent | None:
    label, _, field = slot.partition(".")
    entry = next(((k, g) for lab, k, g in split if lab == label), None)
    if entry is None or not isinstance(entry[0], ItemsKind) or not entry[0].with_new_items:
        return None
    given = entry[1]
    parsed = parse_field(field)
    if parsed is not None:
        j, option, op = parsed
    elif field == "items" and values:
        keys = [canonical_json(d) for d in given.get("items", [])]
        hits = [i for i, k in enumerate(keys, start=1) if k in values]
        if len(hits) != 1:
            return None
        j, option, op = hits[0], "", "="
    else:
        return None
    if kind_ in ("lowest", "highest"):
        return intent.with_condition(Condition(slot=f"{label}.item{j}.{PRICE}", value=kind_))
    cond = intent.condition(slot)
    line = current_line(db, customer, given, j)
    if kind_ not in ("at_least", "at_most") or not option or option == PRICE or op != "=" or cond is None or line is None:
        return None
    offered = sorted({v["options"][option] for v in variants_of(db, line["product_id"]).values() if option in v["options"]})
    if not comparable(offered):
        return None  # the option has no order the host can compare ("silver or above")
    bound = Condition(slot=slot, op=BOUND_OPS[0] if kind_ == "at_least" else BOUND_OPS[1], value=cond.value)
    return intent.replace(conditions=[c for c in intent.conditions if c.key != cond.key] + [bound])
