"""The adapter protocol: the only door between the host-agnostic core and a host benchmark.

An adapter is an explicit, typed class. Required capabilities are abstract methods; optional
capabilities have working defaults on the base class, so callers never probe with ``getattr``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Generic, Sequence, TypeVar

from miscue.briefs import Act, Identity, Role
from miscue.errors import BadInput, HostDataError, MiscueError
from miscue.grammar import Grounder, grammar
from miscue.language import Detail, Domains, LegalValue, SlotDomain
from miscue.requirements import Settled, settle
from miscue.schema import GroundTruth, Intent
from miscue.taxonomy import FAULT_TYPES, SlotFacts

__all__ = ["Adapter", "Extra", "FaultSupport", "HostDataError", "Mismatch", "NotExecutable", "Recipe", "Seed", "SeedCheck"]

Recipe = TypeVar("Recipe")


class NotExecutable(MiscueError):
    """An intent cannot be compiled to executable recipes (``code`` is a stable reason)."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail

    @property
    def refusal(self) -> bool:
        """The environment refuses the request (its policy forbids every way of doing it): an
        outcome of executing it, not a failure to execute it."""
        return self.code in REFUSALS


#: :class:`NotExecutable` codes that are the environment's refusal of the request
REFUSALS = frozenset({"policy"})


@dataclass(frozen=True)
class Seed:
    """One host task, as loaded; ``payload`` is the host's own record."""

    task_id: str
    split: str
    payload: Any = field(compare=False, repr=False)


@dataclass(frozen=True)
class SeedCheck:
    """The outcome of validating a seed with the host's own semantics."""

    task_id: str
    ok: bool
    code: str  # "ok" or a stable drop reason, e.g. "seed:no_write_actions"
    detail: str = ""
    intent: Intent | None = None
    #: how the lifted intent was settled into requirements (issue 16); ``intent`` is the settled one
    settled: Settled | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class FaultSupport:
    supported: bool
    reason: str


@dataclass(frozen=True)
class Extra:
    """A concrete, checkable detail a user might add without needing it.

    ``phrase`` is how a user says it; ``reading`` is the literal reading (the truth plus the
    detail) as an executable intent. Admission executes it: the answer set must strictly narrow
    or the state change. ``act``, for a detail that asks something more be done ("cancel order
    #W9154975", "add one checked bag to reservation GV1N64"), is how the reading form lists it: a
    reader who finds it writes the extra's condition as these words, and admission executes this
    ``reading`` (empty: the form does not list it).
    """

    phrase: str
    reading: Intent
    act: str = ""


@dataclass(frozen=True)
class Limit:
    """A detail a user may hold the request to without needing it ("as long as it is under $150",
    "it has to be nonstop", "only if it comes in silver"), which the host can check.

    ``name`` is how the reading form lists it. A number is written ``<name> <= N`` (also ``<``,
    ``>``, ``>=``, ``=``), and ``step`` is the smallest difference between its values, so that a
    strict bound ("under $150") is the next value in (<= 149.99); a detail of named ``values`` (how
    each is said, and the host value behind it) is written ``<name> = <value>``. ``slot`` is the
    condition the detail adds to the truth. A detail said in the customer's own ``words`` (a
    product feature: "it has to be solid wood") is written ``<name> = <the words>`` and adds the
    condition ``slot + words`` with the words as its value, which the host's own matching checks.
    """

    name: str
    slot: str
    step: float = 1.0
    values: tuple[tuple[str, Any], ...] = ()
    words: bool = False


@dataclass(frozen=True)
class Mismatch:
    """The wrong instrument: the outcome asked for through an operation that cannot deliver it.

    ``phrase`` is how a user asks for it; ``reading`` is the mismatched operation as an
    executable intent (refused by the environment, or ending in another state).
    """

    phrase: str
    reading: Intent


