"""Drill: provider faults against the loopback OpenAI-compatible server (DESIGN sections 8, 13).
Extends tests/test_generate_http.py (429/500/hang/malformed/empty content there) with a burst of
429s carrying Retry-After, 502/503/504, connection resets, a truncated body, a non-JSON body and
an empty body (all retried; the run completes with the same samples as a fault-free run), and
terminal faults (insufficient_quota, 401) that stop `miscue generate` cleanly (exit 3, a
message) after which a rerun resumes without repeating any finished call.
"""

from __future__ import annotations

import asyncio

from support.drills import (SLICE, BENCH, FAULT, ModelServer, cli, empty_body, kill, llm_config, popen, reset, run,
                           store_files, store_request_ids, wait_for, write_config)
from miscue.flows.stages.single import SingleFaultStage
from miscue.config import GenerateConfig
from miscue.llm import Gateway, LLMConfig
from support.openai_stub import hang, insufficient_quota, invalid_body, rate_limited, server_error, truncated, unauthorized

FAULTS = [rate_limited("0.2"), rate_limited("0.2"), rate_limited("0.2"), server_error(502), server_error(503),
          server_error(504), reset(), reset(), hang(10), truncated(), invalid_body(), empty_body()]


def _run(graphs, airline, base_url, store, **cfg):
    config = LLMConfig.model_validate(llm_config(base_url, **cfg))
    gateway = Gateway(config, store)
    gen = GenerateConfig(attempts=2, fault_types=[FAULT], max_concurrent_cells=2)
    return asyncio.run(SingleFaultStage(airline, gateway, gen).run(graphs)), gateway


def test_transient_faults_are_retried_and_the_run_completes(tmp_path, airline, airline_build):
    graphs = airline_build.graphs[:3]
    with ModelServer() as clean:
        expected, _ = _run(graphs, airline, clean.base_url, tmp_path / "clean")
    with ModelServer() as server:
        server.enqueue(*FAULTS)
        result, gateway = _run(graphs, airline, server.base_url, tmp_path / "faulty", max_concurrency=1, max_retries=12)
        assert server.pending == 0, "every scripted fault was served"
        usage = gateway.usage_summary()
        retries = sum(u.retries for u in usage.values())
        failures = sum(u.failures for u in usage.values())
    assert retries >= len(FAULTS) and failures == 0, (retries, failures)
    assert not [a for a in result.attempts if "provider_error" in str(a.code)]
    assert [s.sample_id for s in result.samples] == [s.sample_id for s in expected.samples]
    assert [c.status for c in result.cells] == [c.status for c in expected.cells]
    print(f"injected {len(FAULTS)} transient faults; retries={retries}; samples={len(result.samples)} (= fault-free run)")


def test_terminal_faults_stop_cleanly_and_a_rerun_resumes(tmp_path):
    art = tmp_path / "art"
    args = None
    outcomes = []
    with ModelServer() as server:
        config = write_config(tmp_path / "llm.json", llm_config(server.base_url))
        args = cli("generate", "-b", BENCH, "--task", SLICE, "-t", FAULT, "--attempts", "2", "--llm-config", str(config),
                   "--artifacts", str(art))
        for segment, (fault, at) in enumerate([(insufficient_quota(), 12), (unauthorized(), 35)]):
            server.segment = segment
            log = tmp_path / f"seg{segment}.log"
            proc = popen(args, log=log)
            try:
                assert wait_for(lambda: len(store_files(art)) >= at or proc.poll() is not None, 90, 0.01)
                server.enqueue(fault)
                proc.wait(timeout=90)
            finally:
                kill(proc)
            text = " ".join(log.read_text().split())
            assert proc.returncode == 3, text[-2000:]
            assert "stopped cleanly" in text and "rerun to resume" in text
            assert ("quota" if segment == 0 else "auth") in text
            outcomes.append((proc.returncode, len(store_files(art)), store_request_ids(art)))
        server.segment = 2
        final = run(args, timeout=120)
        assert final.returncode == 0, final.stdout + final.stderr
        seen = list(server.seen)
    finished_after = {0: outcomes[0][2], 1: outcomes[1][2]}
    repeats = [rid for seg, rid in seen if seg >= 1 and rid in finished_after[seg - 1]]
    assert repeats == [], f"{len(repeats)} finished calls repeated after a terminal stop"
    assert outcomes[0][1] < outcomes[1][1] < len(store_files(art))
    print(f"quota stop at {outcomes[0][1]} stored, 401 stop at {outcomes[1][1]}, completed with {len(store_files(art))}")
