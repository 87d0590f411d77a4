"""Rounds of ``--prompts-out`` / ``miscue prompts import`` through the CLI, the exported
requests answered as a provider's batch output would answer them, by the embedded offline
models (what a live run on them gets, usage included, so the two can be compared table by
table)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from miscue.flows.cli import app
from miscue.llm import count_tokens
from miscue.offline.provider import answer

runner = CliRunner()


def answer_all(requests: Path, replies: Path, offline: dict[str, str] | None = None,
               expire: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """Answer every exported request as a provider's batch output, usage included (so a run's
    costs equal a live run's on the offline models), the ``expire`` keys as expired lines; the
    keys the file held. ``offline``: the offline model that answers for each exported model name
    (default: the name itself). The exported lines are checked for the batch shape on the way."""
    keys, lines = [], []
    for n, raw in enumerate(requests.read_text().splitlines()):
        req = json.loads(raw)
        assert set(req) == {"custom_id", "method", "url", "body"} and req["url"] == "/v1/chat/completions", req
        key = req["custom_id"]
        keys.append(key)
        if key in expire:
            lines.append({"id": f"batch_req_{n}", "custom_id": key, "response": None,
                          "error": {"code": "batch_expired", "message": "not finished within 24h"}})
            continue
        model = req["body"]["model"]
        text = answer((offline or {}).get(model, model), req["body"]["messages"])
        usage = {"prompt_tokens": count_tokens(req["body"]["messages"]), "completion_tokens": len(text.split())}
        body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}], "usage": usage}
        lines.append({"id": f"batch_req_{n}", "custom_id": key, "response": {"status_code": 200, "body": body}, "error": None})
    replies.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return keys


def in_rounds(args: list[str], art: Path, tmp_path: Path, exported: list[int] | None = None) -> tuple[int, object, int]:
    """Run ``args`` with --prompts-out, answering and importing each round: (exit code, output,
    rounds); ``exported`` collects how many requests each round wrote."""
    requests, replies = tmp_path / "requests.jsonl", tmp_path / "replies.jsonl"
    for rounds in range(1, 30):
        res = runner.invoke(app, [*args, "--artifacts", str(art), "--prompts-out", str(requests)])
        if res.exit_code != 5:
            return res.exit_code, res.stdout, rounds
        n = len(answer_all(requests, replies))
        if exported is not None:
            exported.append(n)
        assert runner.invoke(app, ["prompts", "import", str(replies), "--artifacts", str(art)]).exit_code == 0
    raise AssertionError("no end in 30 rounds")
