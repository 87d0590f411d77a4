"""The model path over real HTTP: writer and both extractors through litellm against a local
OpenAI-compatible server that misbehaves (429 with retry-after, 500s, a hang past the timeout,
malformed JSON, empty replies). Each fault becomes a retry or a verdict, never a crash, and
every finished exchange is kept: a rerun on the same store makes no HTTP request at all.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from miscue.flows.stages.single import SingleFaultStage
from miscue.config import GenerateConfig
from miscue.llm import Gateway, LLMConfig, RoleConfig
from miscue.offline.provider import answer
from support.openai_stub import StubServer, empty, hang, malformed_json, rate_limited, reply, server_error

MODELS = {"writer": "stub-writer", "extractor_a": "lexical-extractor", "extractor_b": "parse-extractor"}
OFFLINE = {"stub-writer": "writer", "lexical-extractor": "lexical", "parse-extractor": "parse"}


class ModelServer(StubServer):
    """Scripted faults first; after that, answers as the embedded offline models would."""

    def _next(self, body: dict[str, Any]):
        action = super()._next(body)
        if action is not self.default:
            return action
        return reply(answer(OFFLINE[body["model"]], body["messages"]))


def _config(base_url: str) -> LLMConfig:
    params = {"api_base": base_url, "api_key": "sk-local"}
    roles = {role: RoleConfig(model=f"openai/{m}", params=params) for role, m in MODELS.items()}
    return LLMConfig(**roles, max_concurrency=4, timeout_s=2.0, max_retries=3, backoff_base_s=0.05, backoff_cap_s=0.2,
                     retry_after_cap_s=1.0)


def test_model_path_over_http_survives_provider_faults(tmp_path, retail, retail_build):
    graphs = [g for g in retail_build.graphs if g.task_id in ("0", "1")]
    config = GenerateConfig(attempts=2, fault_types=["factual_error", "insufficient_information", "contextual_irrelevance"],
                            max_concurrent_cells=2)
    with ModelServer(default=reply("unused")) as server:
        # transient faults: each must be retried; malformed JSON and empty-then-good are verdict/retry
        server.enqueue(rate_limited("1"), server_error(500), hang(), malformed_json(), empty(), server_error(503))
        gateway = Gateway(_config(server.base_url), tmp_path / "store")
        run = SingleFaultStage(retail, gateway, config)
        result = asyncio.run(run.run(graphs))
        first_requests = server.request_count
        assert server.pending == 0, "every scripted fault was served"
        usage = gateway.usage_summary()
        assert sum(u.retries for u in usage.values()) >= 4
        assert len(result.cells) == 6 and all(c.status in ("admitted", "rejected") for c in result.cells)
        assert any(c.status == "admitted" for c in result.cells)
        codes = {a.code for a in result.attempts}
        assert codes <= {"admitted"} | {c for c in codes if c.split(":")[0] in ("text", "extract", "agree", "admit", "write")}
        # the malformed JSON landed somewhere: as a writer text it fails a text check, as an
        # extractor answer it is unparseable; either way it is a ledger verdict, not a crash
        assert len(result.attempts) >= 6
        stored = len(list((tmp_path / "store" / "exchanges").rglob("*.json")))
        assert stored >= first_requests - 6

        rerun = SingleFaultStage(retail, Gateway(_config(server.base_url), tmp_path / "store"), config)
        again = asyncio.run(rerun.run(graphs))
        assert server.request_count == first_requests, "a rerun is answered from the store"
        assert [s.sample_id for s in again.samples] == [s.sample_id for s in result.samples]


def test_terminal_error_stops_cleanly_and_keeps_finished_work(tmp_path, retail, retail_build):
    from support.openai_stub import unauthorized

    from miscue.llm import TerminalProviderError

    graphs = [g for g in retail_build.graphs if g.task_id == "0"]
    config = GenerateConfig(attempts=1, fault_types=["contextual_irrelevance"], max_concurrent_cells=1)
    with ModelServer(default=reply("unused")) as server:
        gateway = Gateway(_config(server.base_url), tmp_path / "store")
        asyncio.run(SingleFaultStage(retail, gateway, config).run(graphs))
        done = server.request_count
        server.enqueue(unauthorized())
        config2 = GenerateConfig(attempts=1, fault_types=["contextual_irrelevance", "indirect_intent"], max_concurrent_cells=1)
        with pytest.raises(TerminalProviderError):
            asyncio.run(SingleFaultStage(retail, Gateway(_config(server.base_url), tmp_path / "store"), config2).run(graphs))
        assert server.request_count == done + 1, "the 401 is not retried and no other model is tried"
        before = server.request_count
        resumed = asyncio.run(
            SingleFaultStage(retail, Gateway(_config(server.base_url), tmp_path / "store"), config2).run(graphs))
        assert len(resumed.cells) == 2
        fresh = [c for c in resumed.calls if not c.cached]
        assert server.request_count - before == len(fresh), "only calls never finished before go to the server"
        cached_ci = [c for c in resumed.calls if c.cached]
        assert len(cached_ci) >= done, "the finished contextual-irrelevance exchanges came from the store"
