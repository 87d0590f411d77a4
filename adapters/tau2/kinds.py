"""The write-kind framework: how one tau2 write tool is lifted to user-level conditions and
compiled back to every concrete tool call that satisfies them.

A :class:`WriteKind` turns a golden write's arguments into the field values a user would state
(``lift``) and enumerates every argument set satisfying the fields given (``choices``), over
:class:`DB`, read-only lookups of the pristine db.json. The retail kinds live in
:mod:`miscue.adapters.tau2.retail`, the airline kinds in :mod:`miscue.adapters.tau2.airline`.
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Iterable

from miscue.adapters.tau2.exec import ToolCall
from miscue.canonical import canonical_json
from miscue.host import NotExecutable

#: the request label of an operation a customer may ask for that no tau2 tool performs (a wrong
#: instrument): it compiles to no recipe, so executing it reaches nothing
NO_TOOL = "no_tool:"


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


#: the most concrete argument sets one write's enumeration may hold: far above what a request
#: compiles to (``MAX_RECIPES`` in :mod:`miscue.adapters.tau2.adapter`, counted after the
#: airline policy filters), low enough that a reading leaving several fields open (a composite's
#: merged reading: two requirements dropped) is refused instead of enumerated into gigabytes
MAX_CHOICES = 4096


def too_many(count: int) -> NotExecutable:
    return NotExecutable("too_many_readings", f"{count} or more concrete argument sets (more than {MAX_CHOICES})")


def cartesian(choices_per_field: list[list[Any]]) -> Iterable[tuple[Any, ...]]:
    """Every combination of the fields' choices; :class:`NotExecutable` (``too_many_readings``)
    when there would be more than :data:`MAX_CHOICES`, before any is made."""
    count = 1
    for pool in choices_per_field:
        count *= len(pool)
    if count > MAX_CHOICES:
        raise too_many(count)
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

    def contradicts(self, field: str, value: Any, given: dict[str, Any]) -> bool:
        """``value`` for ``field`` contradicts another of the write's ``given`` fields."""
        return False

    def accepts(self, field: str) -> bool:
        return field in self.fields

    def ordered(self, field: str) -> bool:
        return False


def pick(given: dict[str, Any], field: str, options: Iterable[Any]) -> list[Any]:
    return [given[field]] if field in given else list(options)


def others(values: Iterable[Any], current: Any) -> list[Any]:
    cur = canonical_json(current)
    out, seen = [], {cur}
    for v in values:
        key = canonical_json(v)
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out
