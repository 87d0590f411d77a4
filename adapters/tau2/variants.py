"""Which variants of a retail product a customer's words pick: exact option values, bounds on an
ordered option ("i7 or above", "at most 16GB") and the price order ("the cheapest").

A new item's conditions are fields of its write kind: ``item<j>.<option>`` (an exact value),
``item<j>.<option>>=`` / ``item<j>.<option><=`` (a bound on an ordered option) and
``item<j>.price`` = ``lowest`` | ``highest`` (the cheapest, or the most expensive, of the variants
the other conditions leave); ``item<j>.price<=`` / ``>=`` bound the price in dollars (a limit a
customer holds the new item to: "as long as it is under $150").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

PRICE = "price"  # the pseudo-option that picks a variant by its price
PRICE_ORDERS = ("lowest", "highest")
BOUND_OPS = (">=", "<=")
_LETTER_SIZES = {"XXS": 0.5, "XS": 1, "S": 2, "M": 3, "L": 4, "XL": 5, "XXL": 6, "XXXL": 7}
_UNIT = {"tb": 1000.0, "gb": 1.0, "mb": 0.001}
_NUMBER = re.compile(r"(\d+(?:\.\d+)?)\s*(tb|gb|mb)?", re.I)


def rank(value: Any) -> float | None:
    """A value's position on its option's order (letter sizes, numbers with their unit, "i7");
    None when it has none."""
    text = str(value).strip()
    if text.upper() in _LETTER_SIZES:
        return _LETTER_SIZES[text.upper()]
    m = _NUMBER.search(text)
    if m is None:
        return None
    return float(m.group(1)) * _UNIT.get((m.group(2) or "").lower(), 1.0)


def comparable(values: list[Any]) -> bool:
    """Every value has a rank, and the ranks tell them apart."""
    ranks = [rank(v) for v in values]
    return all(r is not None for r in ranks) and len(set(ranks)) == len(set(map(str, values)))


@dataclass
class ItemSpec:
    """What the conditions on one new item ask for."""

    exact: dict[str, Any] = field(default_factory=dict)
    bounds: dict[str, list[tuple[str, Any]]] = field(default_factory=dict)
    price: str | None = None

    @property
    def empty(self) -> bool:
        return not (self.exact or self.bounds or self.price)


def parse_field(field_name: str) -> tuple[int, str, str] | None:
    """``item2.processor>=`` -> (2, "processor", ">="); None when it is not a new-item field."""
    head, _, rest = field_name.partition(".")
    if not (head.startswith("item") and head[4:].isdigit() and rest):
        return None
    for op in BOUND_OPS:
        if rest.endswith(op):
            return int(head[4:]), rest[: -len(op)], op
    return int(head[4:]), rest, "="


def item_specs(given: dict[str, Any]) -> dict[int, ItemSpec]:
    out: dict[int, ItemSpec] = {}
    for name, value in given.items():
        parsed = parse_field(name)
        if parsed is None:
            continue
        j, option, op = parsed
        spec = out.setdefault(j, ItemSpec())
        if option == PRICE and op == "=":
            spec.price = value
        elif op == "=":
            spec.exact[option] = value
        else:
            spec.bounds.setdefault(option, []).append((op, value))
    return out


def _within(value: Any, op: str, bound: Any) -> bool:
    a, b = rank(value), rank(bound)
    if a is None or b is None:
        return False
    return a >= b if op == ">=" else a <= b


def _value(variant: dict[str, Any], option: str) -> Any:
    return variant["price"] if option == PRICE else variant["options"].get(option)


def select(variants: dict[str, Any], spec: ItemSpec) -> list[str]:
    """The available variants the spec picks (sorted ids)."""
    found = sorted(
        vid for vid, v in variants.items()
        if v["available"]
        and all(v["options"].get(k) == val for k, val in spec.exact.items())
        and all(_within(_value(v, k), op, b) for k, bs in spec.bounds.items() for op, b in bs)
    )
    if spec.price in PRICE_ORDERS and found:
        best = (min if spec.price == "lowest" else max)(variants[v]["price"] for v in found)
        found = [v for v in found if variants[v]["price"] == best]
    return found
