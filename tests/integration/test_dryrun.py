"""The stand-in-model dry run as a repeatable test set (issue 17, tests/data/dryrun/README.md).

The committed cells run through the unchanged attempt pipeline: (c) the offline writer and
readers, never worse than the committed baseline; (a) the stand-in writer's committed texts with
the offline readers, >= 80% admitted; (b) those texts with the stand-in readers' committed
readings as extractors A and B, never under ``READ_MIN``. A reply whose prompt changed is named
stale (with its card versions), never silently used. The harness itself is tested on replies made
from the offline models' own answers: answered through the reply files, the cells must come out
exactly as they do when the models are called.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from miscue.flows.stages import dryrun
from miscue.offline import provider
from miscue.taxonomy import FAULT_TYPES

A_MIN = 0.80
# the reading path with the stand-in writer and stand-in readers: 52/53 measured when the replies to
# today's reading form were made, 50/53 on the two forms before (every rejection is listed and judged in
# tests/data/dryrun/README.md; new sessions answer each form, so the floor is the lower figure); issue 38
# asked for 48 of the 51 cells of its day (94%)
READ_MIN = 50 / 53
READ_TARGET = 48 / 51
DATA = Path(__file__).resolve().parents[1] / "data" / "dryrun"  # the committed stand-in dry run


@pytest.fixture(scope="module")
def hosts():
    return dryrun.load_hosts()


@pytest.fixture(scope="module")
def committed(hosts):
    return dryrun.load(DATA, hosts)


@pytest.fixture(scope="module")
def offline_rows(committed, tmp_path_factory):
    return dryrun.run_mode(committed.cells, committed.hosts, tmp_path_factory.mktemp("offline"), {})


def test_the_cell_set_covers_every_type_on_three_hosts(committed):
    assert not committed.gone, f"cells no longer planned (run render-writer): {committed.gone}"
    cells = committed.cells
    assert len(cells) >= 44
    by_host = {b: {c.plan.fault_type for c in cells if c.benchmark == b} for b in dryrun.BENCHMARKS}
    assert by_host["tau2-retail"] == set(FAULT_TYPES) and by_host["webshop"] == set(FAULT_TYPES)
    # no airline task gives a real attachment ambiguity: the planner refuses those cells
    # (no_attachment_site) rather than write word salad
    assert by_host["tau2-airline"] == set(FAULT_TYPES) - {"syntactic_ambiguity"}
    assert sum(1 for c in cells if c.benchmark == "tau2-retail") == 2 * len(FAULT_TYPES)
    assert len({c.cell_id for c in cells}) == len(cells)


def test_the_committed_prompts_are_the_ones_the_pipeline_sends(committed):
    """The prompt files are what a stand-in model is handed: the exact messages of today's cards."""
    rows = dryrun.read_jsonl(DATA / dryrun.WRITER_PROMPTS)
    assert len(rows) == len(committed.cells)
    stale = [f"{r['cell_id']} {r['fault_type']}: card {r['card_version']} -> {now['card_version']}"
             for r in rows if (now := committed.writer_prompts.get((r["cell_id"], "writer"))) is None
             or now["prompt_sha"] != r["prompt_sha"] or now["messages"] != r["messages"]]
    assert not stale, "writer prompts out of date (scripts/dryrun_prompts.py render-writer):\n" + "\n".join(stale)


def test_the_committed_reading_prompts_are_the_ones_the_pipeline_sends(committed):
    """prompts_read.jsonl is what a stand-in reader is handed: today's reading form for each stand-in
    writer text (one prompt per cell: both readers get the same)."""
    rows = dryrun.read_jsonl(DATA / dryrun.READ_PROMPTS)
    fresh = {(r["cell_id"], r["form"]): (r["prompt_sha"], r["messages"]) for r in rows}
    want = {k: (p["prompt_sha"], p["messages"]) for k, p in committed.read_prompts.items()}
    assert fresh == want, "reading prompts out of date (scripts/dryrun_prompts.py render-read)"
    assert len(rows) == len(committed.cells) and {r["form"] for r in rows} == {"read"}


def test_offline_models_not_worse_than_the_baseline(offline_rows):
    baseline = json.loads((DATA / dryrun.BASELINE).read_text(encoding="utf-8"))
    print("\n" + dryrun.table({"offline": offline_rows}))
    admitted = sum(1 for r in offline_rows if r.admitted)
    assert len(offline_rows) == baseline["cells"]
    assert admitted >= baseline["admitted"], f"offline writer + extractors: {admitted} < baseline {baseline['admitted']}"


def _require_fresh(committed, roles: list[str]) -> None:
    stale = [s for role in roles for s in (committed.writer if role == "writer" else committed.read[role]).stale]
    assert not stale, "stale replies (re-answer their prompts):\n" + "\n".join(stale)


@pytest.mark.xfail(strict=True, reason="issue 17's (a) >= 80% is not met: 38/53 (72%) with the stand-in texts of 2026-12-07 "
                   "(of the 15 rejections, 8 are a second departure the offline readers read beside the planned one, 3 a "
                   "plain request read where the fault is); the offline readers are reported, not tuned rule by rule "
                   "(tests/data/dryrun/README.md)")
