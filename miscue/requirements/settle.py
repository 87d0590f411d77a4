"""Settling a lifted intent into its requirements (issue 16; DESIGN sections 3, 5 and 11).

A host lifts a task's intent from its golden actions, and golden actions carry incidental
arguments: a card for bags that are free, a colour the customer never asked for, an exact laptop
where the customer wanted "the cheapest i7 or above". Settling keeps, as requirements, only what
the outcome needs or what the task's own instructions state:

1. **Preferences the host can execute** ("cheapest", "or above", "at most") are lifted to the
   condition the instructions state, when the lifted intent still reaches every golden outcome.
2. **Waived requirements** ("does not care about waterproof") are relaxed: dropped, and the
   ground truth widens to what the instructions allow (still holding every golden outcome).
3. **Necessity by execution**: each remaining condition the instructions do not state is removed
   when its removal leaves the ground truth unchanged, least wanted first (the host ranks ties,
   e.g. retail keeps the options a customer's current item shares over the changed ones).

Nothing is lost: every condition, as lifted and as settled, is recorded with its status and why;
what the instructions ask for and no condition can execute becomes a note (a ledger entry).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from miscue.canonical import canonical_json
from miscue.errors import MiscueError
from miscue.grammar import EXECUTABLE_KINDS, Cue, Grounder, InstructionReading, grammar
from miscue.language import Domains, Grounding
from miscue.requirements.necessity import outcome_change
from miscue.schema import Condition, GroundTruth, Intent, RequirementRow

#: the order unstated conditions are tried for removal: what the instructions say nothing about
#: first, a different value next, a description or a pointer last (a stated value is never removed)
_MENTION_RANK = {"open": 0, "other": 1, "unknown": 1}
_CONSISTENT = {"at_most": "<=", "at_least": ">="}


class Host(Protocol):
    """What settling needs of an adapter (:class:`miscue.host.Adapter` provides it)."""

    benchmark: str

    def ground_truth(self, intent: Intent) -> GroundTruth: ...

    def compile(self, intent: Intent) -> Any: ...

    def execute(self, intent: Intent, recipes: Any) -> GroundTruth: ...

    def value_domains(self, intent: Intent) -> Domains: ...

    def grounder(self, intent: Intent) -> Grounder: ...

    def expand(self, intent: Intent, text: str) -> Intent: ...

    def keeps_current(self, intent: Intent, slot: str) -> bool: ...

    def preference(self, intent: Intent, slot: str, kind: str, values: tuple[str, ...]) -> Intent | None: ...

    def spoken_value(self, intent: Intent, slot: str, value: Any) -> str: ...


@dataclass
class Settled:
    """A task's requirements: the settled intent, and the record of every condition."""

    intent: Intent
    raw: Intent
    truth: GroundTruth
    rows: list[RequirementRow]
    notes: list[str] = field(default_factory=list)
    #: slots kept although unnecessary, because the instructions state them (or lifted to them)
    stated: frozenset[str] = frozenset()

    @property
    def context(self) -> list[RequirementRow]:
        return [r for r in self.rows if r.status == "context"]

    def violations(self) -> list[RequirementRow]:
        """Requirements neither necessary nor stated (none, once settled)."""
        return [r for r in self.rows if r.status in ("kept", "added") and not r.necessary and not r.stated]


class _Truths:
    def __init__(self, host: Host) -> None:
        self.host = host
        self.cache: dict[str, GroundTruth | None] = {}
        self.effects: dict[tuple[str, str], str | None] = {}
        self.needed: dict[str, str] = {}  # condition key -> its effect, found needed by step 3 (same outcome, more conditions)

    def __call__(self, intent: Intent) -> GroundTruth | None:
        """The ground truth, or None when the intent cannot be executed."""
        if intent.intent_id not in self.cache:
            try:
                self.cache[intent.intent_id] = self.host.ground_truth(intent)
            except MiscueError:
                self.cache[intent.intent_id] = None
        return self.cache[intent.intent_id]


