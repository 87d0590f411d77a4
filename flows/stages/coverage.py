"""Coverage of composite draws: per-type occurrence and combinations among the admitted samples
of one k, the score that pushes starved types forward and the cap that holds dominant ones back."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Coverage:
    """Per-type occurrence and combinations among the admitted samples of one k."""

    k: int
    types: Counter = field(default_factory=Counter)
    combos: Counter = field(default_factory=Counter)
    stop: str = ""  # why the run of this k ended
    held: int = 0  # proposals held back by the type-share cap
    relaxed: int = 0  # draws let through the cap because every graph's proposal was held

    @property
    def admitted(self) -> int:
        return sum(self.combos.values())

    def add(self, combo: tuple[str, ...]) -> None:
        self.combos[combo] += 1
        self.types.update(combo)

    def score(self, combo: tuple[str, ...]) -> float:
        """Lower is better: first the occurrence of the combination's most frequent type among
        the admitted samples (so the largest share is what gets pushed down), then the
        occurrences of all its types; a combination already admitted comes after every unseen one."""
        counts = [self.types[t] for t in combo]
        n = self.admitted + 1
        return self.combos[combo] * n * n * (len(combo) + 1) + max(counts, default=0) * n * len(combo) + sum(counts)

    def over_cap(self, combo: tuple[str, ...], cap: float | None, after: int, pending: Counter | None = None) -> bool:
        """Admitting ``combo`` could put one of its types above ``cap`` of the admitted samples,
        in the worst case for that type: every pending draw containing it admitted, none of
        the others (so the cap holds whatever the wave's outcome)."""
        if cap is None or self.admitted + 1 < after:
            return False
        pending = pending or Counter()
        return any((self.types[t] + pending[t] + 1) / (self.admitted + pending[t] + 1) > cap for t in combo)

    def summary(self) -> dict[str, Any]:
        n, distinct = self.admitted, len(self.combos)
        per_type = dict(sorted(self.types.items()))
        in_combos = Counter(t for c in self.combos for t in c)
        share = {t: round(v / n, 4) for t, v in per_type.items()} if n else {}
        share_combos = {t: round(v / distinct, 4) for t, v in sorted(in_combos.items())} if distinct else {}
        return {
            "admitted": n, "distinct_combinations": distinct, "stopped": self.stop, "held_by_cap": self.held,
            "cap_relaxed": self.relaxed,
            "combinations": {"+".join(c): v for c, v in sorted(self.combos.items())},
            "per_type": per_type, "per_type_share": share, "per_type_share_of_combinations": share_combos,
            "max_type_share": max(share.values(), default=0.0),
            "max_type_share_of_combinations": max(share_combos.values(), default=0.0),
        }
