"""Drill: bad input (DESIGN section 13). Malformed model configuration, unknown benchmark and
fault type, missing host data, a corrupt exchange store entry and a corrupt Parquet file in a
published version: each gives a clear error naming what is wrong, and the already-published
version in the same artifacts directory is byte-identical before and after (sha256 of every file).
"""

from __future__ import annotations

import asyncio
import json
import os
import stat

import pytest

from support.drills import BENCH, FAULT, cli, run, tree_hashes
from miscue import corpus

from support import synthetic_corpus as syn


@pytest.fixture()
def published(tmp_path):
    art = tmp_path / "art"
    v = syn.publish(art)
    before = tree_hashes(corpus.version_dir(art, v))
    yield art, v
    assert tree_hashes(corpus.version_dir(art, v)) == before, "a published version was touched"
    assert corpus.verify_corpus(v, art).ok


def _cli(art, *args, **kw):
    res = run(cli(*args, "--artifacts", str(art)), timeout=60, env={"COLUMNS": "400"}, **kw)
    return res.returncode, " ".join((res.stdout + res.stderr).split())


def test_malformed_configuration(published, tmp_path):
    art, _ = published
    bad_json = tmp_path / "broken.json"
    bad_json.write_text('{"writer": {"model": "openai/x"')
    code, text = _cli(art, "generate", "-b", BENCH, "-t", FAULT, "--llm-config", str(bad_json))
    assert code == 2 and "broken.json" in text and "not valid JSON" in text, text

    same_family = tmp_path / "same.json"
    roles = {"writer": {"model": "openai/gpt-4o"}, "extractor_a": {"model": "openai/gpt-4o-mini"},
             "extractor_b": {"model": "azure/gpt-4.1"}}
    same_family.write_text(json.dumps(roles))
    code, text = _cli(art, "generate", "-b", BENCH, "--llm-config", str(same_family))
    assert code == 2 and "same.json" in text and "different families" in text, text

    for command in (["build", "-b", BENCH], ["regenerate", "-t", FAULT], ["estimate", "-b", BENCH]):
        code, text = _cli(art, *command, "--llm-config", str(same_family))
        assert code == 2 and "same.json" in text and "different families" in text, (command, text)
    code, text = _cli(art, "build", "-b", BENCH, "--max-cost", "-1")
    assert code == 2 and "--max-cost must be >= 0" in text, text

    from miscue.config import model_options

    reserved = tmp_path / "reserved.json"
    reserved.write_text(json.dumps({**roles, "extractor_b": {"model": "anthropic/claude-3-haiku", "params": {"timeout": 5}},
                                    "max_concurrency": 0, "colour": "blue"}))
    with pytest.raises(ValueError) as info:
        model_options(reserved).resolve()
    msg = str(info.value)
    assert "reserved.json" in msg and "extractor_b.params" in msg and "max_concurrency" in msg and "colour" in msg, msg
    with pytest.raises(ValueError, match="does not exist"):
        model_options(tmp_path / "missing.json").resolve()
    assert not (art / "store").exists() and not (art / "runs").exists(), "nothing was run"


def test_unknown_benchmark_and_fault_type(published):
    art, _ = published
    code, text = _cli(art, "generate", "-b", "tau3-moon")
    assert code == 2 and "unknown benchmark 'tau3-moon'" in text and "tau2-airline" in text, text
    code, text = _cli(art, "generate", "-b", BENCH, "-t", "sarcasm")
    assert code == 2 and "unknown fault type 'sarcasm'" in text and "factual_error" in text, text
    code, text = _cli(art, "estimate", "-b", BENCH, "-t", "sarcasm")
    assert code == 2 and "unknown fault type 'sarcasm'" in text, text


def test_missing_host_data(published, tmp_path):
    from miscue.host import HostDataError
    from miscue.adapters.webshop import WebShopAdapter

    empty = tmp_path / "webshop-empty"
    empty.mkdir()
    with pytest.raises(HostDataError) as info:
        WebShopAdapter(data_dir=empty).load_seeds()
    assert str(empty) in str(info.value) and "items_shuffle" in str(info.value) and "field" in str(info.value)


def test_corrupt_exchange_store_entry(published, airline, airline_build):
    art, _ = published
    from miscue.flows.stages.benchmark import offline_gateway
    from miscue.flows.stages.single import SingleFaultStage
    from miscue.config import GenerateConfig
    from miscue.llm import StoreCorrupt

    graphs = airline_build.graphs[:2]
    gen = GenerateConfig(attempts=1, fault_types=[FAULT])
    asyncio.run(SingleFaultStage(airline, offline_gateway(art / "store"), gen).run(graphs))
    entries = sorted((art / "store" / "exchanges").rglob("*.json"))
    victim = entries[0]
    victim.write_text(victim.read_text()[: len(victim.read_text()) // 2])
    damaged = victim.read_bytes()
    with pytest.raises(StoreCorrupt) as info:
        asyncio.run(SingleFaultStage(airline, offline_gateway(art / "store"), gen).run(graphs))
    assert str(victim) in str(info.value) and "not re-requested" in str(info.value)
    assert victim.read_bytes() == damaged, "a corrupt entry is never silently replaced"


def test_corrupt_parquet_in_a_published_version(published):
    art, v1 = published
    v2 = syn.publish(art, parent=v1)
    target = corpus.version_dir(art, v2) / "samples.parquet"
    os.chmod(target, stat.S_IRUSR | stat.S_IWUSR)
    data = bytearray(target.read_bytes())
    data[len(data) // 2: len(data) // 2 + 64] = b"\x00" * 64
    target.write_bytes(bytes(data))
    result = corpus.verify_corpus(v2, art)
    problems = json.dumps(result.as_dict())
    assert "samples.parquet" in problems and "sha256" in problems, problems
    assert not result.ok
    assert corpus.verify_corpus(v1, art).ok
    v3 = syn.publish(art, parent=v1)  # publishing goes on, beside the damaged version
    assert v3 == "v0003" and corpus.verify_corpus(v3, art).ok
