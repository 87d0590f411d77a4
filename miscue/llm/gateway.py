"""The gateway: every model call of the pipeline goes through :class:`Gateway`.

A request is answered from the exchange store when it holds the request; ``replay_only`` turns a
store miss into :class:`~miscue.llm.errors.StoreMiss`; with an :class:`~miscue.llm.outbox.Outbox`
(``--prompts-out``) a miss is written there and raises :class:`~miscue.llm.errors.Deferred`, the
attempt waiting for the next round. Otherwise the role's model is called
through litellm, within the concurrency bound and the provider's requests-per-minute limit, and
the answer (or the failure) is stored before :meth:`Gateway.complete` returns.

Our own retry loop (tenacity) handles transient failures (429, 5xx, timeouts, connection errors,
empty output) with exponential backoff and jitter, honouring a bounded ``Retry-After``; terminal
failures (auth, quota, bad request) raise :class:`~miscue.llm.errors.TerminalProviderError` at
once. Nothing ever falls back to another model. litellm's own retries stay off (``num_retries``
is never passed) and ``max_retries=0`` stops the OpenAI SDK from retrying underneath. Tokens and
cost are counted per call and per role, and an optional budget cap refuses a call before it is
made. With a :class:`~miscue.llm.control.RunControl` (the shards of one sharded build, in other
processes or on other machines) the first terminal error halts every gateway of the run and the
budget cap holds for their sum.
"""

from __future__ import annotations

import asyncio
import functools
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from loguru import logger
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt

from miscue import stoppable
from miscue.errors import BadInput
from miscue.llm.config import ROLES, SECRET_PARAMS, TRANSPORT_PARAMS, LLMConfig, Message, Role, RoleConfig, split_model
from miscue.llm.control import RunControl
from miscue.llm.env import load_litellm
from miscue.llm.errors import BudgetExceeded, Deferred, StoreMiss, TerminalProviderError, TransientProviderError
from miscue.llm.limits import LoopState, RateLimiter, RoleUsage
from miscue.llm.outbox import Outbox
from miscue.llm.prices import litellm_price
from miscue.llm.records import Exchange, Usage, count_tokens
from miscue.llm.store import ExchangeStore, StoredExchange, request_key


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


