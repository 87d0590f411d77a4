"""The model path measured on the hand-labelled verifier set with stand-in readers (issue 39, item 4).

    PYTHONPATH=. .venv/bin/python scripts/verifier_readings.py render --split heldout --out DIR [--chunks 8] [--ids FILE]
    PYTHONPATH=. .venv/bin/python scripts/verifier_readings.py collect DIR... --reader a
    PYTHONPATH=. .venv/bin/python scripts/verifier_readings.py run [--split heldout]
    PYTHONPATH=. .venv/bin/python scripts/verifier_readings.py replies EXPORTED.jsonl OUT.jsonl

``render`` writes the reading prompt of each labelled request of a split (what ``miscue verify``
sends both extractors about the text: ``miscue.flows.stages.dryrun.request_prompts``) as plain
numbered files, a directory per stand-in session (``DIR/<reader><chunk>/NNN.prompt.txt``, only the
prompt's system and user messages: no id, claim, label or fault type), with an index outside them.
``collect`` reads the sessions' ``NNN.reply.txt`` files back into
``tests/data/verifier_readings/replies_read_<reader>.jsonl`` (keyed by the prompt's sha, as the dry
run's replies are). ``run`` scores the verifier with those replies as extractors A and B beside the
offline baseline, per split and per fault type, and lists every miss with its verdict code.
``replies`` answers a ``--prompts-out`` file of ``miscue eval-verifier --llm-config
tests/data/verifier_readings/standin_llm.json`` from the committed replies (reader by the request's
model), as JSONL for ``miscue prompts import``: the same figures through the command line.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

from miscue.flows.stages import dryrun
from miscue.flows.stages.evaluate import Evaluation, load_set

ROOT = Path(__file__).resolve().parents[1]
SET = ROOT / "tests" / "data" / "verifier_set.jsonl"
DATA = ROOT / "tests" / "data" / "verifier_readings"
FILES = {"extractor_a": "replies_read_a.jsonl", "extractor_b": "replies_read_b.jsonl"}
STANDIN_MODELS = {"openai/standina-reader": "extractor_a", "hosted_vllm/standinb-reader": "extractor_b"}


def answered_ids(data: Path = DATA) -> set[str]:
    """The labelled requests the committed replies answer (reader A's; B answered the same)."""
    return {r["cell_id"] for r in dryrun.read_jsonl(data / FILES["extractor_a"])}


def standin_replies(data: Path = DATA) -> dict[str, dryrun.Replies]:
    ids = answered_ids(data)
    return dryrun.labelled_replies([r for r in dryrun.read_jsonl(SET) if r["id"] in ids], data, FILES)


def scores(split: str | None, standins: dict[str, dryrun.Replies] | None) -> tuple[Evaluation, Counter[str]]:
    """The verifier on the answered requests of ``split`` (all: None): with the stand-in readers,
    or (``standins`` None) the offline ones; the missing replies counted per role."""
    ids = answered_ids()
    items = [i for i in load_set(SET) if i.id in ids and (split is None or i.split == split)]
    with tempfile.TemporaryDirectory() as tmp:
        return dryrun.evaluate_with(items, standins, Path(tmp) / "store")


def _render(args: argparse.Namespace) -> None:
    rows = [r for r in dryrun.read_jsonl(SET) if r["split"] == args.split]
    if args.ids:
        wanted = set(args.ids.read_text(encoding="utf-8").split())
        rows = [r for r in rows if r["id"] in wanted]
    prompts = sorted(dryrun.request_prompts(rows), key=lambda p: p["id"])
    for reader in args.readers:
        for c in range(args.chunks):
            chunk = prompts[c::args.chunks]
            folder = args.out / f"{reader}{c + 1}"
            folder.mkdir(parents=True, exist_ok=True)
            index = {}
            for n, p in enumerate(chunk, start=1):
                system, user = (m["content"] for m in p["messages"])
                (folder / f"{n:03d}.prompt.txt").write_text(
                    f"=== SYSTEM MESSAGE ===\n{system}\n\n=== USER MESSAGE ===\n{user}\n", encoding="utf-8")
                index[f"{n:03d}"] = {"id": p["id"], "prompt_sha": p["prompt_sha"], "card_version": p["card_version"]}
            (args.out / f"index_{reader}{c + 1}.json").write_text(json.dumps(index, indent=1), encoding="utf-8")
    print(f"{len(prompts)} prompts of the {args.split} part -> {args.out} ({args.chunks} sessions per reader)")


def _collect(args: argparse.Namespace) -> None:
    path = DATA / FILES[f"extractor_{args.reader}"]
    have = {r["cell_id"]: r for r in dryrun.read_jsonl(path)}
    added = empty = 0
    for folder in args.dirs:
        index = json.loads((folder.parent / f"index_{folder.name}.json").read_text(encoding="utf-8"))
        for n, p in index.items():
            reply = folder / f"{n}.reply.txt"
            text = reply.read_text(encoding="utf-8") if reply.is_file() else ""
            empty += not text
            if p["id"] in have:
                sys.exit(f"{p['id']}: already answered in {path} (a held-back prompt is answered once; "
                         "a tune one: remove its line first)")
            have[p["id"]] = {"cell_id": p["id"], "form": "read", "prompt_sha": p["prompt_sha"],
                             "card_version": p["card_version"], "text": text}
            added += 1
    dryrun.write_jsonl(path, sorted(have.values(), key=lambda r: r["cell_id"]))
    print(f"{added} replies ({empty} empty) -> {path}")


def _report(name: str, result: Evaluation) -> None:
    report = result.report()
    for split, s in sorted(report["by_split"].items()):
        print(f"{name:8} {split:8} n={s['n']:4} P={s['precision']:.3f} R={s['recall']:.3f} "
              f"(tp {s['tp']}, fp {s['fp']}, fn {s['fn']})")


def _run(args: argparse.Namespace) -> None:
    standins = standin_replies()
    stale = [s for r in standins.values() for s in r.stale]
    if stale:
        sys.exit("stale replies (the prompts changed since they were answered):\n" + "\n".join(stale[:20]))
    model, missing = scores(args.split, standins)
    _report("stand-in", model)
    _report("offline", scores(args.split, None)[0])
    print("missing replies:", dict(missing) or "none")
    for split, types in sorted(model.report()["per_type_by_split"].items()):
        print(f"\nper type, {split} (stand-in readers):")
        for t, s in sorted(types.items()):
            figures = " ".join(f"{k} {s[k]:.3f}" if s[k] is not None else f"{k} -" for k in ("recall", "precision"))
            print(f"  {t:26} admits {s['admit_labels']:3} {figures}")
    print("\nmisses (stand-in readers):")
    for o in model.outcomes:
        if o.fp or o.fn:
            print(f"  {o.item.id:8} {o.item.split:8} expected {o.item.expected:6} {o.item.true_type or '-':26} -> {o.code}")


def _replies(args: argparse.Namespace) -> None:
    standins = standin_replies()
    lines = []
    for n, line in enumerate(dryrun.read_jsonl(args.exported), start=1):
        body = line["body"]
        model = next((m for m in STANDIN_MODELS if m.split("/", 1)[1] == body["model"] or m == body["model"]), None)
        if model is None:
            sys.exit(f"{args.exported}:{n}: model {body['model']!r} is none of the stand-in readers {list(STANDIN_MODELS)}")
        text = standins[STANDIN_MODELS[model]].by_sha.get(dryrun.prompt_sha(body["messages"]), "")
        lines.append({"custom_id": line["custom_id"], "reply": text})
    dryrun.write_jsonl(args.out, lines)
    print(f"{len(lines)} replies ({sum(1 for x in lines if not x['reply'])} without a committed answer) -> {args.out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("render")
    p.add_argument("--split", required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--chunks", type=int, default=8)
    p.add_argument("--readers", nargs="+", default=["a", "b"])
    p.add_argument("--ids", type=Path, help="only these requests of the split (a file of ids): a sample")
    p = sub.add_parser("collect")
    p.add_argument("dirs", type=Path, nargs="+")
    p.add_argument("--reader", choices=["a", "b"], required=True)
    p = sub.add_parser("run")
    p.add_argument("--split")
    p = sub.add_parser("replies")
    p.add_argument("exported", type=Path)
    p.add_argument("out", type=Path)
    args = parser.parse_args()
    {"render": _render, "collect": _collect, "run": _run, "replies": _replies}[args.command](args)


if __name__ == "__main__":
    main()
