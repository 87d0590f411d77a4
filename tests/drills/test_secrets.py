"""Drill: secrets (DESIGN section 13). Provider keys in the environment (OPENAI_API_KEY,
ANTHROPIC_API_KEY) and an api_key in every role's params; a small run against the loopback
server (with a 429, a 500 and a terminal 401 so error and retry paths log too, then a resume),
a published corpus version from its ledger, and a scan of every file under the artifacts
directory plus all captured stdout/stderr and log output: no key string appears anywhere.
"""

from __future__ import annotations

import asyncio
import logging

from support.drills import (SLICE, BENCH, ENV_KEYS, FAULT, PARAM_KEY, ModelServer, cli, kill, llm_config, popen, run,
                           scan_for_secrets, store_files, wait_for, write_config)
from support.openai_stub import rate_limited, server_error, unauthorized

def test_no_key_reaches_artifacts_or_logs(tmp_path, monkeypatch, caplog, capfd):
    for k, v in ENV_KEYS.items():
        monkeypatch.setenv(k, v)
    art = tmp_path / "art"
    texts = {}
    with ModelServer() as server:
        config = write_config(tmp_path / "llm.json", llm_config(server.base_url, api_key=PARAM_KEY))
        args = cli("generate", "-b", BENCH, "--task", SLICE, "-t", FAULT, "--attempts", "2", "--llm-config", str(config),
                   "--artifacts", str(art))
        server.enqueue(rate_limited("0.1"), server_error(500))
        log = tmp_path / "stop.log"
        proc = popen(args, log=log)
        try:
            assert wait_for(lambda: len(store_files(art)) >= 30 or proc.poll() is not None, 90, 0.01)
            server.enqueue(unauthorized())
            proc.wait(timeout=90)
        finally:
            kill(proc)
        assert proc.returncode == 3
        texts["stopped run output"] = log.read_text()
        done = run(args + ["--json"], timeout=120, env={**ENV_KEYS, "LITELLM_LOG": "DEBUG"})
        assert done.returncode == 0, done.stderr
        texts["resumed run stdout"], texts["resumed run stderr"] = done.stdout, done.stderr
        assert len(server.requests) > 50  # the slice's ~60 requests, stopped once and resumed

        # in-process too (loguru/logging captured), including a publish of the run's ledger
        import pyarrow.parquet as pq

        from miscue.flows.stages.single import SingleFaultStage
        from miscue.config import GenerateConfig
        from miscue import corpus
        from miscue.llm import Gateway, LLMConfig

        caplog.set_level(logging.DEBUG)
        from loguru import logger

        sink = []
        handle = logger.add(lambda m: sink.append(str(m)), level="DEBUG")
        try:
            from miscue.adapters.tau2 import Tau2Adapter

            airline = Tau2Adapter("airline")
            from miscue.graphs import GraphBuilder

            graphs = GraphBuilder(airline).build().graphs[:2]
            server.enqueue(rate_limited("0.1"))
            gw = Gateway(LLMConfig.model_validate(llm_config(server.base_url, api_key=PARAM_KEY)), art / "store2")
            asyncio.run(SingleFaultStage(airline, gw, GenerateConfig(attempts=1, fault_types=["factual_error"])).run(graphs))
        finally:
            logger.remove(handle)
        texts["loguru"] = "\n".join(sink)
        texts["logging"] = caplog.text
    runs = art / "runs" / BENCH
    tables = {n: pq.read_table(runs / f"{n}.parquet") for n in ("cells", "attempts", "samples", "llm_calls")}
    pub = {n: corpus.table(n, t.to_pylist()) for n, t in tables.items()}
    for n in corpus.SCHEMAS:
        pub.setdefault(n, corpus.table(n, []))
    from miscue.config import GraphConfig, RunConfig

    keyed = LLMConfig.model_validate(llm_config("http://127.0.0.1:9/v1", api_key=PARAM_KEY))
    resolved = RunConfig(benchmarks=[BENCH], adapters={BENCH: "drill@1"}, graphs={BENCH: GraphConfig()},
                         generate=GenerateConfig(attempts=2, fault_types=[FAULT]), llm=keyed).record()
    version = corpus.publish(pub, artifacts=art, parent=None, config=resolved, code_version="drill", input_hashes={},
                             models={r: keyed.role(r).model for r in ("writer", "extractor_a", "extractor_b")},
                             card_versions={})
    assert (corpus.version_dir(art, version) / "manifest.json").exists()
    from miscue import reports

    reports.write_report(art, version)
    assert list((art / "reports").rglob("report.*")), "the report was written"
    out, err = capfd.readouterr()
    texts["pytest stdout"], texts["pytest stderr"] = out, err
    scanned = sum(1 for p in art.rglob("*") if p.is_file())
    hits = scan_for_secrets([art], texts)
    assert hits == [], hits[:10]
    print(f"scanned {scanned} files and {sum(len(t) for t in texts.values())} chars of output: 0 key hits")
