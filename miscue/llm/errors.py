"""The gateway's errors. Each derives from a kind of :mod:`miscue.errors`, so the command line
maps it to its exit code: a store miss under replay and a terminal provider error (auth, quota,
bad request, budget) stop a run cleanly (:class:`~miscue.errors.RunStopped`), a corrupt store
entry is bad input. Every error pickles (a shard's stop travels back from a Dask worker)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from miscue.errors import BadInput, MiscueError, RunStopped
from miscue.llm.records import Exchange


class LLMError(MiscueError):
    """Base class of the gateway's errors."""


class StoreMiss(LLMError, RunStopped):
    """``replay_only`` is set and the store has no answer for this request."""

    def __init__(self, key: str, model: str, detail: str = "") -> None:
        self.key, self.model, self.detail = key, model, detail
        super().__init__(f"replay-only: no stored exchange {key} for model {model!r}{detail}")

    def __reduce__(self) -> Any:  # picklable: a shard's stop travels back from a Dask worker
        return type(self), (self.key, self.model, self.detail)


class StoreCorrupt(LLMError, BadInput):
    """A store entry cannot be read; it is never silently replaced by a new call."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path, self.reason = path, reason
        super().__init__(f"corrupt exchange store entry {path}: {reason} "
                         f"(inspect or delete the file; it was not re-requested)")

    def __reduce__(self) -> Any:
        return type(self), (self.path, self.reason)


class ProviderError(LLMError):
    """A model call failed; ``exchange`` is the failure's record (``error`` set, no text)."""

    def __init__(self, message: str, *, exchange: Exchange, kind: str,
                 status: int | None) -> None:
        self.exchange, self.kind, self.status = exchange, kind, status
        super().__init__(message)

    def __reduce__(self) -> Any:
        return _rebuild, (type(self), str(self), {"exchange": self.exchange, "kind": self.kind, "status": self.status})


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

    def __reduce__(self) -> Any:
        return _rebuild, (type(self), str(self), {"exchange": self.exchange, "spent": self.spent,
                                                  "expected": self.expected, "cap": self.cap})


class Deferred(LLMError):
    """``--prompts-out``: the store has no answer for this request, so it went to the outbox
    instead of to the model; the attempt that needed it waits for the next round."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"request {key} is waiting in the outbox")

    def __reduce__(self) -> Any:
        return type(self), (self.key,)


class PromptsExported(LLMError, RunStopped):
    """A ``--prompts-out`` round ended with requests the store cannot answer: they are written
    for a batch run, nothing is published; import the replies and run again."""

    exit_code = 5

    def __init__(self, waiting: int) -> None:
        self.waiting = waiting
        super().__init__(f"{waiting} attempts wait for replies the store does not hold")

    def __reduce__(self) -> Any:
        return type(self), (self.waiting,)


def _rebuild(cls: type, message: str, kwargs: dict[str, Any]) -> Exception:
    """Unpickle an error whose constructor takes keyword arguments."""
    return cls(message, **kwargs)


#: The errors that stop a run cleanly (finished exchanges are in the store; a rerun resumes).
RUN_STOPS: tuple[type[LLMError], ...] = (TerminalProviderError, StoreMiss)
