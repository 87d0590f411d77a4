"""The WebShop adapter on a generated 10 k-product catalogue in WebShop's full-set layout.

Facts that do not depend on the catalogue's size: the cluster index covers every product once,
under its own scrape query; a cluster's ground truth equals a brute-force scan with the full
reward; graphs build and pass the battery while only a fraction of the products is ever parsed
whole. The large runs (100 k, 1.18 M) live in perf/bench_webshop_scale.py.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from miscue.adapters.webshop import WebShopAdapter
from miscue.adapters.webshop.adapter import DATA_DIR_VARIABLE
from miscue.adapters.webshop.catalogue import Catalogue
from miscue.adapters.webshop.oracle import all_purchases, purchase_key
from miscue.graphs import GraphBuilder, battery
from miscue.host import NotExecutable, Seed

ROOT = Path(__file__).resolve().parents[2]
PRODUCTS = 10_000


def generate(out: Path, n: int) -> dict:
    generator = ROOT / "scripts" / "make_webshop_scale.py"
    proc = subprocess.run([sys.executable, str(generator), "--products", str(n), "--out", str(out)],
                          check=True, capture_output=True, text=True)
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def scale(tmp_path_factory):
    data = tmp_path_factory.mktemp("webshop10k")
    summary = generate(data, PRODUCTS)
    return data, summary, WebShopAdapter(data, require_full_quota=False, product_cache=2_000)


def test_generator_writes_webshop_layout_deterministically(tmp_path, scale):
    data, summary, _ = scale
    assert sorted(p.name for p in data.glob("*.json")) == ["items_human_ins.json", "items_ins_v2.json", "items_shuffle.json"]
    assert summary["products"] == PRODUCTS and summary["clusters"] == 113
    assert summary["largest_cluster"] > 20 * summary["smallest_cluster"]  # Zipf-skewed cluster sizes
    first, second = generate(tmp_path / "a", 600), generate(tmp_path / "b", 600)
    first.pop("seconds"), second.pop("seconds")
    assert first == second
    for name in first["bytes"]:
        a, b = ((tmp_path / side / name).read_bytes() for side in ("a", "b"))
        assert hashlib.sha256(a).digest() == hashlib.sha256(b).digest()


def test_cluster_index_covers_every_product_once(scale):
    data, summary, adapter = scale
    catalogue = adapter.catalogue
    records = json.loads((data / "items_shuffle.json").read_bytes())
    assert catalogue.products_loaded == len(records) == PRODUCTS
    by_query = Counter(r["query"].lower().strip() for r in records)
    assert {c: catalogue.cluster_size(c) for c in catalogue.clusters} == dict(by_query)
    indexed = [a for c in catalogue.clusters for a in catalogue.index(c).asins]
    assert len(indexed) == len(set(indexed)) == PRODUCTS
    assert set(indexed) == {r["asin"] for r in records}
    assert catalogue.parsed == 0  # indexing keeps no whole product
    human = json.loads((data / "items_human_ins.json").read_bytes())
    rows = [r for rs in human.values() for r in rs]
    with_attributes = sum(1 for r in rows if r["instruction_attributes"])
    assert len(catalogue.goals) == with_attributes == summary["instructions"] - catalogue.skipped_instructions
    # a product parsed from its byte span is the record of the file
    cluster = catalogue.clusters[0]
    product = catalogue.product(cluster, 3)
    record = next(r for r in records if r["asin"] == product.asin)
    assert (product.name, product.query) == (record["name"], cluster) and product.query == record["query"].lower().strip()


def test_a_child_process_parses_to_the_same_catalogue(scale):
    """A large catalogue is parsed in a child process while this one indexes (the 10 k one is
    parsed here by default): both ways give the same hashes, goals, indexes and records."""
    data, _, adapter = scale
    here = adapter.catalogue
    seen: list[int] = []
    child = Catalogue(data, product_cache=2_000, parse_in_child=True, progress=lambda done, total: seen.append(done))
    assert seen[-1] == sum((data / n).stat().st_size for n in ("items_shuffle.json", "items_ins_v2.json"))
    assert child.sha256 == here.sha256 and child.products_loaded == here.products_loaded == PRODUCTS
    assert child.goals == here.goals and child.goal_products == here.goal_products
    assert child.skipped_instructions == here.skipped_instructions
    assert child.clusters == here.clusters
    for cluster in child.clusters:
        a, b = child.index(cluster), here.index(cluster)
        assert (a.asins, a.prices, a.value_holders) == (b.asins, b.prices, b.value_holders)
        assert a.common_attributes == b.common_attributes
        assert a.attr_choices == b.attr_choices and all(a.owners(k) == b.owners(k) for k in range(len(a.attr_choices)))
        assert a.text() == b.text()
        last = (child.product(cluster, len(a) - 1), here.product(cluster, len(b) - 1))
        assert dataclasses.astuple(last[0]) == dataclasses.astuple(last[1])


def test_the_index_knows_what_every_product_of_a_cluster_shares(scale):
    """What the grounding forms read from a cluster (the attributes all its products hold, its top
    price) comes from the index and equals what parsing every product gives."""
    _, _, adapter = scale
    catalogue = adapter.catalogue
    shared = 0
    for cluster in catalogue.clusters:
        index, products = catalogue.index(cluster), catalogue.load_cluster(cluster)
        assert index.common_attributes == set.intersection(*(set(p.attributes) for p in products)), cluster
        assert index.price_range[1] == max(p.price for p in products)
        shared += bool(index.common_attributes)
    assert shared >= len(catalogue.clusters) // 2


def _brute_force(adapter, intent) -> set[str]:
    """Every (product, full option choice) of the intent's cluster the full reward scores 1.0."""
    found = set()
    for product in adapter.catalogue.load_cluster(intent.base["cluster"]):
        for choice in all_purchases(product):
            if adapter.score(intent, product.asin, choice).total == 1.0:
                found.add(purchase_key(product.asin, choice.items()))
    return found


