"""The embedded offline models as a litellm custom provider (DESIGN section 8).

``register()`` makes three model names answer through ``litellm.completion`` /
``litellm.acompletion`` with no network and no keys:

- ``offline/writer``  reads the ``<brief>…</brief>`` JSON (a :class:`WriterBrief`) from the last
  user message and answers with :func:`miscue.offline.writer.write`; a composite card's
  ``<composite>{"components": [...]}</composite>`` with :func:`~miscue.offline.writer.write_composite`
  and a second pass's ``<transform>{"text", "components", "keep"}</transform>`` with
  :func:`~miscue.offline.writer.write_transform`;
- ``offline/lexical`` and ``offline/parse`` answer the reading form (the ``<input>…</input>`` JSON
  holding ``input``, an :class:`ExtractionInput`, and ``form``, a :class:`ReadingForm`) with a
  :class:`~miscue.reading.Reading` from their own evidence, as a JSON object.

A prompt the handler cannot read (no tag, bad JSON, off-schema) gets an empty reply, never an
exception (the gateway treats an empty reply as a failed attempt). Usage is counted
deterministically as whitespace tokens; the per-token cost is registered as 0.0. litellm is
imported through :func:`miscue.llm.env.load_litellm`, which sets its offline environment first.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from pydantic import ValidationError

from miscue.briefs import ExtractionInput, WriterBrief
from miscue.llm.env import load_litellm
from miscue.reading import ReadingForm
from miscue.offline import extractors as _extractors
from miscue.offline import writer as _writer

PROVIDER = "offline"
MODELS = ("writer", "lexical", "parse")
MODEL_NAMES = tuple(f"{PROVIDER}/{m}" for m in MODELS)

_BRIEF = re.compile(r"<brief>(.*?)</brief>", re.DOTALL)
_INPUT = re.compile(r"<input>(.*?)</input>", re.DOTALL)
_COMPOSITE = re.compile(r"<composite>(.*?)</composite>", re.DOTALL)
_TRANSFORM = re.compile(r"<transform>(.*?)</transform>", re.DOTALL)


def _content_text(content: Any) -> str:
    """A message's text: a string, or the text parts of an OpenAI-style content list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif isinstance(part, str):
                parts.append(part)
        return "\n".join(parts)
    return ""


def _last_user(messages: Any) -> str:
    if not isinstance(messages, list):
        return ""
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            return _content_text(message.get("content"))
    return ""


def _last(pattern: re.Pattern[str], text: str) -> str | None:
    found = pattern.findall(text)
    return found[-1] if found else None


def answer(model: str, messages: Any) -> str:
    """The offline model ``model`` (``writer`` / ``lexical`` / ``parse``, with or without the
    ``offline/`` prefix) answering ``messages``; ``""`` for anything it cannot read."""
    name = model.split("/", 1)[1] if model.startswith(f"{PROVIDER}/") else model
    text = _last_user(messages)
    try:
        if name == "writer":
            raw = _last(_TRANSFORM, text)
            if raw is not None:
                data = json.loads(raw)
                briefs = [WriterBrief.model_validate(b) for b in data["components"]]
                return _writer.write_transform(str(data["text"]), briefs, [str(k) for k in data.get("keep", [])])
            raw = _last(_COMPOSITE, text)
            if raw is not None:
                data = json.loads(raw)
                return _writer.write_composite([WriterBrief.model_validate(b) for b in data["components"]])
            raw = _last(_BRIEF, text)
            if raw is None:
                return ""
            return _writer.write(WriterBrief.model_validate_json(raw.strip()))
        if name in _extractors.EXTRACTORS:
            raw = _last(_INPUT, text)
            if raw is None:
                return ""
            extractor = _extractors.EXTRACTORS[name]
            data = json.loads(raw.strip())
            if not (isinstance(data, dict) and "form" in data and "input" in data):
                return ""  # not the reading form
            reading = extractor.read(ExtractionInput.model_validate(data["input"]), ReadingForm.from_dict(data["form"]))
            return reading.model_dump_json()
    except (ValidationError, ValueError, TypeError, KeyError, IndexError, AttributeError):
        return ""
    return ""


def _tokens(text: str) -> int:
    return len(text.split())


def _prompt_tokens(messages: Any) -> int:
    if not isinstance(messages, list):
        return 0
    return sum(_tokens(_content_text(m.get("content"))) for m in messages if isinstance(m, dict))


def _response(model: str, messages: Any) -> Any:
    litellm = load_litellm()

    if model.split("/", 1)[-1] not in MODELS:
        # A configuration error, not a malformed prompt: terminal, never retried.
        raise litellm.BadRequestError(
            message=f"unknown offline model {model!r}; the offline provider serves {list(MODEL_NAMES)}",
            model=model, llm_provider=PROVIDER)
    text = answer(model, messages)
    prompt, completion = _prompt_tokens(messages), _tokens(text)
    return litellm.ModelResponse(
        model=model,
        choices=[{"index": 0, "finish_reason": "stop",
                  "message": {"role": "assistant", "content": text}}],
        usage={"prompt_tokens": prompt, "completion_tokens": completion,
               "total_tokens": prompt + completion},
    )


_LOCK = threading.Lock()
_HANDLER: Any = None


def _handler_class() -> type:
    litellm = load_litellm()

    class OfflineProvider(litellm.CustomLLM):
        """Serves ``offline/writer``, ``offline/lexical`` and ``offline/parse``. Every call
        parameter (temperature, seed, max_retries, timeout …) arrives in ``optional_params`` or
        as keywords and is ignored: the models are deterministic."""

        def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
            return _response(model, messages)

        async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
            return _response(model, messages)

    return OfflineProvider


def register() -> Any:
    """Register the offline provider with litellm (idempotent); returns the handler."""
    global _HANDLER
    litellm = load_litellm()

    with _LOCK:
        if _HANDLER is None:
            _HANDLER = _handler_class()()
        entries = [e for e in litellm.custom_provider_map if e.get("provider") != PROVIDER]
        litellm.custom_provider_map = entries + [{"provider": PROVIDER, "custom_handler": _HANDLER}]
        missing = [m for m in MODEL_NAMES if m not in litellm.model_cost]
        if missing:
            litellm.register_model({m: {"input_cost_per_token": 0.0, "output_cost_per_token": 0.0,
                                        "cache_creation_input_token_cost": 0.0,
                                        "cache_read_input_token_cost": 0.0,
                                        "litellm_provider": PROVIDER, "mode": "chat"}
                                    for m in missing})
    return _HANDLER
