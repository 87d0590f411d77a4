"""Batch runs through a provider's batch API (issue 39, item 3): the loopback OpenAI-compatible
stub serves the files and batches endpoints, and litellm's own batch functions talk to it."""

from __future__ import annotations

import json

from miscue.llm.env import load_litellm
from support.openai_stub import StubServer, reply, server_error

ENDPOINT = "/v1/chat/completions"


def _lines(ids: str, model: str = "m") -> bytes:
    return "".join(json.dumps({"custom_id": c, "method": "POST", "url": ENDPOINT,
                               "body": {"model": model, "messages": [{"role": "user", "content": c}]}}) + "\n"
                   for c in ids).encode()


def test_the_stub_runs_a_batch_as_litellm_drives_it():
    """Upload, create, in_progress then completed, an output and an error file in OpenAI's line
    shapes; a file of two models fails validation as OpenAI's would."""
    litellm = load_litellm()
    with StubServer() as stub:
        stub.in_progress_polls = 1
        stub.batch_line = lambda line: server_error(500) if line["custom_id"] == "b" else reply(f"re {line['custom_id']}")
        for provider in ("openai", "hosted_vllm"):
            kw = dict(custom_llm_provider=provider, api_base=stub.base_url, api_key="sk-local")
            upload = litellm.create_file(file=("r.jsonl", _lines("abc")), purpose="batch", **kw)
            batch = litellm.create_batch(completion_window="24h", endpoint=ENDPOINT, input_file_id=upload.id, **kw)
            assert batch.status == "validating" and batch.input_file_id == upload.id
            seen = [litellm.retrieve_batch(batch_id=batch.id, **kw) for _ in range(2)]
            assert [b.status for b in seen] == ["in_progress", "completed"]
            counts = seen[1].request_counts
            assert (counts.total, counts.completed, counts.failed) == (3, 2, 1)
            out = [json.loads(x) for x in litellm.file_content(file_id=seen[1].output_file_id, **kw).content.splitlines()]
            assert [(x["custom_id"], x["response"]["body"]["choices"][0]["message"]["content"]) for x in out] == \
                [("a", "re a"), ("c", "re c")]
            errors = [json.loads(x) for x in litellm.file_content(file_id=seen[1].error_file_id, **kw).content.splitlines()]
            assert [(x["custom_id"], x["response"]["status_code"]) for x in errors] == [("b", 500)]
            two = litellm.create_file(file=("r.jsonl", _lines("a") + _lines("b", model="other")), purpose="batch", **kw)
            batch = litellm.create_batch(completion_window="24h", endpoint=ENDPOINT, input_file_id=two.id, **kw)
            failed = [litellm.retrieve_batch(batch_id=batch.id, **kw) for _ in range(2)][-1]
            assert failed.status == "failed" and "one model" in failed.errors.data[0].message
        assert stub.submitted == [["a", "b", "c"], ["a", "b"]] * 2

