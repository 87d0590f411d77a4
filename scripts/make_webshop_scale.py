"""Write a WebShop-format catalogue at WebShop's own scale, deterministically and streaming.

    python scripts/make_webshop_scale.py --products N --out DIR [--seed 7]

WebShop's full data (items_shuffle.json / items_ins_v2.json, 1.18 M products, several GB) is a
Google-Drive download that is not available here; this writes a stand-in of any size in the
same three files, so the adapter's scale can be measured (``perf/bench_webshop_scale.py``) and
tested (``tests/integration/test_webshop_scale.py``). Output is for /tmp or artifacts/, never committed.

The shape follows WebShop's (hosts notes, part B): 5 categories and 113 scrape queries (the
clusters), whose sizes are skewed like a Zipf law (at 1.18 M products the largest holds ~84 k,
about 30 hold more than 10 k, about 50 fewer than 5 k); products are written in shuffled order,
so a cluster's records are spread over the whole file, as in ``items_shuffle.json``. Products
and instructions are drawn by the same code as the shipped catalogue
(``make_webshop_catalogue.py``: names, bullets, options, prices, human-style instructions with
fuzzy spellings and a few flawed rows), over 113 queries derived from its 25 hand-written
clusters. Bigger clusters mine more distinct attributes (as WebShop's TF-IDF attributes grow
with a category): each query adds about 2 sqrt(size) two-word attributes to its base cluster's
ten. About one product in 130 is annotated with one or two human instructions (WebShop: 12,087
instructions over 1.18 M products). Each record also carries the scraped fields WebShop's
loader drops (images, product information, seller ...), so records weigh what real ones do.

Memory stays small at any N: records are generated and written one at a time; only the
cluster label of each file position (one byte each) and the human instructions are held.
"""

from __future__ import annotations

import argparse
import array
import dataclasses
import json
import math
import random
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import make_webshop_catalogue as shipped

QUERIES = 113
ZIPF_S, ZIPF_OFFSET = 1.0, 4  # cluster i holds a share proportional to 1 / (i + 4)
ANNOTATE_EVERY = 130  # one annotated product per 130 (at least 3 per cluster)
ASIN_SPACE = 36 ** 8
ASIN_STEP = 2654435761  # coprime with 36: index -> asin is a bijection on 36**8

#: qualifiers that turn one hand-written cluster into several scrape queries
QUALIFIERS = ("", "premium", "budget", "travel", "kids", "organic", "gift", "large", "compact", "vintage",
              "professional", "everyday", "luxury", "eco friendly", "classic", "sport", "home", "outdoor")
#: two-word mined attributes: an adjective and a category noun
TAIL_ADJECTIVES = (
    "soft", "durable", "compact", "premium", "classic", "modern", "vintage", "recycled", "heavy duty", "ultra thin",
    "water resistant", "quick drying", "wrinkle resistant", "anti slip", "easy clean", "reinforced", "natural",
    "handmade", "limited", "seamless", "padded", "brushed", "matte", "glossy", "textured", "breathable", "insulated",
    "adjustable", "foldable", "portable", "reusable", "hypoallergenic", "scratch resistant", "odor resistant",
    "double layer", "low profile", "extra wide", "slim", "oversized", "refillable",
)
TAIL_NOUNS = {
    "fashion": ("fabric", "lining", "stitching", "collar", "hem", "cuffs", "waistband", "seams", "trim", "knit",
                "weave", "finish", "fit", "panel", "straps"),
    "beauty": ("formula", "texture", "finish", "applicator", "packaging", "scent", "tube", "cap", "pump", "blend",
               "tint", "base", "coverage", "shade", "jar"),
    "electronics": ("housing", "cable", "casing", "buttons", "display", "speaker", "grip", "connector", "hinge",
                    "battery", "charger", "port", "screen", "mount", "frame"),
    "furniture": ("frame", "cushion", "legs", "finish", "upholstery", "drawers", "shelves", "armrests", "backrest",
                  "base", "top", "handles", "joints", "panel", "veneer"),
    "food": ("packaging", "blend", "recipe", "texture", "pouch", "jar", "serving", "roast", "grind", "seasoning",
             "batch", "crunch", "flavor profile", "tin", "bag"),
}
SENTENCES = ("{A} for everyday comfort.", "Features {a}.", "Made with {a} that holds up over time.",
             "The {a} sets it apart.", "Customers love the {a}.")
