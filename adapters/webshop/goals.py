"""WebShop's human goals: their order, their splits and their (pinned) price ceilings.

Goals are built as WebShop's server builds its human goals: in product order, one per
instruction of a loaded product (instructions without attributes skipped), then shuffled as by
``random.seed(233); random.shuffle(goals)``; indices 0-499 are the test split, 500-1499 eval,
the rest train. WebShop draws each price ceiling at random; here it is pinned to the second
10-dollar step of the 10..990 ladder above the product price (the reference release's rule) and
recorded in the seed and in the intent. A ranged price ("$10 - $20") is pinned by a draw seeded
with the asin.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from miscue.adapters.webshop.records import RawProduct
from miscue.adapters.webshop.reward import PRICE_RANGE
from miscue.errors import BadInput

GOAL_SHUFFLE_SEED = 233
#: (split, first goal index, end) after the seed-233 shuffle (baseline_models/env.py)
SPLITS = (("test", 0, 500), ("eval", 500, 1500), ("train", 1500, None))


def split_of(goal_index: int) -> str:
    for name, lo, hi in SPLITS:
        if goal_index >= lo and (hi is None or goal_index < hi):
            return name
    raise BadInput(f"negative goal index {goal_index}")


def price_ceiling(price: float) -> int | None:
    """The second ladder step strictly above ``price`` (None when fewer than two remain)."""
    steps = [p for p in PRICE_RANGE if p > price][:4]
    return steps[1] if len(steps) >= 2 else None


@dataclass(frozen=True)
class Goal:
    """One WebShop human goal, as ``get_human_goals`` builds it (price ceiling pinned)."""

    index: int  # goal index after the seed-233 shuffle
    asin: str
    cluster: str
    instruction: str
    attributes: tuple[str, ...]
    options: tuple[str, ...]
    price: float
    price_upper: int | None  # None: no ladder step left (WebShop's 1,000,000, no price text)

    @property
    def instruction_text(self) -> str:
        text = self.instruction.strip(".")
        if self.price_upper is not None:
            text += f", and price lower than {self.price_upper:.2f} dollars"
        return text

    def payload(self, product: RawProduct) -> dict[str, Any]:
        return {
            "goal_idx": self.index, "asin": self.asin, "name": product.name, "query": self.cluster,
            "category": product.category, "product_category": product.product_category,
            "instruction": self.instruction, "instruction_text": self.instruction_text,
            "attributes": list(self.attributes), "goal_options": list(self.options),
            "price": self.price, "price_upper": self.price_upper,
            "price_rule": "second 10-dollar step of 10..990 above the product price",
        }
