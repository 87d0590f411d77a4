"""The two embedded offline extractors (DESIGN sections 6 and 8): honest, deterministic baselines.

Both read an :class:`~miscue.briefs.ExtractionInput` only (context, request, the true
requirements, the text); neither ever sees the plan, the fault type or the writer's materials.
They are independent algorithms:

``lexical`` (:mod:`.lexical`, its lexicons in :mod:`.lexicon`)
    cue and value matching on the surface text;

``parse`` (:mod:`.parse`)
    parsing the text into clauses and (requirement, value) pairs, diffed against the truth.

Each answers the reading form, ``read(inp, form) -> Reading``, from its own evidence; the reading's
plumbing is their one base class (:mod:`.base`), the text utilities they share are in :mod:`.text`.
Their lexicons are general English, written here; nothing is imported from the offline writer.
"""

from __future__ import annotations

from miscue.offline.extractors.base import Extractor
from miscue.offline.extractors.lexical import LexicalExtractor
from miscue.offline.extractors.parse import ParseExtractor

#: The offline extractors by model name (``offline/lexical``, ``offline/parse``).
EXTRACTORS: dict[str, Extractor] = {"lexical": LexicalExtractor(), "parse": ParseExtractor()}

__all__ = ["EXTRACTORS", "Extractor", "LexicalExtractor", "ParseExtractor"]
