"""The litellm gateway: roles, exchange store, retries, limits, usage (DESIGN section 8).

Every model call of the pipeline goes through :class:`Gateway`:

- three roles (``writer``, ``extractor_a``, ``extractor_b``), each a litellm model string plus
  parameters; the two extractors must come from different model families (:func:`model_family`);
- an on-disk, content-addressed :class:`ExchangeStore`: a repeated request is answered from the
  store without a model call, and ``replay_only`` turns a store miss into :class:`StoreMiss`;
- our own retry loop (tenacity) for transient failures (429, 5xx, timeouts, connection errors,
  empty output) with exponential backoff and jitter, honouring a bounded ``Retry-After``;
  terminal failures (auth, quota, bad request) raise :class:`TerminalProviderError` at once.
  Nothing ever falls back to another model. litellm's own retries stay off (``num_retries`` is
  never passed) and ``max_retries=0`` stops the OpenAI SDK from retrying underneath;
- bounded concurrency and a per-provider requests-per-minute limit;
- token and cost accounting per call and per role.

A model's reply is returned as text; whether it is well-formed is the caller's verdict
(:func:`parse_json_reply` helps). litellm is imported lazily, so configuration code that only
needs :class:`LLMConfig` or :func:`model_family` does not pay its ~3 s import.
"""

from __future__ import annotations

import os

# Before litellm is imported anywhere through this module: no network at import or on use.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import asyncio  # noqa: E402
import functools  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from datetime import datetime, timezone  # noqa: E402
from email.utils import parsedate_to_datetime  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Literal  # noqa: E402

from loguru import logger  # noqa: E402
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator  # noqa: E402
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt  # noqa: E402

from miscue.canonical import canonical_json  # noqa: E402
from miscue.errors import BadInput, MiscueError, RunStopped  # noqa: E402

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


# ---------------------------------------------------------------------------------------------
# Model families and providers
# ---------------------------------------------------------------------------------------------

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
        raise ValueError(f"model {model!r} must be '<provider>/<name>' (a litellm route)")
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


# ---------------------------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------------------------


class RoleConfig(BaseModel):
    """One role: a litellm model string (``provider/name``) and its call parameters."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    params: dict[str, Any] = Field(default_factory=dict)

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
            raise ValueError(f"unknown role {role!r}; roles are {list(ROLES)}")
        return getattr(self, role)


# ---------------------------------------------------------------------------------------------
# Records and errors
# ---------------------------------------------------------------------------------------------


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


class StoredExchange(BaseModel):
    """The store's value for one request key. Successes are final; a failure record is kept for
    the audit trail but never served as an answer (a later call retries the request)."""

    model_config = ConfigDict(extra="forbid")

    key: str
    request: dict[str, Any]  # model, messages, params (transport params removed), card_version
    text: str | None
    usage: Usage = Usage()
    cost: float = 0.0
    latency_s: float = 0.0  # the answering attempt
    error: str | None = None
    attempts: int = 0
    response_model: str | None = None  # the model the provider says answered
    started_at: str
    finished_at: str

    @property
    def ok(self) -> bool:
        return self.error is None and self.text is not None


class LLMError(MiscueError):
    """Base class of the gateway's errors."""


class StoreMiss(LLMError, RunStopped):
    """``replay_only`` is set and the store has no answer for this request."""

    def __init__(self, key: str, model: str, detail: str = "") -> None:
        self.key, self.model = key, model
        super().__init__(f"replay-only: no stored exchange {key} for model {model!r}{detail}")


class StoreCorrupt(LLMError, BadInput):
    """A store entry cannot be read; it is never silently replaced by a new call."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        super().__init__(f"corrupt exchange store entry {path}: {reason} "
                         f"(inspect or delete the file; it was not re-requested)")


class ProviderError(LLMError):
    """A model call failed; ``exchange`` is the failure's record (``error`` set, no text)."""

    def __init__(self, message: str, *, exchange: Exchange, kind: str,
                 status: int | None) -> None:
        self.exchange, self.kind, self.status = exchange, kind, status
        super().__init__(message)


class TerminalProviderError(ProviderError, RunStopped):
    """Auth, quota/billing or bad request: not retried, no fallback; stop the run."""


class TransientProviderError(ProviderError):
    """A transient failure that outlived every retry."""


