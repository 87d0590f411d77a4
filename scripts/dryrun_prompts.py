"""Render the stand-in-model dry run's prompts, and run the committed replies (issue 17).

    PYTHONPATH=. .venv/bin/python scripts/dryrun_prompts.py render-writer   # cells + writer prompts
    PYTHONPATH=. .venv/bin/python scripts/dryrun_prompts.py render-read     # reading-form prompts for replies_writer.jsonl
    PYTHONPATH=. .venv/bin/python scripts/dryrun_prompts.py run             # the per-type admission table
    PYTHONPATH=. .venv/bin/python scripts/dryrun_prompts.py baseline        # rewrite baseline_offline.json

Files live in ``tests/data/dryrun/`` (``--data`` elsewhere); the README there describes them and
the reply format. ``render-writer`` fixes the cell set (``cells.jsonl``); the other steps replan
exactly those cells, so a changed card shows up as stale replies, never as a different set.
Run from the repository root with ``PYTHONPATH=.`` (the worktree's code, not the venv's install).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from miscue.flows.stages import dryrun

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "dryrun"


def render_writer(data: Path) -> None:
    hosts = dryrun.load_hosts()
    cells = dryrun.choose_cells(hosts)
    dryrun.write_jsonl(data / dryrun.CELLS, (c.record() for c in cells))
    n = dryrun.write_jsonl(data / dryrun.WRITER_PROMPTS, (dryrun.writer_prompt(c) for c in cells))
    print(f"{len(cells)} cells -> {data / dryrun.CELLS}; {n} writer prompts -> {data / dryrun.WRITER_PROMPTS}")


def render_read(data: Path) -> None:
    """The readers' prompts for the stand-in writer's texts: the reading form, one per cell; each row
    names the writer prompt whose reply its text is."""
    run = dryrun.load(data)
    if not run.writer.present:
        sys.exit(f"no {data / dryrun.REPLIES['writer']}: answer {dryrun.WRITER_PROMPTS} first (see the README)")
    rows = [{**p, "writer_prompt_sha": run.writer_prompts[(p["cell_id"], "writer")]["prompt_sha"]}
            for p in run.read_prompts.values()]
    n = dryrun.write_jsonl(data / dryrun.READ_PROMPTS, rows)
    passed = sum(1 for r in rows if r["text_check"] is None)
    print(f"{n} reading prompts -> {data / dryrun.READ_PROMPTS} ({passed} texts pass the mechanical checks)")
    missing = [c.cell_id for c in run.cells if run.writer_text(c) is None]
    for line in run.stale + [f"{c}: no writer reply" for c in missing]:
        print("  " + line)


def run(data: Path, write_baseline: bool = False) -> None:
    dry = dryrun.load(data)
    with tempfile.TemporaryDirectory() as tmp:
        modes = {"offline": dryrun.run_mode(dry.cells, dry.hosts, Path(tmp) / "c", {})}
        if write_baseline:
            record = dryrun.baseline_record(modes["offline"])
            (data / dryrun.BASELINE).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
            print(f"baseline: {record['admitted']}/{record['cells']} -> {data / dryrun.BASELINE}")
        if dry.writer.present:
            modes["standin writer"] = dryrun.run_mode(dry.cells, dry.hosts, Path(tmp) / "a", {"writer": dry.writer})
            if all(r.present for r in dry.read.values()):
                both = {"writer": dry.writer, **dry.read}
                modes["standin both"] = dryrun.run_mode(dry.cells, dry.hosts, Path(tmp) / "b", both)
    print(dryrun.table(modes))
    for line in dry.stale:
        print("stale: " + line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=["render-writer", "render-read", "run", "baseline"])
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    if args.step == "render-writer":
        render_writer(args.data)
    elif args.step == "render-read":
        render_read(args.data)
    else:
        run(args.data, write_baseline=args.step == "baseline")


if __name__ == "__main__":
    main()
