"""Canonical encoding and content hashes.

Values keep their JSON type wherever they are stored; identity is computed from a separate
canonical encoding (sorted keys, no whitespace, Python's shortest round-trip float repr), so
``1`` and ``1.0`` stay distinct values and a float is never turned into a string on storage.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(value: Any) -> str:
    """The canonical encoding of a JSON-like value (tuples encode as lists)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def content_hash(*parts: Any, length: int = 16) -> str:
    """sha256 over the canonical encoding of ``parts``, truncated to ``length`` hex digits."""
    digest = hashlib.sha256(canonical_json(list(parts)).encode("utf-8")).hexdigest()
    return digest[:length]


def file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