def _without(intent: Intent, cond: Condition) -> Intent:
    return intent.replace(conditions=[c for c in intent.conditions if c.key != cond.key])


def _holds(truth: GroundTruth | None, golden: GroundTruth) -> bool:
    return truth is not None and not truth.empty and set(golden.value) <= set(truth.value)


def _effect(truths: _Truths, intent: Intent, cond: Condition, target: GroundTruth | None) -> str | None:
    """What removing ``cond`` does to the outcome (None: nothing)."""
    if target is None:
        return None
    key = (_without(intent, cond).intent_id, target.hash)
    if key not in truths.effects:
        truths.effects[key] = outcome_change(truths.host, _without(intent, cond), target)
    return truths.effects[key]


def _reading(host: Host, intent: Intent, text: str, current: frozenset[str] = frozenset()) -> InstructionReading:
    grounder = host.grounder(intent)  # compiled once per intent by the host, with its domains
    grounding = grounder.ground(text) if text.strip() else Grounding(text)
    return grammar().read_instructions(text, grounding, grounder.domains, current)


def _rank(reading: InstructionReading, slot: str) -> int:
    return _MENTION_RANK.get(reading.state(slot), 2)


def settle(host: Host, raw: Intent, text: str) -> Settled:
    """The requirements of an intent lifted from a task whose user instructions are ``text``."""
    truths = _Truths(host)
    golden = truths(raw)
    if golden is None or golden.empty:
        raise MiscueError(f"the lifted intent {raw.intent_id} has no executable outcome to settle")
    full = host.expand(raw, text)
    if full.intent_id != raw.intent_id and (truths(full) is None or truths(full).hash != golden.hash):  # type: ignore[union-attr]
        full = raw  # the host's fuller description does not pin the same outcome: keep the lifted one
    current = frozenset(c.slot for c in full.conditions if host.keeps_current(full, c.slot))
    reading = _reading(host, full, text, current)
    before = {c.key: _effect(truths, raw, c, golden) for c in raw.conditions}
    notes: list[str] = []
    status: dict[str, tuple[str, str]] = {}  # condition key -> (status, reason) for what left the intent
    added: dict[str, str] = {}  # condition key -> reason, for conditions a preference lifted the intent to
    lifted_cues: set[tuple[str, int]] = set()
    intent = full

    # 1. preferences the host can execute, lifted when every golden outcome stays reachable
    for cue in (c for c in reading.cues if c.kind in EXECUTABLE_KINDS):
        for slot in cue.slots:
            cond = intent.condition(slot)
            if cond is None or _CONSISTENT.get(cue.kind) == cond.op:
                continue
            new = host.preference(intent, slot, cue.kind, cue.values)
            if new is None:
                continue  # noted below if it stays a requirement
            if not _holds(truths(new), golden):
                notes.append(f"{slot}: the instructions say {cue.phrase!r}; lifting it does not reach the golden outcome, "
                             "kept as lifted")
                continue
            lifted_cues.add((cue.kind, cue.start))
            gone = {c.key for c in intent.conditions} - {c.key for c in new.conditions}
            for c in new.conditions:
                if c.key not in {x.key for x in intent.conditions}:
                    added[c.key] = f"the instructions say {cue.phrase!r} (for {slot})"
            for k in gone:
                status[k] = ("lifted", f"the instructions say {cue.phrase!r}: lifted to what they say")
            intent = new

    for cue in (c for c in reading.cues if c.kind in EXECUTABLE_KINDS and not c.slots):
        notes.append(f"the instructions say {cue.phrase!r} of no requirement they name; not executed as a condition")

    # 2. requirements the instructions waive are relaxed
    for cue in (c for c in reading.cues if c.kind == "indifferent"):
        for slot in cue.slots:
            for cond in [c for c in intent.conditions if c.slot == slot and c.key not in added]:
                new = _without(intent, cond)
                if _holds(truths(new), golden):
                    widened = truths(new).hash != truths(intent).hash  # type: ignore[union-attr]
                    why = f"the instructions waive it ({cue.phrase!r})"
                    status[cond.key] = ("relaxed", why + "; the outcome widens") if widened else ("context", why + "; not needed")
                    intent = new
                else:
                    notes.append(f"{slot}: the instructions waive it ({cue.phrase!r}) but the outcome needs it; kept")

    # 3. necessity by execution: an unstated condition that changes nothing is context
    # (removing an exact condition only widens the outcome, so one needed here stays needed once
    # others, which leave the outcome as it is, are gone: its effect is not executed again; an
    # order a preference added — "the cheapest" — is not monotone, so then every effect is re-run)
    target = truths(intent)
    order = sorted(intent.conditions, key=lambda c: (_rank(reading, c.slot), c.slot in current, c.key))
    for cond in order:
        if reading.stated(cond.slot) or cond.key in added:
            continue
        effect = _effect(truths, intent, cond, target)
        if effect is None:
            status[cond.key] = ("context", "not needed: the outcome is the same without it, and the instructions do not state it")
            intent = _without(intent, cond)
        elif not added:
            truths.needed[cond.key] = effect
    return _record(host, truths, (raw, full, intent), reading, text, before, (status, added, lifted_cues), notes)


