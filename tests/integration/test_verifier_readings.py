"""The model path measured on the hand-labelled verifier set (issue 39, item 4).

The held-back requests written while the reading form was last changed (round 15 of
``tests/data/verifier_set.jsonl``, 162 requests) and a sample of the tune part were read by two stand-in
readers, each given only the exact rendered reading prompt (``tests/data/verifier_readings/README.md``
says how the replies were made; the held-back prompts were answered once). Their replies answer as
extractors A and B; every other step -- the checks on each reading, the derived class, agreement,
admission by executing the reading in the real tau2 and WebShop environments -- is the pipeline's
own (``miscue eval-verifier``'s evaluation). ``scripts/verifier_readings.py run`` prints the same
figures beside the offline baseline, with every miss.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from miscue.flows.stages import dryrun
from miscue.flows.stages.evaluate import load_set

DATA = Path(__file__).resolve().parents[1] / "data"
READINGS = DATA / "verifier_readings"
FILES = {"extractor_a": "replies_read_a.jsonl", "extractor_b": "replies_read_b.jsonl"}
ROWS = dryrun.read_jsonl(DATA / "verifier_set.jsonl")
#: the held-back round written while the reading form was last changed; the earlier held-back rounds
#: were read on earlier forms (their figures: the README) and are never re-answered
ROUND = ("r15-", "a15-", "w15-")


def _answered(role: str) -> set[str]:
    return {r["cell_id"] for r in dryrun.read_jsonl(READINGS / FILES[role])}


@pytest.fixture(scope="module")
def heldout(tmp_path_factory):
    """The held-back part judged with the stand-in readers, and with the offline readers."""
    ids = {r["id"] for r in ROWS if r["split"] == "heldout"} & _answered("extractor_a")
    hosts: dict = {}  # each task's intent lifted once for the prompts and both runs
    replies = dryrun.labelled_replies([r for r in ROWS if r["id"] in ids], READINGS, FILES, adapters=hosts)
    stale = [s for r in replies.values() for s in r.stale if s.split()[0] in ids]
    assert not stale, "stale replies: the reading prompts changed since they were answered\n" + "\n".join(stale[:10])
    part = tmp_path_factory.mktemp("set") / "heldout.jsonl"  # only these rows: the set's other tasks are not lifted
    dryrun.write_jsonl(part, (r for r in ROWS if r["id"] in ids))
    items = load_set(part)
    model, missing = dryrun.evaluate_with(items, replies, tmp_path_factory.mktemp("standin"), adapters=hosts)
    assert missing == {}, f"prompts without a reply: {dict(missing)}"
    offline, _ = dryrun.evaluate_with(items, None, tmp_path_factory.mktemp("offline"), adapters=hosts)
    return model.report(), offline.report()


def test_both_readers_answered_every_request_of_the_heldout_round():
    """Every request of the round (and no other held-back one: those were answered on an earlier
    form), by both readers."""
    heldout = {r["id"] for r in ROWS if r["split"] == "heldout"}
    round_ = {i for i in heldout if i.startswith(ROUND)}
    assert len(round_) >= 150
    assert _answered("extractor_a") & heldout == round_
    assert _answered("extractor_a") == _answered("extractor_b")


def test_the_model_path_keeps_precision_and_reads_more_than_the_rules(heldout):
    """What holds: precision >= 0.95 on the held-back part, and more of its faults admitted than the
    offline readers admit (they admit half as many, at a precision of their own that says little)."""
    model, offline = (r["by_split"]["heldout"] for r in heldout)
    assert model["n"] == offline["n"] == sum(1 for r in ROWS if r["id"].startswith(ROUND))
    assert model["precision"] >= 0.95, model
    assert model["recall"] > offline["recall"], (model, offline)


def test_the_model_path_meets_the_acceptance_on_the_heldout_part(heldout):
    """Issue 39: precision >= 0.95 and recall >= 0.85 on the held-back part; every fault type with
    five or more held-back admits at recall >= 0.70."""
    model, _ = heldout
    part = model["by_split"]["heldout"]
    assert part["precision"] >= 0.95 and part["recall"] >= 0.85, part
    weak = {t: s["recall"] for t, s in model["per_type_by_split"]["heldout"].items()
            if s["admit_labels"] >= 5 and s["recall"] < 0.70}
    assert weak == {}, weak
