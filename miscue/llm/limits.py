"""Limits and bookkeeping of one gateway: a per-provider rate limiter, the concurrency bound of
one event loop, and running usage totals per role."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel


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
class LoopState:
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
