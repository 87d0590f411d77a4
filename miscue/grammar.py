"""The rule grammar the kernel reads English with, found through an entry point (DESIGN sections 2
and 6a; issue 38 item 6).

Two steps of the kernel read English that no model is asked about: graph settling reads a task's
own instructions (which requirements they state, waive or bound), and the planner reads back the
materials it proposes to a writer (a pointer must read as a pointer, a vague phrase as vague, an
ambiguous word as two values). The English of both lives in one place, the offline room
(``miscue.offline.language``), which the kernel never imports: it is declared as an entry point of
the group ``miscue.grammars`` and loaded here through the installed distribution's metadata, like
the offline model provider (:mod:`miscue.llm.plugins`). The protocols below are all the kernel
knows of it, with the reading of instructions it returns (:class:`InstructionReading`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import entry_points
from typing import Protocol

from miscue.errors import ConfigError
from miscue.language import Domains, Grounding
from miscue.language.states import TextReading

GROUP = "miscue.grammars"

#: cue kinds a host may be able to execute as a condition (see ``Adapter.preference``)
EXECUTABLE_KINDS = ("at_least", "at_most", "lowest", "highest")


@dataclass(frozen=True)
class Cue:
    """One thing the instructions say about how a requirement holds, with the requirements it
    bears on (``values``: the value keys of the mention it was attributed by)."""

    kind: str  # indifferent | same | at_least | at_most | lowest | highest | extreme | prefer
    phrase: str
    start: int
    end: int
    slots: tuple[str, ...] = ()
    values: tuple[str, ...] = ()


@dataclass
class InstructionReading:
    """The instructions' grounding, each requirement's state in it, and the cues found."""

    text: str
    reading: TextReading
    cues: list[Cue] = field(default_factory=list)
    current: frozenset[str] = frozenset()  # slots whose value is the one the customer has now

    def state(self, slot: str) -> str:
        return self.reading.slots[slot].state if slot in self.reading.slots else "open"

    def said(self, slot: str) -> str:
        return self.reading.slots[slot].said() if slot in self.reading.slots else ""

    def stated(self, slot: str) -> bool:
        """The instructions state the requirement (and do not waive it): its value (also where the
        words around leave what it attaches to ambiguous); a description that stands for it ("a less
        bright one"); or "keep"/"same" for the value the customer has."""
        if self.waived(slot) is not None:
            return False
        state = self.state(slot)
        if state == "true":
            return True
        if state == "ambiguous" and self.reading.slots[slot].values == (self.reading.truth_keys.get(slot),):
            return True  # the true value, and only it, is said; what it attaches to is ambiguous ("shoes with breathable mesh")
        if state == "marked" and any(m.kind == "vague" for m in self.reading.slots[slot].mentions):
            return True
        return slot in self.current and any(c.kind == "same" and slot in c.slots for c in self.cues)

    def mentioned(self, slot: str) -> bool:
        """The instructions say something about the requirement (a value, a description, a pointer)."""
        return self.state(slot) not in ("open",)

    def waived(self, slot: str) -> Cue | None:
        return next((c for c in self.cues if c.kind == "indifferent" and slot in c.slots), None)

    def preferences(self, slot: str) -> list[Cue]:
        return [c for c in self.cues if c.kind not in ("indifferent", "same") and slot in c.slots]

    def statement(self, slot: str) -> str:
        """What the instructions say that states the requirement."""
        return self.said(slot) or next((c.phrase for c in self.cues if c.kind == "same" and slot in c.slots), "")


class Grounder(Protocol):
    """Which legal value a text gives for each requirement of one intent, and where it says so."""

    domains: Domains

    def ground(self, text: str) -> Grounding: ...


class Grammar(Protocol):
    """What the kernel asks of a rule grammar."""

    def grounder(self, domains: Domains) -> Grounder:
        """A grounder for texts about an intent with these value domains (compiled once; the host
        keeps it per intent)."""
        ...

    def read_instructions(self, text: str, grounding: Grounding, domains: Domains,
                          current: frozenset[str]) -> InstructionReading:
        """A task's instructions read: each requirement's state in ``grounding`` and the cues
        (indifference, bounds, extremes, preferences, "keep the same") attributed to them."""
        ...

    def reads_as_pointer(self, phrase: str) -> bool:
        """The phrase, from its first words, points at something only the customer knows."""
        ...

    def reads_as_vague(self, phrase: str) -> bool:
        """The phrase describes something subjectively or relatively."""
        ...

    def negator(self, said: str) -> str:
        """The word that negates a value said as ``said`` ("no", "not", "without"), or ""."""
        ...


@cache
def grammar() -> Grammar:
    """The installed rule grammar (the one entry point of :data:`GROUP`)."""
    found = sorted(entry_points(group=GROUP), key=lambda ep: ep.name)
    if not found:
        raise ConfigError(f"no rule grammar is installed (entry point group {GROUP!r}): reinstall miscue")
    if len(found) > 1:
        raise ConfigError(f"more than one rule grammar is installed ({', '.join(ep.name for ep in found)}); "
                          f"the group {GROUP!r} takes one")
    try:
        return found[0].load()
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"the rule grammar {found[0].value!r} cannot be loaded: {exc}") from exc
