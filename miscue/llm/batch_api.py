"""A provider's batch API, reached through litellm's batch functions (``miscue batch``, DESIGN
section 8): upload a JSONL file, create a batch on it, retrieve the batch, download a file.

:class:`BatchAPI` is the four calls :mod:`miscue.llm.batches` needs; :class:`LiteLLMBatchAPI`
makes them with ``litellm.create_file`` / ``create_batch`` / ``retrieve_batch`` /
``file_content``, passing the role's transport parameters (``api_base``, ``api_key``, ...) so an
OpenAI-compatible server at any address works. Only the providers whose whole path litellm
drives with those four calls and nothing else are batched (:data:`BATCHABLE`); the others are
refused before anything is sent (:func:`unbatchable`). Creating (an upload, a batch) is never
retried, so a lost answer can never make two batches of the same requests; reading is.
"""

from __future__ import annotations

from typing import Any, Protocol

from miscue.errors import RunStopped
from miscue.llm.config import SECRET_PARAMS
from miscue.llm.env import load_litellm
from miscue.llm.errors import LLMError

#: the route every exported line posts to (:data:`miscue.llm.outbox.URL`)
ENDPOINT = "/v1/chat/completions"
#: providers whose files and batches litellm sends on its OpenAI-compatible path (upload, create,
#: retrieve, content: no storage bucket, no model argument, the OpenAI line shape)
BATCHABLE = ("openai", "hosted_vllm", "litellm_proxy")
#: why a provider is not batched, where there is more to say than "litellm cannot"
_WHY_NOT = {
    "anthropic": "Anthropic's message batches are not created through litellm (its create_batch has no anthropic "
                 "route); answer the file another way and `miscue prompts import` the replies",
    "offline": "the embedded offline models have no batch API: run without --prompts-out",
    "azure": "Azure's batch deployments take their own endpoint and model names; not wired here yet",
    "vertex_ai": "Vertex AI batches read their input from a storage bucket; not wired here yet",
    "bedrock": "Bedrock batches read their input from S3; not wired here yet",
}
#: statuses after which a batch never changes (OpenAI's)
FINAL = frozenset({"completed", "failed", "expired", "cancelled"})
#: final statuses with output to collect (an expired or cancelled batch keeps what it finished)
WITH_OUTPUT = frozenset({"completed", "expired", "cancelled"})


class BatchProviderError(LLMError, RunStopped):
    """A batch call failed (the provider refused it or could not be reached): nothing more was
    sent; what was recorded before stays recorded, so a rerun goes on from there (exit 3).
    ``maybe_done``: the request may have reached the provider and been carried out (a timeout,
    a connection lost after sending), as opposed to refused with a status or never connected."""

    def __init__(self, message: str, maybe_done: bool = False) -> None:
        self.maybe_done = maybe_done
        super().__init__(message)

    def __reduce__(self) -> Any:
        return type(self), (str(self), self.maybe_done)


def unbatchable(provider: str) -> str | None:
    """Why ``provider``'s requests cannot go through ``miscue batch`` (None: they can)."""
    if provider in BATCHABLE:
        return None
    why = _WHY_NOT.get(provider, f"litellm has no OpenAI-compatible batch route for {provider!r}")
    return f"{why} (batched providers: {', '.join(BATCHABLE)})"


class BatchAPI(Protocol):
    """The four calls of a batch run. ``params`` are the role's transport parameters."""

    def upload(self, provider: str, params: dict[str, Any], filename: str, content: bytes) -> str:
        """Upload a batch input file; its file id."""

    def create(self, provider: str, params: dict[str, Any], input_file_id: str, metadata: dict[str, str]) -> dict[str, Any]:
        """Create a batch on an uploaded file; the batch as :func:`batch_view` gives it."""

    def retrieve(self, provider: str, params: dict[str, Any], batch_id: str) -> dict[str, Any]:
        """The batch now, as :func:`batch_view` gives it."""

    def content(self, provider: str, params: dict[str, Any], file_id: str) -> bytes:
        """A file's bytes (a batch's output or error file)."""


def batch_view(batch: Any) -> dict[str, Any]:
    """What miscue keeps of a provider's batch object: id, status, request counts, output and
    error file ids, and the messages of batch-level errors (a batch that failed validation)."""
    data = batch.model_dump() if hasattr(batch, "model_dump") else dict(batch)
    counts = data.get("request_counts") or {}
    errors = [str(e.get("message") or e.get("code")) for e in ((data.get("errors") or {}).get("data") or [])]
    return {"id": data["id"], "status": str(data.get("status") or "unknown"),
            "request_counts": {k: int(counts.get(k) or 0) for k in ("total", "completed", "failed")},
            "output_file_id": data.get("output_file_id"), "error_file_id": data.get("error_file_id"), "errors": errors}


class LiteLLMBatchAPI:
    """:class:`BatchAPI` through litellm. ``timeout_s``: a create or retrieve call's timeout
    (uploads and downloads get at least five minutes)."""

    def __init__(self, timeout_s: float = 60.0, read_retries: int = 2) -> None:
        self.timeout_s, self.read_retries = timeout_s, read_retries

    def upload(self, provider: str, params: dict[str, Any], filename: str, content: bytes) -> str:
        made = self._call("uploading the batch input file", provider, params, "create_file", file=(filename, content),
                          purpose="batch", timeout=max(self.timeout_s, 300.0), max_retries=0)
        return str(made.id)

    def create(self, provider: str, params: dict[str, Any], input_file_id: str, metadata: dict[str, str]) -> dict[str, Any]:
        made = self._call("creating the batch", provider, params, "create_batch", completion_window="24h",
                          endpoint=ENDPOINT, input_file_id=input_file_id, metadata=metadata, timeout=self.timeout_s,
                          max_retries=0)
        return batch_view(made)

    def retrieve(self, provider: str, params: dict[str, Any], batch_id: str) -> dict[str, Any]:
        return batch_view(self._call(f"retrieving batch {batch_id}", provider, params, "retrieve_batch", batch_id=batch_id,
                                     timeout=self.timeout_s, max_retries=self.read_retries))

    def content(self, provider: str, params: dict[str, Any], file_id: str) -> bytes:
        got = self._call(f"downloading file {file_id}", provider, params, "file_content", file_id=file_id,
                         timeout=max(self.timeout_s, 300.0), max_retries=self.read_retries)
        return bytes(got.content)

    def _call(self, what: str, provider: str, params: dict[str, Any], function: str, **kwargs: Any) -> Any:
        litellm = load_litellm()
        try:
            return getattr(litellm, function)(custom_llm_provider=provider, **params, **kwargs)
        except Exception as exc:  # noqa: BLE001 - litellm and the OpenAI SDK raise many kinds; each is reported the same way
            status = getattr(exc, "status_code", None)
            reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
            for name in SECRET_PARAMS:
                if params.get(name):
                    reason = reason.replace(str(params[name]), "***")
            where = params.get("api_base") or params.get("base_url") or "its default address"
            raise BatchProviderError(f"{what} on {provider} ({where}) failed: {type(exc).__name__}"
                                     f"{f' (status {status})' if status else ''}: {reason}",
                                     maybe_done=status is None and not _never_connected(exc)) from None


def _never_connected(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it wraps) is a failure to connect at all: nothing was sent."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return False
        if type(seen).__name__ in ("ConnectError", "ConnectTimeout"):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
