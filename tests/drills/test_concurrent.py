"""Drill: concurrent runs (DESIGN section 13). Two `miscue generate` processes started at once
on the same artifacts directory: one runs, the other refuses at once (exit 4) with a message
naming the holder's pid; the store and ledger of the winner are intact and equal to a solo run's.
"""

from __future__ import annotations

import json
import subprocess

from support.drills import SLICE, BENCH, FAULT, ROOT, cli, store_files, table_hash


def test_two_runs_at_once_one_refuses(tmp_path):
    art = tmp_path / "art"
    args = cli("generate", "-b", BENCH, "--task", SLICE, "-t", FAULT, "--attempts", "2", "--artifacts", str(art))
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
    done = subprocess.run(cli("generate", "-b", BENCH, "--task", SLICE, "-t", FAULT, "--attempts", "2", "--artifacts", str(solo)),
                          capture_output=True, text=True, timeout=150, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    for name in ("cells", "attempts", "samples"):
        assert table_hash(art / "runs" / BENCH / f"{name}.parquet") == table_hash(solo / "runs" / BENCH / f"{name}.parquet")
    assert len(store_files(art)) == len(store_files(solo))
    print(f"exit codes {codes}; refusal: {refused[:200]}; store entries {len(store_files(art))}")


def test_build_refuses_while_another_run_holds_the_artifacts(tmp_path):
    """`miscue build` takes the same lock: a build on a held artifacts directory refuses at once."""
    import os
    import subprocess
    import sys

    from miscue.runlock import run_lock

    with run_lock(tmp_path, command="someone else"):  # held here; the build runs in a child process
        code = ("from typer.testing import CliRunner; from miscue.flows.cli import app; import sys; "
                "r = CliRunner().invoke(app, ['build', '-b', 'tau2-airline', '-t', 'factual_error', "
                f"'--artifacts', {str(tmp_path)!r}]); "
                "print(r.exit_code); print(r.output)")
        env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect-home")}
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    lines = proc.stdout.strip().splitlines()
    assert lines and lines[0] == "4", proc.stdout + proc.stderr
    assert "someone else" in proc.stdout or "pid" in proc.stdout
    assert not (tmp_path / "corpora").exists()