def test_ground_truth_equals_a_brute_force_scan_on_a_small_cluster(scale):
    _, _, adapter = scale
    catalogue = adapter.catalogue
    clusters = sorted({g.cluster for g in catalogue.goals}, key=catalogue.cluster_size)
    compared = 0
    for cluster in clusters[:3]:
        for goal in [g for g in catalogue.goals if g.cluster == cluster][:4]:
            check = adapter.validate(Seed(str(goal.index), "test", {}))
            if not check.ok:
                continue
            root = check.intent
            for intent in [root] + [root.without(c.slot) for c in root.conditions]:
                try:
                    truth = adapter.ground_truth(intent)
                except NotExecutable:
                    continue
                assert set(truth.value) == _brute_force(adapter, intent), (cluster, intent.intent_id)
                assert adapter.reexecute(intent).hash == truth.hash
                compared += 1
    assert compared >= 10
    assert adapter.disagreements == 0


def test_graphs_build_and_pass_the_battery_parsing_few_products(scale):
    _, _, adapter = scale
    seeds = adapter.load_seeds()
    cluster = Counter(s.payload["query"] for s in seeds).most_common(1)[0][0]
    chosen = [s for s in seeds if s.payload["query"] == cluster][:6] + [s for s in seeds if s.payload["query"] != cluster][:4]
    adapter.load_seeds = lambda: chosen  # type: ignore[method-assign]
    before = adapter.catalogue.parsed
    build = GraphBuilder(adapter).build()
    assert len(build.graphs) >= 6
    for g in build.graphs:
        assert battery(g, adapter) == []
    touched = {s.payload["query"] for s in chosen}
    assert adapter.catalogue.parsed - before < sum(adapter.catalogue.cluster_size(c) for c in touched)
    assert len(adapter.catalogue._products) <= 2_000  # the parsed-product cache stays bounded


def test_data_directory_from_the_environment(scale, monkeypatch):
    data, _, adapter = scale
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(data))
    assert WebShopAdapter().env_id == adapter.env_id
    monkeypatch.delenv(DATA_DIR_VARIABLE)
    assert WebShopAdapter().env_id != adapter.env_id  # the shipped catalogue
