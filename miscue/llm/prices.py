"""What litellm's bundled cost map says a model costs (read offline: see :mod:`miscue.llm.env`)."""

from __future__ import annotations

from typing import Any

from miscue.llm.config import split_model
from miscue.llm.env import load_litellm


def litellm_entry(model: str) -> dict[str, Any] | None:
    """``model``'s entry in litellm's bundled cost map -- looked up as the full model string, then
    as the name without its route (as the gateway prices a call) -- or None."""
    try:
        cost_map = load_litellm().model_cost
        entry = cost_map.get(model) or cost_map.get(split_model(model)[1])
    except Exception:  # noqa: BLE001 - an unreadable entry is no entry
        return None
    return entry if isinstance(entry, dict) else None


def litellm_price(model: str) -> tuple[float, float] | None:
    """(USD per prompt token, USD per completion token) of ``model`` in litellm's bundled cost
    map, or None when the map does not give both prices (a free model's prices are 0, not
    missing)."""
    entry = litellm_entry(model) or {}
    pin, pout = entry.get("input_cost_per_token"), entry.get("output_cost_per_token")
    if pin is None or pout is None:
        return None
    return float(pin), float(pout)
