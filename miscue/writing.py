"""Prompt cards and the reading form (DESIGN section 6): rendering, versions, reply parsing.

The writer's prompt is the frame ``prompts/writer.j2`` (generic rules, the true intent in the
domain's words, the brief as JSON between ``<brief>`` and ``</brief>``) with one fault card
``prompts/cards/<fault_type>.j2`` included. Each extractor's one prompt is the reading form
``prompts/read.j2``: the :class:`ExtractionInput` and the task's :class:`ReadingForm` as JSON
between ``<input>`` and ``</input>``. Nothing here names a host.

A version is the sha256 (16 hex digits) of the exact template sources a prompt was rendered
from: editing a card or a form changes the version of every prompt that uses it, and with it
the exchange store's request key.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import jinja2

from miscue.briefs import ExtractionInput, WriterBrief
from miscue.model_replies import parse_writer
from miscue.reading import NO_VALUE, WORDS, ReadingForm
from miscue import resources, taxonomy
from miscue.errors import MissingResource
from miscue.taxonomy import FAULT_TYPES, WHOLE_MESSAGE_TYPES
from miscue.writer_view import sentences, shared_value, word_budget, writer_view

PROMPTS_DIR = resources.prompts_dir()
FRAME = "writer.j2"
COMPOSITE_CARD = "composite.j2"
TRANSFORM_CARD = "transform.j2"
READ_FORM = "read.j2"

Messages = list[dict[str, Any]]


def card_path(fault_type: str) -> str:
    """The card of a fault type (UnknownFaultType for an id outside the taxonomy)."""
    return f"cards/{taxonomy.fault_type(fault_type).id}.j2"


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
            raise self._missing(name) from None

    def _missing(self, name: str | None) -> MissingResource:
        return MissingResource(f"prompt template {name!r} is missing under {self.root}: "
                               "the miscue installation is incomplete (reinstall miscue)")

    def check(self) -> None:
        """Every template a run renders is there (:class:`MissingResource` names the first that is not)."""
        for name in (FRAME, COMPOSITE_CARD, TRANSFORM_CARD, READ_FORM,
                     *(card_path(t) for t in FAULT_TYPES)):
            self.source(name)

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
        out["read"] = self.version(READ_FORM)
        return out

    # -- rendering --------------------------------------------------------------------------
    def _two_part(self, name: str, **context: Any) -> Messages:
        try:
            template = self.env.get_template(name)
        except jinja2.TemplateNotFound as missing:
            raise self._missing(missing.name) from None
        system = template.render(part="system", **context).strip()
        user = template.render(part="user", **context).strip()
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def render_writer(self, brief: WriterBrief) -> tuple[Messages, str]:
        """The cards read the writer's view of the brief (plain names, the length rule of the
        text checks); the ``<brief>`` JSON is the brief itself."""
        card = card_path(brief.fault_type)
        view = writer_view(brief)
        target = view.requirement(view.target)
        if target is not None and sum(1 for r in view.requirements if r.phrase == target.phrase) > 1:
            target = target.model_copy(update={"phrase": f'{target.phrase} ("{target.spoken}")'})  # which of the twins
        others = [r for r in view.requirements if target is None or r.slot != target.slot]
        shared = [view.requirement(r.slot) for r in shared_value(brief)]
        messages = self._two_part(FRAME, card=card, brief=view, t=target, m=view.materials, others=others,
                                  shared=shared, max_words=word_budget(brief), sentences=sentences(brief),
                                  brief_json=brief.model_dump_json())
        return messages, self.card_version(brief.fault_type)

    def render_read(self, inp: ExtractionInput, form: ReadingForm) -> tuple[Messages, str]:
        """The reading form for ``inp``'s text and its version: the template's and the task's
        reply schema's (so a change to either is a new request)."""
        machine = {"input": inp.model_dump(mode="json"), "form": form.as_dict()}
        messages = self._two_part(READ_FORM, inp=inp, form=form, no_value=NO_VALUE, own_words=WORDS[0],
                                  input_json=json.dumps(machine, ensure_ascii=False, sort_keys=True))
        return messages, f"{self.version(READ_FORM)}+{form.schema_hash()}"

    # -- composites (DESIGN section 7) -------------------------------------------------------
    def composite_version(self, fault_types: list[str]) -> str:
        return self.version(COMPOSITE_CARD, *[card_path(t) for t in sorted(set(fault_types))])

    def transform_version(self, fault_types: list[str]) -> str:
        return self.version(TRANSFORM_CARD, *[card_path(t) for t in sorted(set(fault_types))])

    @staticmethod
    def _components(briefs: list[WriterBrief]) -> list[dict[str, Any]]:
        out = []
        for b in (writer_view(x, hide=False) for x in briefs):
            ft = FAULT_TYPES[b.fault_type] if b.fault_type in FAULT_TYPES else None
            scope = {"added_detail": "an added detail (not one of the requirements)",
                     "operation": "the operation asked for"}.get(ft.target.value if ft else "", "the whole message")
            out.append({"brief": b, "t": b.requirement(b.target), "m": b.materials, "card": card_path(b.fault_type),
                        "scope": scope, "type": b.fault_type})
        return out

    def render_composite(self, briefs: list[WriterBrief]) -> tuple[Messages, str]:
        """All component cards in one writer call; the components as JSON in ``<composite>``."""
        if not briefs:
            raise ValueError("a composite card needs at least one component")
        types = [b.fault_type for b in briefs]
        if len(set(types)) != len(types):
            raise ValueError(f"a composite card issues distinct fault types, got {types}")
        comps = self._components(briefs)
        base = writer_view(briefs[0], hide=False)
        noise = "contextual_irrelevance" in types
        payload = json.dumps({"components": [b.model_dump(mode="json") for b in briefs]}, ensure_ascii=False)
        messages = self._two_part(
            COMPOSITE_CARD, components=comps, k=len(briefs), context=base.context, request=base.request,
            requirements=base.requirements, attempt=base.attempt, noise=noise,
            hearsay="indirect_intent" in types,
            sentences="Two to four" if len(briefs) <= 2 else "Three to five",
            max_words=composite_word_budget(len(briefs), len(base.requirements), noise,
                                            sum(len((b.materials.extra or "").split()) for b in briefs)),
            composite_json=payload)
        return messages, self.composite_version(types)

    def render_transform(self, text: str, briefs: list[WriterBrief], keep: list[str]) -> tuple[Messages, str]:
        """The transformation-only second pass: the whole-message cards applied to ``text``,
        keeping every phrase in ``keep`` (values and mistakes) verbatim."""
        if not briefs:
            raise ValueError("a transformation needs at least one whole-message component")
        bad = [b.fault_type for b in briefs if b.fault_type not in WHOLE_MESSAGE_TYPES]
        if bad:
            raise ValueError(f"the transformation pass applies whole-message faults only, got {bad}")
        base = briefs[0]
        payload = json.dumps({"text": text, "components": [b.model_dump(mode="json") for b in briefs], "keep": list(keep)},
                             ensure_ascii=False)
        messages = self._two_part(TRANSFORM_CARD, components=self._components(briefs), text=text, keep=list(keep),
                                  context=base.context, attempt=base.attempt, transform_json=payload)
        return messages, self.transform_version([b.fault_type for b in briefs])

    def composite_versions(self) -> dict[str, str]:
        return {"composite": self.version(COMPOSITE_CARD), "transform": self.version(TRANSFORM_CARD)}


