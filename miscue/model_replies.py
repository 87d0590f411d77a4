"""Reading the writer's and the extractors' replies as models really write them (DESIGN section 8).

A capable model answers a form with the right meaning in many shapes: JSON in a code fence or
after a sentence, a trailing comma, ``"yes"``/``"false"``/``"None"``/``"n/a"`` for a boolean or a
null, a requirement named by its phrase ("the payment method") or its value instead of its id,
the class name capitalised or followed by a gloss. Each reply is validated into a typed pydantic
model whose validators turn those shapes into the one reading they mean; whatever stays
ambiguous (a name that fits two requirements, a list of two values for one field, an unknown
class) fails validation, and the caller records an ``extract:`` verdict, never a crash.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ValidationError, ValidationInfo, field_validator

from miscue.briefs import FLAWS, BlindExtraction, Requirement, TargetedExtraction
from miscue.llm import parse_json_reply

NULLS = {"", "null", "none", "n/a", "na", "nil", "not applicable", "-", "no requirement", "not stated", "unknown"}
TRUE = {"true", "yes", "y", "1"}
FALSE = {"false", "no", "n", "0"}
CLASSES = (*FLAWS, "none")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = {"the", "a", "an", "of", "for", "to", "my", "new", "in", "on", "and", "with"}
#: a second reading that names where a modifier attaches, not another value
_ATTACHES = re.compile(r"\b(attach\w*|refer\w*|describ\w*|modif\w*|applies|belongs?|the other|the old|another)\b")


def _norm(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _content(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def null_like(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip().strip(".").lower() in NULLS)


def as_text(value: Any) -> str | None:
    """A text field: a string, a number said as one, a one-element list; nulls as models write them."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if null_like(value):
        return None
    if isinstance(value, bool):
        raise ValueError(f"a boolean where a quote belongs: {value!r}")
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return value.strip()
    raise ValueError(f"not one quote: {value!r}")


def as_flaw(value: Any) -> str:
    """``"Withheld"``, ``"withheld (not mentioned)"``, ``null`` -> the class id."""
    if null_like(value) or value is False:
        return "none"
    if not isinstance(value, str):
        raise ValueError(f"not a class: {value!r}")
    low = value.strip().lower()
    if low in CLASSES:
        return low
    found = [c for c in CLASSES if re.search(rf"\b{c}\b", low)]
    if len(found) == 1:
        return found[0]
    raise ValueError(f"not one of the classes {list(CLASSES)}: {value!r}")


def as_bool(value: Any) -> bool | None:
    if null_like(value):
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        low = value.strip().strip(".").lower()
        if low in TRUE:
            return True
        if low in FALSE:
            return False
    raise ValueError(f"not a yes or a no: {value!r}")


def requirement_id(value: Any, requirements: list[Requirement] | None) -> str | None:
    """The requirement a reply names: its id, its phrase, or its value (one requirement only)."""
    if not (value is None or isinstance(value, str) or (isinstance(value, list) and len(value) == 1)):
        raise ValueError(f"not a requirement: {value!r}")
    said = as_text(value)
    if said is None or not requirements:
        return said
    slots = {r.slot: r for r in requirements}
    if said in slots:
        return said
    low = said.lower().strip("\"'` ")
    for slot in slots:
        if slot.lower() == low:
            return slot
    # an id quoted with its phrase ("order_id (the order)"), or the id inside a sentence
    named = [s for s in slots if re.search(rf"(?<![\w.:#]){re.escape(s.lower())}(?![\w.:])", low)]
    if len(named) == 1:
        return named[0]
    n = _norm(said)
    for key in ("phrase", "spoken"):
        exact = [r.slot for r in requirements if _norm(getattr(r, key)) == n]
        if len(exact) == 1:
            return exact[0]
    close = [r.slot for r in requirements if n and (f" {_norm(r.phrase)} " in f" {n} " or f" {n} " in f" {_norm(r.phrase)} ")]
    if len(close) == 1:
        return close[0]
    raise ValueError(f"names no single requirement: {said!r}")