FILLER = ("Please compare the measurements with the chart before ordering.",
          "Shades may look slightly different on every monitor.",
          "Packed carefully and shipped from our warehouse within two business days.")


def cluster_sizes(n: int, queries: int = QUERIES) -> list[int]:
    """Zipf-skewed sizes summing to ``n`` (every cluster holds at least one product)."""
    weights = [1 / (i + ZIPF_OFFSET) ** ZIPF_S for i in range(queries)]
    total = sum(weights)
    sizes = [max(1, int(n * w / total)) for w in weights]
    i = 0
    while sum(sizes) < n:  # hand out the rounding remainder, largest clusters first
        sizes[i % queries] += 1
        i += 1
    while sum(sizes) > n:
        j = max(range(queries), key=lambda k: sizes[k])
        sizes[j] -= 1
    return sizes


def queries(seed: int, sizes: list[int]) -> list[shipped.Cluster]:
    """113 scrape queries: each of the 25 hand-written clusters under several qualifiers, with a
    tail of two-word attributes whose count grows with the query's size."""
    out = []
    bases = shipped.CLUSTERS
    for i, size in enumerate(sizes):
        base = bases[i % len(bases)]
        qualifier = QUALIFIERS[(i // len(bases)) % len(QUALIFIERS)]
        query = f"{qualifier} {base.query}".strip()
        rng = random.Random(f"{seed}:{query}:tail")
        combos = [f"{a} {n}" for a in TAIL_ADJECTIVES for n in TAIL_NOUNS[base.category]]
        tail = rng.sample(combos, min(len(combos), round(2 * math.sqrt(size))))
        features = dict(base.features)
        for attr in tail:
            if attr not in features:
                features[attr] = rng.choice(SENTENCES).format(A=attr.capitalize(), a=attr)
        out.append(dataclasses.replace(base, query=query, features=features))
    return out


def asin_of(index: int) -> str:
    x = (index * ASIN_STEP + 12345) % ASIN_SPACE
    digits = []
    for _ in range(8):
        x, d = divmod(x, 36)
        digits.append(shipped.ALNUM[d])
    return "B0" + "".join(reversed(digits))


def _scraped_extras(raw: dict, k: int) -> None:
    """The fields WebShop's loader drops (and a longer description), so a record weighs what a
    real one does; option images get URLs. Derived from the record, no random draw."""
    asin = raw["asin"]
    raw["full_description"] += " " + " ".join(FILLER)
    raw["images"] = [f"https://m.media-amazon.com/images/I/{asin}-{j}._AC_SL1500_.jpg" for j in range(6)]
    for name, values in raw["customization_options"].items():
        for j, v in enumerate(values):
            v["image"] = f"https://m.media-amazon.com/images/I/{asin}-{name[:1].lower()}{j}._AC_SR38,50_.jpg"
    raw.update({
        "product_information": {
            "Product Dimensions": f"{k % 30 + 2} x {k % 17 + 3} x {k % 7 + 1} inches; {k % 40 + 4} Ounces",
            "Item model number": f"{raw['brand'][:3].upper()}-{k % 9973:04d}",
            "Date First Available": f"{['January', 'March', 'June', 'October'][k % 4]} {k % 28 + 1}, {2015 + k % 7}",
            "Manufacturer": raw["brand"],
            "ASIN": asin,
            "Best Sellers Rank": f"#{k * 7 % 250000 + 1:,} in {raw['product_category'].split(' › ')[0]}",
        },
        "brand_url": f"https://www.amazon.com/stores/{raw['brand'].replace(' ', '')}/page/{k % 977:03d}",
        "list_price": "",
        "availability_quantity": k % 20 + 1,
        "availability_status": "In Stock." if k % 11 else "Only 2 left in stock - order soon.",
        "total_answered_questions": k % 60,
        "seller_id": f"A{(k * 31) % 10**12:012d}",
        "seller_name": raw["brand"],
        "fulfilled_by_amazon": bool(k % 3),
        "fast_track_message": "",
        "aplus_present": bool(k % 2),
    })


@dataclasses.dataclass
class _Stream:
    """One cluster's generator state: its products are drawn in order from its own streams."""

    index: int
    spec: shipped.Cluster
    size: int
    first: int  # global index of its first product (for the asin)
    rng: random.Random
    worker: random.Random
    targets: int
    made: int = 0


def generate(n: int, seed: int) -> Iterator[tuple[dict, dict, list[dict] | None]]:
    """(scraped record, items_ins_v2 entry, human instructions or None) in file order."""
    sizes = cluster_sizes(n)
    specs = queries(seed, sizes)
    streams, first = [], 0
    for i, (spec, size) in enumerate(zip(specs, sizes)):
        streams.append(_Stream(i, spec, size, first, random.Random(f"{seed}:{spec.query}"),
                               random.Random(f"{seed}:{spec.query}:worker"), max(3, round(size / ANNOTATE_EVERY))))
        first += size
    labels = array.array("B", (i for i, size in enumerate(sizes) for _ in range(size)))
    random.Random(seed).shuffle(labels)  # WebShop's file is shuffled: clusters interleave
    for label in labels:
        s = streams[label]
        k = s.made
        s.made += 1
        raw, entry, feats, options, _ = shipped.make_product(s.rng, s.spec, k, asin_of(s.first + k))
        rows = None
        if k < s.targets:
            rows = shipped.goal_rows(s.rng, s.worker, s.spec, raw, entry, feats, options, 2 if k % 3 == 0 else 1)
        elif k == s.targets:
            try:
                rows = shipped.flawed_rows(s.rng, s.worker, s.spec, s.index % 6, raw, feats, options)
            except StopIteration:  # no feature the product lacks without overlap: no flawed row
                rows = None
        _scraped_extras(raw, s.first + k)
        yield raw, entry, rows


def write(out: Path, n: int, seed: int = 7) -> dict[str, Any]:
    """Write the three files into ``out``, one record at a time."""
    out.mkdir(parents=True, exist_ok=True)
    human: dict[str, list[dict]] = {}
    dumps = json.JSONEncoder(ensure_ascii=True, separators=(",", ":")).encode
    with open(out / "items_shuffle.json", "w", encoding="utf-8") as products, \
            open(out / "items_ins_v2.json", "w", encoding="utf-8") as attrs:
        products.write("[")
        attrs.write("{")
        for i, (raw, entry, rows) in enumerate(generate(n, seed)):
            sep = "," if i else ""
            products.write(sep + dumps(raw))
            attrs.write(sep + dumps(raw["asin"]) + ":" + dumps(entry))
            if rows:
                human[raw["asin"]] = rows
        products.write("]\n")
        attrs.write("}\n")
    (out / "items_human_ins.json").write_text(dumps(human) + "\n", encoding="utf-8")
    sizes = cluster_sizes(n)
    return {
        "products": n, "clusters": len(sizes), "largest_cluster": max(sizes), "smallest_cluster": min(sizes),
        "instructions": sum(len(r) for r in human.values()),
        "bytes": {p.name: p.stat().st_size for p in sorted(out.glob("items_*.json"))},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--products", type=int, required=True, help="number of products (WebShop's full set: 1181436)")
    ap.add_argument("--out", type=Path, required=True, help="output directory (under /tmp or artifacts/; never committed)")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    if args.products < QUERIES:
        ap.error(f"--products must be at least {QUERIES} (one per scrape query)")
    t0 = time.perf_counter()
    summary = write(args.out, args.products, args.seed)
    summary["seconds"] = round(time.perf_counter() - t0, 1)
    json.dump(summary, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