_DEFAULT: PromptSet | None = None


def prompts() -> PromptSet:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = PromptSet()
    return _DEFAULT


def render_writer(brief: WriterBrief) -> tuple[Messages, str]:
    """The writer's messages for ``brief`` and the card version (frame + the type's card)."""
    return prompts().render_writer(brief)


def render_read(inp: ExtractionInput, form: ReadingForm) -> tuple[Messages, str]:
    """The reading form's messages for ``inp``'s text and its version (template + reply schema)."""
    return prompts().render_read(inp, form)


def card_versions() -> dict[str, str]:
    """Versions of every card (keyed by fault type) and of the reading form's template (``read``)."""
    return prompts().versions()


# -- composites -------------------------------------------------------------------------------

COMPOSITE_MAX_WORDS = 130
COMPOSITE_NOISE_WORDS = 90  # the off-topic passage
COMPOSITE_WORDS_PER_COMPONENT = 25  # per component beyond the first
COMPOSITE_WORDS_PER_REQUIREMENT = 18  # per requirement beyond the fourth


def composite_word_budget(k: int, n_requirements: int, noise: bool, extra_words: int = 0) -> int:
    """The word budget of a k-fault message (the card states it, the text checks enforce it)."""
    return (COMPOSITE_MAX_WORDS + (COMPOSITE_NOISE_WORDS if noise else 0) + COMPOSITE_WORDS_PER_COMPONENT * max(0, k - 1)
            + COMPOSITE_WORDS_PER_REQUIREMENT * max(0, n_requirements - 4) + extra_words)


def render_composite(briefs: list[WriterBrief]) -> tuple[Messages, str]:
    """The composite card for ``briefs`` (one per component) and its version (frame + cards)."""
    return prompts().render_composite(briefs)


def render_transform(text: str, briefs: list[WriterBrief], keep: list[str]) -> tuple[Messages, str]:
    """The transformation-only second pass for the whole-message ``briefs`` and its version."""
    return prompts().render_transform(text, briefs, keep)


def composite_versions() -> dict[str, str]:
    """Versions of the composite card and the transformation card."""
    return prompts().composite_versions()


# -- replies ---------------------------------------------------------------------------------
# tolerant, typed reading of the models' replies: :mod:`miscue.model_replies`
__all__ = ["parse_writer", "PromptSet", "prompts", "render_writer", "render_read", "render_composite", "render_transform",
           "card_versions", "composite_versions", "composite_word_budget", "card_path"]
