"""Batch runs through a provider's batch API: ``miscue batch submit / status / collect``
(DESIGN section 8, "Prompts out, replies in").

A ``--prompts-out`` round writes what the exchange store lacks as OpenAI batch JSONL and keeps each
request waiting in the outbox (:mod:`miscue.llm.outbox`). :func:`plan_submission` reads that file,
checks it line by line against the outbox, and groups the lines into batches: one per model and
transport (OpenAI takes one model per batch; two servers are two batches), at most
:data:`MAX_LINES` lines and :data:`MAX_BYTES` bytes each. :func:`submit` uploads and creates
them through a :class:`~miscue.llm.batch_api.BatchAPI` and records each in
``artifacts/store/batches/<batch_id>.json`` (:class:`BatchRecord`: batch id, provider, model,
input file, the ``custom_id`` values it carries, times, last status).

A request is *held* while a recorded batch that carries it is open: in flight, or finished but
not collected. A held request is never submitted again, and neither is one the store has
answered. :func:`refresh` retrieves every open batch; :func:`collect` downloads the output and
error files of the finished ones and imports them with :func:`~miscue.llm.outbox.import_replies`
(a reply for a request this outbox never asked for refuses the import; a failed or expired line
keeps its request waiting, so the next round writes it out again and the next submission sends it
alone), then closes the batch. A batch that failed as a whole is closed with nothing to collect:
its requests are released for a new submission.

A batch is recorded before it is created (status ``submitting``) and completed when the provider
answers, so a process killed in between leaves its requests held, never sent twice. Submissions,
status checks and collections of one artifacts directory take turns (a ``flock``).
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import json
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from miscue.canonical import canonical_json
from miscue.errors import BadInput
from miscue.llm.batch_api import ENDPOINT, FINAL, WITH_OUTPUT, BatchAPI, BatchProviderError, unbatchable
from miscue.llm.config import SECRET_PARAMS, TRANSPORT_PARAMS, LLMConfig, split_model
from miscue.llm.outbox import Outbox, import_replies, json_lines, read_lines
from miscue.llm.store import ExchangeStore

#: a provider's limits on one batch (OpenAI: 50,000 requests, 200 MB), with room to spare
MAX_LINES = 50_000
MAX_BYTES = 190_000_000
#: transport parameters a record may keep: never a secret, never headers (they may carry one)
_KEPT_TRANSPORT = TRANSPORT_PARAMS - SECRET_PARAMS - {"extra_headers", "headers"}


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


class BatchRecord(BaseModel):
    """One submitted batch, as ``artifacts/store/batches/<batch_id>.json`` keeps it."""

    model_config = ConfigDict(extra="forbid")

    batch_id: str | None  # None while ``submitting`` (uploaded, the batch not yet confirmed)
    provider: str
    model: str  # the roles' litellm model string
    roles: list[str]
    transport: dict[str, Any] = Field(default_factory=dict)  # api_base and the like; no secret
    input_file_id: str
    custom_ids: list[str]
    submitted_at: str
    status: str  # ``submitting``, then the provider's: validating, in_progress, ..., completed, failed
    request_counts: dict[str, int] = Field(default_factory=dict)
    output_file_id: str | None = None
    error_file_id: str | None = None
    errors: list[str] = Field(default_factory=list)  # batch-level errors (a failed validation)
    checked_at: str | None = None
    closed: Literal["collected", "released"] | None = None  # None: open (its requests are held)
    closed_at: str | None = None
    imported: dict[str, int] = Field(default_factory=dict)  # stored / already_stored / failed / missing
    failures: dict[str, str] = Field(default_factory=dict)  # the first failed lines: custom_id -> why

    @property
    def name(self) -> str:
        """The record's file name (a batch id made safe for a path; an unconfirmed one by its file)."""
        raw = self.batch_id or f"submitting-{self.input_file_id}"
        return re.sub(r"[^A-Za-z0-9_.-]", "_", raw)

    @property
    def label(self) -> str:
        return self.batch_id or f"(unconfirmed: input file {self.input_file_id})"


