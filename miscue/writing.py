"""Prompt cards and extraction forms (DESIGN section 6): rendering, versions, reply parsing.

The writer's prompt is the frame ``prompts/writer.j2`` (generic rules, the true intent in the
domain's words, the brief as JSON between ``<brief>`` and ``</brief>``) with one fault card
``prompts/cards/<fault_type>.j2`` included. The extractors' prompts are the blind form
``prompts/extract_blind.j2`` and the targeted form ``prompts/extract_targeted.j2`` (rendered for
the class the blind answer found, never for the planned one); both embed the
:class:`ExtractionInput` as JSON between ``<input>`` and ``</input>``, the targeted form also
``<form>CLASS</form>``. Nothing here names a host.

A version is the sha256 (16 hex digits) of the exact template sources a prompt was rendered
from: editing a card or a form changes the version of every prompt that uses it, and with it
the exchange store's request key.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import jinja2

from miscue.briefs import FLAWS, BlindExtraction, ExtractionInput, TargetedExtraction, WriterBrief
from miscue.llm import parse_json_reply
from miscue.taxonomy import FAULT_TYPES

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "prompts"
FRAME = "writer.j2"
BLIND_FORM = "extract_blind.j2"
TARGETED_FORM = "extract_targeted.j2"

Messages = list[dict[str, Any]]


def card_path(fault_type: str) -> str:
    if fault_type not in FAULT_TYPES:
        known = ", ".join(sorted(FAULT_TYPES))
        raise ValueError(f"unknown fault type {fault_type!r}; known types: {known}")
    return f"cards/{fault_type}.j2"


class PromptSet:
    """The templates under one prompts directory."""

    def __init__(self, root: str | Path = PROMPTS_DIR) -> None:
        self.root = Path(root)
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(self.root)),
            undefined=jinja2.StrictUndefined,
            autoescape=False,
            keep_trailing_newline=False,
            trim_blocks=False,
            lstrip_blocks=False,
        )

    # -- sources and versions ---------------------------------------------------------------
    def source(self, name: str) -> str:
        path = self.root / name
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise FileNotFoundError(f"prompt template {name!r} not found under {self.root}") from None

    def version(self, *names: str) -> str:
        h = hashlib.sha256()
        for name in names:
            data = self.source(name).encode("utf-8")
            h.update(name.encode("utf-8") + b"\0" + str(len(data)).encode() + b"\0" + data)
        return h.hexdigest()[:16]

    def card_version(self, fault_type: str) -> str:
        return self.version(FRAME, card_path(fault_type))

    def versions(self) -> dict[str, str]:
        out = {ft: self.card_version(ft) for ft in FAULT_TYPES}
        out["extract_blind"] = self.version(BLIND_FORM)
        out["extract_targeted"] = self.version(TARGETED_FORM)
        return out

    # -- rendering --------------------------------------------------------------------------
    def _two_part(self, name: str, **context: Any) -> Messages:
        template = self.env.get_template(name)
        system = template.render(part="system", **context).strip()
        user = template.render(part="user", **context).strip()
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def render_writer(self, brief: WriterBrief) -> tuple[Messages, str]:
        card = card_path(brief.fault_type)
        target = brief.requirement(brief.target)
        others = [r for r in brief.requirements if target is None or r.slot != target.slot]
        messages = self._two_part(FRAME, card=card, brief=brief, t=target, m=brief.materials,
                                  others=others, brief_json=brief.model_dump_json())
        return messages, self.card_version(brief.fault_type)

    def render_blind(self, inp: ExtractionInput) -> tuple[Messages, str]:
        messages = self._two_part(BLIND_FORM, inp=inp, input_json=inp.model_dump_json())
        return messages, self.version(BLIND_FORM)

    def render_targeted(self, inp: ExtractionInput, flaw: str) -> tuple[Messages, str]:
        if flaw not in FLAWS:
            raise ValueError(f"no targeted form for {flaw!r}; forms exist for {list(FLAWS)}")
        messages = self._two_part(TARGETED_FORM, inp=inp, flaw=flaw, input_json=inp.model_dump_json())
        return messages, self.version(TARGETED_FORM)


_DEFAULT: PromptSet | None = None


def prompts() -> PromptSet:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = PromptSet()
    return _DEFAULT


def render_writer(brief: WriterBrief) -> tuple[Messages, str]:
    """The writer's messages for ``brief`` and the card version (frame + the type's card)."""
    return prompts().render_writer(brief)


def render_blind(inp: ExtractionInput) -> tuple[Messages, str]:
    """The blind extraction form's messages and its version."""
    return prompts().render_blind(inp)


def render_targeted(inp: ExtractionInput, flaw: str) -> tuple[Messages, str]:
    """The targeted form for ``flaw`` (the class the blind answer found) and its version."""
    return prompts().render_targeted(inp, flaw)


def card_versions() -> dict[str, str]:
    """Versions of every card (keyed by fault type) and of both extraction forms."""
    return prompts().versions()


# -- replies ---------------------------------------------------------------------------------


def parse_blind(text: str | None) -> BlindExtraction | None:
    """A blind answer, or None when the reply is malformed or off-schema."""
    data = parse_json_reply(text)
    if data is None:
        return None
    flaw = data.get("flaw")
    if isinstance(flaw, str):
        data["flaw"] = flaw.strip().lower()
    requirement = data.get("requirement")
    if requirement is not None and not isinstance(requirement, str):
        return None
    if isinstance(requirement, str) and requirement.strip().lower() in ("", "null", "none"):
        data["requirement"] = None
    try:
        return BlindExtraction.model_validate({k: data[k] for k in ("flaw", "requirement") if k in data})
    except ValueError:
        return None


_TARGETED_TEXT_FIELDS = ("requirement", "stated_value", "clause", "fallback", "surface",
                         "second_reading", "detail", "operation", "span")


def parse_targeted(text: str | None) -> TargetedExtraction | None:
    """A targeted answer, or None when the reply is malformed or off-schema."""
    data = parse_json_reply(text)
    if data is None:
        return None
    flaw = data.get("flaw")
    if isinstance(flaw, str):
        data["flaw"] = flaw.strip().lower()
    for key in _TARGETED_TEXT_FIELDS:
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            return None
    stated = data.get("request_stated")
    if stated is not None and not isinstance(stated, bool):
        return None
    fields = {k: data[k] for k in ("flaw", "request_stated", *_TARGETED_TEXT_FIELDS) if k in data}
    try:
        return TargetedExtraction.model_validate(fields)
    except ValueError:
        return None
