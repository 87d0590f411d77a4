"""Measure the fuzzy quote threshold of :mod:`miscue.reading` (``FUZZY_THRESHOLD``).

A reading's quote must occur in the text. Models copy quotes with small slips (a dropped letter,
a fixed typo, a swapped pair), so a quote of ``FUZZY_MIN_CHARS`` or more normalised characters may
match fuzzily (:func:`miscue.reading.fuzzy_score`: rapidfuzz ``partial_ratio`` of the normalised
quote against the normalised text, 0 when a token with a digit is not in the text as it is).
The threshold must admit slipped copies of the text's own words and refuse words that are not
there. Measured on the hand-written requests of ``tests/data/verifier_set.jsonl``:

- *copies*: word-aligned spans of 15-60 characters of a request, with 0, 1 or 2 character slips;
- *strangers*: such spans taken from another request of the same host (same vocabulary, same
  ids' shapes) with the same slips, held against the first request -- excluding any stranger
  whose exact normalised words do occur in it (then it is a true quote).

The threshold is chosen on the ``tune`` requests (the lowest one at which at most 1 in 1,000
strangers is found) and reported on the ``heldout`` ones.

    .venv/bin/python perf/quote_threshold.py   # ~10 s; writes perf/results/quote_threshold.txt
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from pathlib import Path

from miscue.reading import FUZZY_MIN_CHARS, FUZZY_THRESHOLD, fuzzy_score, normalise

ROOT = Path(__file__).resolve().parents[1]
SET = ROOT / "tests" / "data" / "verifier_set.jsonl"
OUT = ROOT / "perf" / "results" / "quote_threshold.txt"
THRESHOLDS = (80, 82, 84, 86, 88, 90, 92, 94, 96)
SPANS_PER_TEXT = 4


def spans(text: str, rng: random.Random) -> list[str]:
    words = text.split()
    out = []
    for _ in range(SPANS_PER_TEXT * 5):
        if len(out) == SPANS_PER_TEXT:
            break
        i = rng.randrange(len(words))
        j = i + 1
        while j <= len(words) and len(" ".join(words[i:j])) < 15:
            j += 1
        span = " ".join(words[i:j])
        if FUZZY_MIN_CHARS <= len(normalise(span)) <= 60:
            out.append(span)
    return out


def slip(span: str, n: int, rng: random.Random) -> str:
    chars = list(span)
    for _ in range(n):
        k = rng.randrange(1, len(chars) - 1)
        kind = rng.choice(("drop", "swap", "replace"))
        if kind == "drop":
            del chars[k]
        elif kind == "swap":
            chars[k], chars[k + 1 if k + 1 < len(chars) else k - 1] = chars[k + 1 if k + 1 < len(chars) else k - 1], chars[k]
        else:
            chars[k] = rng.choice("abcdefghijklmnopqrstuvwxyz")
    return "".join(chars)


def measure(rows: list[dict], rng: random.Random) -> dict[str, list[tuple[int, float]]]:
    """(slips, score) of every copy and every stranger."""
    by_host: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        by_host[r["benchmark"]].append(r["text"])
    scores: dict[str, list[tuple[int, float]]] = {"copy": [], "stranger": []}
    for r in rows:
        text, norm = r["text"], normalise(r["text"])
        others = [t for t in by_host[r["benchmark"]] if t != text]
        for span in spans(text, rng):
            n = rng.choice((0, 1, 2))
            scores["copy"].append((n, fuzzy_score(normalise(slip(span, n, rng)), norm)))
        for other in rng.sample(others, min(2, len(others))):
            for span in spans(other, rng):
                if f" {normalise(span)} " in f" {norm} ":
                    continue
                n = rng.choice((0, 1, 2))
                scores["stranger"].append((n, fuzzy_score(normalise(slip(span, n, rng)), norm)))
    return scores


def rates(scores: dict[str, list[tuple[int, float]]], threshold: float, max_slips: int = 2) -> tuple[float, float]:
    copies = [s for n, s in scores["copy"] if n <= max_slips]
    strangers = [s for n, s in scores["stranger"] if n <= max_slips]
    return (sum(s >= threshold for s in copies) / len(copies), sum(s >= threshold for s in strangers) / len(strangers))


def main() -> None:
    rows = [json.loads(line) for line in SET.read_text().splitlines() if line.strip()]
    parts = {p: measure([r for r in rows if r["split"] == p], random.Random(7)) for p in ("tune", "heldout")}
    lines = [f"fuzzy quote threshold (rapidfuzz partial_ratio on normalised text), quotes >= {FUZZY_MIN_CHARS} chars",
             f"{SET.name}: copies = spans of a request with 0-2 character slips; strangers = spans of another request "
             "of the same host", ""]
    for part, scores in parts.items():
        lines.append(f"{part}: {len(scores['copy'])} copies, {len(scores['stranger'])} strangers")
        lines.append("threshold  copies found  strangers found (all slips)  strangers found (<= 1 slip)")
        for t in THRESHOLDS:
            found, false = rates(scores, t)
            _, false1 = rates(scores, t, 1)
            lines.append(f"{t:>9}  {found:>12.3f}  {false:>27.3f}  {false1:>27.3f}")
        lines.append("")
    tune = parts["tune"]
    chosen = min((t for t in THRESHOLDS if rates(tune, t)[1] <= 0.001), default=max(THRESHOLDS))
    lines.append(f"chosen on tune: {chosen} (the lowest finding at most 1 in 1,000 strangers); "
                 f"in miscue.reading: {FUZZY_THRESHOLD:g}")
    held_found, held_false = rates(parts["heldout"], chosen)
    lines.append(f"held-back at {chosen}: copies found {held_found:.3f}, strangers found {held_false:.3f}")
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