class BudgetExceeded(TerminalProviderError):
    """The next model call would take the spent cost past ``LLMConfig.max_cost``: the run stops
    cleanly (finished exchanges are in the store) and a later run with a higher cap resumes."""

    def __init__(self, message: str, *, exchange: Exchange, spent: float, expected: float,
                 cap: float) -> None:
        self.spent, self.expected, self.cap = spent, expected, cap
        super().__init__(message, exchange=exchange, kind="budget", status=None)


#: The errors that stop a run cleanly (finished exchanges are in the store; a rerun resumes).
RUN_STOPS: tuple[type[LLMError], ...] = (TerminalProviderError, StoreMiss)


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


@dataclass(eq=False)
class _Retryable(Exception):
    """Internal: one attempt failed in a way worth retrying."""

    reason: str
    status: int | None = None
    retry_after_s: float | None = None


@dataclass(eq=False)
class _Terminal(Exception):
    reason: str
    kind: str
    status: int | None = None


# ---------------------------------------------------------------------------------------------
# Exchange store
# ---------------------------------------------------------------------------------------------


def _utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class ExchangeStore:
    """Content-addressed exchange records: ``<root>/<key[:2]>/<key>.json``.

    Writes are atomic (a temporary file in the same directory, fsync, ``os.replace``); readers
    never see half a record. A success may replace a failure record, never the other way round.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        if not re.fullmatch(r"[0-9a-f]{64}", key):
            raise ValueError(f"not an exchange key: {key!r}")
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> StoredExchange | None:
        path = self.path(key)
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            record = StoredExchange.model_validate(json.loads(raw))
        except (ValueError, ValidationError) as exc:  # JSONDecodeError is a ValueError
            raise StoreCorrupt(path, f"{type(exc).__name__}: {str(exc).splitlines()[0]}") from exc
        if record.key != key:
            raise StoreCorrupt(path, f"holds key {record.key}, expected {key}")
        return record

    def put(self, record: StoredExchange) -> Path:
        """Write ``record``; a failure record does not replace a stored success."""
        path = self.path(record.key)
        if not record.ok:
            existing = self._peek(path)
            if existing is not None and existing.ok:
                return path
        path.parent.mkdir(parents=True, exist_ok=True)
        data = json.dumps(record.model_dump(mode="json"), ensure_ascii=False, indent=1)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{record.key[:12]}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

    def _peek(self, path: Path) -> StoredExchange | None:
        try:
            return StoredExchange.model_validate_json(path.read_bytes())
        except (OSError, ValueError):
            return None

    def __contains__(self, key: str) -> bool:
        record = self.get(key)
        return record is not None and record.ok


def request_key(model: str, messages: list[Message], params: dict[str, Any],
                card_version: str) -> tuple[str, dict[str, Any]]:
    """The canonical request and its sha256 (the store key and ``call_id``)."""
    request = {
        "model": model,
        "messages": messages,
        "params": {k: v for k, v in params.items() if k not in TRANSPORT_PARAMS},
        "card_version": card_version,
    }
    return hashlib.sha256(canonical_json(request).encode("utf-8")).hexdigest(), request


# ---------------------------------------------------------------------------------------------
# Limits
# ---------------------------------------------------------------------------------------------


class RateLimiter:
    """An async token bucket: ``rpm`` requests per minute, bursts of at most one second's worth.

    Waiters are served in arrival order. Bind one instance to one event loop.
    """

    def __init__(self, rpm: int, clock: Any = time.monotonic) -> None:
        self.rate = rpm / 60.0  # tokens per second
        self.capacity = max(1.0, self.rate)
        self.tokens = self.capacity
        self._clock = clock
        self._updated = clock()
        self._lock = asyncio.Lock()

    async def acquire(self) -> None:
        async with self._lock:
            while True:
                now = self._clock()
                self.tokens = min(self.capacity, self.tokens + (now - self._updated) * self.rate)
                self._updated = now
                if self.tokens >= 1.0:
                    self.tokens -= 1.0
                    return
                await asyncio.sleep((1.0 - self.tokens) / self.rate)


@dataclass
class _LoopState:
    """asyncio primitives, which belong to one event loop (``complete_sync`` makes a new loop
    per call)."""

    loop: asyncio.AbstractEventLoop
    semaphore: asyncio.Semaphore
    limiters: dict[str, RateLimiter] = field(default_factory=dict)


class RoleUsage(BaseModel):
    """Running totals for one role in this gateway's lifetime. Tokens and cost count every
    response received (including empty ones that were retried); cache hits cost nothing."""

    calls: int = 0  # exchanges answered by a model
    cache_hits: int = 0  # exchanges answered from the store
    requests: int = 0  # model requests sent, retries included
    retries: int = 0
    failures: int = 0  # complete() calls that raised a provider error
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0


# ---------------------------------------------------------------------------------------------
# litellm
# ---------------------------------------------------------------------------------------------


class _DropLoopChangeNotice(logging.Filter):
    """litellm warns whenever a new event loop appears (each asyncio.run); it is noise here."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("LoggingWorker: event loop changed")


