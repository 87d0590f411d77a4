"""The litellm gateway: roles, exchange store, retries, limits, usage (DESIGN section 8).

Every model call of the pipeline goes through :class:`Gateway`:

- three roles (``writer``, ``extractor_a``, ``extractor_b``), each a litellm model string plus
  parameters; the two extractors must come from different model families (:func:`model_family`)
  -- :mod:`miscue.llm.config`;
- an on-disk, content-addressed :class:`ExchangeStore`: a repeated request is answered from the
  store without a model call, and ``replay_only`` turns a store miss into :class:`StoreMiss`
  -- :mod:`miscue.llm.store`;
- our own retry loop (tenacity) for transient failures (429, 5xx, timeouts, connection errors,
  empty output) with exponential backoff and jitter, honouring a bounded ``Retry-After``;
  terminal failures (auth, quota, bad request) raise :class:`TerminalProviderError` at once.
  Nothing ever falls back to another model. litellm's own retries stay off (``num_retries`` is
  never passed) and ``max_retries=0`` stops the OpenAI SDK from retrying underneath
  -- :mod:`miscue.llm.gateway`, errors in :mod:`miscue.llm.errors`;
- bounded concurrency and a per-provider requests-per-minute limit -- :mod:`miscue.llm.limits`;
- token and cost accounting per call and per role (:mod:`miscue.llm.records`, ``RoleUsage``).

A model's reply is returned as text; whether it is well-formed is the caller's verdict
(:func:`parse_json_reply` helps). litellm is imported lazily (:mod:`miscue.llm.env`), so
configuration code that only needs :class:`LLMConfig` or :func:`model_family` does not pay its
~3 s import.
"""

from __future__ import annotations

from miscue.llm.config import ROLES, TRANSPORT_PARAMS, LLMConfig, RoleConfig, model_family
from miscue.llm.env import set_offline_environment
from miscue.llm.errors import (
    RUN_STOPS,
    BudgetExceeded,
    Deferred,
    LLMError,
    PromptsExported,
    StoreCorrupt,
    StoreMiss,
    TerminalProviderError,
    TransientProviderError,
)
from miscue.llm.gateway import Gateway
from miscue.llm.records import Exchange, count_tokens
from miscue.llm.replies import parse_json_reply
from miscue.llm.store import ExchangeStore, StoredExchange

__all__ = [
    "ROLES", "RUN_STOPS", "TRANSPORT_PARAMS", "BudgetExceeded", "Deferred", "Exchange", "ExchangeStore",
    "Gateway", "LLMConfig", "LLMError", "PromptsExported", "RoleConfig", "StoreCorrupt", "StoreMiss",
    "StoredExchange", "TerminalProviderError", "TransientProviderError", "count_tokens",
    "model_family", "parse_json_reply",
]

# Importing the gateway sets litellm's offline environment, as importing the old single module
# did, so a litellm imported directly afterwards (tests, tools) reads it too. Nothing above
# imports litellm.
set_offline_environment()
