"""The litellm gateway (DESIGN section 8); the code is in :mod:`miscue.llm.gateway` for now."""

from miscue.llm.gateway import (
    ROLES,
    RUN_STOPS,
    TRANSPORT_PARAMS,
    BudgetExceeded,
    Exchange,
    ExchangeStore,
    Gateway,
    LLMConfig,
    LLMError,
    RoleConfig,
    StoreCorrupt,
    StoredExchange,
    StoreMiss,
    TerminalProviderError,
    TransientProviderError,
    count_tokens,
    model_family,
    parse_json_reply,
)

__all__ = [
    "ROLES", "RUN_STOPS", "TRANSPORT_PARAMS", "BudgetExceeded", "Exchange", "ExchangeStore",
    "Gateway", "LLMConfig", "LLMError", "RoleConfig", "StoreCorrupt", "StoreMiss",
    "StoredExchange", "TerminalProviderError", "TransientProviderError", "count_tokens",
    "model_family", "parse_json_reply",
]
