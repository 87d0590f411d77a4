"""Drills on the real build (`miscue build`: the Prefect flow miscue-build, in its own process,
against a real Prefect server on loopback), with the models behind a loopback OpenAI-compatible
server that answers like the offline models (DESIGN section 13).

- Kill and resume: the build is SIGKILLed at 2 points during writing/verification (after N
  exchanges reach the store) and once during publishing, restarted each time, and finished.
  Its published tables have the same content hashes as an uninterrupted build's, no request
  that had finished (was in the store) at a kill is sent again, and what the killed publish
  left in staging is swept.
- Secrets: with keys in the environment and in the model configuration, none reaches the
  artifacts, the Prefect server's database or the build's output.
- Budget: `miscue estimate` predicts the build; `miscue build --max-cost` below it stops
  cleanly (exit 3, nothing published, spend within the cap); a rerun with a higher cap resumes
  from the store and publishes the same tables as the uninterrupted build.
"""

from __future__ import annotations

from support import prefect_home  # noqa: F401  (first: PREFECT_HOME before prefect is imported)

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from support.drills import (BENCH, ENV_KEYS, FAULT, PARAM_KEY, SLICE, ModelServer, cli, kill, kill_at_store_sizes, llm_config,
                           popen, repeated_requests, run, scan_for_secrets, store_files, store_request_ids, wait_for,
                           write_config)
from miscue import corpus
from support.prefect_server import PrefectServer

PRICE = "0.000001"
KILL_AT = [10, 35]  # store entries present when the SIGKILL lands (~60 requests in all)

pytestmark = pytest.mark.slow


def _build(artifacts: Path, config: Path, *extra: str) -> list[str]:
    return cli("build", "-b", BENCH, "--task", SLICE, "-t", FAULT, "--attempts", "2", "--llm-config", str(config),
               "--price", PRICE, "--artifacts", str(artifacts), "--json", *extra)


def _hashes(artifacts: Path, version: str) -> dict[str, str]:
    return {name: m["content_hash"] for name, m in corpus.manifest(artifacts, version)["tables"].items()}