def _utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


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

    def __init__(self, config: LLMConfig, store_dir: str | os.PathLike[str], control: RunControl | None = None) -> None:
        self.config = config
        self.store = ExchangeStore(Path(store_dir) / "exchanges")
        self.control = control  # the run's shared halt and budget ledger (sharded builds)
        self._usage: dict[str, RoleUsage] = {role: RoleUsage() for role in ROLES}
        self._loop_state: LoopState | None = None
        self._reserved = 0.0  # expected cost of calls in flight (budget)
        # The first terminal error (auth, quota, bad request, budget) halts the gateway: every
        # later call that the store cannot answer raises it again without calling, so a run
        # stops at once rather than each call in flight meeting the error on its own.
        self.halted: TerminalProviderError | None = None
        # --prompts-out: a request the store cannot answer goes here instead of to the model
        self.outbox: Outbox | None = None
        self.deferred = 0  # requests this gateway sent to the outbox

    def _halt(self, error: TerminalProviderError) -> TerminalProviderError:
        self.halted = error
        if self.control is not None:
            self.control.halt(error)
        return error

    def absorb(self, usage: dict[str, RoleUsage]) -> None:
        """Add another gateway's per-role totals (a shard's, run elsewhere) to this one's."""
        for role, other in usage.items():
            mine = self._usage[role]
            for name, value in other:
                setattr(mine, name, getattr(mine, name) + value)

    # -- budget ---------------------------------------------------------------------------
    @property
    def spent(self) -> float:
        """Cost of every model response this gateway received (store hits are free)."""
        return sum(u.cost for u in self._usage.values())

    def price(self, model: str) -> tuple[float, float]:
        """(USD per prompt token, USD per completion token) of ``model``: the configured price,
        else litellm's cost map, else (0, 0) (``miscue check-config`` and the commands that run
        models refuse a configuration with an unknown price before any call)."""
        if model in self.config.prices:
            return self.config.prices[model]
        return litellm_price(model) or (0.0, 0.0)

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
        spent, reserved = self.spent, self._reserved
        if self.control is not None:  # the run's shared ledger: every shard's spend and calls in flight
            ok, spent, reserved = self.control.reserve(expected, cap)
        else:
            ok = spent + reserved + expected <= cap
        if not ok:
            exchange = Exchange(call_id=key, role=role, model=cfg.model, text="",
                                error="budget: refused before calling")
            raise BudgetExceeded(
                f"budget: max_cost {cap:.6g} USD reached (spent {spent:.6g}, in flight "
                f"{reserved:.6g}, next {role} call expected {expected:.6g}); the run stopped "
                f"cleanly, finished exchanges are kept in the store -- rerun with a higher cap to "
                f"resume", exchange=exchange, spent=spent, expected=expected, cap=cap)
        self._reserved += expected
        return expected

    # -- public ---------------------------------------------------------------------------
    def key(self, role: Role, messages: list[Message], card_version: str, schema: dict[str, Any] | None = None) -> str:
        """The store key (``call_id``) this request would have."""
        cfg = self.config.role(role)
        return request_key(cfg.model, messages, cfg.params, card_version, schema)[0]

    def structured(self, role: Role) -> bool:
        """Whether ``role``'s model is sent a reply schema as a structured-output ``response_format``:
        as its configuration says, else as litellm's model map says (unknown models: no)."""
        cfg = self.config.role(role)
        if cfg.structured_output is not None:
            return cfg.structured_output
        try:
            return bool(load_litellm().supports_response_schema(model=cfg.model))
        except Exception:  # noqa: BLE001 - a model litellm cannot look up is sent no schema
            return False

    async def complete(self, role: Role, messages: list[Message], card_version: str,
                       schema: dict[str, Any] | None = None) -> Exchange:
        """Answer ``messages`` with the model of ``role``: from the store when it holds the
        request, else by a model call whose result is stored before this returns. ``schema``:
        the JSON Schema the reply must follow, sent as ``response_format`` where the model takes
        one (:meth:`structured`) and part of the request's key either way."""
        cfg = self.config.role(role)
        _check_messages(messages)
        key, request = request_key(cfg.model, messages, cfg.params, card_version, schema)
        response_format = ({"type": "json_schema", "json_schema": {"name": "reply", "schema": schema, "strict": True}}
                           if schema is not None and self.structured(role) else None)
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
        if self.outbox is not None:
            params = {k: v for k, v in cfg.params.items() if k not in TRANSPORT_PARAMS and k not in SECRET_PARAMS}
            body = {"model": split_model(cfg.model)[1], "messages": messages, **params,
                    **({"response_format": response_format} if response_format is not None else {})}
            self.outbox.add(key, role, request, body)
            self.deferred += 1
            raise Deferred(key)

        self._raise_if_halted()
        try:
            reservation = self._reserve(role, cfg, messages, key)  # BudgetExceeded: nothing called
        except BudgetExceeded as exc:
            raise self._halt(exc) from None
        started_at = _utc_now()
        attempts = 0
        incurred = [0.0]  # what this request's responses cost (retried empty ones included)
        secrets = [str(v) for k, v in cfg.params.items() if k in SECRET_PARAMS and v]

        def sending() -> None:
            nonlocal attempts
            attempts += 1
            usage.requests += 1

        async def attempt_once() -> _Answer:
            return await self._attempt(role, cfg, messages, incurred, response_format, sending)

        try:
            try:
                answer: _Answer = await attempt_once()  # most calls: one attempt, no retry machinery built
            except _Retryable as first:
                answer = await self._retry(first, attempt_once, role, cfg.model)
        except (_Retryable, _Terminal) as failure:
            usage.failures += 1
            usage.retries += attempts - 1
            error = _redact(failure.reason, secrets)
            kind = failure.kind if isinstance(failure, _Terminal) else "transient"
            exchange = Exchange(call_id=key, role=role, model=cfg.model, text="",
                                error=f"{kind}: {error}", attempts=attempts)
            # the halt is recorded before the first await: the slot this call freed is not taken
            # by a waiting call that would not see it yet
            halt = self._halt(TerminalProviderError(
                f"{role} {cfg.model}: {kind} error (status {failure.status}), not retried: "
                f"{error}", exchange=exchange, kind=kind, status=failure.status)) if isinstance(failure, _Terminal) else None
            await self._put(StoredExchange(
                key=key, request=request, text=None, error=f"{kind}: {error}", attempts=attempts,
                started_at=started_at, finished_at=_utc_now()))
            if halt is not None:
                raise halt from None
            raise TransientProviderError(
                f"{role} {cfg.model}: still failing after {attempts} attempts "
                f"(status {failure.status}): {error}",
                exchange=exchange, kind=kind, status=failure.status) from None
        finally:
            self._reserved -= reservation
            if self.control is not None and self.config.max_cost is not None:
                self.control.settle(reservation, incurred[0])

        usage.calls += 1
        usage.retries += attempts - 1
        await self._put(StoredExchange(
            key=key, request=request, text=answer.text, usage=answer.usage, cost=answer.cost,
            latency_s=answer.latency_s, attempts=attempts, response_model=answer.response_model,
            started_at=started_at, finished_at=_utc_now()))
        return Exchange(call_id=key, role=role, model=cfg.model, text=answer.text,
                        usage=answer.usage, cost=answer.cost, latency_s=answer.latency_s,
                        cached=False, attempts=attempts)

    def complete_sync(self, role: Role, messages: list[Message], card_version: str,
                      schema: dict[str, Any] | None = None) -> Exchange:
        """:meth:`complete` for synchronous callers (not from inside a running event loop)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return stoppable.run(self.complete(role, messages, card_version, schema))
        raise RuntimeError("complete_sync() called from a running event loop; await complete()")

    def usage_summary(self) -> dict[str, RoleUsage]:
        """Per-role totals so far (copies)."""
        return {role: usage.model_copy() for role, usage in self._usage.items()}

    # -- one attempt ----------------------------------------------------------------------
    def _raise_if_halted(self) -> None:
        """Raise the run's halt: this gateway's terminal error, or one another shard recorded."""
        if self.halted is not None:
            raise self.halted
        if self.control is not None and (shared := self.control.halted()) is not None:
            self.halted = shared  # another shard of the run met a terminal error
            raise shared

    async def _attempt(self, role: str, cfg: RoleConfig, messages: list[Message], incurred: list[float],
                       response_format: dict[str, Any] | None, sending: Callable[[], None]) -> _Answer:
        litellm = load_litellm()
        extra = {"response_format": response_format} if response_format is not None else {}
        state = self._state()
        timeout = self.config.timeout_s
        async with state.semaphore:
            limiter = state.limiters.get(cfg.provider)
            if limiter is not None:
                await limiter.acquire()
            # a call that waited here for a free slot while the run halted is not sent (checked
            # only before the wait, every call waiting at a terminal error went out after it)
            self._raise_if_halted()
            sending()
            started = time.perf_counter()
            verdict = None
            try:
                # The outer guard also bounds custom providers, where litellm does not
                # enforce ``timeout``; on HTTP routes litellm's own Timeout fires first.
                response = await asyncio.wait_for(
                    litellm.acompletion(model=cfg.model, messages=messages, timeout=timeout,
                                        max_retries=0, **cfg.params, **extra),
                    timeout=timeout * 1.1 + 0.1)
            except Exception as exc:  # noqa: BLE001 - classified below; bugs re-raised
                verdict = classify_error(exc)
                if verdict is None:
                    raise
            if verdict is not None:
                # raised outside the handler: the provider's own exception stays out of the chain, which
                # a Dask worker pickles with the error (litellm's exceptions cannot be unpickled)
                raise verdict
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
        incurred[0] += cost

        choices = getattr(response, "choices", None) or []
        text = choices[0].message.content if choices else None
        if not text or not text.strip():
            raise _Retryable("empty output")
        return _Answer(text=text, usage=usage, cost=cost, latency_s=latency,
                       response_model=getattr(response, "model", None))

    async def _put(self, record: StoredExchange) -> None:
        """Store a record from a worker thread: its fsync (milliseconds on a real disk) must not
        hold up every other call of the event loop. It is stored before ``complete`` returns."""
        await asyncio.to_thread(self.store.put, record)

    async def _retry(self, first: _Retryable, attempt: Any, role: str, model: str) -> _Answer:
        """Attempts 2.. after a first transient failure: the same backoff, log line and bound
        (``max_retries`` more attempts) as one tenacity loop over every attempt."""
        if self.config.max_retries < 1:
            raise first
        delay = self._delay(1, first)
        logger.warning("llm {} {}: attempt {} failed ({}), retrying in {:.2f}s",
                       role, model, 1, first.reason.splitlines()[0][:200], delay)
        await asyncio.sleep(delay)
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.config.max_retries),
            wait=lambda state: self._delay(state.attempt_number + 1, _failure(state)),
            retry=retry_if_exception_type(_Retryable),
            before_sleep=functools.partial(self._log_retry, role, model),
            reraise=True,
        )
        return await retrying(attempt)

    def _state(self) -> LoopState:
        loop = asyncio.get_running_loop()
        if self._loop_state is None or self._loop_state.loop is not loop:
            self._loop_state = LoopState(
                loop=loop, semaphore=asyncio.Semaphore(self.config.max_concurrency),
                limiters={p: RateLimiter(rpm) for p, rpm in self.config.requests_per_minute.items()})
        return self._loop_state

    # -- retry policy ---------------------------------------------------------------------
    def _delay(self, attempt_number: int, failure: BaseException | None) -> float:
        """The wait after failed attempt ``attempt_number`` (1-based): a bounded Retry-After
        when the provider sent one, else exponential backoff with jitter: half the doubled
        delay plus a random half."""
        if isinstance(failure, _Retryable) and failure.retry_after_s is not None:
            return min(failure.retry_after_s, self.config.retry_after_cap_s)
        delay = min(self.config.backoff_cap_s,
                    self.config.backoff_base_s * 2 ** (attempt_number - 1))
        return delay / 2 + random.uniform(0, delay / 2)

    @staticmethod
    def _log_retry(role: str, model: str, state: RetryCallState) -> None:
        failure = state.outcome.exception() if state.outcome is not None else None
        reason = failure.reason if isinstance(failure, _Retryable) else repr(failure)
        wait = state.next_action.sleep if state.next_action is not None else 0.0
        logger.warning("llm {} {}: attempt {} failed ({}), retrying in {:.2f}s",
                       role, model, state.attempt_number + 1, reason.splitlines()[0][:200], wait)


def _failure(state: RetryCallState) -> BaseException | None:
    return state.outcome.exception() if state.outcome is not None else None


def _check_messages(messages: list[Message]) -> None:
    if not isinstance(messages, list) or not messages:
        raise BadInput("messages must be a non-empty list of {'role', 'content'} dicts")
    for message in messages:
        if not isinstance(message, dict) or "role" not in message:
            raise BadInput(f"not a chat message: {message!r}")


def _redact(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, "***")
    return text
