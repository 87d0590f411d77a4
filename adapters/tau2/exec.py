"""Executing tau2 tool-call recipes: tau2's own (naive) path and our fast path.

Naive path (the reference): a fresh environment from disk, replay, ``get_db_hash()`` over the
whole database (~130 ms retail, ~400 ms airline). The tool calls themselves take ~0.2 ms.

Fast path: one long-lived database whose top-level tables (``orders``, ``users``, ``flights`` …)
are dict subclasses that record every key a tool touches. After a replay, each touched entity
is serialised exactly as tau2 serialises it for its hash (``json.dumps(model_dump(),
sort_keys=True, default=str)``) and compared with its pristine serialisation; the state digest
is a hash of the canonical change set (changed, added and removed entities with their full
serialisation). Two replays end in the same database iff their change sets are equal, so every
equality decision matches the naive path (:func:`compare_paths` checks it: the suite on a sample
of the built graphs' recipes, perf/bench_fast_path_equivalence.py on two of every node).
Changed entities are then restored from the parsed pristine JSON.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Iterable, Iterator

from miscue.canonical import canonical_json, file_sha256
from miscue.errors import BadInput

# tau2 module paths per domain: environment module, DB class and the db.json path constant
_DOMAINS = {
    "retail": ("tau2.domains.retail.data_model", "RetailDB", "tau2.domains.retail.utils", "RETAIL_DB_PATH"),
    "airline": ("tau2.domains.airline.data_model", "FlightDB", "tau2.domains.airline.utils", "AIRLINE_DB_PATH"),
}


@contextlib.contextmanager
def _quiet_tau2() -> Iterator[None]:
    """Import tau2 without its DEBUG-level logging and without its ``load_dotenv()``.

    tau2 calls ``load_dotenv()`` at import time, which would load any ``.env`` found above the
    working directory into our process environment (provider keys included).
    """
    from loguru import logger

    logger.disable("tau2")
    import dotenv

    original = dotenv.load_dotenv
    dotenv.load_dotenv = lambda *args, **kwargs: False  # type: ignore[assignment]
    try:
        yield
    finally:
        dotenv.load_dotenv = original


def tau2_module(name: str) -> Any:
    with _quiet_tau2():
        return importlib.import_module(name)


def environment_module(domain: str) -> Any:
    if domain not in _DOMAINS:
        raise BadInput(f"unknown tau2 domain {domain!r}; known: {', '.join(sorted(_DOMAINS))}")
    return tau2_module(f"tau2.domains.{domain}.environment")


def db_path(domain: str) -> str:
    _, _, utils_mod, const = _DOMAINS[domain]
    return str(getattr(tau2_module(utils_mod), const))


def db_class(domain: str) -> Any:
    mod, cls, _, _ = _DOMAINS[domain]
    return getattr(tau2_module(mod), cls)


@dataclass(frozen=True)
class ToolCall:
    """One concrete tool call; ``args`` is the canonical JSON of its arguments (hashable)."""

    name: str
    args: str

    @classmethod
    def make(cls, name: str, arguments: dict[str, Any]) -> "ToolCall":
        return cls(name, canonical_json(arguments))

    @property
    def arguments(self) -> dict[str, Any]:
        return json.loads(self.args)

    def __str__(self) -> str:
        return f"{self.name}({self.args})"


@dataclass(frozen=True)
class Outcome:
    """The state a replay ends in and each call's error (None when the call succeeded)."""

    state: str
    errors: tuple[str | None, ...]

    @property
    def ok(self) -> bool:
        return all(e is None for e in self.errors)


def replay(env: Any, calls: tuple[ToolCall, ...]) -> tuple[str | None, ...]:
    """Replay calls as tau2 replays golden actions: each exception is swallowed and recorded."""
    errors: list[str | None] = []
    for call in calls:
        try:
            env.make_tool_call(call.name, requestor="assistant", **call.arguments)
            errors.append(None)
        except Exception as exc:  # tau2 swallows per-action exceptions during replay
            errors.append(f"{type(exc).__name__}: {exc}")
    return tuple(errors)


class NaiveExecutor:
    """tau2's own path: fresh environment from disk, replay, hash of the whole database."""

    def __init__(self, domain: str) -> None:
        self.domain = domain
        self._module = environment_module(domain)

    def run(self, calls: tuple[ToolCall, ...]) -> Outcome:
        env = self._module.get_environment()
        errors = replay(env, calls)
        return Outcome(env.get_db_hash(), errors)


class _TrackingTable(dict):
    """A top-level DB table that records every key through which an entity can be reached."""

    touched: set

    def _touch_all(self) -> None:
        self.touched.update(dict.keys(self))

    def __getitem__(self, key: Any) -> Any:
        self.touched.add(key)
        return dict.__getitem__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:
        self.touched.add(key)
        return dict.get(self, key, default)

    def __setitem__(self, key: Any, value: Any) -> None:
        self.touched.add(key)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: Any) -> None:
        self.touched.add(key)
        dict.__delitem__(self, key)

    def pop(self, key: Any, *default: Any) -> Any:
        self.touched.add(key)
        return dict.pop(self, key, *default)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        self.touched.add(key)
        return dict.setdefault(self, key, default)

    # anything that hands out entities in bulk marks them all (conservative, still exact)
    def values(self):  # type: ignore[override]
        self._touch_all()
        return dict.values(self)

    def items(self):  # type: ignore[override]
        self._touch_all()
        return dict.items(self)

    def __iter__(self):
        self._touch_all()
        return dict.__iter__(self)

    def copy(self) -> dict:
        self._touch_all()
        return dict(dict.items(self))

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._touch_all()
        before = set(dict.keys(self))
        dict.update(self, *args, **kwargs)
        self.touched.update(set(dict.keys(self)) - before)

    def popitem(self) -> Any:
        self._touch_all()
        return dict.popitem(self)

    def clear(self) -> None:
        self._touch_all()
        dict.clear(self)


