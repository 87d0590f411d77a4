"""Reading a model's reply: whether it is well-formed is the caller's verdict."""

from __future__ import annotations

import json
import re
from typing import Any


def parse_json_reply(text: str | None) -> dict[str, Any] | None:
    """The first JSON object in a model's reply (prose and ```json fences tolerated), or None."""
    if not text:
        return None
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None