class Batches:
    """The batch records of an artifacts directory (``<store>/batches/``)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def records(self) -> list[BatchRecord]:
        if not self.root.exists():
            return []
        out = []
        for path in sorted(self.root.glob("*.json")):
            try:
                out.append(BatchRecord.model_validate_json(path.read_bytes()))
            except ValueError as exc:
                raise BadInput(f"batch record {path} cannot be read ({str(exc).splitlines()[0]}); "
                               "inspect or move it") from None
        return sorted(out, key=lambda r: (r.submitted_at, r.name))

    def open(self) -> list[BatchRecord]:
        return [r for r in self.records() if r.closed is None]

    def held(self) -> dict[str, str]:
        """custom_id -> the open batch that carries it."""
        return {key: r.label for r in self.open() for key in r.custom_ids}

    def save(self, record: BatchRecord) -> Path:
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.root / f"{record.name}.json"
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".record.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(record.model_dump_json(indent=1))
        os.replace(tmp, path)
        return path

    def remove(self, record: BatchRecord) -> None:
        (self.root / f"{record.name}.json").unlink(missing_ok=True)

    def download(self, record: BatchRecord, kind: str) -> Path:
        """Where a batch's downloaded ``output`` or ``errors`` file is kept."""
        return self.root / "files" / f"{record.name}.{kind}.jsonl"

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        """One batch command at a time on this artifacts directory (blocks until it is free)."""
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)


# -- submit ----------------------------------------------------------------------------------
@dataclass
class Group:
    """Lines for one batch: one model, one way to reach it."""

    provider: str
    model: str
    params: dict[str, Any]  # the role's transport parameters (secrets included: never stored)
    roles: list[str] = field(default_factory=list)
    lines: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Plan:
    """What a submission sends and what it leaves out."""

    groups: list[Group]
    answered: int = 0  # lines the store already answers
    held: dict[str, int] = field(default_factory=dict)  # open batch -> lines of the file it carries

    @property
    def requests(self) -> int:
        return sum(len(g.lines) for g in self.groups)


def read_batch_file(path: Path) -> list[dict[str, Any]]:
    """The lines of a ``--prompts-out`` file, each checked for the batch shape (BadInput naming the
    file and line otherwise); a repeated ``custom_id`` counts once."""
    lines: dict[str, dict[str, Any]] = {}
    for n, line in json_lines(path, "`miscue batch submit` takes the JSONL file --prompts-out wrote"):
        body = line.get("body") if isinstance(line, dict) else None
        if not (isinstance(line, dict) and isinstance(line.get("custom_id"), str) and line.get("method") == "POST"
                and line.get("url") == ENDPOINT and isinstance(body, dict) and isinstance(body.get("model"), str)
                and isinstance(body.get("messages"), list)):
            raise BadInput(f"{path}:{n}: not a batch request line (expected custom_id, method POST, url {ENDPOINT} and a "
                           "body with model and messages, as --prompts-out writes them)")
        lines.setdefault(line["custom_id"], line)
    return list(lines.values())


