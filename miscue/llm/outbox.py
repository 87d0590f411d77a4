"""Prompts out, replies in (DESIGN section 8): a run that may not call models writes the requests
the exchange store cannot answer, and replies come back into the store from outside -- a
provider's batch output file as it comes, or any JSONL of ``custom_id`` and reply text.

The outbox is a directory (``artifacts/outbox/``) of one file per waiting request: its store key,
role, the canonical request the store keeps with the answer, and its line in the OpenAI batch
shape (``custom_id`` = the key, ``method``, ``url``, ``body`` with model, messages, parameters and
the structured-output ``response_format``). Files, not memory, so the shards of a run in other
processes add to the same outbox. :func:`export` writes every waiting request as JSONL;
:func:`import_replies` stores the answers and clears what it stored: a failed or expired line
keeps its request waiting (exported again next round, alone), a reply for a key nobody asked for
refuses the whole file before anything is stored, and a reply already stored is skipped.
"""

from __future__ import annotations

import datetime
import json
import os
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from miscue.errors import BadInput
from miscue.llm.records import Usage
from miscue.llm.store import ExchangeStore, StoredExchange

URL = "/v1/chat/completions"


class Outbox:
    """The requests a ``--prompts-out`` run is waiting for."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / f"{key}.json"

    def add(self, key: str, role: str, request: dict[str, Any], body: dict[str, Any]) -> None:
        """Keep one waiting request (atomic; the same request twice is one file)."""
        self.root.mkdir(parents=True, exist_ok=True)
        record = {"key": key, "role": role, "request": request,
                  "line": {"custom_id": key, "method": "POST", "url": URL, "body": body}}
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=f".{key[:12]}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(record, fh, sort_keys=True)
        os.replace(tmp, self.path(key))

    def waiting(self) -> list[dict[str, Any]]:
        """Every waiting request, in key order."""
        if not self.root.exists():
            return []
        return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(self.root.glob("*.json"))]

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            return json.loads(self.path(key).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None

    def done(self, key: str) -> None:
        self.path(key).unlink(missing_ok=True)


#: what a batch API charges against the same calls made one by one (OpenAI, Anthropic, Vertex,
#: Bedrock, Mistral: half price)
BATCH_PRICE = 0.5


def export(outbox: Outbox, out: Path, cost: Callable[[str, list[Any]], float] | None = None) -> dict[str, Any]:
    """Write every waiting request to ``out`` (JSONL, the OpenAI batch shape); how many, per role,
    and (``cost``: a call's expected cost, :meth:`~miscue.llm.Gateway.expected_cost`) their
    expected cost at batch price."""
    waiting = outbox.waiting()
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as fh:
        for record in waiting:
            fh.write(json.dumps(record["line"], sort_keys=True) + "\n")
    summary: dict[str, Any] = {"file": str(out), "requests": len(waiting),
                               "roles": dict(sorted(Counter(r["role"] for r in waiting).items()))}
    if cost is not None:
        summary["batch_cost"] = BATCH_PRICE * sum(cost(r["role"], r["line"]["body"]["messages"]) for r in waiting)
    return summary


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _reply(line: dict[str, Any]) -> tuple[str | None, dict[str, Any], str | None]:
    """(reply text, usage, error) of one line: a batch output line or ``{"custom_id", "reply"}``."""
    if "response" in line or "error" in line and "reply" not in line:
        response, error = line.get("response") or {}, line.get("error")
        if error or response.get("status_code", 200) != 200:
            return None, {}, json.dumps(error or response.get("body") or response, sort_keys=True)[:300]
        body = response.get("body") or {}
        try:
            text = body["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            return None, {}, "a response without choices[0].message.content"
        return text, body.get("usage") or {}, None
    for field in ("reply", "text", "content"):
        if isinstance(line.get(field), str):
            return line[field], line.get("usage") or {}, None
    return None, {}, "no reply text (expected 'response' as in a batch output, or 'reply')"


def json_lines(path: Path, hint: str) -> list[tuple[int, Any]]:
    """Each non-blank line of a JSONL file parsed, with its number; :class:`BadInput` naming the
    file and line (and ``hint``: what the file should be) otherwise."""
    try:
        raw = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path}: cannot read it ({exc})") from None
    out = []
    for n, text in enumerate(raw.splitlines(), start=1):
        if not text.strip():
            continue
        try:
            out.append((n, json.loads(text)))
        except json.JSONDecodeError as exc:
            raise BadInput(f"{path}:{n}: not a JSON line ({exc.msg}); {hint}") from None
    return out


def read_lines(path: Path) -> list[dict[str, Any]]:
    """A replies file's objects, each with a ``custom_id``; :class:`BadInput` naming the file and line otherwise."""
    out = []
    for n, line in json_lines(path, "a replies file is JSONL"):
        if not isinstance(line, dict) or not isinstance(line.get("custom_id"), str):
            raise BadInput(f"{path}:{n}: every line needs a 'custom_id' (the request's store key)")
        out.append(line)
    return out


def import_replies(outbox: Outbox, store: ExchangeStore, files: list[Path]) -> dict[str, Any]:
    """Store the replies in ``files``; every file is read and checked before anything is stored."""
    lines = [(path, line) for path in files for line in read_lines(path)]
    unknown = sorted({line["custom_id"] for _, line in lines
                      if outbox.get(line["custom_id"]) is None and line["custom_id"] not in _stored_keys(store, lines)})
    if unknown:
        raise BadInput(f"{len(unknown)} replies are for requests this outbox never asked for (another run's "
                       f"batch output, or a different artifacts directory): {', '.join(k[:16] for k in unknown[:5])}")
    stored = skipped = 0
    failed: dict[str, str] = {}
    for _, line in lines:
        key = line["custom_id"]
        waiting = outbox.get(key)
        if waiting is None:  # answered before (a duplicate import): harmless
            skipped += 1
            continue
        text, usage, error = _reply(line)
        if error is not None or text is None:
            failed[key] = error or "no text"
            continue
        u = Usage(prompt_tokens=int(usage.get("prompt_tokens") or 0), completion_tokens=int(usage.get("completion_tokens") or 0))
        store.put(StoredExchange(key=key, request=waiting["request"], text=text, usage=u, attempts=1,
                                 started_at=_now(), finished_at=_now()))
        outbox.done(key)
        failed.pop(key, None)
        stored += 1
    return {"stored": stored, "already_stored": skipped, "failed": len(failed),
            "failures": dict(list(failed.items())[:10]), "still_waiting": len(outbox.waiting())}


def _stored_keys(store: ExchangeStore, lines: list[tuple[Path, dict[str, Any]]]) -> set[str]:
    out = set()
    for _, line in lines:
        key = line["custom_id"]
        try:
            if key in store:
                out.add(key)
        except BadInput:  # not even a key
            pass
    return out
