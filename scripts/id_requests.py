"""Render the reading prompts of the id-style requests (tests/data/id_requests/, issue 38).

    PYTHONPATH=. .venv/bin/python scripts/id_requests.py   # prompts_read.jsonl for requests.jsonl

Each request is read on the reading path exactly as ``miscue verify`` reads it
(:func:`miscue.flows.stages.dryrun.request_prompts`); the prompt file holds what a stand-in reader
is handed (the messages), keyed by the prompt's sha. The README there says how the replies were
made; tests/integration/test_id_requests.py runs them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from miscue.flows.stages.dryrun import read_jsonl, request_prompts, write_jsonl

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "id_requests"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    n = write_jsonl(args.data / "prompts_read.jsonl", request_prompts(read_jsonl(args.data / "requests.jsonl")))
    print(f"{n} reading prompts -> {args.data / 'prompts_read.jsonl'}")


if __name__ == "__main__":
    main()
