"""Prompts out, replies in (issue 39, items 1 and 2): a run with ``--prompts-out`` calls no model,
writes what the store lacks as OpenAI batch JSONL and stops (exit 5, nothing published);
``miscue prompts import`` puts a batch output into the store; rounds go on until the run
finishes, with the same tables as a run that called the models directly. The "provider"
answering the exported files is the embedded offline models' own ``answer`` (what a live run
on them gets), so the two runs can be compared line for line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
from typer.testing import CliRunner

from miscue.flows.cli import app
from support.rounds import answer_all, in_rounds

runner = CliRunner()
TASKS = ["tau2-airline:2,5,7,8,9,11"]
ARGS = ["generate", "-b", "tau2-airline", "--task", *TASKS, "-t", "factual_error", "-t", "insufficient_information",
        "--attempts", "2", "--quiet"]


def test_bad_replies_are_refused_whole_with_exit_2(tmp_path):
    art, exported = tmp_path / "art", tmp_path / "requests.jsonl"
    res = runner.invoke(app, [*ARGS, "--artifacts", str(art), "--prompts-out", str(exported), "--price", "0.000001"])
    assert res.exit_code == 5, res.output
    line = " ".join(res.output.split())
    n = len(exported.read_text().splitlines())
    cost = re.search(rf"--prompts-out: {n} requests \({n} writer, about ([0-9.e-]+) USD at batch price\)", line)
    assert cost and float(cost.group(1)) > 0, line
    not_jsonl = tmp_path / "bad.jsonl"
    not_jsonl.write_text("this is not json\n")
    res = runner.invoke(app, ["prompts", "import", str(not_jsonl), "--artifacts", str(art)])
    assert res.exit_code == 2 and "bad.jsonl:1: not a JSON line" in res.output
    good = tmp_path / "good.jsonl"
    answer_all(exported, good)
    foreign = tmp_path / "foreign.jsonl"
    foreign.write_text(good.read_text() + json.dumps({"custom_id": "0" * 64, "reply": "hello"}) + "\n")
    res = runner.invoke(app, ["prompts", "import", str(foreign), "--artifacts", str(art)])
    assert res.exit_code == 2 and "never asked for" in res.output
    assert len(list((art / "store" / "outbox").glob("*.json"))) == len(good.read_text().splitlines()), "nothing stored"
    assert runner.invoke(app, [*ARGS, "--artifacts", str(art), "--prompts-out", str(exported), "--offline-replay"]).exit_code == 2


def test_a_build_in_rounds_publishes_the_tables_of_a_live_build(tmp_path):
    """Single faults and composites: rounds until the store answers everything, then the same
    table content hashes as a build that called the models (the replies as a provider's batch
    output gives them, usage included); a request that came back expired goes out again alone,
    and importing a file twice is harmless."""
    from miscue.config import ModelOptions
    from miscue.flows.stages import build as pipeline
    from miscue.llm import ExchangeStore, PromptsExported
    from miscue.llm.outbox import Outbox, export, import_replies

    kw = dict(benchmarks=["tau2-airline"], fault_types=["factual_error", "contextual_irrelevance"], attempts=1,
              composite_ks=[2], tasks={"tau2-airline": ["2", "5", "7"]})
    live = pipeline.build(artifacts=tmp_path / "live", **kw)
    art, requests, replies = tmp_path / "rounds", tmp_path / "requests.jsonl", tmp_path / "replies.jsonl"
    outbox, store = Outbox(art / "store" / "outbox"), ExchangeStore(art / "store" / "exchanges")
    expired, answered_first = None, set()
    for rounds in range(1, 100):
        try:
            done = pipeline.build(artifacts=art, models=ModelOptions(prompts_out=str(requests)), **kw)
            break
        except PromptsExported:
            assert not (art / "corpora").exists(), "a round that waits publishes nothing"
            export(outbox, requests)
            keys = [json.loads(raw)["custom_id"] for raw in requests.read_text().splitlines()]
            if rounds == 2:  # the expired request is written out again, and nothing answered before
                assert expired in keys and not set(keys) & answered_first
            if rounds == 1:  # the first round: one request comes back expired
                expired = keys[0]
            answer_all(requests, replies, expire={expired} if rounds == 1 else set())
            summary = import_replies(outbox, store, [replies])
            assert summary["still_waiting"] == (1 if rounds == 1 else 0)
            if rounds == 1:
                assert summary["failed"] == 1 and summary["stored"] == len(keys) - 1
                answered_first = set(keys) - {expired}
                assert import_replies(outbox, store, [replies])["stored"] == 0  # a duplicate import is harmless
    manifests = [json.loads((root / "corpora" / v / "manifest.json").read_text())
                 for v, root in ((live["version"], tmp_path / "live"), (done["version"], art))]
    hashes = [{name: t["content_hash"] for name, t in m["tables"].items()} for m in manifests]
    samples = art / "corpora" / done["version"] / "samples.parquet"
    ks = duckdb.connect().execute(f"select distinct k from '{samples}' order by k").fetchall()
    assert ks == [(1,), (2,)] and rounds > 3
    assert hashes[0] == hashes[1]
    print(f"{rounds} rounds")


def test_verify_and_eval_verifier_in_rounds_say_what_a_live_run_says(tmp_path):
    labelled = tmp_path / "set.jsonl"
    rows = (Path(__file__).resolve().parents[1] / "data" / "verifier_set.jsonl").read_text().splitlines()[:12]
    labelled.write_text("\n".join(rows) + "\n")
    args = ["eval-verifier", str(labelled), "--json"]
    live = runner.invoke(app, [*args, "--artifacts", str(tmp_path / "live")])
    assert live.exit_code == 0, live.output
    code, report, rounds = in_rounds(args, tmp_path / "rounds", tmp_path)
    assert code == 0 and rounds >= 2 and json.loads(report) == json.loads(live.stdout)

    one = json.loads(rows[0])
    args = ["verify", one["text"], "-b", one["benchmark"], "--task", str(one["task_id"]), "--json"]
    live = runner.invoke(app, [*args, "--artifacts", str(tmp_path / "live1")])
    code, verdict, rounds = in_rounds(args, tmp_path / "rounds1", tmp_path)
    assert rounds >= 2 and code == live.exit_code and json.loads(verdict) == json.loads(live.stdout)


def test_generate_over_two_benchmarks_exports_both_in_each_round(tmp_path):
    """One round asks for what every benchmark lacks (not one benchmark per round), and the
    rounds end with the ledgers and summary of a live run."""
    args = ["generate", "-b", "tau2-airline", "-b", "tau2-retail", "--task", "tau2-airline:2,5,7", "--task", "tau2-retail:0,7",
            "-t", "factual_error", "--attempts", "1", "--quiet", "--json"]
    live = runner.invoke(app, [*args, "--artifacts", str(tmp_path / "live")])
    assert live.exit_code == 0, live.output
    exported: list[int] = []
    code, report, rounds = in_rounds(args, tmp_path / "rounds", tmp_path, exported)
    assert code == 0, report
    mine, theirs = json.loads(report)["benchmarks"], json.loads(live.stdout)["benchmarks"]
    assert exported[0] == sum(b["cells"] for b in theirs), "round 1 carries every benchmark's writer requests"
    for a, b in zip(mine, theirs, strict=True):
        for run_own in ("seconds", "directory", "model_calls", "tokens", "store_hits", "spent"):  # this round's, not the corpus's
            a.pop(run_own), b.pop(run_own)
        assert a == b
    for bench in ("tau2-airline", "tau2-retail"):
        tables = [duckdb.connect().execute(f"select * from '{root}/runs/{bench}/attempts.parquet' "
                                           "order by cell_id, attempt").fetchall()
                  for root in (tmp_path / "live", tmp_path / "rounds")]
        assert tables[0] == tables[1] and tables[0]
    print(f"{rounds} rounds, requests per round {exported}")
