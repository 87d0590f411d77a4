"""The batch records' rules without a provider (miscue.llm.batches; the HTTP path is
tests/integration/test_batch.py): what a submission sends, what it holds back, what a record
keeps, and what a batch whose creation is unknown does."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from miscue.errors import BadInput
from miscue.llm import ExchangeStore, LLMConfig
from miscue.llm import batches as b
from miscue.llm.batch_api import BatchProviderError
from miscue.llm.outbox import URL, Outbox

MODELS = {"writer": "openai/stub-writer", "extractor_a": "openai/lexical-extractor", "extractor_b": "hosted_vllm/parse-x"}


def _config(**models: str) -> LLMConfig:
    params = {"api_base": "http://127.0.0.1:9/v1", "api_key": "sk-secret", "extra_headers": {"X-Key": "hdr-secret"}}
    return LLMConfig(**{role: {"model": m, "params": params} for role, m in {**MODELS, **models}.items()})


class FakeAPI:
    """Creates what it is asked to, or fails as told; records every call."""

    def __init__(self, fail_create: BatchProviderError | None = None) -> None:
        self.fail_create, self.calls, self.status = fail_create, [], "validating"

    def upload(self, provider: str, params: dict[str, Any], filename: str, content: bytes) -> str:
        self.calls.append(("upload", provider, [json.loads(x)["custom_id"] for x in content.splitlines()]))
        return f"file-{len(self.calls)}"

    def create(self, provider: str, params: dict[str, Any], input_file_id: str, metadata: dict[str, str]) -> dict[str, Any]:
        if self.fail_create is not None:
            raise self.fail_create
        self.calls.append(("create", provider, input_file_id))
        return self.retrieve(provider, params, f"batch-{input_file_id}")

    def retrieve(self, provider: str, params: dict[str, Any], batch_id: str) -> dict[str, Any]:
        return {"id": batch_id, "status": self.status, "request_counts": {"total": 0, "completed": 0, "failed": 0},
                "output_file_id": None, "error_file_id": None, "errors": ["bad file"] if self.status == "failed" else []}

    def content(self, provider: str, params: dict[str, Any], file_id: str) -> bytes:  # pragma: no cover - not asked
        raise AssertionError


def _waiting(tmp: Path, roles: list[str]) -> tuple[Path, Outbox, ExchangeStore, b.Batches]:
    """An outbox waiting for one request per role given, and the file --prompts-out writes of it."""
    outbox = Outbox(tmp / "store" / "outbox")
    for n, role in enumerate(roles):
        model = MODELS[role]
        key = hashlib.sha256(f"{n}{role}".encode()).hexdigest()
        body = {"model": model.split("/", 1)[1], "messages": [{"role": "user", "content": str(n)}]}
        outbox.add(key, role, {"model": model, "messages": body["messages"]}, body)
    requests = tmp / "requests.jsonl"
    requests.write_text("".join(json.dumps(r["line"]) + "\n" for r in outbox.waiting()))
    return requests, outbox, ExchangeStore(tmp / "store" / "exchanges"), b.Batches(tmp / "store" / "batches")


def test_one_batch_per_model_within_the_size_limit_and_no_secret_in_a_record(tmp_path, monkeypatch):
    requests, outbox, store, batches = _waiting(tmp_path, ["extractor_a"] * 5 + ["extractor_b"] * 2 + ["writer"])
    monkeypatch.setattr(b, "MAX_LINES", 2)
    plan = b.plan_submission(requests, outbox, store, batches, _config())
    assert sorted((g.model, len(g.lines)) for g in plan.groups) == [
        ("hosted_vllm/parse-x", 2), ("openai/lexical-extractor", 1), ("openai/lexical-extractor", 2),
        ("openai/lexical-extractor", 2), ("openai/stub-writer", 1)]
    api = FakeAPI()
    made = b.submit(plan, batches, api)
    assert len(made) == 5 and {r.provider for r in made} == {"openai", "hosted_vllm"}
    kept = "".join(p.read_text() for p in batches.root.glob("*.json"))
    assert "http://127.0.0.1:9/v1" in kept and "secret" not in kept, "the address is kept, never a key or a header"
    again = b.plan_submission(requests, outbox, store, batches, _config())
    assert again.requests == 0 and sum(again.held.values()) == 8, "every request is held by its open batch"


def test_a_batch_that_failed_as_a_whole_releases_its_requests(tmp_path):
    requests, outbox, store, batches = _waiting(tmp_path, ["extractor_a"] * 2)
    api = FakeAPI()
    b.submit(b.plan_submission(requests, outbox, store, batches, _config()), batches, api)
    api.status = "failed"
    [record] = b.refresh(batches, api, None)
    assert (record.closed, record.errors) == ("released", ["bad file"]) and batches.open() == []
    assert b.plan_submission(requests, outbox, store, batches, _config()).requests == 2


def test_a_refused_creation_holds_nothing_and_an_unknown_one_holds_its_requests(tmp_path):
    requests, outbox, store, batches = _waiting(tmp_path, ["extractor_a"] * 2)
    refused = FakeAPI(BatchProviderError("creating the batch failed (status 400)"))
    with pytest.raises(BatchProviderError):
        b.submit(b.plan_submission(requests, outbox, store, batches, _config()), batches, refused)
    assert batches.records() == [] and b.plan_submission(requests, outbox, store, batches, _config()).requests == 2
    unknown = FakeAPI(BatchProviderError("creating the batch timed out", maybe_done=True))
    with pytest.raises(BatchProviderError, match="stay held by .*submitting-file-1.json"):
        b.submit(b.plan_submission(requests, outbox, store, batches, _config()), batches, unknown)
    [record] = batches.records()
    assert record.status == "submitting" and record.batch_id is None
    assert b.plan_submission(requests, outbox, store, batches, _config()).requests == 0, "never sent twice"
    assert b.refresh(batches, FakeAPI(), None) == [record], "not asked about: it has no batch id"


def test_lines_that_are_not_this_runs_requests_are_refused(tmp_path):
    requests, outbox, store, batches = _waiting(tmp_path, ["extractor_a", "extractor_b"])
    with pytest.raises(BadInput, match="written for extractor_a model 'openai/lexical-extractor'.*pass the --llm-config"):
        b.plan_submission(requests, outbox, store, batches, _config(extractor_a="openai/llama-other"))
    lines = requests.read_text().splitlines()
    edited = json.loads(lines[0])
    edited["body"]["temperature"] = 0.5
    requests.write_text("\n".join([json.dumps(edited), *lines[1:]]) + "\n")
    with pytest.raises(BadInput, match="differs from the request the outbox keeps"):
        b.plan_submission(requests, outbox, store, batches, _config())
    not_batch = dict(edited, url="/v1/embeddings")
    requests.write_text(json.dumps(not_batch) + "\n")
    with pytest.raises(BadInput, match=f"requests.jsonl:1: not a batch request line .*url {URL}"):
        b.plan_submission(requests, outbox, store, batches, _config())
