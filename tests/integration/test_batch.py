"""Batch runs through a provider's batch API (issue 39, item 3): ``miscue batch submit / status /
collect`` send a ``--prompts-out`` file through litellm's batch functions and bring the replies
into the store. The provider is the loopback OpenAI-compatible stub, serving the files and
batches endpoints; each batch line is answered as the embedded offline models answer (the stub's
chat script), so a run in rounds ends with what a live run against the stub's chat route says.
Real parts: litellm over HTTP, the ``miscue`` CLI (CliRunner), the exchange store and outbox."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from miscue.flows.cli import app
from miscue.llm.env import load_litellm
from miscue.offline.provider import answer
from support.openai_stub import Action, StubServer, reply, server_error

runner = CliRunner()
ENDPOINT = "/v1/chat/completions"
#: three roles, two providers litellm batches on its OpenAI-compatible path, one stub behind both
MODELS = {"writer": "openai/stub-writer", "extractor_a": "openai/lexical-extractor",
          "extractor_b": "hosted_vllm/parse-extractor"}
OFFLINE = {"stub-writer": "writer", "lexical-extractor": "lexical", "parse-extractor": "parse"}
ROWS = (Path(__file__).resolve().parents[1] / "data" / "verifier_set.jsonl").read_text().splitlines()[:4]


class OfflineStub(StubServer):
    """Answers chat requests (and so batch lines) as the offline model named by the body's model."""

    def _next(self, body: dict[str, Any]) -> Action:
        action = super()._next(body)
        if action is not self.default:
            return action
        return reply(answer(OFFLINE[body["model"]], body["messages"]),
                     prompt_tokens=sum(len(m["content"].split()) for m in body["messages"]))


@pytest.fixture
def stub():
    with OfflineStub() as server:
        yield server


def _config(path: Path, base_url: str, **models: str) -> Path:
    params = {"api_base": base_url, "api_key": "sk-local"}
    roles = {role: {"model": model, "params": params} for role, model in {**MODELS, **models}.items()}
    path.write_text(json.dumps({**roles, "timeout_s": 5.0, "max_retries": 0,
                                "prices": {r["model"]: [0.0, 0.0] for r in roles.values()}}))
    return path


class Run:
    """``eval-verifier`` on four labelled requests, in rounds, and the batch commands on its files."""

    def __init__(self, tmp: Path, config: Path, name: str = "art") -> None:
        self.art, self.config, self.requests = tmp / name, config, tmp / f"{name}-requests.jsonl"
        self.labelled = tmp / "set.jsonl"
        self.labelled.write_text("\n".join(ROWS) + "\n")

    def round(self) -> Any:
        return runner.invoke(app, ["eval-verifier", str(self.labelled), "--json", "--llm-config", str(self.config),
                                   "--artifacts", str(self.art), "--prompts-out", str(self.requests)])

    def batch(self, *args: str, config: bool = True) -> Any:
        return runner.invoke(app, ["batch", *args, "--artifacts", str(self.art),
                                   *(["--llm-config", str(self.config)] if config else [])])

    def submit(self, path: Path | None = None) -> dict[str, Any]:
        res = self.batch("submit", str(path or self.requests), "--json")
        assert res.exit_code == 0, res.output
        return json.loads(res.stdout)

    def collect(self) -> dict[str, Any]:
        res = self.batch("collect", "--wait", "--poll-seconds", "0.02", "--timeout", "10", "--json")
        assert res.exit_code == 0, res.output
        return json.loads(res.stdout)

    def keys(self) -> list[str]:
        return [json.loads(raw)["custom_id"] for raw in self.requests.read_text().splitlines()]


def test_a_run_in_rounds_through_batches_says_what_a_live_run_says(tmp_path, stub, monkeypatch):
    """--prompts-out -> batch submit -> batch status -> batch collect --wait -> rerun, until the
    run ends: one batch per model (the openai and the hosted_vllm extractor), statuses and
    counts as the provider reports them, every reply stored, the same report as a live run."""
    config = _config(tmp_path / "llm.json", stub.base_url)
    live = runner.invoke(app, ["eval-verifier", str(Run(tmp_path, config).labelled), "--json", "--llm-config",
                               str(config), "--artifacts", str(tmp_path / "live")])
    assert live.exit_code == 0, live.output
    run, providers = Run(tmp_path, config), []
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    stub.in_progress_polls = 3  # both status calls see it in progress, collect --wait too before it completes
    for rounds in range(1, 10):
        res = run.round()
        if res.exit_code == 0:
            break
        assert res.exit_code == 5, res.output
        submitted = run.submit()["submitted"]
        assert [sorted(b["custom_ids"]) for b in submitted] == [sorted(run.keys())], "one model a round: one batch"
        providers += [b["provider"] for b in submitted]
        status = run.batch("status", "--json", config=False)  # the record's api_base; the key from the environment
        assert status.exit_code == 0, status.output
        [seen] = json.loads(status.stdout)["batches"]
        assert seen["status"] == "in_progress" and seen["request_counts"]["total"] == len(run.keys())
        table = run.batch("status")
        assert table.exit_code == 0 and seen["batch_id"] in table.stdout and "in_progress" in table.stdout
        got = run.collect()
        assert got["polls"] >= 2 and [b["status"] for b in got["collected"]] == ["completed"]
        assert got["collected"][0]["imported"] == {"stored": len(run.keys()), "already_stored": 0, "failed": 0,
                                                   "missing": 0}
        assert got["still_waiting"] == 0 and run.batch("collect").stdout.startswith("no batch waits")
    assert rounds == 3 and providers == ["openai", "hosted_vllm"]
    assert json.loads(res.stdout) == json.loads(live.stdout)
    records = sorted((run.art / "store" / "batches").glob("*.json"))
    assert [json.loads(p.read_text())["closed"] for p in records] == ["collected", "collected"]
    assert "sk-local" not in "".join(p.read_text() for p in records), "no key in a batch record"


