"""`miscue eval-verifier` on a labelled set, through the CLI: its scores, and bad input named by line."""

import json

import pytest
from typer.testing import CliRunner

from miscue.flows.cli import app

runner = CliRunner()

ADMIT = {"id": "x-1", "benchmark": "tau2-retail", "task_id": "38", "expected": "admit", "split": "tune",
         "text": "Hi, Daiki Sanchez here, zip 46236. Please cancel my pending order #W9348897; I ordered it by mistake.",
         "carries": [{"fault_type": "factual_error", "slot": "cancel.reason"}]}
CLEAN = {"id": "x-2", "benchmark": "tau2-retail", "task_id": "38", "expected": "reject", "split": "heldout", "carries": [],
         "text": "Daiki Sanchez, zip 46236: please cancel pending order #W9348897, I no longer need it."}
WRONG_CLAIM = {"id": "x-3", "benchmark": "tau2-retail", "task_id": "38", "expected": "reject", "split": "tune",
               "claimed_type": "insufficient_information", "slot": "cancel.reason",
               "text": "Daiki Sanchez, zip 46236: please cancel pending order #W9348897, I no longer need it."}


def write(path, rows):
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def test_scores_per_split_type_and_benchmark(tmp_path):
    labelled = write(tmp_path / "set.jsonl", [ADMIT, CLEAN, WRONG_CLAIM])
    res = runner.invoke(app, ["eval-verifier", str(labelled), "--json", "--artifacts", str(tmp_path / "art")])
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["overall"]["n"] == 3 and report["overall"]["admit_labels"] == 1
    assert (report["overall"]["tp"], report["overall"]["fp"], report["overall"]["fn"]) == (1, 0, 0)
    assert report["by_split"]["tune"]["n"] == 2 and report["by_split"]["heldout"]["n"] == 1
    assert report["per_type"]["factual_error"]["tp"] == 1 and report["per_benchmark"]["tau2-retail"]["n"] == 3
    codes = report["verdict_codes"]
    assert codes["admit -> admitted"] == 1 and codes["reject -> extract:no_fault_found"] == 1
    only = runner.invoke(app, ["eval-verifier", str(labelled), "--json", "--split", "heldout",
                               "--artifacts", str(tmp_path / "art")])
    assert json.loads(only.stdout)["overall"]["n"] == 1
    table = runner.invoke(app, ["eval-verifier", str(labelled), "--artifacts", str(tmp_path / "art")])
    assert table.exit_code == 0 and "per fault type" in table.output and "precision" in table.output


def test_each_error_names_its_split(tmp_path):
    """A missed row says which part it belongs to, so a developer listing the errors can keep
    away from the held-back ones (the id says nothing about the split)."""
    missed = {**ADMIT, "id": "x-4", "split": "heldout", "text": CLEAN["text"]}  # claims a fault the text lacks
    labelled = write(tmp_path / "set.jsonl", [ADMIT, missed])
    res = runner.invoke(app, ["eval-verifier", str(labelled), "--json", "--artifacts", str(tmp_path / "art")])
    assert res.exit_code == 0, res.output
    assert [(e["id"], e["split"]) for e in json.loads(res.stdout)["errors"]] == [("x-4", "heldout")]


@pytest.mark.parametrize("rows,named", [
    ([ADMIT, "{not json", CLEAN], "line 2: not valid JSON"),
    ([ADMIT, {**CLEAN, "text": ""}], "line 2: text"),
    ([{k: v for k, v in ADMIT.items() if k != "expected"}], "line 1: expected"),
    ([{**ADMIT, "task_id": "9999"}], "line 1: tau2-retail has no task '9999'"),
    ([{**WRONG_CLAIM, "claimed_type": "typo_error"}], "line 1"),
    ([{**WRONG_CLAIM, "slot": "cancel.nope"}], "line 1"),
    ([CLEAN, {**CLEAN, "benchmark": "tau2-nowhere"}], "line 2"),
    ([], "no labelled request"),
])
def test_bad_input_exits_2_naming_the_line_and_writes_nothing(tmp_path, rows, named):
    labelled = write(tmp_path / "set.jsonl", rows)
    art = tmp_path / "art"
    res = runner.invoke(app, ["eval-verifier", str(labelled), "--artifacts", str(art)])
    assert res.exit_code == 2, res.output
    assert named in res.output
    assert not art.exists() or not any(art.rglob("*"))


def test_a_missing_file_is_named(tmp_path):
    res = runner.invoke(app, ["eval-verifier", str(tmp_path / "nope.jsonl"), "--artifacts", str(tmp_path / "art")])
    assert res.exit_code == 2 and "nope.jsonl" in res.output
