"""State shared by the shards of a sharded build, across processes (DESIGN sections 8, 10):
the exchange store takes concurrent writers, the halt on a terminal error reaches every gateway
of the run, and the budget cap holds for the sum of every gateway's spend.

Writers are real processes (``multiprocessing``, spawn: as a Dask worker would be), bounded in
count and time.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing as mp
import pickle

import pytest

from miscue.llm import (BudgetExceeded, ExchangeStore, Gateway, LLMConfig, RoleConfig, StoreCorrupt, StoredExchange,
                        TerminalProviderError)
from miscue.llm.control import RunControl
from miscue.llm.records import Exchange
from support.openai_stub import StubServer, reply

STAMP = {"started_at": "2026-01-01T00:00:00Z", "finished_at": "2026-01-01T00:00:01Z"}
KEYS = [f"{i:02x}" + "0" * 62 for i in range(40)]


def _writer(root: str, seed: int, rounds: int) -> None:
    store = ExchangeStore(root)
    for r in range(rounds):
        for i, key in enumerate(KEYS):
            ok = (i + seed + r) % 3 != 0  # every key gets failures and successes from several writers
            store.put(StoredExchange(key=key, request={"model": "m", "i": i}, text=f"answer {i}" if ok else None,
                                     error=None if ok else "transient: 503", **STAMP))


def _spend(root: str, cap: float, calls: int, cost: float, out: mp.Queue) -> None:
    control, paid = RunControl(root), 0.0
    for _ in range(calls):
        ok, _, _ = control.reserve(cost, cap)
        if not ok:
            break
        control.settle(cost, cost)
        paid += cost
    out.put(paid)


def _run(procs: list[mp.Process]) -> None:
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0, p.exitcode


def test_store_takes_concurrent_writers(tmp_path):
    ctx = mp.get_context("spawn")
    _run([ctx.Process(target=_writer, args=(str(tmp_path), seed, 5)) for seed in range(4)])
    store = ExchangeStore(tmp_path)
    files = sorted(tmp_path.glob("*/*.json"))
    assert len(files) == len(KEYS), "one record per key, never two"
    assert not list(tmp_path.rglob("*.tmp")), "no temporary file left behind"
    for i, key in enumerate(KEYS):
        record = store.get(key)  # every record parses and holds its own key
        assert record is not None and record.ok and record.text == f"answer {i}", "a success is never replaced by a failure"
    files[0].write_text(files[0].read_text()[:40])  # a torn entry is still detected
    with pytest.raises(StoreCorrupt):
        store.get(files[0].stem)


def test_budget_ledger_holds_the_cap_across_processes(tmp_path):
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    cap, cost = 0.05, 0.001
    _run([ctx.Process(target=_spend, args=(str(tmp_path), cap, 40, cost, out)) for _ in range(4)])
    paid = [out.get(timeout=10) for _ in range(4)]
    total = RunControl(tmp_path).spent()
    assert abs(sum(paid) - total) < 1e-9 and total <= cap + 1e-12 and total >= cap - cost, (paid, total)
    assert json.loads((tmp_path / "budget.json").read_text())["reserved"] == pytest.approx(0.0, abs=1e-12)


def test_halt_first_writer_wins_and_pickles(tmp_path):
    ex = Exchange(call_id="a" * 64, role="writer", model="m", text="", error="auth: no")
    first = TerminalProviderError("writer m: auth error (status 401)", exchange=ex, kind="auth", status=401)
    RunControl(tmp_path).halt(first)
    RunControl(tmp_path).halt(TerminalProviderError("later", exchange=ex, kind="quota", status=429))
    seen = RunControl(tmp_path).halted()
    assert type(seen) is TerminalProviderError and str(seen) == str(first) and (seen.kind, seen.status) == ("auth", 401)
    again = pickle.loads(pickle.dumps(seen))
    assert str(again) == str(first) and again.exchange == ex
    assert pickle.loads(pickle.dumps(RunControl(tmp_path))).halted() is not None


@pytest.fixture(scope="module")
def stub():
    with StubServer(default=reply("fine", prompt_tokens=100, completion_tokens=50)) as server:
        yield server


def _gateway(tmp_path, stub, control, max_cost=None):
    params = {"api_base": stub.base_url, "api_key": "sk-local"}
    models = {"writer": "openai/stub-writer", "extractor_a": "openai/alpha-a", "extractor_b": "openai/beta-b"}
    roles = {r: RoleConfig(model=m, params=params) for r, m in models.items()}
    config = LLMConfig(**roles, max_cost=max_cost, prices={m: (1e-6, 1e-6) for m in models.values()})
    return Gateway(config, tmp_path / "store", control=control)


def test_a_terminal_error_in_one_gateway_halts_the_others(tmp_path, stub):
    control = RunControl(tmp_path / "run")
    a, b = _gateway(tmp_path, stub, control), _gateway(tmp_path, stub, RunControl(tmp_path / "run"))
    done = asyncio.run(b.complete("writer", [{"role": "user", "content": "before the halt"}], "v1"))
    ex = Exchange(call_id="b" * 64, role="writer", model="m", text="", error="auth: no")
    a._halt(TerminalProviderError("writer m: auth error (status 401)", exchange=ex, kind="auth", status=401))
    with pytest.raises(TerminalProviderError, match="auth error"):
        asyncio.run(b.complete("writer", [{"role": "user", "content": "after the halt"}], "v1"))
    again = asyncio.run(b.complete("writer", [{"role": "user", "content": "before the halt"}], "v1"))
    assert again.cached and again.text == done.text, "finished exchanges are still answered from the store"
    assert b.usage_summary()["writer"].requests == 1


def test_two_gateways_share_one_budget(tmp_path, stub):
    control_dir = tmp_path / "run"
    gateways = [_gateway(tmp_path, stub, RunControl(control_dir), max_cost=0.002) for _ in range(2)]
    stopped = 0
    for i in range(40):
        try:
            asyncio.run(gateways[i % 2].complete("writer", [{"role": "user", "content": f"request {i} " * 5}], "v1"))
        except BudgetExceeded:
            stopped += 1
    spent = sum(g.spent for g in gateways)
    assert stopped > 0 and 0 < spent <= 0.002 and RunControl(control_dir).spent() == pytest.approx(spent)
