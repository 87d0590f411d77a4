"""A text grounded against an intent's value domains, each requirement's state: what the offline
readers build their readings on (the grounder's tests read through it)."""

from __future__ import annotations

from typing import Any

from miscue.language.states import TextReading, states
from miscue.schema import Intent


def read(adapter: Any, intent: Intent, text: str) -> TextReading:
    grounder = adapter.grounder(intent)
    return states(grounder.ground(text), grounder.domains)
