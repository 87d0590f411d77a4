"""The records of WebShop's three files, checked as WebShop's ``load_products`` reads them.

Each check names the file, the record and the field of the first problem it finds
(:class:`~miscue.errors.HostDataError`); records WebShop itself skips (asin "nan" or longer
than 10 characters) are skipped here too.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple, Sequence

from miscue.host import HostDataError


def _fail(path: Path, where: str, field: str, problem: str) -> HostDataError:
    return HostDataError(f"{path}: {where}: field {field!r} {problem}")


def _want(path: Path, where: str, record: Any, field: str, kind: type | tuple[type, ...], optional: bool = False) -> Any:
    if not isinstance(record, dict):
        raise _fail(path, where, field, f"cannot be read: the record is a {type(record).__name__}, not an object")
    if field not in record:
        if optional:
            return None
        raise _fail(path, where, field, "is missing")
    value = record[field]
    if optional and value is None:
        return None
    if not isinstance(value, kind):
        names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise _fail(path, where, field, f"must be {names}, got {type(value).__name__}")
    return value


_NOT_PRICE = re.compile(r"[^\d.]")
#: the plain text fields of a product record, in the order they are checked
_TEXT_FIELDS = ("name", "query", "category", "product_category", "full_description")


def _parse_pricing(path: Path, where: str, raw: Any) -> tuple[float, ...]:
    """load_products: split on '$', strip everything but digits and dots; none -> [100.0].

    (``float`` of a digits-and-dots string is the correctly rounded value, as
    ``float(Decimal(...))`` is, and fails on the same strings.)
    """
    if raw is None or raw == "" or raw == []:
        return (100.0,)
    if not isinstance(raw, str):
        raise _fail(path, where, "pricing", f"must be a string like '$12.99', got {type(raw).__name__}")
    try:
        values = tuple(_price_part(part) for part in raw.split("$")[1:])
    except ValueError:
        raise _fail(path, where, "pricing", f"cannot be parsed as a price: {raw!r}") from None
    return values[:2]


def _price_part(part: str) -> float:
    digits = part.strip(" -")  # the common "12.99 - " needs no pattern
    if not digits.replace(".", "").isdecimal():
        digits = _NOT_PRICE.sub("", part)
    return float(digits)


def pinned_price(asin: str, pricing: Sequence[float]) -> float:
    """generate_product_prices, pinned: one price per product; a range draws once, seeded by asin."""
    if not pricing:
        return 100.0
    if len(pricing) == 1:
        return float(pricing[0])
    return round(random.Random(f"webshop-price:{asin}").uniform(pricing[0], pricing[1]), 2)


class RawProduct(NamedTuple):
    """A checked product record (a named tuple: one is built for every record of the file)."""

    asin: str
    name: str
    query: str
    category: str
    product_category: str
    bullets: tuple[str, ...]
    description: str
    options: dict[str, tuple[str, ...]]
    pricing: tuple[float, ...]


def check_product(path: Path, index: int | str, raw: Any) -> RawProduct | None:
    """One raw record as load_products reads it; None for records WebShop skips."""
    where = f"product #{index}"
    asin = _want(path, where, raw, "asin", str)
    if asin == "nan" or len(asin) > 10:
        return None
    where = f"product #{index} (asin {asin})"
    # the common case inline; _want only to name the first field that is wrong
    texts = [raw.get(f) for f in _TEXT_FIELDS]
    if not all(type(v) is str for v in texts):
        texts = [_want(path, where, raw, f, str) for f in _TEXT_FIELDS]
    name, query, category, product_category, description = texts
    small = _want(path, where, raw, "small_description", (list, str))
    bullets = [small] if isinstance(small, str) else small
    if not all(isinstance(b, str) for b in bullets):
        raise _fail(path, where, "small_description", "must hold only strings")
    if "customization_options" not in raw:
        raise _fail(path, where, "customization_options", "is missing (null when the product has none)")
    custom = _want(path, where, raw, "customization_options", dict, optional=True) or {}
    options: dict[str, tuple[str, ...]] = {}
    for opt_name, contents in custom.items():
        if contents is None:
            continue
        field = f"customization_options.{opt_name}"
        if not isinstance(contents, list):
            raise _fail(path, where, field, f"must be a list of {{'value', 'image'}} objects, got {type(contents).__name__}")
        values = [_clickable(v) for v in _option_values(path, where, field, contents)]
        if values:  # an option without values offers nothing to click: no choice to make
            options[opt_name.lower()] = tuple(values)
    pricing = _parse_pricing(path, where, raw.get("pricing"))
    return RawProduct(asin, name, query.lower().strip(), category, product_category, tuple(bullets), description, options,
                      pricing)


@lru_cache(maxsize=1 << 16)
def _clickable(value: str) -> str:
    """An option value as load_products keeps it: stripped, '/' -> ' | ', lower-cased."""
    return value.strip().replace("/", " | ").lower()


def _option_values(path: Path, where: str, field: str, contents: list) -> list[str]:
    """The ``value`` of every ``{"value", "image"}`` object of one option, as scraped."""
    try:
        values = [content["value"] for content in contents]  # the common case, in one pass
        if all(type(v) is str for v in values):
            return values
    except (TypeError, KeyError):
        pass
    for k, content in enumerate(contents):  # name the first entry that is wrong
        value = _want(path, where, content, "value", str) if isinstance(content, dict) else None
        if value is None:
            raise _fail(path, where, f"{field}[{k}].value", "must be a string")
    raise AssertionError("unreachable: some entry was wrong")


def check_attributes(path: Path, asin: str, value: Any) -> tuple[str, ...] | None:
    where = f"entry {asin!r}"
    if not isinstance(value, dict):
        raise _fail(path, where, "attributes", f"cannot be read: the entry is a {type(value).__name__}, not an object")
    if "attributes" not in value:
        return None
    attrs = value["attributes"]
    if not isinstance(attrs, list) or not all(isinstance(a, str) for a in attrs):
        raise _fail(path, where, "attributes", "must be a list of strings")
    return tuple(attrs)


def check_human(path: Path, data: Any) -> dict[str, list[tuple[str, tuple[str, ...], tuple[str, ...]]]]:
    if not isinstance(data, dict):
        raise _fail(path, "top level", "<root>", f"must be an object asin -> instructions, got {type(data).__name__}")
    out: dict[str, list[tuple[str, tuple[str, ...], tuple[str, ...]]]] = {}
    for asin, items in data.items():
        if not isinstance(items, list):
            raise _fail(path, f"asin {asin!r}", "<instructions>", f"must be a list, got {type(items).__name__}")
        rows = []
        for k, item in enumerate(items):
            where = f"asin {asin!r} instruction #{k}"
            text = _want(path, where, item, "instruction", str)
            fields = []
            for field in ("instruction_attributes", "instruction_options"):
                values = _want(path, where, item, field, list)
                if not all(isinstance(v, str) for v in values):
                    raise _fail(path, where, field, "must be a list of strings")
                fields.append(tuple(values))
            rows.append((text, fields[0], fields[1]))
        out[asin] = rows
    return out