def _serialise(entity: Any) -> str:
    # exactly how tau2 serialises the database for its hash (ToolKitBase.get_db_hash)
    return json.dumps(entity.model_dump(), sort_keys=True, default=str)


class FastExecutor:
    """Replays recipes on one long-lived database and digests only what changed."""

    def __init__(self, domain: str) -> None:
        self.domain = domain
        self.path = db_path(domain)
        with open(self.path, encoding="utf-8") as fh:
            # the parsed pristine db.json: never mutated (the adapter's lookups read it too)
            self.raw: dict[str, dict[str, Any]] = json.load(fh)
        self.db_sha256 = file_sha256(self.path)
        self.env_id = f"tau2-{domain}:{self.db_sha256[:12]}"
        db = db_class(domain).model_validate(self.raw)
        self._tables: dict[str, _TrackingTable] = {}
        self._entity_cls: dict[str, Any] = {}
        for name in type(db).model_fields:
            table = _TrackingTable(getattr(db, name))
            table.touched = set()
            db.__dict__[name] = table
            self._tables[name] = table
            self._entity_cls[name] = type(next(iter(dict.values(table))))
        self.db = db
        self.env = environment_module(domain).get_environment(db=db)
        self._pristine: dict[tuple[str, str], str | None] = {}

    def _pristine_fragment(self, table: str, key: str) -> str | None:
        ident = (table, key)
        if ident not in self._pristine:
            raw = self.raw[table].get(key)
            self._pristine[ident] = None if raw is None else _serialise(self._entity_cls[table].model_validate(raw))
        return self._pristine[ident]

    @cached_property
    def pristine_state(self) -> str:
        return self._digest([])

    def _digest(self, delta: list[list[Any]]) -> str:
        payload = canonical_json([self.env_id, delta]).encode("utf-8")
        return hashlib.sha256(payload).hexdigest()[:32]

    def run(self, calls: tuple[ToolCall, ...]) -> Outcome:
        for table in self._tables.values():
            table.touched.clear()
        errors = replay(self.env, calls)
        delta: list[list[Any]] = []
        for name, table in self._tables.items():
            touched = sorted(table.touched)
            table.touched.clear()
            for key in touched:
                current = _serialise(dict.__getitem__(table, key)) if dict.__contains__(table, key) else None
                pristine = self._pristine_fragment(name, key)
                if current == pristine:
                    continue
                delta.append([name, key, current])
                if pristine is None:
                    dict.__delitem__(table, key)
                else:
                    dict.__setitem__(table, key, self._entity_cls[name].model_validate(self.raw[name][key]))
        return Outcome(self._digest(delta), errors)

    def full_hash(self) -> str:
        """tau2's hash of the live database (used to prove the database is back to pristine)."""
        return self.env.get_db_hash()


@dataclass
class PathComparison:
    """The fast path checked against tau2's naive path on a set of recipes."""

    recipes: int = 0
    disagreements: list[str] = field(default_factory=list)
    naive_states: dict[tuple[ToolCall, ...], str] = field(default_factory=dict)  # each recipe's naive hash

    @property
    def ok(self) -> bool:
        return not self.disagreements


def compare_paths(domain: str, recipes: Iterable[tuple[ToolCall, ...]]) -> PathComparison:
    """Run every recipe both ways: the fast state digests must partition the recipes exactly as
    the naive hashes do, with identical per-call errors, and the database must end pristine."""
    fast, naive = FastExecutor(domain), NaiveExecutor(domain)
    out = PathComparison()
    fast_to_naive: dict[str, str] = {}
    naive_to_fast: dict[str, str] = {}
    for calls in ((), *recipes):  # the empty recipe: both paths' pristine states pair up
        out.recipes += 1
        f, n = fast.run(calls), naive.run(calls)
        out.naive_states[tuple(calls)] = n.state
        if f.errors != n.errors:
            out.disagreements.append(f"errors differ ({f.errors} vs {n.errors}): {calls}")
        if fast_to_naive.setdefault(f.state, n.state) != n.state:
            out.disagreements.append(f"fast merges two naive states: {calls}")
        if naive_to_fast.setdefault(n.state, f.state) != f.state:
            out.disagreements.append(f"fast splits one naive state: {calls}")
    pristine = naive.run(()).state
    if naive_to_fast[pristine] != fast.pristine_state:
        out.disagreements.append("the fast pristine state is not the naive one")
    if fast.full_hash() != pristine:
        out.disagreements.append("the fast database did not return to pristine")
    return out