class Adapter(ABC, Generic[Recipe]):
    """A host benchmark seen through intents, recipes and executed ground truth."""

    #: registry name of the benchmark, e.g. ``tau2-retail``
    benchmark: str
    #: adapter implementation name and version: part of every intent id
    name: str
    version: str

    # ----------------------------------------------------------------- required
    @property
    @abstractmethod
    def env_id(self) -> str:
        """Identity of the environment (host data included) all intents of this adapter live in."""

    @abstractmethod
    def load_seeds(self) -> list[Seed]:
        """The host's tasks, in the host's order."""

    @abstractmethod
    def lift_seed(self, seed: Seed) -> SeedCheck:
        """Validate a seed with the host's own semantics and lift it to an intent from its golden
        outcome (every golden argument a condition; :meth:`validate` settles it)."""

    @abstractmethod
    def compile(self, intent: Intent) -> Sequence[Recipe]:
        """Every concrete recipe that satisfies the intent's conditions (raise NotExecutable)."""

    @abstractmethod
    def execute(self, intent: Intent, recipes: Sequence[Recipe]) -> GroundTruth:
        """Execute recipes in the host environment; the ground truth is the set of outcomes."""

    # ----------------------------------------------------------------- defaults
    #: the tasks a run is restricted to (``miscue build --task``); None: every task of the host
    task_slice: tuple[str, ...] | None = None

    @property
    def adapter_id(self) -> str:
        return f"{self.name}@{self.version}"

    def restrict(self, tasks: Sequence[str]) -> None:
        """Use only these tasks: graphs are built from them alone (retrieval looks among them
        only), so a slice is a small build of its own, recorded in the graph configuration."""
        wanted = list(dict.fromkeys(str(t) for t in tasks))
        known = {s.task_id for s in self.load_seeds()}
        unknown = [t for t in wanted if t not in known]
        if unknown or not wanted:
            raise BadInput(f"{self.benchmark} has no task {', '.join(repr(t) for t in unknown) or '(none given)'} "
                           f"(its {len(known)} task ids run from {min(known, key=_id_order)} to {max(known, key=_id_order)})")
        self.task_slice = tuple(wanted)

    def seeds(self) -> list[Seed]:
        """The tasks a run uses: every seed, or the restricted slice, in the host's order."""
        seeds = self.load_seeds()
        return seeds if self.task_slice is None else [s for s in seeds if s.task_id in self.task_slice]

    def validate(self, seed: Seed) -> SeedCheck:
        """Validate a seed and lift it to its true intent: the lifted intent settled against the
        task's instructions, so every requirement is necessary by execution or stated in them."""
        cache: dict[str, SeedCheck] = self.__dict__.setdefault("_validated", {})
        if seed.task_id not in cache:
            check = self.lift_seed(seed)
            if check.ok and check.intent is not None:
                settled = settle(self, check.intent, self.instructions(seed))
                check = SeedCheck(check.task_id, True, check.code, check.detail, settled.intent, settled)
            cache[seed.task_id] = check
        return cache[seed.task_id]

    # ------------------------------------------------- the task's instructions (issue 16)
    def instructions(self, seed: Seed) -> str:
        """The task's own user instructions (what the customer is told to want)."""
        return ""

    def expand(self, intent: Intent, text: str) -> Intent:
        """The lifted intent with every golden detail a customer could state as a condition (the
        settling removes the unneeded ones); it must reach the same outcome."""
        return intent

    def keeps_current(self, intent: Intent, slot: str) -> bool:
        """The condition asks for the value the customer has now (a new item's option its current
        item shares): "keep the capacity" states it, and among unneeded conditions the settling
        keeps these longest."""
        return False

    def left_as_is(self, intent: Intent, slot: str) -> bool:
        """The write leaves this requirement as the customer has it, so a customer asking for the
        rest never says it (a cabin change keeps the reservation's flights): a reading that finds it
        not said departs in nothing."""
        return False

    def preference(self, intent: Intent, slot: str, kind: str, values: tuple[str, ...]) -> Intent | None:
        """``intent`` with what the instructions prefer for ``slot`` as an executable condition
        (``kind``: at_least, at_most, lowest, highest; ``values``: the value keys the cue was said
        with); None when the host cannot execute that preference."""
        return None

    def ground_truth(self, intent: Intent) -> GroundTruth:
        """Compile and execute; an unachievable intent yields an empty ground truth."""
        return self.execute(intent, self.compile(intent))

    def reexecute(self, intent: Intent) -> GroundTruth:
        """Execute again from scratch, bypassing any execution cache (reproducibility check)."""
        return self.ground_truth(intent)

    def witnesses(self, intent: Intent, truth: GroundTruth) -> list[dict[str, Any]]:
        """The objects behind an answer as flat ``slot -> value`` properties (for refinement)."""
        return []

    def domain(self, intent: Intent, slot: str) -> list[Any]:
        """Legal alternative values of ``slot`` for substitution (the current value excluded)."""
        return []

    def contradicts(self, intent: Intent, slot: str, value: Any) -> bool:
        """``value`` for ``slot`` contradicts another requirement of ``intent``: a request no one
        makes though the tools may take it (fewer checked bags than paid ones). The planner never
        offers such a value as a wrong value or a fallback; a reader may still read it."""
        return False

    def invalid_reason(self, intent: Intent) -> str | None:
        """A host policy the tools do not enforce; None when the intent is allowed."""
        return None

    def is_ordered_slot(self, intent: Intent, slot: str) -> bool:
        cond = intent.condition(slot)
        return cond is not None and (cond.op in ("<=", ">=") or isinstance(cond.value, (int, float)))

    def slot_name_states_value(self, slot: str) -> bool:
        return False

    def slot_facts(self, intent: Intent, truth: GroundTruth) -> list[SlotFacts]:
        """Per-slot facts for applicability; droppable is decided by executing the drop."""
        facts = []
        for cond in intent.conditions:
            try:
                dropped = self.ground_truth(intent.without(cond.slot))
                droppable = not dropped.empty and dropped.hash != truth.hash
            except NotExecutable:
                droppable = False
            facts.append(SlotFacts(cond.slot, droppable, self.is_ordered_slot(intent, cond.slot),
                                   self.slot_name_states_value(cond.slot)))
        return facts

    # ------------------------------------------------------ the domain's words (for cards)
    def context_line(self, intent: Intent) -> str:
        """One line of context for the writer (who the user is talking to, about what)."""
        return f"You are a user of {self.benchmark}."

    def request_phrase(self, intent: Intent) -> str:
        """What the user wants done, in the domain's words."""
        return ""

    def slot_phrase(self, intent: Intent, slot: str) -> str:
        """How a user names the requirement ``slot``."""
        return slot.replace("_", " ").replace(".", " ")

    def spoken_value(self, intent: Intent, slot: str, value: Any) -> str:
        """How a user says ``value`` for ``slot`` (never an internal identifier users do not know)."""
        if isinstance(value, list):
            return ", ".join(self.spoken_value(intent, slot, v) for v in value)
        return str(value)

    def acts(self, intent: Intent) -> list[Act]:
        """What the customer asks for, act by act (the writer's sentence plans follow them). This
        default is one act of no known kind, said by :meth:`request_phrase`."""
        return [Act(label="", kind="", say=self.request_phrase(intent))]

    def role(self, intent: Intent, slot: str) -> Role:
        """What the requirement ``slot`` is, for a writer that voices it (default: nothing known
        beyond its phrase)."""
        return Role(noun=self.slot_phrase(intent, slot))

    def current_value(self, intent: Intent, slot: str) -> Any:
        """The value the customer has now for ``slot`` (the option of the item they are
        exchanging, the cabin they are booked in), or None when there is none: what a
        comparative ("a size up", "a nicer cabin") is said against."""
        return None

    def identity(self, intent: Intent) -> Identity | None:
        """Who the customer is, as this host's users identify themselves to its agent (None: the
        host's users do not)."""
        return None

    def answer_identifiers(self, intent: Intent) -> list[str]:
        """Strings no request may contain (e.g. the target product's id or name)."""
        return []

    def extras(self, intent: Intent) -> list[Extra]:
        """Unneeded but checkable details with executable literal readings."""
        return []

    def mismatches(self, intent: Intent) -> list[Mismatch]:
        """Wrong-instrument requests with executable literal readings."""
        return []

    def limits(self, intent: Intent) -> list[Limit]:
        """The numbers a user may hold this request to that the host can check (a limit read
        as an extra is executed as the truth plus that bound)."""
        return []

    def additions(self, intent: Intent) -> list[Extra]:
        """The extras that ask something more be done, as the reading form lists them (their
        ``act``)."""
        return [e for e in self.extras(intent) if e.act]

    # ------------------------------------------------------------- value grounding (6a)
    def value_domains(self, intent: Intent) -> Domains:
        """Every requirement's legal values with the ways customers say them, plus the operations
        and extra details a customer may mention. This default knows only the spoken form of each
        value (:meth:`spoken_value`); adapters add aliases, negations, ids, number and date forms."""
        slots = {}
        for c in intent.conditions:
            values = [c.value] + self.domain(intent, c.slot)
            slots[c.slot] = SlotDomain(
                c.slot, c.value, tuple(LegalValue(v, (self.spoken_value(intent, c.slot, v),)) for v in values),
                names=(self.slot_phrase(intent, c.slot),), ordered=self.is_ordered_slot(intent, c.slot))
        details = [Detail("operation", "request", (self.request_phrase(intent),), true=True)]
        details += [Detail("operation", f"mismatch:{i}", (m.phrase,)) for i, m in enumerate(self.mismatches(intent))]
        details += [Detail("extra", f"extra:{i}", (e.phrase,)) for i, e in enumerate(self.extras(intent))]
        return Domains(slots, tuple(d for d in details if d.forms[0]))

    def value_ids(self, intent: Intent) -> dict[str, dict[str, tuple[str, ...]]]:
        """The host's own ids that name a legal value (DESIGN 6a): slot -> the value's canonical
        encoding (or a list value's part's) -> the ids. An item id names its variant and so says
        each of its options; an order line's id names the item it holds. Given to readers in the
        reading form, never to writers. This default knows none."""
        return {}

    def grounder(self, intent: Intent) -> Grounder:
        """The grounder of an intent's texts (the rule grammar's, compiled once per intent)."""
        cache: dict[str, Grounder] = self.__dict__.setdefault("_grounders", {})
        if intent.intent_id not in cache:
            if len(cache) > 4096:
                cache.clear()
            cache[intent.intent_id] = grammar().grounder(self.value_domains(intent))
        return cache[intent.intent_id]

    def fault_support(self) -> dict[str, FaultSupport]:
        """Which fault types this host supports, and why."""
        return {t: FaultSupport(True, "supported") for t in FAULT_TYPES}

    def input_hashes(self) -> dict[str, str]:
        """Content hashes of the host data files this adapter read."""
        return {}

    def graph_config(self) -> dict[str, Any]:
        """Host-specific graph settings (e.g. whether a graph needs the full quota)."""
        return {"require_full_quota": False}


def _id_order(task_id: str) -> tuple[int, str]:
    return (int(task_id), "") if task_id.isdigit() else (1 << 62, task_id)
