"""The exchange store: every request's answer on disk, content-addressed by the request's hash.

A repeated request is answered from the store without a model call, so rebuilds are
reproducible and free.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Iterator

from pydantic import BaseModel, ConfigDict, ValidationError

from miscue import resources
from miscue.canonical import canonical_json
from miscue.errors import BadInput
from miscue.llm.config import TRANSPORT_PARAMS, Message
from miscue.llm.errors import StoreCorrupt
from miscue.llm.records import Usage


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


class ExchangeStore:
    """Content-addressed exchange records: ``<root>/<key[:2]>/<key>.json``.

    Writes are atomic (a temporary file in the same directory, fsync, ``os.replace``); readers
    never see half a record. A success may replace a failure record, never the other way round.

    Concurrent writers (the shards of a sharded build, in other processes or on other machines
    sharing the artifacts filesystem) are safe: one key is one path, so two writers of the same
    request leave one complete record, never two; the rename that puts a record in place holds
    an exclusive ``flock`` of the key's directory's lock file (``.locks/<key[:2]>``), so a failure record
    that checked for a stored success cannot land over a success written in between.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        if not re.fullmatch(r"[0-9a-f]{64}", key):
            raise BadInput(f"not an exchange key: {key!r}")
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> StoredExchange | None:
        path = self.path(key)
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            record = StoredExchange.model_validate_json(raw)  # one pass in pydantic-core (no json.loads)
        except (ValueError, ValidationError) as exc:  # a torn or foreign file: invalid JSON or fields
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
        data = record.model_dump_json(indent=1)  # pydantic-core: ~7x cheaper than json.dumps(model_dump())
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{record.key[:12]}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            with self._lock(record.key):
                if not record.ok:  # again under the lock: a success may have landed meanwhile
                    existing = self._peek(path)
                    if existing is not None and existing.ok:
                        Path(tmp).unlink(missing_ok=True)
                        return path
                os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

    @contextlib.contextmanager
    def _lock(self, key: str) -> Iterator[None]:
        locks = self.root / ".locks"
        locks.mkdir(exist_ok=True)
        fd = os.open(locks / key[:2], os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # releases the lock

    def _peek(self, path: Path) -> StoredExchange | None:
        try:
            return StoredExchange.model_validate_json(path.read_bytes())
        except (OSError, ValueError):
            return None

    def __contains__(self, key: str) -> bool:
        record = self.get(key)
        return record is not None and record.ok


#: the embedded offline models' provider prefix (``offline/writer``, ``offline/lexical`` ...)
OFFLINE_PREFIX = "offline/"


@functools.lru_cache(maxsize=1)
def offline_code_version() -> str:
    """A hash of the kernel's source: the embedded offline models are this code, so a request to
    one of them is a new request whenever the code changes (a stored answer of older code is
    never replayed as if the model were the same)."""
    return resources.digest(("miscue",))


def request_key(model: str, messages: list[Message], params: dict[str, Any],
                card_version: str, schema: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """The canonical request and its sha256 (the store key and ``call_id``); a request to an
    embedded offline model carries the version of its code, one with a reply schema the schema."""
    request = {
        "model": model,
        "messages": messages,
        "params": {k: v for k, v in params.items() if k not in TRANSPORT_PARAMS},
        "card_version": card_version,
    }
    if schema is not None:
        request["schema"] = schema
    if model.startswith(OFFLINE_PREFIX):
        request["offline_code"] = offline_code_version()
    return hashlib.sha256(canonical_json(request).encode("utf-8")).hexdigest(), request
