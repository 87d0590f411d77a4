"""WebShop's fuzzy matching: thefuzz's ``token_set_ratio`` and ``normalize_color``, exactly.

thefuzz semantics (measured on thefuzz 0.22): strip non-ASCII characters, rapidfuzz's
``default_process`` (lower-case, non-alphanumerics to spaces, trim), rapidfuzz
``token_set_ratio``, Python ``round`` to an int. Plain rapidfuzz without the processor is not
equivalent ("Tea Tree" vs "tea tree": 75 vs 100).

Option values and goal options are colour-normalised first (``engine/normalize.py``): the first
entry of the 102-word ``COLOR_SET`` occurring as a substring, else the string unchanged.
"""

from __future__ import annotations

from functools import lru_cache

from rapidfuzz import fuzz
from rapidfuzz.utils import default_process

#: engine/normalize.py COLOR_SET, verbatim and in its (alphabetical) order: order decides which
#: colour a string normalises to ("navy blue" -> "blue", "dark red" -> "dark").
COLOR_SET: tuple[str, ...] = (
    "alabaster", "apricot", "aqua", "ash", "asphalt", "azure", "banana", "beige", "black", "blue",
    "blush", "bordeaux", "bronze", "brown", "burgundy", "camel", "camo", "caramel", "champagne",
    "charcoal", "cheetah", "chestnut", "chocolate", "christmas", "coffee", "cognac", "copper",
    "coral", "cranberry", "cream", "crystal", "dark", "denim", "eggplant", "elephant", "espresso",
    "fuchsia", "gold", "granite", "grape", "graphite", "grass", "gray", "green", "grey", "heather",
    "indigo", "ivory", "ivy", "khaki", "lavender", "lemon", "leopard", "light", "lilac", "lime",
    "magenta", "maroon", "mauve", "merlot", "midnight", "mint", "mocha", "multicolor", "mushroom",
    "mustard", "natural", "navy", "nude", "olive", "orange", "peach", "pewter", "pink", "plum",
    "purple", "rainbow", "red", "rose", "royal", "rust", "sand", "sapphire", "seashell", "silver",
    "skull", "slate", "steel", "stone", "stonewash", "sunflower", "tan", "taupe", "teal", "tiger",
    "turquoise", "violet", "walnut", "wheat", "white", "wine", "yellow",
)
#: a fuzzy match needs thefuzz's rounded ratio strictly above this.
FUZZY_THRESHOLD = 85
#: round(score) > 85  <=>  score >= 85.5 (Python rounds 85.5 half-to-even, up to 86)
SCORE_CUTOFF = 85.5


@lru_cache(maxsize=1 << 16)
def fuzz_process(text: str) -> str:
    """thefuzz ``full_process(text, force_ascii=True)``."""
    ascii_text = text if text.isascii() else "".join(ch for ch in text if ord(ch) < 128)
    return default_process(ascii_text)


def token_set_ratio(a: str, b: str) -> int:
    """thefuzz ``fuzz.token_set_ratio(a, b)``: processed, rounded to an int."""
    return int(round(fuzz.token_set_ratio(fuzz_process(a), fuzz_process(b))))


def fuzzy_match(a: str, b: str) -> bool:
    return token_set_ratio(a, b) > FUZZY_THRESHOLD


@lru_cache(maxsize=1 << 16)
def normalize_color(text: str) -> str:
    """engine/normalize.py ``normalize_color``: the first COLOR_SET word found as a substring."""
    for color in COLOR_SET:
        if color in text:
            return color
    return text


def option_values_match(purchased: str, goal: str) -> bool:
    """Whether a clicked option value satisfies a goal option (after colour normalisation)."""
    return fuzzy_match(normalize_color(purchased), normalize_color(goal))


def distinguishable(old: str, new: str) -> bool:
    """Whether the reward can tell option value ``new`` from ``old`` (a shift it can see).

    small/x-small, pack of 12/pack of 6 and dark red/dark blue (both normalise to "dark") are
    not: a goal naming either is satisfied by the same clicks.
    """
    a, b = normalize_color(old), normalize_color(new)
    return a != b and token_set_ratio(a, b) <= FUZZY_THRESHOLD
