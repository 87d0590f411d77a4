"""What an exchange returns to the pipeline: its text, usage and cost (:class:`Exchange`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from miscue.llm.config import Message


class Usage(BaseModel):
    model_config = ConfigDict(frozen=True)

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class Exchange(BaseModel):
    """One request's answer, as returned to the pipeline.

    ``call_id`` is the store key; ``cached`` says it was answered from the store (no model
    call). ``error`` is set only on the exchange a :class:`ProviderError` carries.
    """

    model_config = ConfigDict(frozen=True)

    call_id: str
    role: str
    model: str
    text: str
    usage: Usage = Usage()
    cost: float = 0.0
    latency_s: float = 0.0
    cached: bool = False
    error: str | None = None
    attempts: int = 0


def count_tokens(messages: list[Message]) -> int:
    """The offline token count of a prompt: whitespace-separated words of every message's
    content (the embedded offline models report usage with this count)."""
    total = 0
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            content = " ".join(str(part.get("text", "")) if isinstance(part, dict) else str(part)
                               for part in content)
        total += len(str(content or "").split())
    return total