def test_standin_writer_with_offline_extractors(committed, offline_rows, tmp_path):
    if not committed.writer.present:
        pytest.skip(f"no {dryrun.REPLIES['writer']} committed")
    _require_fresh(committed, ["writer"])
    missing = [c.cell_id for c in committed.cells if committed.writer_text(c) is None]
    assert not missing, f"cells without a writer reply: {missing}"
    rows = dryrun.run_mode(committed.cells, committed.hosts, tmp_path, {"writer": committed.writer})
    print("\n" + dryrun.table({"offline": offline_rows, "standin writer": rows}))
    assert dryrun.rate(rows) >= A_MIN, f"stand-in writer + offline extractors: {dryrun.rate(rows):.0%} < {A_MIN:.0%}"


@pytest.fixture(scope="module")
def standin_rows(committed, tmp_path_factory):
    """The committed cells run with the stand-in writer's texts and the stand-in readers' readings."""
    _require_fresh(committed, ["writer", "extractor_a", "extractor_b"])
    assert committed.writer.present and all(r.present for r in committed.read.values())
    return dryrun.run_mode(committed.cells, committed.hosts, tmp_path_factory.mktemp("standin"),
                           {"writer": committed.writer, **committed.read})


def test_standin_writer_with_standin_readers(standin_rows):
    rows = standin_rows
    print("\n" + dryrun.table({"standin both": rows}))
    assert all(len(r.call_ids or []) <= 3 for r in rows)  # one writer call, one reading per extractor
    assert dryrun.rate(rows) >= READ_MIN, f"stand-in writer + stand-in readers: {dryrun.rate(rows):.0%} < {READ_MIN:.0%}"


def test_standin_writer_with_standin_readers_meets_issue_38(standin_rows):
    """Issue 38: 48 of its 51 cells (94%); the cell set has 53 since airline plans the wrong instrument."""
    assert dryrun.rate(standin_rows) >= READ_TARGET, f"{dryrun.rate(standin_rows):.0%} < {READ_TARGET:.0%}"


# -- the harness itself ---------------------------------------------------------------------------


def _reply(row: dict, model: str) -> dict:
    return {"cell_id": row["cell_id"], "form": row.get("form", "writer"), "prompt_sha": row["prompt_sha"],
            "card_version": row["card_version"], "text": provider.answer(model, row["messages"])}


@pytest.fixture(scope="module")
def replayed(committed, tmp_path_factory):
    """A data directory whose replies are the offline models' own answers to the prompts."""
    data = tmp_path_factory.mktemp("dryrun")
    shutil.copy(DATA / dryrun.CELLS, data / dryrun.CELLS)
    dryrun.write_jsonl(data / dryrun.REPLIES["writer"],
                       [_reply(p, "offline/writer") for p in committed.writer_prompts.values()])
    first = dryrun.load(data, committed.hosts)
    for role, model in (("extractor_a", "offline/lexical"), ("extractor_b", "offline/parse")):
        dryrun.write_jsonl(data / dryrun.READ_REPLIES[role], [_reply(p, model) for p in first.read_prompts.values()])
    return data


def test_replies_run_through_the_unchanged_pipeline(committed, replayed, offline_rows, tmp_path):
    """The writer's and the readers' answers through the reply files come out exactly as the offline
    models called through the gateway."""
    dry = dryrun.load(replayed, committed.hosts)
    assert not dry.stale and dry.writer.present and all(r.present for r in dry.read.values())
    assert len(dry.read_prompts) == len(dry.cells)  # one reading form per cell, for both readers
    a = dryrun.run_mode(dry.cells, dry.hosts, tmp_path / "a", {"writer": dry.writer})
    b = dryrun.run_mode(dry.cells, dry.hosts, tmp_path / "b", {"writer": dry.writer, **dry.read})
    verdicts = [(r.cell_id, r.query, r.code, r.detail) for r in offline_rows]
    assert [(r.cell_id, r.query, r.code, r.detail) for r in a] == verdicts
    assert [(r.cell_id, r.query, r.code, r.detail) for r in b] == verdicts
    assert any(r.admitted for r in b) and all(r.reading_a for r in b if r.stage != "text")


def test_a_changed_prompt_makes_its_reply_stale(committed, replayed, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(replayed, data)
    rows = dryrun.read_jsonl(data / dryrun.REPLIES["writer"])
    rows[0] = {**rows[0], "prompt_sha": "0" * 16, "card_version": "feedfacefeedface"}  # answered an older card
    rows[1] = {**rows[1], "prompt_sha": "1" * 16}  # same card, another brief
    dryrun.write_jsonl(data / dryrun.REPLIES["writer"], rows)
    dry = dryrun.load(data, committed.hosts)
    assert len(dry.writer.stale) == 2
    assert "card feedfacefeedface -> " in dry.writer.stale[0] and rows[0]["cell_id"] in dry.writer.stale[0]
    assert "same card" in dry.writer.stale[1]
    stale_cells = {rows[0]["cell_id"], rows[1]["cell_id"]}
    assert all(c.cell_id not in stale_cells or dry.writer_text(c) is None for c in dry.cells)  # never silently used
    assert not any(k[0] in stale_cells for k in dry.read_prompts)


def test_an_unanswered_prompt_is_a_verdict_not_a_crash(committed, replayed, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(replayed, data)
    (data / dryrun.READ_REPLIES["extractor_b"]).write_text("", encoding="utf-8")
    dry = dryrun.load(data, committed.hosts)
    rows = dryrun.run_mode(dry.cells[:6], dry.hosts, tmp_path / "s", {"writer": dry.writer, **dry.read})
    assert all(not r.admitted for r in rows)
    assert {r.code.split(":")[0] for r in rows} <= {"text", "read", "agree"}
