"""The model layer's configuration: three roles, model families and providers, limits.

Each role (``writer``, ``extractor_a``, ``extractor_b``) is a litellm model string plus
parameters; the two extractors must come from different model families (:func:`model_family`).
This module does not import litellm, so configuration code stays cheap to import.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from miscue.errors import BadInput, ConfigError

Role = Literal["writer", "extractor_a", "extractor_b"]
ROLES: tuple[str, ...] = ("writer", "extractor_a", "extractor_b")
Message = dict[str, Any]

# Parameters the gateway owns: a role may not set them (retries, timeouts, streaming, fallbacks
# and litellm's cache are ours or forbidden).
RESERVED_PARAMS = frozenset({
    "model", "messages", "stream", "timeout", "request_timeout", "max_retries", "num_retries",
    "fallbacks", "context_window_fallback_dict", "mock_response", "caching", "cache",
})
# Parameters that say how to reach a model, not what is asked of it: passed to litellm but kept
# out of the request key and out of every stored record (several are secrets).
TRANSPORT_PARAMS = frozenset({
    "api_key", "api_base", "base_url", "api_version", "organization", "extra_headers", "headers",
    "aws_access_key_id", "aws_secret_access_key", "aws_session_token", "aws_region_name",
    "azure_ad_token", "vertex_credentials", "vertex_project", "vertex_location",
})
SECRET_PARAMS = frozenset({
    "api_key", "aws_access_key_id", "aws_secret_access_key", "aws_session_token",
    "azure_ad_token", "vertex_credentials",
})


# Searched in the model name (the route prefix removed), lower-cased; the earliest match wins
# ("deepseek-r1-distill-llama" is deepseek). Short names need boundaries so "dolphin" is not phi.
_FAMILY_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (family, re.compile(pattern)) for family, pattern in (
        ("gpt", r"chatgpt|gpt|(?<![a-z0-9])o[1-9](?![0-9a-z])"),
        ("claude", r"claude"),
        ("llama", r"llama"),
        ("qwen", r"qwen|qwq"),
        ("mistral", r"mistral|mixtral|codestral|ministral|magistral|devstral|pixtral"),
        ("gemini", r"gemini"),
        ("gemma", r"gemma"),
        ("deepseek", r"deepseek"),
        ("phi", r"(?<![a-z])phi(?![a-z])"),
        ("command", r"command-|cohere"),
        ("grok", r"grok"),
        ("nemotron", r"nemotron"),
        ("granite", r"granite"),
        ("falcon", r"falcon"),
        ("olmo", r"olmo"),
        ("glm", r"(?<![a-z])(?:chat)?glm"),
        ("kimi", r"kimi|moonshot"),
        ("yi", r"(?<![a-z])yi(?![a-z])"),
    )
)


def split_model(model: str) -> tuple[str, str]:
    """``"openai/gpt-4o-mini"`` -> ``("openai", "gpt-4o-mini")`` (split at the first '/')."""
    provider, sep, name = model.partition("/")
    if not sep or not provider or not name:
        raise ConfigError(f"model {model!r} must be '<provider>/<name>' (a litellm route)")
    return provider, name


def provider_of(model: str) -> str:
    """The rate-limit bucket of a model: the part of the model string before the first '/'."""
    return split_model(model)[0]


def model_family(model: str) -> str:
    """The model family, decided from the model name, not from the route that serves it.

    ``openai/gpt-4o-mini`` -> ``gpt``; ``openai/llama-3.1-8b`` -> ``llama``;
    ``bedrock/anthropic.claude-3-haiku`` -> ``claude``; ``ollama_chat/qwen2.5`` -> ``qwen``.
    The embedded offline models are each their own family: ``offline/lexical`` ->
    ``offline-lexical``. An unknown name falls back to its leading alphabetic word
    (``openai/stub-writer`` -> ``stub``).
    """
    provider, name = split_model(model)
    name = name.lower()
    if provider == "offline":
        return f"offline-{name}"
    hits = [(m.start(), family) for family, pattern in _FAMILY_PATTERNS
            if (m := pattern.search(name))]
    if hits:
        return min(hits)[1]
    word = re.search(r"[a-z]+", name.rsplit("/", 1)[-1])
    return word.group(0) if word else name


class RoleConfig(BaseModel):
    """One role: a litellm model string (``provider/name``) and its call parameters."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    params: dict[str, Any] = Field(default_factory=dict)
    # whether a request with a JSON Schema sends it as a structured-output ``response_format``:
    # None asks litellm's model map; true/false say so for a server litellm cannot look up
    # (a local vLLM or Ollama model behind an OpenAI-compatible route)
    structured_output: bool | None = None

    @field_validator("model")
    @classmethod
    def _routed(cls, model: str) -> str:
        split_model(model)
        return model

    @field_validator("params")
    @classmethod
    def _not_reserved(cls, params: dict[str, Any]) -> dict[str, Any]:
        clash = sorted(RESERVED_PARAMS & params.keys())
        if clash:
            raise ValueError(f"params {clash} are set by the gateway (timeouts, retries, no "
                             f"streaming, no fallbacks, no litellm cache) and may not be given")
        return params

    @property
    def family(self) -> str:
        return model_family(self.model)

    @property
    def provider(self) -> str:
        return provider_of(self.model)


class LLMConfig(BaseModel):
    """The model layer of a run: three roles, limits, retry policy, replay mode."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    writer: RoleConfig
    extractor_a: RoleConfig
    extractor_b: RoleConfig
    max_concurrency: int = Field(8, ge=1)
    # provider (the part of the model string before '/') -> requests per minute; absent = unlimited
    requests_per_minute: dict[str, int] = Field(default_factory=dict)
    timeout_s: float = Field(60.0, gt=0)
    max_retries: int = Field(4, ge=0)  # retries after the first attempt
    backoff_base_s: float = Field(1.0, ge=0)  # first backoff; doubles per retry, with jitter
    backoff_cap_s: float = Field(30.0, ge=0)
    retry_after_cap_s: float = Field(60.0, ge=0)  # the longest a provider's Retry-After may hold us
    replay_only: bool = False  # a store miss is an error (--offline-replay)
    # Budget: the most this gateway may spend on model calls (store hits are free); a new call
    # whose expected cost would take the spent total past it raises BudgetExceeded. None = no cap.
    max_cost: float | None = Field(None, ge=0)
    # model string -> (USD per prompt token, USD per completion token); overrides the provider's
    # reported cost (self-hosted or local models report none).
    prices: dict[str, tuple[float, float]] = Field(default_factory=dict)

    @field_validator("requests_per_minute")
    @classmethod
    def _positive_rpm(cls, rpm: dict[str, int]) -> dict[str, int]:
        bad = {p: v for p, v in rpm.items() if v <= 0}
        if bad:
            raise ValueError(f"requests_per_minute must be positive, got {bad}")
        return rpm

    @model_validator(mode="after")
    def _independent_extractors(self) -> LLMConfig:
        a, b = self.extractor_a, self.extractor_b
        if a.family == b.family:
            raise ValueError(
                f"extractor_a {a.model!r} and extractor_b {b.model!r} are both of model family "
                f"{a.family!r}; the two extractors must come from different families")
        return self

    def role(self, role: str) -> RoleConfig:
        if role not in ROLES:
            raise BadInput(f"unknown role {role!r}; roles are {list(ROLES)}")
        return getattr(self, role)
