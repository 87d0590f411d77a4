"""Merging the shards of a sharded build (flows/stages/shards.py) in a --prompts-out round."""

from __future__ import annotations

from miscue.flows.stages import shards
from miscue.flows.stages.attempt import RunResult
from miscue.flows.stages.benchmark import BenchmarkRun, first_stop
from miscue.graphs import GraphBuild
from miscue.llm import PromptsExported


def _run() -> BenchmarkRun:
    return BenchmarkRun("tau2-airline", adapter=None, seeds=[], graphs=GraphBuild("tau2-airline", [], []))  # type: ignore[arg-type]


def test_shards_that_wait_for_replies_stop_the_round_with_every_shards_count():
    """A shard whose cells wait for replies hands back a result with a ``waiting`` count; the merge
    carries the sum and stops the round, so nothing is published (a merge that dropped the count
    published an empty corpus after the first round)."""
    run = shards.merge_write_verify(_run(), [shards.ShardResult("tau2-airline", 1, RunResult(waiting=1)),
                                             shards.ShardResult("tau2-airline", 0, RunResult(waiting=2))])
    assert run.result is not None and run.result.waiting == 3
    stop = first_stop([run])
    assert isinstance(stop, PromptsExported) and stop.waiting == 3 and not run.halted


def test_shards_that_finished_publish():
    run = shards.merge_write_verify(_run(), [shards.ShardResult("tau2-airline", 0, RunResult())])
    assert run.stopped is None and first_stop([run]) is None
