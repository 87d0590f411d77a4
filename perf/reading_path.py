"""The reading path with the offline readers, measured on a published corpus's single-fault samples.

For every admitted single-fault sample of a version (text written by the writer and admitted by
the version's run; a version of the retired forms path measures the reading path on its texts),
both offline readers (``lexical``, ``parse``) answer the reading
form of the sample's task (:meth:`miscue.offline.extractors.base.Extractor.read`); code checks each
reading against the text (:func:`miscue.reading.check`), derives its class
(:func:`miscue.reading.single_class`) and holds the two to each other and to the plan
(:func:`miscue.verifiers.agreement.readings_agree`). Reported per fault type: how many samples
the reading path would carry through agreement, and the verdict codes of the others.

    .venv/bin/python perf/reading_path.py ARTIFACTS [VERSION] [--per-type N]
"""

from __future__ import annotations

import argparse
import random
from collections import Counter, defaultdict
from pathlib import Path

from miscue import corpus
from miscue.briefs import ExtractionInput
from miscue.flows.registry import adapter_for
from miscue.flows.stages.verify import task_intent
from miscue.offline.extractors import EXTRACTORS
from miscue.planning import Planner
from miscue.reading import Departure, ReadingForm, check
from miscue.taxonomy import SLOT_TARGETS, fault_type
from miscue.verifiers.agreement import readings_agree


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("artifacts", type=Path)
    ap.add_argument("version", nargs="?")
    ap.add_argument("--per-type", type=int, default=40, help="samples per benchmark and type (0: all)")
    ap.add_argument("--show", nargs="*", default=[], help="print the verdicts of these fault types")
    args = ap.parse_args()
    version = corpus.resolve(args.artifacts, args.version)
    rows = [r for r in corpus.read_table(args.artifacts, version, "samples").to_pylist() if r["k"] == 1]
    rng = random.Random(3)
    by_cell: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        by_cell[(r["benchmark"], r["fault_types"][0])].append(r)
    chosen = [r for group in by_cell.values() for r in (rng.sample(group, min(len(group), args.per_type))
                                                        if args.per_type else group)]
    adapters = {b: adapter_for(b) for b in {r["benchmark"] for r in chosen}}
    seeds: dict[tuple[str, str], tuple] = {}
    carried: Counter[tuple[str, str]] = Counter()
    total: Counter[tuple[str, str]] = Counter()
    codes: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for r in chosen:
        b, ft = r["benchmark"], r["fault_types"][0]
        adapter = adapters[b]
        if (b, r["task_id"]) not in seeds:
            intent, _ = task_intent(adapter, r["task_id"])
            reqs = Planner(adapter).requirements(intent, options=True)
            request = adapter.request_phrase(intent)
            seeds[(b, r["task_id"])] = (intent, reqs, request,
                                        ReadingForm.of(reqs, request, [m.phrase for m in adapter.mismatches(intent)]))
        intent, reqs, request, form = seeds[(b, r["task_id"])]
        inp = ExtractionInput(context=adapter.context_line(intent), request=request, requirements=reqs, text=r["query"])
        t = fault_type(ft)
        plan = Departure(t.extraction, r["targets"][0] if t.target in SLOT_TARGETS else None)
        total[(b, ft)] += 1
        readings = [EXTRACTORS[name].read(inp, form) for name in ("lexical", "parse")]
        problems = [v for rd in readings for v in check(rd, form, inp.text)]
        verdict = problems[0] if problems else readings_agree(form, *readings, plan)
        if verdict is None:
            carried[(b, ft)] += 1
        else:
            codes[(b, ft)][verdict.code] += 1
            if args.show and ft in args.show:
                print(f"  [{b} {ft}] {verdict.code}: {verdict.detail[:160]}")
    print(f"version {version}: {sum(total.values())} admitted single-fault samples read by both offline readers")
    print(f"{'benchmark':<14}{'fault type':<26}{'carried':>8}{'of':>5}  verdicts of the others")
    for key in sorted(total):
        print(f"{key[0]:<14}{key[1]:<26}{carried[key]:>8}{total[key]:>5}  "
              + ", ".join(f"{c} {n}" for c, n in codes[key].most_common(3)))
    print(f"all: {sum(carried.values())} of {sum(total.values())} "
          f"({sum(carried.values()) / max(1, sum(total.values())):.1%})")


if __name__ == "__main__":
    main()
