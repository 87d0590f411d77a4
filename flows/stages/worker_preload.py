"""Imported once by the forkserver of a local Dask cluster (``miscue build --workers N``; see
``flows.prefect_flows.dask_runner``): every worker process is forked with the shard stages and
litellm (imported offline, :func:`miscue.llm.env.load_litellm`) already loaded, instead of
importing them again in each worker."""

from __future__ import annotations

from flows.stages import shards  # noqa: F401  (the stages a shard task runs)
from miscue.llm.env import load_litellm

load_litellm()
