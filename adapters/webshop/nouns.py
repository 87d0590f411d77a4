"""The part of speech step of WebShop's type factor: a product name's nouns.

The nouns come from a pluggable tagger: spaCy's ``NOUN``/``PROPN`` tags when a spaCy English
model is importable (WebShop's own path), otherwise :class:`HeuristicNouns`, a documented
content-word approximation. ``tagger.id`` says which one ran; the adapter records it in its
input hashes and its environment id.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Protocol

from miscue.adapters.webshop.matching import COLOR_SET
from miscue.errors import ConfigError


class NounTagger(Protocol):
    """The part of speech step of ``get_type_reward``: a name's nouns, lower-cased, in order."""

    id: str

    def nouns(self, text: str) -> list[str]: ...


_STOPWORDS = frozenset("""
a an the and or nor but for with without of in on at to by from into onto over under up down as
is are be this that these those it its s t our your my his her their new set pcs pc piece pieces
per each inch inches in ft feet oz fl ounce ounces lb lbs pound pounds count ct ml l g kg mm cm
x xs xl xxl xxxl small medium large one two three four five six seven eight ten twelve plus
""".split())


class HeuristicNouns:
    """Fallback when no spaCy English model is importable (it cannot be downloaded here).

    Every lower-case alphabetic token of two or more letters counts as a noun unless it is a
    function word, a unit, a size or count word, or a COLOR_SET colour. Product names are mostly
    noun compounds ("Women's Floral Wrap Midi Dress"), so this over-counts a few adjectives
    relative to spaCy; title_score's denominator grows accordingly (scores only go down).
    """

    id = "heuristic-nouns@1"

    def nouns(self, text: str) -> list[str]:
        return list(_heuristic_nouns(text))


_COLORS = frozenset(COLOR_SET)
_TOKEN = re.compile(r"[a-z]+")


@lru_cache(maxsize=1 << 16)
def _heuristic_nouns(text: str) -> tuple[str, ...]:
    return tuple(t for t in _TOKEN.findall(text.lower()) if len(t) >= 2 and t not in _STOPWORDS and t not in _COLORS)


class SpacyNouns:
    """WebShop's own path: tokens spaCy tags NOUN or PROPN ('PNOUN' is listed upstream too)."""

    def __init__(self, model: str) -> None:
        import spacy  # type: ignore[import-not-found]

        self._nlp = spacy.load(model)
        self.id = f"spacy:{model}@{spacy.__version__}"

    def nouns(self, text: str) -> list[str]:
        return [t.text.lower() for t in self._nlp(text) if t.pos_ in ("PNOUN", "NOUN", "PROPN")]


def load_noun_tagger(kind: str = "auto") -> NounTagger:
    """``auto``: spaCy (en_core_web_sm, then en_core_web_lg) when importable, else the heuristic."""
    if kind == "heuristic":
        return HeuristicNouns()
    if kind not in ("auto", "spacy"):
        raise ConfigError(f"unknown type factor {kind!r}; known: auto, spacy, heuristic")
    for model in ("en_core_web_sm", "en_core_web_lg"):
        try:
            return SpacyNouns(model)
        except Exception:  # spaCy or the model is not installed
            continue
    if kind == "spacy":
        raise ConfigError("type factor 'spacy' requested but no spaCy English model is importable")
    return HeuristicNouns()
