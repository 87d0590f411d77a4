"""A task slice (``--task``): a small build of some tasks alone, recorded in the graph
configuration, with a clear error for a task or benchmark that is not there."""

from __future__ import annotations

import pytest

from miscue.config import GraphConfig
from miscue.errors import BadInput
from miscue.flows.cli.app import parse_tasks
from miscue.flows.registry import adapter_for
from miscue.graphs import GraphBuilder


def test_task_values_name_their_benchmark_or_the_only_one():
    assert parse_tasks(None, ["tau2-airline"]) is None
    assert parse_tasks(["5,7", "7", "9"], ["tau2-airline"]) == {"tau2-airline": ["5", "7", "9"]}
    both = ["tau2-retail", "webshop"]
    assert parse_tasks(["tau2-retail:0,1", "webshop:3"], both) == {"tau2-retail": ["0", "1"], "webshop": ["3"]}
    with pytest.raises(BadInput, match="name the benchmark"):
        parse_tasks(["3"], both)
    with pytest.raises(BadInput, match="'tau2-airline' is not a benchmark of this run"):
        parse_tasks(["tau2-airline:3"], both)


def test_a_slice_builds_only_its_tasks_and_is_recorded():
    adapter = adapter_for("tau2-airline", tasks=["7", "5", "7"])
    assert adapter.task_slice == ("7", "5")
    assert [s.task_id for s in adapter.seeds()] == ["5", "7"]  # the host's order
    builder = GraphBuilder(adapter)
    assert builder.config.tasks == ["7", "5"] and builder.config.record()["tasks"] == ["7", "5"]
    build = builder.build()
    assert {e.task_id for e in build.ledger} == {"5", "7"}
    assert builder.config_hash != GraphBuilder(adapter_for("tau2-airline")).config_hash


def test_every_task_is_the_old_record_and_hash():
    whole = GraphConfig()
    assert "tasks" not in whole.record()
    assert whole.config_hash("x@1") == GraphConfig(tasks=None).config_hash("x@1")


def test_a_task_the_host_does_not_have_is_bad_input_naming_it():
    with pytest.raises(BadInput, match=r"tau2-airline has no task '999', 'x' \(its 50 task ids run from 0 to 49\)"):
        adapter_for("tau2-airline", tasks=["5", "999", "x"])