@pytest.fixture(scope="module")
def prefect(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with PrefectServer(tmp_path_factory.mktemp("prefect")) as server:
        yield server
    assert server.closed()


@pytest.fixture(scope="module")
def reference(prefect: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """An uninterrupted build, with provider keys planted in the environment and in the model
    configuration: its content hashes, requests, spend and output."""
    art = tmp_path_factory.mktemp("reference")
    with ModelServer() as server:
        config = write_config(art.parent / "llm-reference.json", llm_config(server.base_url, api_key=PARAM_KEY))
        started = time.perf_counter()
        done = run(_build(art, config), timeout=240, env={**prefect.env, **ENV_KEYS})
        seconds = time.perf_counter() - started
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
        requests = server.distinct()
    version = json.loads(done.stdout)["version"]
    return {"hashes": _hashes(art, version), "requests": requests, "seconds": seconds, "artifacts": art,
            "config": config, "output": {"stdout": done.stdout, "stderr": done.stderr},
            "spent": corpus.manifest(art, version)["run"]["budget"]["spent"]}


def test_build_leaks_no_key_into_artifacts_prefect_or_output(prefect, reference):
    """The keys of the reference build appear in no artifact, report or manifest, nowhere in the
    Prefect server's home (its database holds the flow run's parameters: only the
    configuration's path) and not in the build's output."""
    assert scan_for_secrets([reference["config"]], {}) != [], "the scan finds a planted key where it is"
    roots = [reference["artifacts"], prefect.home]
    assert any(p.suffix == ".db" for p in prefect.home.rglob("*")), "the server's database was scanned"
    hits = scan_for_secrets(roots, reference["output"])
    assert hits == [], hits[:10]


def test_build_sigkilled_at_three_points_resumes_to_the_uninterrupted_corpus(prefect, reference, tmp_path):
    art, log = tmp_path / "killed", tmp_path / "builds.log"
    with ModelServer() as server:
        config = write_config(tmp_path / "llm.json", llm_config(server.base_url))
        observed, finished_at_kill = kill_at_store_sizes(lambda: popen(_build(art, config), env=prefect.env, log=log),
                                                         art, KILL_AT, server)
        assert not (art / "corpora").exists() or corpus.versions(art) == [], "nothing is published before the end"

        # the last kill lands while the build publishes: once its staging directory appears
        server.segment = len(KILL_AT)
        staging = art / corpus.STAGING_DIR
        proc = popen(_build(art, config), env=prefect.env, log=log)
        try:
            assert wait_for(lambda: (staging.exists() and any(staging.iterdir())) or proc.poll() is not None, 240, 0.002), \
                "the build never reached publishing"
        finally:
            kill(proc)  # SIGKILL, by its PID
        left_in_staging = sorted(p.name for p in staging.iterdir()) if staging.exists() else []
        published_before_kill = corpus.versions(art)
        finished_at_kill.append(store_request_ids(art))

        server.segment = len(KILL_AT) + 1
        final = run(_build(art, config), timeout=240, env=prefect.env)
        assert final.returncode == 0, final.stdout[-2000:] + final.stderr[-3000:]
        resumed_requests = list(server.seen)

    result = json.loads(final.stdout)
    version = result["version"]
    assert _hashes(art, version) == reference["hashes"], "the resumed corpus differs from the uninterrupted one"
    for v in corpus.versions(art):
        assert corpus.verify_corpus(v, art).ok, v
    # the killed publish: either it had not renamed its staging directory (no version; the
    # leftover is swept by the next publish) or it had (that version is whole and verified)
    assert corpus.versions(art) == published_before_kill + [version]
    assert result["run"]["swept_staging"] == left_in_staging
    assert not staging.exists() or not any(staging.iterdir())
    assert result["run"]["model_calls"] == 0, "every call had finished before the publish kill"

    # no finished model call repeated; in-flight requests cut off by a kill are redone
    repeats = repeated_requests(resumed_requests, finished_at_kill)
    assert repeats == [], f"{len(repeats)} finished calls were sent again"
    extra = len(resumed_requests) - reference["requests"]
    assert 0 <= extra <= 16 * len(KILL_AT), (len(resumed_requests), reference["requests"])
    assert len(set(observed)) == len(KILL_AT)
    print(f"kill points (store entries at SIGKILL): {observed} + one in publish (staging {left_in_staging}, "
          f"published before the kill: {published_before_kill}); requests killed+resumed={len(resumed_requests)} "
          f"uninterrupted={reference['requests']} (in-flight redone={extra}); final {version} == reference")


def test_build_budget_stops_cleanly_and_resumes_with_a_higher_cap(prefect, reference, tmp_path):
    art = tmp_path / "capped"
    with ModelServer() as server:
        config = write_config(tmp_path / "llm.json", llm_config(server.base_url))
        est = run(cli("estimate", "-b", BENCH, "--task", SLICE, "-t", FAULT, "--attempts", "2", "--llm-config", str(config),
                      "--price", PRICE, "--artifacts", str(art), "--json"), timeout=120)
        assert est.returncode == 0, est.stderr
        predicted = json.loads(est.stdout)
        assert predicted["store_hits"] == 0 and predicted["cost"] > 0

        cap = round(predicted["cost"] * 0.4, 6)
        capped = run(_build(art, config, "--max-cost", str(cap)), timeout=240, env=prefect.env)
        text = " ".join((capped.stdout + capped.stderr).split())
        assert capped.returncode == 3, text[-3000:]
        assert "budget" in text and "stopped cleanly" in text and "rerun" in text
        assert "Traceback" not in text, "a clean stop prints no traceback"
        assert not (art / "corpora").exists() or corpus.versions(art) == [], "a stopped build publishes nothing"
        partial = [json.loads(p.read_text()) for p in store_files(art)]
        spent_capped = sum(r["cost"] for r in partial)
        assert partial and spent_capped <= cap + 1e-9, (spent_capped, cap)
        requests_capped = len(server.seen)
        finished = store_request_ids(art)
        server.segment = 1

        est2 = json.loads(run(cli("estimate", "-b", BENCH, "--task", SLICE, "-t", FAULT, "--attempts", "2",
                                  "--llm-config", str(config), "--price", PRICE, "--artifacts", str(art), "--json"),
                              timeout=120).stdout)
        assert est2["store_hits"] > 0 and est2["calls"] < predicted["calls"]

        resumed = run(_build(art, config, "--max-cost", str(round(predicted["cost"] * 3, 6))), timeout=240, env=prefect.env)
        assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-3000:]
        requests_total = server.distinct()
        repeats = repeated_requests(list(server.seen), [finished])
    result = json.loads(resumed.stdout)
    assert _hashes(art, result["version"]) == reference["hashes"]
    spent_resumed = result["run"]["budget"]["spent"]
    assert spent_capped + spent_resumed == pytest.approx(reference["spent"], rel=1e-6), "every call paid once"
    assert repeats == [], f"{len(repeats)} finished calls were sent again"
    assert requests_total == reference["requests"], "the two runs made the reference build's calls"
    actual = sum(r["cost"] for r in (json.loads(p.read_text()) for p in store_files(art)))
    assert abs(predicted["cost"] - actual) <= 0.25 * actual, (predicted["cost"], actual)
    print(f"estimate {predicted['calls']} calls / {predicted['cost']:.6f} USD; cap {cap} stopped after "
          f"{requests_capped} requests spending {spent_capped:.6f}; resumed spent {spent_resumed:.6f} "
          f"(uninterrupted {reference['spent']:.6f}); actual {actual:.6f}")


def test_two_builds_at_once_one_refuses(prefect, reference, tmp_path):
    """Two `miscue build` processes started together on one artifacts directory: one publishes
    the reference corpus, the other refuses at once (exit 4) naming the holder; nothing else."""
    art = tmp_path / "shared"
    with ModelServer() as server:
        config = write_config(tmp_path / "llm.json", llm_config(server.base_url))
        logs = [tmp_path / "first.log", tmp_path / "second.log"]
        procs = [popen(_build(art, config), env=prefect.env, log=log) for log in logs]
        try:
            codes = [p.wait(timeout=240) for p in procs]
        finally:
            for p in procs:
                kill(p)
        requests = server.distinct()
    assert sorted(codes) == [0, 4], codes
    winner, loser = (procs[0], procs[1]) if codes[0] == 0 else (procs[1], procs[0])
    refusal = " ".join(logs[procs.index(loser)].read_text().split())
    assert f"pid {winner.pid}" in refusal and "nothing was written" in refusal, refusal[-1000:]
    assert corpus.versions(art) == ["v0001"] and corpus.verify_corpus("v0001", art).ok
    assert _hashes(art, "v0001") == reference["hashes"] and requests == reference["requests"]


@dataclass
class Stopped:
    """A build stopped mid-way through writing and verifying, then rerun to the end."""

    code: int  # the stopped build's exit status
    text: str  # its output, whitespace folded
    sent_before: int  # requests the model server had seen when the stop was made
    after_stop: int  # requests it saw from then until the stopped build ended
    remaining: int  # requests the reference build makes after ``sent_before``
    repeats: list  # requests of the rerun that had finished before it
    published: list  # versions the stopped build left
    final: Any  # the rerun (CompletedProcess)
    requests: int  # requests of the stopped build and its rerun together


def _stop_midway(prefect: Any, reference: dict[str, Any], tmp_path: Path, stop: Callable[[Any, Any], None],
                 own_prefect: bool = False) -> Stopped:
    """Start a build, let 20 exchanges reach the store, ``stop(proc, server)``, wait for the build
    to end, then rerun it to the end against the same model server. ``own_prefect``: the stopped
    build starts Prefect's local server itself (no PREFECT_API_URL), as ``make run`` does. Every
    process the build started must be gone when it has ended."""
    import psutil

    art, log = tmp_path / "stopped", tmp_path / "stopped.log"
    with ModelServer() as server:
        config = write_config(tmp_path / "llm.json", llm_config(server.base_url))
        # its own Prefect home: the crashed run must not join the suite's shared local server database
        own = {"PREFECT_HOME": str(tmp_path / "prefect-home"), "PREFECT_API_URL": ""}
        proc = popen(_build(art, config), env=own if own_prefect else prefect.env, log=log)
        try:
            assert wait_for(lambda: len(store_files(art)) >= 20 or proc.poll() is not None, 180, 0.01)
            assert proc.poll() is None, "the build ended before it was stopped"
            children = psutil.Process(proc.pid).children(recursive=True)
            assert children or not own_prefect, "Prefect's local server runs as a child of the build"
            stop(proc, server)
            sent_before = len(server.seen)
            code = proc.wait(timeout=120)
            _, alive = psutil.wait_procs(children, timeout=20)
            left = [" ".join(p.cmdline()[:4]) for p in alive]
            for p in alive:  # the drill's own processes: ended by PID even when the check fails
                p.kill()
        finally:
            kill(proc)
        assert left == [], f"left running after the build ended: {left}"
        after_stop = len(server.seen) - sent_before
        published = corpus.versions(art) if (art / "corpora").exists() else []
        finished = store_request_ids(art)
        server.segment = 1
        final = run(_build(art, config), timeout=240, env=prefect.env)
        assert final.returncode == 0, final.stdout[-2000:] + final.stderr[-3000:]
        stopped = Stopped(code, " ".join(log.read_text().split()), sent_before, after_stop,
                          reference["requests"] - sent_before, repeated_requests(list(server.seen), [finished]),
                          published, final, len(server.seen))
    assert stopped.repeats == [], f"{len(stopped.repeats)} finished calls were sent again"
    assert _hashes(art, json.loads(final.stdout)["version"]) == reference["hashes"]
    return stopped


def test_build_stops_cleanly_on_a_401_and_a_rerun_resumes(prefect, reference, tmp_path):
    """A terminal provider error in the middle of a build: exit 3 naming it, no traceback,
    nothing published, no request after it but those already in flight; the rerun finishes
    with the reference corpus and repeats no finished call."""
    from support.openai_stub import unauthorized

    s = _stop_midway(prefect, reference, tmp_path, lambda proc, server: server.enqueue(unauthorized()))
    assert s.code == 3 and "stopped cleanly" in s.text and "auth" in s.text, s.text[-2000:]
    assert "Traceback" not in s.text
    assert s.published == []
    # the run stopped at once: the 401 and the requests the other slots (max_concurrency 4) sent
    # while it travelled back, not the rest of the build
    assert s.after_stop < s.remaining / 2, f"{s.after_stop} requests after the 401 of {s.remaining} still to make"
    print(f"401 after {s.sent_before} requests; {s.after_stop} requests after it of {s.remaining} still to make; "
          f"rerun completed, {s.requests} requests in all")


def test_build_ends_on_sigterm_and_a_rerun_resumes(prefect, reference, tmp_path):
    """SIGTERM (what ``timeout``, systemd and schedulers send) mid-way through writing and
    verifying ends the build at once -- Prefect's handler raises inside whatever coroutine the
    stage's loop is stepping, where asyncio used to keep it, so the build ran on -- with the flow
    run crashed, exit 143, nothing published and nothing left running (the build starts Prefect's
    local server itself here, which an abrupt exit used to leave behind); the rerun publishes the
    reference corpus and sends no finished call again."""
    import signal

    s = _stop_midway(prefect, reference, tmp_path, lambda proc, server: proc.send_signal(signal.SIGTERM), own_prefect=True)
    assert s.code == 128 + signal.SIGTERM, (s.code, s.text[-2000:])
    assert "aborted by a termination signal" in s.text, s.text[-2000:]
    assert s.published == []
    assert s.after_stop < s.remaining / 2, f"{s.after_stop} requests after SIGTERM of {s.remaining} still to make"
    print(f"SIGTERM after {s.sent_before} requests: exit {s.code}, {s.after_stop} requests after it of {s.remaining} "
          f"still to make; rerun completed, {s.requests} requests in all")