@functools.cache
def _litellm() -> Any:
    import litellm

    litellm.suppress_debug_info = True
    logging.getLogger("LiteLLM").addFilter(_DropLoopChangeNotice())
    return litellm


def _status_of(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def retry_after_seconds(exc: BaseException) -> float | None:
    """Seconds a provider asked us to wait (``retry-after-ms`` / ``Retry-After``), if any."""
    headers = getattr(exc, "litellm_response_headers", None)
    if not headers:
        headers = getattr(getattr(exc, "response", None), "headers", None)
    if not headers:
        return None
    lowered = {str(k).lower(): str(v) for k, v in headers.items()}
    try:
        if "retry-after-ms" in lowered:
            return max(0.0, float(lowered["retry-after-ms"]) / 1000.0)
        if "retry-after" in lowered:
            value = lowered["retry-after"].strip()
            try:
                return max(0.0, float(value))
            except ValueError:
                when = parsedate_to_datetime(value)
                return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())
    except (TypeError, ValueError, OverflowError):
        return None
    return None


def classify_error(exc: BaseException) -> _Retryable | _Terminal | None:
    """Transient, terminal, or ``None`` for exceptions that are not provider failures (bugs
    in our own code propagate unchanged)."""
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
        return _Retryable("timeout")
    import httpx
    import openai

    if not isinstance(exc, (openai.OpenAIError, httpx.HTTPError)):
        return None
    status = _status_of(exc)
    message = str(exc)
    lowered = message.lower()
    if status == 402 or "insufficient_quota" in lowered or "exceeded your current quota" in lowered:
        return _Terminal(message, "quota", status)
    if status in (401, 403) or "missing credentials" in lowered:
        return _Terminal(message, "auth", status)
    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError, httpx.TransportError)):
        return _Retryable(message, status)
    if status is None or status in (408, 409, 425, 429) or status >= 500:
        return _Retryable(message, status, retry_after_seconds(exc) if status == 429 else None)
    return _Terminal(message, "bad_request", status)


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


# ---------------------------------------------------------------------------------------------
# The gateway
# ---------------------------------------------------------------------------------------------


@dataclass
class _Answer:
    text: str
    usage: Usage
    cost: float
    latency_s: float
    response_model: str | None


