"""A default offline build in-process vs sharded on a local Dask cluster, side by side.

    .venv/bin/python perf/bench_build_workers.py [--workers 2] [--workers 4 ...] [-b BENCH ...] [-t TYPE ...]
                                                 [--attempts 4] [--composite 2] [--baseline ../handoff/baseline_build.json]

Runs ``miscue build --json`` (every benchmark, all fault types, the embedded offline models:
`make run`) once in-process and once per ``--workers N`` (default: 2), one after the other, each
in a fresh artifacts directory (a cold build: every model call is made) and one shared,
already-started PREFECT_HOME (a throw-away report flow starts Prefect's database first, so no
run pays for creating it). Prints each run's wall time, its speed-up over the in-process build,
and whether its published tables' content hashes equal the in-process build's (and the
baseline's, when given); exits 1 when any differ. The suite's sharded-build test is
``-b tau2-airline -t factual_error -t vagueness_subjectivity --attempts 1 --composite 2`` on 2
workers; add ``--workers 1 --workers 4`` for the other counts. Acceptance (issue 14): ``--workers 2`` is at least 1.6x faster than
in-process on the 2-core machine, with identical hashes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MISCUE = str(ROOT / ".venv" / "bin" / "miscue")


def build(artifacts: Path, extra: list[str], env: dict[str, str], timeout: float) -> tuple[float, dict]:
    started = time.perf_counter()
    done = subprocess.run([MISCUE, "build", "--artifacts", str(artifacts), "--json", *extra], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=timeout)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"build {extra} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return seconds, json.loads(done.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, action="append", help="worker counts to compare (repeatable; default 2)")
    ap.add_argument("-b", "--benchmark", action="append", default=[])
    ap.add_argument("-t", "--fault-type", action="append", default=[])
    ap.add_argument("--attempts", type=int, default=4)
    ap.add_argument("--composite", help="composite faults of these k too (e.g. 2 or 2,4)")
    ap.add_argument("--baseline", type=Path, help="a build's JSON whose content_hashes every run must equal")
    ap.add_argument("--timeout", type=float, default=1800)
    args = ap.parse_args()
    workers = args.workers or [2]
    scope = [x for b in args.benchmark for x in ("-b", b)] + [x for t in args.fault_type for x in ("-t", t)]
    scope += ["--attempts", str(args.attempts)] + (["--composite", args.composite] if args.composite else [])
    tmp = Path(tempfile.mkdtemp(prefix="miscue-bench-workers-"))
    env = {**os.environ, "PREFECT_HOME": str(tmp / "prefect-home")}
    env.pop("PREFECT_API_URL", None)
    # start Prefect's database once (creating it costs every run after the first nothing)
    subprocess.run([MISCUE, "report", "--artifacts", str(tmp / "none")], capture_output=True, env=env, cwd=ROOT, timeout=600)

    runs = [("in-process", [])] + [(f"--workers {n}", ["--workers", str(n)]) for n in workers]
    results = []
    for label, extra in runs:
        seconds, out = build(tmp / label.replace(" ", "").replace("-", ""), scope + extra, env, args.timeout)
        results.append((label, seconds, out))
        print(f"  {label}: {seconds:.1f} s, {out['run']['model_calls']} model calls", file=sys.stderr, flush=True)
    base_s, base = results[0][1], results[0][2]
    reference = json.loads(args.baseline.read_text())["content_hashes"] if args.baseline else None
    print(f"miscue build {' '.join(scope)}  ({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the end)")
    print("| run | wall s | speed-up vs in-process | model calls | hashes = in-process | hashes = baseline |")
    print("|---|---|---|---|---|---|")
    differs = False
    for label, seconds, out in results:
        same = out["content_hashes"] == base["content_hashes"]
        same_ref = "-" if reference is None else str(out["content_hashes"] == reference)
        print(f"| {label} | {seconds:.1f} | {base_s / seconds:.2f}x | {out['run']['model_calls']} | {same} | {same_ref} |")
        differs = differs or not same or same_ref == "False"
    sys.exit(1 if differs else 0)


if __name__ == "__main__":
    main()
