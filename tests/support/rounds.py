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


def answer_all(requests: Path, replies: Path, offline: dict[str, str] | None = None) -> int:
    """Answer every exported request as a provider's batch output, usage included (so a run's
    costs equal a live run's on the offline models); how many there were. ``offline``: the
    offline model that answers for each exported model name (default: the name itself)."""
    lines = []
    for raw in requests.read_text().splitlines():
        req = json.loads(raw)
        model = req["body"]["model"]
        text = answer((offline or {}).get(model, model), req["body"]["messages"])
        usage = {"prompt_tokens": count_tokens(req["body"]["messages"]), "completion_tokens": len(text.split())}
        body = {"choices": [{"message": {"content": text}}], "usage": usage}
        lines.append({"custom_id": req["custom_id"], "response": {"status_code": 200, "body": body}, "error": None})
    replies.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return len(lines)


def in_rounds(args: list[str], art: Path, tmp_path: Path, exported: list[int] | None = None) -> tuple[int, object, int]:
    """Run ``args`` with --prompts-out, answering and importing each round: (exit code, output,
    rounds); ``exported`` collects how many requests each round wrote."""
    requests, replies = tmp_path / "requests.jsonl", tmp_path / "replies.jsonl"
    for rounds in range(1, 30):
        res = runner.invoke(app, [*args, "--artifacts", str(art), "--prompts-out", str(requests)])
        if res.exit_code != 5:
            return res.exit_code, res.stdout, rounds
        n = answer_all(requests, replies)
        if exported is not None:
            exported.append(n)
        assert runner.invoke(app, ["prompts", "import", str(replies), "--artifacts", str(art)]).exit_code == 0
    raise AssertionError("no end in 30 rounds")
