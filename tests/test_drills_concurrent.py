"""Drill: concurrent runs (DESIGN section 13). Two `miscue run-single` processes started at once
on the same artifacts directory: one runs, the other refuses at once (exit 4) with a message
naming the holder's pid; the store and ledger of the winner are intact and equal to a solo run's.
"""

from __future__ import annotations

import json
import subprocess

from drill_support import BENCH, FAULT, ROOT, cli, store_files, table_hash


def test_two_runs_at_once_one_refuses(tmp_path):
    art = tmp_path / "art"
    args = cli("run-single", "-b", BENCH, "-t", FAULT, "--attempts", "2", "--artifacts", str(art))
    procs = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT) for _ in range(2)]
    outs = []
    for p in procs:
        try:
            o, e = p.communicate(timeout=150)
        finally:
            if p.poll() is None:
                p.kill()
        outs.append((p.returncode, " ".join((o + e).split())))
    codes = sorted(c for c, _ in outs)
    assert codes == [0, 4], outs
    winner = procs[[c for c, _ in outs].index(0)]
    refused = next(t for c, t in outs if c == 4)
    assert "holds the lock" in refused and f"pid {winner.pid}" in refused and "nothing was written" in refused
    for path in store_files(art):
        rec = json.loads(path.read_text())  # every entry parses
        assert rec["key"] == path.stem and rec["text"]
    assert not list((art / "store").rglob("*.tmp"))

    solo = tmp_path / "solo"
    done = subprocess.run(cli("run-single", "-b", BENCH, "-t", FAULT, "--attempts", "2", "--artifacts", str(solo)),
                          capture_output=True, text=True, timeout=150, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    for name in ("cells", "attempts", "samples"):
        assert table_hash(art / "runs" / BENCH / f"{name}.parquet") == table_hash(solo / "runs" / BENCH / f"{name}.parquet")
    assert len(store_files(art)) == len(store_files(solo))
    print(f"exit codes {codes}; refusal: {refused[:200]}; store entries {len(store_files(art))}")