def _record(host: Host, truths: _Truths, intents: tuple[Intent, Intent, Intent], reading: InstructionReading, text: str,
            before: dict[str, str | None], decided: tuple[dict[str, tuple[str, str]], dict[str, str], set[tuple[str, int]]],
            notes: list[str]) -> Settled:
    raw, full, intent = intents
    status, added, lifted_cues = decided
    target = truths(intent)
    assert target is not None
    final_reading = _reading(host, intent, text, reading.current) if added else reading
    rows: list[RequirementRow] = []
    stated: set[str] = set()
    seen: set[str] = set()
    final = {c.key for c in intent.conditions}
    for cond in [*raw.conditions, *full.conditions, *intent.conditions]:
        if cond.key in seen:
            continue
        seen.add(cond.key)
        source = final_reading if cond.key in added else reading
        waived = source.waived(cond.slot) and cond.key not in added
        state = "waived" if waived else source.state(cond.slot)
        common = dict(slot=cond.slot, op=cond.op, value_json=canonical_json(cond.value), instruction=state,
                      stated=cond.key in added or source.stated(cond.slot),
                      said=source.statement(cond.slot)[:200],
                      necessary_before=(before[cond.key] is not None) if cond.key in before else None)
        if cond.key in final:
            effect = truths.needed.get(cond.key) or _effect(truths, intent, cond, target)
            if effect is None:
                stated.add(cond.slot)
            why = added.get(cond.key) or (f"necessary: {effect}" if effect
                                          else f"stated in the instructions ({source.statement(cond.slot)!r})")
            rows.append(RequirementRow(status="added" if cond.key in added else "kept", necessary=effect is not None, reason=why,
                                       **common))
            if state in ("other", "unknown"):
                notes.append(f"{cond.slot}: the instructions say {source.said(cond.slot)!r}; the golden outcome needs "
                             f"{host.spoken_value(intent, cond.slot, cond.value)!r}, kept")
            for cue in source.preferences(cond.slot):
                if (cue.kind, cue.start) in lifted_cues or _CONSISTENT.get(cue.kind) == cond.op:
                    continue
                notes.append(f"{cond.slot}: the instructions say {cue.phrase!r}; {host.benchmark} cannot execute it "
                             "as a condition, "
                             f"kept {host.spoken_value(intent, cond.slot, cond.value)!r} (the value the golden outcome has)")
        else:
            kind, why = status.get(cond.key, ("context", "not needed"))
            rows.append(RequirementRow(status=kind, necessary=False if kind == "context" else None, reason=why,  # type: ignore[arg-type]
                                       **common))
    return Settled(intent, raw, target, rows, list(dict.fromkeys(notes)), frozenset(stated))


__all__ = ["Cue", "Settled", "settle"]
