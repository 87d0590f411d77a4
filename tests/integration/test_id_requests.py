"""Requests in the style of the reference release's LLM-written ones, which name items, payment
methods, reservations and flights by their host ids ("exchange item 8384507844 for item
7624783998", "charge gift_card_7245904"), read on the reading path by stand-in readers and
judged by `miscue verify` with their claim (tests/data/id_requests/README.md: the texts
are this project's own; the replies were made by stand-in models given only the rendered prompts).

The retired forms path refused texts like these (its rule grammar looked for the new item's options in
words); on the reading path the form tells a reader which ids name which value, so they are read,
checked and executed like any other text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from miscue.flows.registry import adapter_for
from miscue.flows.stages import dryrun
from miscue.flows.stages.benchmark import offline_gateway
from miscue.flows.stages.verify import verify_sync

DATA = Path(__file__).resolve().parents[1] / "data" / "id_requests"
REQUESTS = dryrun.read_jsonl(DATA / "requests.jsonl")
#: requests the committed replies do not carry, with their verdict (none since the replies of
#: 2026-12-06: the README there keeps the earlier misreading of i-03)
MISREAD: dict[str, str] = {}


@pytest.fixture(scope="module")
def prompts():
    return {p["id"]: p for p in dryrun.request_prompts(REQUESTS)}


@pytest.fixture(scope="module")
def gateway(prompts, tmp_path_factory):
    current = {(p["id"], "read"): p for p in prompts.values()}
    files = {"extractor_a": "replies_read_a.jsonl", "extractor_b": "replies_read_b.jsonl"}
    replies = {role: dryrun.load_replies(role, current, DATA, files) for role in files}
    stale = [s for r in replies.values() for s in r.stale]
    assert not stale, "stale replies (scripts/id_requests.py, then re-answer):\n" + "\n".join(stale)
    return dryrun.StandInGateway(offline_gateway(tmp_path_factory.mktemp("store")), replies)


def test_the_committed_prompts_are_the_ones_verify_sends(prompts):
    committed = {r["id"]: (r["prompt_sha"], r["messages"]) for r in dryrun.read_jsonl(DATA / "prompts_read.jsonl")}
    assert committed == {i: (p["prompt_sha"], p["messages"]) for i, p in prompts.items()}
    assert all(any(ch.isdigit() for ch in r["text"]) for r in REQUESTS)


@pytest.mark.parametrize("row", REQUESTS, ids=[r["id"] for r in REQUESTS])
def test_a_request_naming_ids_is_read_and_admitted_as_its_fault(gateway, row):
    adapter = adapter_for(row["benchmark"])
    v = verify_sync(adapter, gateway, row["task_id"], row["text"], row["claimed_type"], row["slot"])
    assert gateway.missing == {}, "a prompt without a committed reply"
    if row["id"] in MISREAD:
        assert v.as_dict()["verdict"]["code"] == MISREAD[row["id"]] and v.found["b"]["class"] == "mismatch"
        return
    assert v.admitted, json.dumps(v.as_dict()["verdict"])
    assert v.fault_type == row["claimed_type"] and v.slot == row["slot"]
    executed = [r for s in v.steps if s.name == "admission" for r in s.detail["readings"]]
    assert executed and all(r["gt_hash"] for r in executed)


#: the offline readers (the key-free baseline) read an id as the value it names when their words say
#: nothing for the requirement, a return's items named part by part too (i-04, since v10's form); a
#: flight pair (i-07) they leave to the models (i-02: the item list they miss is one the rest of the
#: request implies)
OFFLINE_ADMITS = {"i-01", "i-02", "i-03", "i-04", "i-05", "i-06", "i-08"}


def test_the_offline_readers_read_ids_too(tmp_path):
    admitted, by_id = set(), 0
    gateway = offline_gateway(tmp_path / "store")
    for row in REQUESTS:
        v = verify_sync(adapter_for(row["benchmark"]), gateway, row["task_id"], row["text"], row["claimed_type"], row["slot"])
        if v.admitted:
            admitted.add(row["id"])
        reading = (v.found.get("a") or {}).get("reading") or {}
        by_id += sum(1 for r in reading.get("requirements", {}).values() if r["quote"].lower().startswith("item "))
    assert admitted == OFFLINE_ADMITS
    assert by_id > 0  # an id was the quote that said a value
