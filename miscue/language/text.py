"""Text as the grounder reads it: normalised tokens that keep their character spans.

Normalisation folds what varies between writers and carries no meaning for a value: case,
quotes and dashes, hyphens between words ("full-size" = "full size"), digits glued to units
("8GB" = "8 gb", "28-inch" = "28 inch"), number words ("eight" = "8"), and a ``#`` or ``$`` in front
of an id or an amount. Typos are tolerated at match time (:func:`close`), not here.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz.distance import OSA
from spellchecker import SpellChecker

NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14",
    "fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18", "nineteen": "19", "twenty": "20",
    "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90",
    "hundred": "100",
}
_TENS = {"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}
_TOKEN = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")
_SPLIT_UNIT = re.compile(r"^(\d+(?:\.\d+)?)([a-z]+)$")  # "8gb" -> "8", "gb" (not "4k": kept whole)
_KEEP_GLUED = {"k", "p", "st", "nd", "rd", "th", "s", "x", "d"}  # 4k, 1080p, 1st, 3x, 3d


@dataclass(frozen=True)
class Token:
    text: str  # normalised
    start: int  # character span in the original text
    end: int


def fold(text: str) -> str:
    """Lower case, ASCII quotes and dashes, accents dropped; same length as the input."""
    out = []
    for ch in text:
        if ch in "‘’´`":
            ch = "'"
        elif ch in "“”":
            ch = '"'
        elif ch in "‐‑‒–—":
            ch = "-"
        else:
            base = unicodedata.normalize("NFKD", ch)[0]
            ch = base if len(base) == 1 else ch
        out.append(ch.lower())
    return "".join(out)


def tokens(text: str) -> list[Token]:
    """The normalised tokens of ``text``, each with its span in ``text``."""
    folded = fold(text)
    out: list[Token] = []
    for m in _TOKEN.finditer(folded):
        word, start = m.group(0), m.start()
        if word.endswith("'s") and len(word) > 2:
            word = word[:-2]
        word = word.replace("'", "")
        number = NUMBER_WORDS.get(word)
        if number and len(number) == 1 and out and folded[out[-1].start:out[-1].end] in _TENS \
                and folded[out[-1].end:start] in ("-", " "):  # "thirty-four" = "34"
            out[-1] = Token(str(int(out[-1].text) + int(number)), out[-1].start, m.end())
            continue
        word = number or word
        glued = _SPLIT_UNIT.match(word)
        if glued and glued.group(2) not in _KEEP_GLUED:
            num, unit = glued.group(1), glued.group(2)
            out.append(Token(num, start, start + len(num)))
            out.append(Token(unit, start + len(num), m.end()))
            continue
        out.append(Token(word, start, m.end()))
    return out


@lru_cache(maxsize=65536)
def words(phrase: str) -> tuple[str, ...]:
    """The normalised words of a phrase (cached: forms are normalised once)."""
    return tuple(t.text for t in tokens(phrase))


def norm(phrase: str) -> str:
    return " ".join(words(phrase))


@lru_cache(maxsize=262144)
def close(a: str, b: str) -> bool:
    """Two normalised words are the same word, allowing a typo in a long word: one edit (an
    insertion, deletion, substitution or swap of neighbours) from 5 letters, two from 9. A word
    that only adds an ending other than a plural's is another word. Digits must match exactly."""
    if a == b:
        return True
    if any(c.isdigit() for c in a + b):
        return False
    short, long_ = sorted((a, b), key=len)
    if long_.startswith(short) and len(short) >= 3 and long_[len(short):] in ("s", "es"):
        return True  # a plural ("gift cards", "bags")
    if min(len(a), len(b)) < 5 or long_.startswith(short):
        return False  # a short word, or one that adds another ending ("charge" / "charger")
    if is_word(a) and is_word(b):
        return False  # two English words, not a word and its typo ("stuck" / "stock")
    budget = 2 if min(len(a), len(b)) >= 9 else 1
    return OSA.distance(a, b, score_cutoff=budget) <= budget


@lru_cache(maxsize=1)
def _speller() -> SpellChecker:
    return SpellChecker(distance=1)


@lru_cache(maxsize=65536)
def is_word(word: str) -> bool:
    """An English word (pyspellchecker's frequency list), not a typo."""
    return word in _speller().word_frequency.dictionary


@lru_cache(maxsize=65536)
def _corrected(word: str) -> str:
    if len(word) < 4 or not word.isalpha() or is_word(word):
        return word
    return _speller().correction(word) or word


@dataclass(frozen=True)
class Respelled:
    """A folded text with its misspelt words corrected ("we talked abuot" -> "about"), for the
    cue patterns; ``span`` maps a span of the corrected text back to the original."""

    text: str
    origin: tuple[int, ...]  # original index of each corrected character (one past: the length)

    def span(self, a: int, b: int) -> tuple[int, int]:
        return self.origin[a], self.origin[b - 1] + 1 if b > a else self.origin[a]


def respell(folded: str) -> Respelled:
    """Correct every word that is no English word and one edit from one (ids, numbers and short
    words stay as they are)."""
    out: list[str] = []
    origin: list[int] = []
    last = 0
    for m in re.finditer(r"[a-z0-9]+(?:['.][a-z0-9]+)*", folded):
        out.append(folded[last:m.start()])
        origin += range(last, m.start())
        word = _corrected(m.group(0))
        out.append(word)
        n = len(m.group(0))
        origin += [m.start() + min(k * n // max(len(word), 1), n - 1) for k in range(len(word))]
        last = m.end()
    out.append(folded[last:])
    origin += range(last, len(folded) + 1)
    return Respelled("".join(out), tuple(origin))