class _Reply(BaseModel):
    """The fields every form shares; the validation context carries the requirements."""

    flaw: str
    requirement: str | None = None

    @field_validator("flaw", mode="before")
    @classmethod
    def _flaw(cls, v: Any) -> str:
        return as_flaw(v)

    @field_validator("requirement", mode="before")
    @classmethod
    def _requirement(cls, v: Any, info: ValidationInfo) -> str | None:
        return requirement_id(v, (info.context or {}).get("requirements"))


class BlindReply(_Reply):
    def extraction(self) -> BlindExtraction:
        return BlindExtraction.model_validate(self.model_dump())


_TEXT_FIELDS = ("stated_value", "clause", "fallback", "surface", "second_reading", "detail", "operation", "span")


class TargetedReply(_Reply):
    stated_value: str | None = None
    clause: str | None = None
    fallback: str | None = None
    surface: str | None = None
    second_reading: str | None = None
    detail: str | None = None
    operation: str | None = None
    span: str | None = None
    request_stated: bool | None = None

    @field_validator(*_TEXT_FIELDS, mode="before")
    @classmethod
    def _text(cls, v: Any) -> str | None:
        return as_text(v)

    @field_validator("request_stated", mode="before")
    @classmethod
    def _stated(cls, v: Any) -> bool | None:
        return as_bool(v)

    def extraction(self, requirements: list[Requirement] | None = None) -> TargetedExtraction:
        data = self.model_dump()
        if self.flaw == "ambiguous" and self.second_reading and attaches_elsewhere(self.second_reading, self.requirement,
                                                                                   requirements):
            data["second_reading"] = None  # the form's null: the words describe something else
        return TargetedExtraction.model_validate(data)


def attaches_elsewhere(second: str, slot: str | None, requirements: list[Requirement] | None) -> bool:
    """Does a second reading name where a modifier attaches (another thing) rather than another
    value of the requirement? Never when it names one of the requirement's legal values."""
    target = next((r for r in requirements or [] if r.slot == slot), None)
    n = _norm(second)
    if target is not None:
        forms = [target.spoken, *target.says, *(f for o in (*target.options, *target.parts) for f in (o.say, *o.also))]
        if any(_norm(f) and (_norm(f) == n or f" {_norm(f)} " in f" {n} ") for f in forms):
            return False
    if _ATTACHES.search(second.lower()):
        return True
    words = _content(second)
    return bool(words) and any(len(words & _content(r.phrase)) >= max(1, len(words) // 2) for r in requirements or [])


def _validate(model: type[_Reply], data: dict[str, Any], requirements: list[Requirement] | None) -> Any:
    fields = {k: v for k, v in data.items() if k in model.model_fields}
    try:
        return model.model_validate(fields, context={"requirements": requirements})
    except ValidationError:
        return None


def parse_blind(text: str | None, requirements: list[Requirement] | None = None) -> BlindExtraction | None:
    """A blind answer, or None when the reply is malformed or stays ambiguous. ``requirements``:
    the extraction input's, to map a requirement named by its phrase or value to its id."""
    data = parse_json_reply(text)
    if data is None or "flaw" not in data:
        return None
    reply = _validate(BlindReply, data, requirements)
    return reply.extraction() if reply is not None else None


def parse_targeted(text: str | None, requirements: list[Requirement] | None = None) -> TargetedExtraction | None:
    """A targeted answer, or None when the reply is malformed or stays ambiguous."""
    data = parse_json_reply(text)
    if data is None or "flaw" not in data:
        return None
    reply = _validate(TargetedReply, data, requirements)
    return reply.extraction(requirements) if reply is not None else None


def parse_multi(text: str | None, requirements: list[Requirement] | None = None) -> list[BlindExtraction] | None:
    """A multi-flaw blind answer (``{"flaws": [...]}``), or None when malformed or ambiguous.
    Duplicate entries are folded; an entry with class ``none`` is dropped."""
    data = parse_json_reply(text)
    if data is None or not isinstance(data.get("flaws"), list):
        return None
    out: list[BlindExtraction] = []
    for item in data["flaws"]:
        if not isinstance(item, dict) or "flaw" not in item:
            return None
        reply = _validate(BlindReply, item, requirements)
        if reply is None:
            return None
        found = reply.extraction()
        if found.flaw != "none" and found not in out:
            out.append(found)
    return out


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