def plan_submission(path: Path, outbox: Outbox, store: ExchangeStore, batches: Batches, config: LLMConfig) -> Plan:
    """The batches a submission of ``path`` would create. BadInput (nothing sent) for a file not in
    the batch shape, a line the outbox is not waiting for (and the store has not answered), a line
    that differs from the request the outbox keeps, a role whose model in ``config`` is not the
    one the request was written for, or a provider that cannot be batched."""
    lines = read_batch_file(path)
    held_by = batches.held()
    plan = Plan(groups=[])
    groups: dict[tuple[str, str], Group] = {}
    unknown: list[str] = []
    refused: dict[str, set[str]] = {}  # provider -> models
    for line in lines:
        key = line["custom_id"]
        try:
            answered = key in store
        except BadInput:  # not even a store key
            unknown.append(key)
            continue
        if answered:
            plan.answered += 1
            continue
        if key in held_by:
            plan.held[held_by[key]] = plan.held.get(held_by[key], 0) + 1
            continue
        waiting = outbox.get(key)
        if waiting is None:
            unknown.append(key)
            continue
        if canonical_json(waiting["line"]) != canonical_json(line):
            raise BadInput(f"{path}: the line of request {key[:16]} differs from the request the outbox keeps for it "
                           "(an edited file?); submit the file --prompts-out wrote")
        role, model = waiting["role"], waiting["request"]["model"]
        cfg = config.role(role)
        if cfg.model != model:
            raise BadInput(f"{path}: request {key[:16]} was written for {role} model {model!r}, but the model "
                           f"configuration gives {role} {cfg.model!r}: pass the --llm-config the run used")
        provider = split_model(model)[0]
        if unbatchable(provider) is not None:
            refused.setdefault(provider, set()).add(model)
            continue
        params = {k: v for k, v in cfg.params.items() if k in TRANSPORT_PARAMS}
        group = groups.setdefault((model, canonical_json(params)), Group(provider, model, params))
        if role not in group.roles:
            group.roles.append(role)
        group.lines.append(line)
    if unknown:
        raise BadInput(f"{path}: {len(unknown)} lines are for requests this artifacts directory's outbox is not waiting "
                       f"for (another run's prompts, or a different --artifacts): {', '.join(k[:16] for k in unknown[:5])}")
    if refused:
        provider, models = sorted(refused.items())[0]
        raise BadInput(f"{path}: requests for {', '.join(sorted(models))} cannot be sent as a batch: "
                       f"{unbatchable(provider)}; nothing was submitted")
    for group in groups.values():
        plan.groups.extend(_chunks(group))
    return plan


def _chunks(group: Group) -> list[Group]:
    """``group`` cut to the provider's limits on one batch."""
    out: list[Group] = []
    size = 0
    for line in group.lines:
        n = len(json.dumps(line).encode()) + 1
        if not out or len(out[-1].lines) >= MAX_LINES or size + n > MAX_BYTES:
            out.append(Group(group.provider, group.model, group.params, list(group.roles)))
            size = 0
        out[-1].lines.append(line)
        size += n
    return out


def submit(plan: Plan, batches: Batches, api: BatchAPI, on_batch: Callable[[BatchRecord], None] | None = None
           ) -> list[BatchRecord]:
    """Upload and create the planned batches, recording each (see the module docstring): a batch
    that could not be created is not recorded and the error propagates; those created before it
    stay recorded, so a rerun sends only the rest."""
    made = []
    for group in plan.groups:
        content = "".join(json.dumps(line, sort_keys=True) + "\n" for line in group.lines).encode()
        file_id = api.upload(group.provider, group.params, "miscue-batch.jsonl", content)
        record = BatchRecord(batch_id=None, provider=group.provider, model=group.model, roles=group.roles,
                             transport={k: v for k, v in group.params.items() if k in _KEPT_TRANSPORT},
                             input_file_id=file_id, custom_ids=[line["custom_id"] for line in group.lines],
                             submitted_at=_now(), status="submitting")
        batches.save(record)  # held before the batch exists: a kill after create_batch never sends them twice
        try:
            created = api.create(group.provider, group.params, file_id, {"miscue_roles": ",".join(group.roles)})
        except BatchProviderError as exc:
            if not exc.maybe_done:  # refused, or never sent: nothing was created
                batches.remove(record)
                raise
            raise BatchProviderError(f"{exc} -- whether the batch was created is unknown, so its {len(record.custom_ids)} "
                                     f"requests stay held by {batches.root / (record.name + '.json')}; if the provider "
                                     f"has no batch on input file {file_id}, delete that record to release them") from None
        confirmed = record.model_copy(update={"batch_id": created["id"]})
        _update(confirmed, created)
        batches.save(confirmed)
        batches.remove(record)
        made.append(confirmed)
        if on_batch is not None:
            on_batch(confirmed)
    return made


# -- status and collect ----------------------------------------------------------------------
def transport(record: BatchRecord, config: LLMConfig | None) -> dict[str, Any]:
    """How to reach ``record``'s batch: the transport of the configuration's role with the
    record's model (secrets included), else what the record kept (keys then come from the
    environment, as litellm reads them)."""
    if config is not None:
        for role in [*record.roles, "writer", "extractor_a", "extractor_b"]:
            cfg = config.role(role)
            if cfg.model == record.model:
                return {k: v for k, v in cfg.params.items() if k in TRANSPORT_PARAMS}
    return dict(record.transport)


