"""How the corpus reads next to hand-written requests (miscue.reports.style).

    .venv/bin/python perf/style_report.py ARTIFACTS [--version vNNNN] [--size 24] [--out FILE]

Reads the published single-fault requests of a corpus version (default: the latest under
ARTIFACTS/corpora) and the project's hand-written labelled set (tests/data/verifier_set.jsonl),
and prints per host — and per host and fault type — mean words, distinct-2/3 and distinct
sentence frames on equal-size samples (``--size`` texts, 20 seeded draws), the share of
requests that read as a form and the share that say who the customer is, side by side with the
hand-written figures and the ratio corpus / hand-written.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import duckdb

from miscue.reports.style import Style, style

ROOT = Path(__file__).resolve().parent.parent
HAND = ROOT / "tests" / "data" / "verifier_set.jsonl"
COLUMNS = ("texts", "sample", "mean words", "distinct-2", "distinct-3", "frames", "form share", "identity share")


def corpus_texts(artifacts: Path, version: str | None) -> dict[tuple[str, str], list[str]]:
    root = artifacts / "corpora"
    v = version or sorted(p.name for p in root.iterdir() if p.name.startswith("v"))[-1]
    rows = duckdb.connect().execute(
        f"select benchmark, fault_types[1], query from read_parquet('{root / v / 'samples.parquet'}') where k = 1").fetchall()
    out: dict[tuple[str, str], list[str]] = defaultdict(list)
    for bench, ft, text in rows:
        out[(bench, ft)].append(text)
    return out


def hand_texts() -> dict[tuple[str, str], list[str]]:
    out: dict[tuple[str, str], list[str]] = defaultdict(list)
    for line in HAND.read_text(encoding="utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            out[(r["benchmark"], r.get("claimed_type") or "clean")].append(r["text"])
    return out


def _row(name: str, s: Style) -> str:
    return f"| {name} | " + " | ".join(str(s.row()[c]) for c in COLUMNS) + " |"


def report(corpus: dict[tuple[str, str], list[str]], hand: dict[tuple[str, str], list[str]], size: int) -> str:
    lines = []
    hosts = sorted({b for b, _ in corpus} | {b for b, _ in hand})
    head = "| set | " + " | ".join(COLUMNS) + " |"
    rule = "|" + "---|" * (len(COLUMNS) + 1)
    lines += [f"## Per host (samples of {size})", "", head, rule]
    for host in hosts:
        c = [t for (b, _), ts in corpus.items() if b == host for t in ts]
        h = [t for (b, _), ts in hand.items() if b == host for t in ts]
        if not c or not h:
            continue
        sc, sh = style(c, size), style(h, size)
        lines.append(_row(f"{host} corpus", sc))
        lines.append(_row(f"{host} hand-written", sh))
        lines.append(f"| {host} corpus / hand | | | {sc.mean_words / sh.mean_words:.2f} | {sc.distinct_2 / sh.distinct_2:.2f} | "
                     f"{sc.distinct_3 / sh.distinct_3:.2f} | {sc.frames / sh.frames:.2f} | | |")
    lines += ["", "## Per host and fault type (corpus; samples of 10)", "", head, rule]
    for (host, ft), ts in sorted(corpus.items()):
        lines.append(_row(f"{host} {ft}", style(ts, 10)))
    lines += ["", "## Hand-written, per host and claimed type (samples of 10)", "", head, rule]
    for (host, ft), ts in sorted(hand.items()):
        lines.append(_row(f"{host} {ft}", style(ts, 10)))
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("artifacts", type=Path)
    ap.add_argument("--version")
    ap.add_argument("--size", type=int, default=24)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    text = report(corpus_texts(args.artifacts, args.version), hand_texts(), args.size)
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
