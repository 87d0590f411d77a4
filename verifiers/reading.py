"""What a text says about each requirement, grounded in the host's data (DESIGN section 6a), and
the literal readings it gives.

:func:`read` grounds a text against the true intent's value domains and states each requirement
(:mod:`miscue.language.states`: true, other, ambiguous, marked, doubted, partial, open).

A requirement is *conveyed* when its state executes to the true outcome: the true value, or a
state whose literal reading (the stated value, or the slot left open) reaches the same ground
truth (a requirement the host would fill in the same way whatever the customer said).
"""

from __future__ import annotations

from miscue.host import Adapter, NotExecutable
from miscue.language.states import SlotReading, TextReading, states
from miscue.schema import GroundTruth, Intent

__all__ = ["SlotReading", "TextReading", "conveyed", "outcome", "read", "with_state"]

def read(adapter: Adapter, intent: Intent, text: str) -> TextReading:
    """Ground ``text`` against ``intent``'s domains and state every requirement."""
    grounder = adapter.grounder(intent)
    return states(grounder.ground(text), grounder.domains)


def with_state(adapter: Adapter, intent: Intent, slot: str, state: SlotReading) -> list[Intent]:
    """The literal readings of ``intent`` with ``slot`` as the text states it: the stated value(s),
    or the slot left open (nothing, a pointer or a vague word)."""
    domain = adapter.grounder(intent).domains[slot]
    cond = intent.condition(slot)
    assert cond is not None
    if state.state in ("true",):
        return [intent]
    if state.state in ("other", "ambiguous") and state.values:
        return [intent.with_condition(cond.with_value(domain.value(k).value)) for k in state.values  # type: ignore[union-attr]
                if domain.value(k) is not None]
    if state.state == "doubted" and state.values:
        return [intent.with_condition(cond.with_value(domain.value(k).value)) for k in state.values  # type: ignore[union-attr]
                if domain.value(k) is not None]
    return [intent.without(slot)]


def outcome(adapter: Adapter, intent: Intent) -> GroundTruth | None:
    """The executed ground truth of a reading (None: not executable)."""
    try:
        return adapter.ground_truth(intent)
    except NotExecutable:
        return None


def conveyed(adapter: Adapter, intent: Intent, truth: GroundTruth, state: SlotReading) -> bool:
    """The requirement, as the text states it, executes to the true outcome."""
    if state.state == "true":
        return True
    if state.state == "unknown":  # asks for what does not exist
        return False
    readings = with_state(adapter, intent, state.slot, state)
    return bool(readings) and all((gt := outcome(adapter, r)) is not None and gt.hash == truth.hash for r in readings)