def _update(record: BatchRecord, view: dict[str, Any]) -> None:
    record.status = view["status"]
    record.request_counts = view["request_counts"]
    record.output_file_id, record.error_file_id = view["output_file_id"], view["error_file_id"]
    record.errors = view["errors"]
    record.checked_at = _now()


def refresh(batches: Batches, api: BatchAPI, config: LLMConfig | None) -> list[BatchRecord]:
    """Retrieve every open batch and update its record; a batch that failed as a whole is closed
    (its requests released). The open records as they were found, updated; an unconfirmed one
    (``submitting``) is left as it is."""
    out = []
    for record in batches.open():
        if record.batch_id is not None:
            _update(record, api.retrieve(record.provider, transport(record, config), record.batch_id))
            if record.status in FINAL - WITH_OUTPUT:
                record.closed, record.closed_at = "released", _now()
            batches.save(record)
        out.append(record)
    return out


def collect_one(record: BatchRecord, batches: Batches, api: BatchAPI, config: LLMConfig | None, outbox: Outbox,
                store: ExchangeStore) -> BatchRecord:
    """Download a finished batch's output and error files, import them, close the batch."""
    params = transport(record, config)
    files = []
    for kind, file_id in (("output", record.output_file_id), ("errors", record.error_file_id)):
        if file_id:
            path = batches.download(record, kind)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(api.content(record.provider, params, file_id))
            files.append(path)
    carried = set(record.custom_ids)
    found = {line["custom_id"] for path in files for line in read_lines(path)}
    if found - carried:
        raise BadInput(f"batch {record.label}: its output answers {len(found - carried)} requests this batch never carried "
                       f"(another run's batch?): {', '.join(k[:16] for k in sorted(found - carried)[:5])}; nothing was imported")
    summary = import_replies(outbox, store, files) if files else {"stored": 0, "already_stored": 0, "failed": 0}
    record.imported = {"stored": summary["stored"], "already_stored": summary["already_stored"],
                       "failed": summary["failed"], "missing": len(carried - found)}
    record.failures = dict(summary.get("failures") or {})
    record.closed, record.closed_at = "collected", _now()
    batches.save(record)
    return record


@dataclass
class Collection:
    """What :func:`collect` did."""

    collected: list[BatchRecord] = field(default_factory=list)
    released: list[BatchRecord] = field(default_factory=list)  # failed as a whole: nothing to collect
    pending: list[BatchRecord] = field(default_factory=list)  # still open when it returned
    polls: int = 0
    timed_out: bool = False


def collect(batches: Batches, api: BatchAPI, config: LLMConfig | None, outbox: Outbox, store: ExchangeStore, *,
            wait: bool = False, poll_s: float = 30.0, timeout_s: float | None = None,
            on_poll: Callable[[list[BatchRecord]], None] | None = None,
            sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic) -> Collection:
    """Collect every finished open batch; with ``wait``, poll every ``poll_s`` seconds until none is
    in flight or ``timeout_s`` is up (``timed_out``: the rest stay open, a later collect takes them).
    Each poll takes its turn (:meth:`Batches.turn`); the waits between polls hold nothing, so a
    ``status`` or a ``submit`` meanwhile is not kept waiting for hours."""
    result = Collection()
    deadline = None if timeout_s is None else clock() + timeout_s
    while True:
        with batches.turn():
            records = refresh(batches, api, config)
            result.polls += 1
            if on_poll is not None:
                on_poll(records)
            result.pending = []
            for record in records:
                if record.closed == "released":
                    result.released.append(record)
                elif record.batch_id is not None and record.status in WITH_OUTPUT:
                    result.collected.append(collect_one(record, batches, api, config, outbox, store))
                else:
                    result.pending.append(record)
        in_flight = [r for r in result.pending if r.batch_id is not None]
        if not wait or not in_flight:
            return result
        if deadline is not None and clock() + poll_s > deadline:
            result.timed_out = True
            return result
        sleep(poll_s)
