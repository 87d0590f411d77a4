"""Reading a model's reply: whether it is well-formed is the caller's verdict."""

from __future__ import annotations

import ast
import json
import re
from typing import Any

_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_SMART = str.maketrans({"\u201c": '"', "\u201d": '"'})
MAX_PYTHON_SCAN = 4000  # characters: a Python-literal reply is short


def _first_object(text: str) -> dict[str, Any] | None:
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def _python_object(text: str) -> dict[str, Any] | None:
    """A Python dict literal (``{'flaw': 'withheld', 'requirement': None}``), as some models write."""
    text = text[:MAX_PYTHON_SCAN]
    for start in (m.start() for m in re.finditer(r"\{", text)):
        for end in (m.end() for m in re.finditer(r"\}", text[start:])):
            try:
                value = ast.literal_eval(text[start:start + end])
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                continue
            if isinstance(value, dict) and all(isinstance(k, str) for k in value):
                return value
    return None


def parse_json_reply(text: str | None) -> dict[str, Any] | None:
    """The first JSON object in a model's reply, or None. Tolerated: prose around it, ```json
    fences, curly quotes, trailing commas, a Python dict literal (``None``, ``True``, 'quotes')."""
    if not text:
        return None
    found = _first_object(text)
    repaired = _TRAILING_COMMA.sub(r"\1", text.translate(_SMART))
    if repaired != text:  # the repaired outer object, not an inner one the broken reply still holds
        found = _first_object(repaired) or found
    return found if found is not None else _python_object(repaired)
