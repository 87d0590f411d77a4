"""Reading the writer's replies as models really write them (DESIGN section 8): a message in a code
fence, after a "Message:" label or in quotes is the message. (An extractor's reply is a reading:
:meth:`miscue.reading.ReadingForm.parse` reads it.)
"""

from __future__ import annotations

import re

_QUOTES = ('"', "\u201c", "\u201d", "'")
_LABEL = re.compile(r"^\s*(?:\*\*)?(?:message|user message|the message|reply)(?:\*\*)?\s*:\s*", re.IGNORECASE)


def parse_writer(text: str | None) -> str:
    """The writer's message: a code fence, a "Message:" label or quotes around the whole of it
    removed (the text checks judge the rest, preambles included)."""
    out = (text or "").strip()
    fence = re.fullmatch(r"```[a-z]*\s*\n?(.*?)\n?```", out, re.DOTALL)
    if fence:
        out = fence.group(1).strip()
    out = _LABEL.sub("", out, count=1).strip()
    if len(out) >= 2 and out[0] in _QUOTES and out[-1] in _QUOTES and not any(q in out[1:-1] for q in '"\u201c\u201d'):
        out = out[1:-1].strip()
    return out
