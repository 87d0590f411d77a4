"""Publishing from several processes at once (moved out of the unit lane: it forks)."""

from __future__ import annotations

import multiprocessing as mp

from miscue import corpus
from support import synthetic_corpus as syn


def test_concurrent_publishers_get_distinct_versions(tmp_path):
    """Four processes publish at once: each gets its own number, none overwrites another."""
    ctx = mp.get_context("fork")
    with ctx.Pool(4) as pool:
        got = pool.map(syn.publish, [tmp_path] * 4)
    assert sorted(got) == ["v0001", "v0002", "v0003", "v0004"]
    assert all(corpus.verify_corpus(v, tmp_path).ok for v in got)
    assert list((tmp_path / ".staging").iterdir()) == []