def test_failed_lines_go_out_again_alone(tmp_path, stub):
    """Lines that come back failed (a 500 in the error file, an expired batch's unfinished lines)
    stay waiting: the next round exports exactly them and the next submission sends only them."""
    run = Run(tmp_path, _config(tmp_path / "llm.json", stub.base_url))
    assert run.round().exit_code == 5
    run.submit(), run.collect()
    assert run.round().exit_code == 5  # the second round: the parse extractor, the last call of each request
    second = run.keys()
    failing = set(second[:1])
    stub.batch_line = lambda line: server_error(500) if line["custom_id"] in failing else stub._chat(line["body"])
    stub.batch_outcomes.append("expired")  # the first half of the lines run, the rest expire
    run.submit()
    got = run.collect()["collected"]
    assert got[0]["status"] == "expired" and got[0]["imported"]["stored"] == len(second) // 2 - 1
    failed = failing | set(second[len(second) // 2:])
    assert got[0]["imported"]["failed"] == len(failed)
    assert run.round().exit_code == 5
    assert sorted(run.keys()) == sorted(failed), "only the failed lines are exported again"
    stub.batch_line = None  # (the stub answers a batch's lines when it is created)
    again = run.submit()["submitted"]
    assert [sorted(b["custom_ids"]) for b in again] == [sorted(failed)] and stub.submitted[-1] == again[0]["custom_ids"]
    assert run.collect()["collected"][0]["imported"]["stored"] == len(failed)
    assert run.round().exit_code == 0


def test_a_second_submission_sends_nothing_twice(tmp_path, stub):
    """Submitting the same requests while their batch is in flight (and after a rerun wrote them
    out again) sends nothing and says so; a batch that fails as a whole releases them; a wait
    that outlasts --timeout stops with exit 3 and collects nothing early."""
    run = Run(tmp_path, _config(tmp_path / "llm.json", stub.base_url))
    assert run.round().exit_code == 5
    stub.in_progress_polls = 1000
    stub.batch_outcomes.append("failed")  # in the end the provider gives up on the whole batch
    first = run.submit()["submitted"]
    assert run.round().exit_code == 5, "a rerun before the replies writes the same requests out again"
    res = run.batch("submit", str(run.requests))
    assert res.exit_code == 0 and "nothing to submit" in res.stdout and first[0]["batch_id"] in " ".join(res.stdout.split())
    assert len(stub.submitted) == 1
    waited = run.batch("collect", "--wait", "--poll-seconds", "0.05", "--timeout", "0.2")
    assert waited.exit_code == 3 and "still in flight" in waited.output
    stub.in_progress_polls = 0
    status = json.loads(run.batch("status", "--json").stdout)["batches"]
    assert [(b["status"], b["closed"]) for b in status] == [("failed", "released")]
    again = run.submit()["submitted"]
    assert sorted(again[0]["custom_ids"]) == sorted(first[0]["custom_ids"]) and len(stub.submitted) == 2
    run.collect()
    assert run.round().exit_code == 5 and run.submit()["submitted"], "the run goes on"


def test_bad_input_exits_2_and_sends_nothing(tmp_path, stub):
    config = _config(tmp_path / "llm.json", stub.base_url)
    run = Run(tmp_path, config)
    assert run.round().exit_code == 5
    not_jsonl = tmp_path / "bad.jsonl"
    not_jsonl.write_text("these are not requests\n")
    res = run.batch("submit", str(not_jsonl))
    assert res.exit_code == 2 and "bad.jsonl:1: not a JSON line" in res.output
    replies = tmp_path / "replies.jsonl"
    replies.write_text(json.dumps({"custom_id": run.keys()[0], "reply": "hello"}) + "\n")
    res = run.batch("submit", str(replies))
    assert res.exit_code == 2 and "not a batch request line" in res.output

    other = Run(tmp_path, config, name="other")  # another run's prompts are not this outbox's
    res = other.batch("submit", str(run.requests))
    assert res.exit_code == 2 and "outbox is not waiting for" in res.output

    claude = Run(tmp_path, _config(tmp_path / "claude.json", stub.base_url, extractor_a="anthropic/claude-3-5-haiku-20241022"),
                 name="claude")
    assert claude.round().exit_code == 5
    res = claude.batch("submit", str(claude.requests))
    assert res.exit_code == 2 and "Anthropic's message batches are not created through litellm" in " ".join(res.output.split())
    offline = Run(tmp_path, config, name="offline")
    assert runner.invoke(app, ["eval-verifier", str(offline.labelled), "--artifacts", str(offline.art),
                               "--prompts-out", str(offline.requests)]).exit_code == 5
    res = offline.batch("submit", str(offline.requests), config=False)
    assert res.exit_code == 2 and "offline models have no batch API" in " ".join(res.output.split())
    assert stub.submitted == [] and not stub.files, "nothing was uploaded"

    # a batch of another run's requests, at collect time: refused whole, nothing imported, left open
    run.submit()
    batches = other.art / "store" / "batches"
    batches.mkdir(parents=True, exist_ok=True)
    for record in (run.art / "store" / "batches").glob("*.json"):
        shutil.copy(record, batches)
    res = other.batch("collect")
    assert res.exit_code == 2 and "never asked for" in res.output
    assert not (other.art / "store" / "exchanges").exists()
    assert [json.loads(p.read_text())["closed"] for p in batches.glob("*.json")] == [None]
    assert run.collect()["collected"], "its own run collects it"


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