class Gateway:
    """All model calls of a run. ``store_dir`` is the store root (e.g. ``artifacts/store``);
    exchanges live under ``<store_dir>/exchanges/``."""

    def __init__(self, config: LLMConfig, store_dir: str | os.PathLike[str]) -> None:
        self.config = config
        self.store = ExchangeStore(Path(store_dir) / "exchanges")
        self._usage: dict[str, RoleUsage] = {role: RoleUsage() for role in ROLES}
        self._loop_state: _LoopState | None = None
        self._reserved = 0.0  # expected cost of calls in flight (budget)
        # The first terminal error (auth, quota, bad request, budget) halts the gateway: every
        # later call that the store cannot answer raises it again without calling, so a run
        # stops at once rather than each call in flight meeting the error on its own.
        self.halted: TerminalProviderError | None = None

    # -- budget ---------------------------------------------------------------------------
    @property
    def spent(self) -> float:
        """Cost of every model response this gateway received (store hits are free)."""
        return sum(u.cost for u in self._usage.values())

    def price(self, model: str) -> tuple[float, float]:
        """(USD per prompt token, USD per completion token) of ``model``: the configured price,
        else litellm's cost map, else (0, 0)."""
        if model in self.config.prices:
            return self.config.prices[model]
        try:
            entry = _litellm().model_cost.get(model) or _litellm().model_cost.get(split_model(model)[1])
        except Exception:  # noqa: BLE001 - no price is a zero price
            entry = None
        if not entry:
            return (0.0, 0.0)
        return (float(entry.get("input_cost_per_token") or 0.0),
                float(entry.get("output_cost_per_token") or 0.0))

    def expected_cost(self, role: str, messages: list[Message]) -> float:
        """The cost a new call is expected to have: its prompt's offline token count, plus the
        role's mean completion so far (none yet: as long as the prompt, capped at 1000)."""
        pin, pout = self.price(self.config.role(role).model)
        prompt = count_tokens(messages)
        usage = self._usage[role]
        completion = (usage.completion_tokens / usage.calls) if usage.calls else min(prompt, 1000)
        return prompt * pin + completion * pout

    def _reserve(self, role: str, cfg: RoleConfig, messages: list[Message], key: str) -> float:
        cap = self.config.max_cost
        if cap is None:
            return 0.0
        expected = self.expected_cost(role, messages)
        spent = self.spent
        if spent + self._reserved + expected > cap:
            exchange = Exchange(call_id=key, role=role, model=cfg.model, text="",
                                error="budget: refused before calling")
            raise BudgetExceeded(
                f"budget: max_cost {cap:.6g} USD reached (spent {spent:.6g}, in flight "
                f"{self._reserved:.6g}, next {role} call expected {expected:.6g}); the run stopped "
                f"cleanly, finished exchanges are kept in the store -- rerun with a higher cap to "
                f"resume", exchange=exchange, spent=spent, expected=expected, cap=cap)
        self._reserved += expected
        return expected

    # -- public ---------------------------------------------------------------------------
    def key(self, role: Role, messages: list[Message], card_version: str) -> str:
        """The store key (``call_id``) this request would have."""
        cfg = self.config.role(role)
        return request_key(cfg.model, messages, cfg.params, card_version)[0]

    async def complete(self, role: Role, messages: list[Message], card_version: str) -> Exchange:
        """Answer ``messages`` with the model of ``role``: from the store when it holds the
        request, else by a model call whose result is stored before this returns."""
        cfg = self.config.role(role)
        _check_messages(messages)
        key, request = request_key(cfg.model, messages, cfg.params, card_version)
        usage = self._usage[role]
        stored = self.store.get(key)  # StoreCorrupt propagates: never silently re-called
        if stored is not None and stored.ok:
            usage.cache_hits += 1
            return Exchange(call_id=key, role=role, model=cfg.model, text=stored.text or "",
                            usage=stored.usage, cost=stored.cost, latency_s=stored.latency_s,
                            cached=True, attempts=stored.attempts)
        if self.config.replay_only:
            detail = f" (a failure is recorded: {stored.error})" if stored is not None else ""
            raise StoreMiss(key, cfg.model, detail)

        if self.halted is not None:
            raise self.halted
        try:
            reservation = self._reserve(role, cfg, messages, key)  # BudgetExceeded: nothing called
        except BudgetExceeded as exc:
            self.halted = exc
            raise
        started_at = _utc_now()
        attempts = 0
        secrets = [str(v) for k, v in cfg.params.items() if k in SECRET_PARAMS and v]

        async def attempt_once() -> _Answer:
            nonlocal attempts
            attempts += 1
            usage.requests += 1
            return await self._attempt(role, cfg, messages)

        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.config.max_retries + 1),
            wait=self._backoff,
            retry=retry_if_exception_type(_Retryable),
            before_sleep=functools.partial(self._log_retry, role, cfg.model),
            reraise=True,
        )
        try:
            answer: _Answer = await retrying(attempt_once)
        except (_Retryable, _Terminal) as failure:
            usage.failures += 1
            usage.retries += attempts - 1
            error = _redact(failure.reason, secrets)
            kind = failure.kind if isinstance(failure, _Terminal) else "transient"
            self.store.put(StoredExchange(
                key=key, request=request, text=None, error=f"{kind}: {error}", attempts=attempts,
                started_at=started_at, finished_at=_utc_now()))
            exchange = Exchange(call_id=key, role=role, model=cfg.model, text="",
                                error=f"{kind}: {error}", attempts=attempts)
            if isinstance(failure, _Terminal):
                self.halted = TerminalProviderError(
                    f"{role} {cfg.model}: {kind} error (status {failure.status}), not retried: "
                    f"{error}", exchange=exchange, kind=kind, status=failure.status)
                raise self.halted from None
            raise TransientProviderError(
                f"{role} {cfg.model}: still failing after {attempts} attempts "
                f"(status {failure.status}): {error}",
                exchange=exchange, kind=kind, status=failure.status) from None
        finally:
            self._reserved -= reservation

        usage.calls += 1
        usage.retries += attempts - 1
        self.store.put(StoredExchange(
            key=key, request=request, text=answer.text, usage=answer.usage, cost=answer.cost,
            latency_s=answer.latency_s, attempts=attempts, response_model=answer.response_model,
            started_at=started_at, finished_at=_utc_now()))
        return Exchange(call_id=key, role=role, model=cfg.model, text=answer.text,
                        usage=answer.usage, cost=answer.cost, latency_s=answer.latency_s,
                        cached=False, attempts=attempts)

    def complete_sync(self, role: Role, messages: list[Message], card_version: str) -> Exchange:
        """:meth:`complete` for synchronous callers (not from inside a running event loop)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.complete(role, messages, card_version))
        raise RuntimeError("complete_sync() called from a running event loop; await complete()")

    def usage_summary(self) -> dict[str, RoleUsage]:
        """Per-role totals so far (copies)."""
        return {role: usage.model_copy() for role, usage in self._usage.items()}

    # -- one attempt ----------------------------------------------------------------------
    async def _attempt(self, role: str, cfg: RoleConfig, messages: list[Message]) -> _Answer:
        litellm = _litellm()
        state = self._state()
        timeout = self.config.timeout_s
        async with state.semaphore:
            limiter = state.limiters.get(cfg.provider)
            if limiter is not None:
                await limiter.acquire()
            started = time.perf_counter()
            try:
                # The outer guard also bounds custom providers, where litellm does not
                # enforce ``timeout``; on HTTP routes litellm's own Timeout fires first.
                response = await asyncio.wait_for(
                    litellm.acompletion(model=cfg.model, messages=messages, timeout=timeout,
                                        max_retries=0, **cfg.params),
                    timeout=timeout * 1.1 + 0.1)
            except Exception as exc:  # noqa: BLE001 - classified below; bugs re-raised
                verdict = classify_error(exc)
                if verdict is None:
                    raise
                raise verdict from exc
            latency = time.perf_counter() - started

        usage_obj = getattr(response, "usage", None)
        usage = Usage(prompt_tokens=int(getattr(usage_obj, "prompt_tokens", 0) or 0),
                      completion_tokens=int(getattr(usage_obj, "completion_tokens", 0) or 0))
        hidden = getattr(response, "_hidden_params", None) or {}
        cost = float(hidden.get("response_cost") or 0.0)
        if cfg.model in self.config.prices:
            pin, pout = self.config.prices[cfg.model]
            cost = usage.prompt_tokens * pin + usage.completion_tokens * pout
        totals = self._usage[role]
        totals.prompt_tokens += usage.prompt_tokens
        totals.completion_tokens += usage.completion_tokens
        totals.cost += cost

        choices = getattr(response, "choices", None) or []
        text = choices[0].message.content if choices else None
        if not text or not text.strip():
            raise _Retryable("empty output")
        return _Answer(text=text, usage=usage, cost=cost, latency_s=latency,
                       response_model=getattr(response, "model", None))

    def _state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        if self._loop_state is None or self._loop_state.loop is not loop:
            self._loop_state = _LoopState(
                loop=loop, semaphore=asyncio.Semaphore(self.config.max_concurrency),
                limiters={p: RateLimiter(rpm) for p, rpm in self.config.requests_per_minute.items()})
        return self._loop_state

    # -- retry policy ---------------------------------------------------------------------
    def _backoff(self, state: RetryCallState) -> float:
        """A bounded Retry-After when the provider sent one, else exponential backoff with
        jitter: half the doubled delay plus a random half."""
        failure = state.outcome.exception() if state.outcome is not None else None
        if isinstance(failure, _Retryable) and failure.retry_after_s is not None:
            return min(failure.retry_after_s, self.config.retry_after_cap_s)
        delay = min(self.config.backoff_cap_s,
                    self.config.backoff_base_s * 2 ** (state.attempt_number - 1))
        return delay / 2 + random.uniform(0, delay / 2)

    @staticmethod
    def _log_retry(role: str, model: str, state: RetryCallState) -> None:
        failure = state.outcome.exception() if state.outcome is not None else None
        reason = failure.reason if isinstance(failure, _Retryable) else repr(failure)
        wait = state.next_action.sleep if state.next_action is not None else 0.0
        logger.warning("llm {} {}: attempt {} failed ({}), retrying in {:.2f}s",
                       role, model, state.attempt_number, reason.splitlines()[0][:200], wait)


def _check_messages(messages: list[Message]) -> None:
    if not isinstance(messages, list) or not messages:
        raise ValueError("messages must be a non-empty list of {'role', 'content'} dicts")
    for message in messages:
        if not isinstance(message, dict) or "role" not in message:
            raise ValueError(f"not a chat message: {message!r}")


def _redact(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, "***")
    return text
