"""The two embedded offline extractors (DESIGN sections 6 and 8); the code is in :mod:`.parse` for now."""

from miscue.offline.extractors.parse import EXTRACTORS, LexicalExtractor, ParseExtractor

__all__ = ["EXTRACTORS", "LexicalExtractor", "ParseExtractor"]
