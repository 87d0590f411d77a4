"""The catalogue: WebShop's three data files, streamed once into goals and a cluster index.

Files, in WebShop's layouts (``web_agent_site/utils.py``), read from one directory:

* ``items_shuffle*.json``: a JSON list of scraped products;
* ``items_ins_v2*.json``: ``asin -> {"attributes": [...], ...}`` (mined attributes);
* ``items_human_ins.json``: ``asin -> [{"instruction", "instruction_attributes",
  "instruction_options", ...}]`` (the human AMT instructions).

Large catalogues: the products and attributes files are streamed once (never loaded whole);
each product's byte offset is indexed by cluster, and a cluster is parsed on demand (a small
LRU keeps the recent ones). The same path serves the 425-product shipped catalogue and the
1.18M-product full one.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from array import array
from collections import OrderedDict
from pathlib import Path

from adapters.webshop.goals import GOAL_SHUFFLE_SEED, Goal, price_ceiling
from adapters.webshop.records import RawProduct, check_attributes, check_human, check_product, pinned_price
from adapters.webshop.reward import DUMMY_ATTR, Product
from adapters.webshop.stream import Malformed, iter_array, iter_object, read_entry_at, read_value_at
from miscue.host import HostDataError, NotExecutable


def _find_files(directory: Path, suffix: str | None) -> tuple[Path, Path, Path]:
    if not directory.is_dir():
        raise HostDataError(f"{directory}: WebShop data directory not found (field: <directory>, holding items_shuffle*.json, items_ins_v2*.json, items_human_ins.json)")
    if suffix is None:
        found = sorted(directory.glob("items_shuffle*.json"))
        if not found:
            raise HostDataError(f"{directory / 'items_shuffle*.json'}: file not found (field: <file>, the WebShop products list)")
        full = directory / "items_shuffle.json"
        if len(found) > 1 and full not in found:
            names = ", ".join(p.name for p in found)
            raise HostDataError(f"{directory / 'items_shuffle*.json'}: several candidates ({names}); pass suffix= to choose (field: <file>)")
        products = full if len(found) > 1 else found[0]
        suffix = products.name[len("items_shuffle"):-len(".json")]
    products = directory / f"items_shuffle{suffix}.json"
    attrs = directory / f"items_ins_v2{suffix}.json"
    human = directory / "items_human_ins.json"
    for path, what in ((products, "the products list"), (attrs, "asin -> attributes"), (human, "asin -> human instructions")):
        if not path.is_file():
            raise HostDataError(f"{path}: file not found (field: <file>, {what})")
    return products, attrs, human


class Catalogue:
    """The three files, streamed once: goals, per-cluster byte offsets, content hashes."""

    def __init__(self, directory: Path, suffix: str | None = None, cluster_cache: int = 32, chunk: int = 1 << 20) -> None:
        self.products_path, self.attrs_path, self.human_path = _find_files(Path(directory), suffix)
        self.sha256: dict[str, str] = {}
        self._cluster_cache = cluster_cache
        self._clusters: OrderedDict[str, list[Product]] = OrderedDict()
        human_bytes = self.human_path.read_bytes()
        self.sha256[self.human_path.name] = hashlib.sha256(human_bytes).hexdigest()
        try:
            human = check_human(self.human_path, json.loads(human_bytes))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise HostDataError(f"{self.human_path}: not valid JSON ({exc}) (field: <root>)") from None
        del human_bytes

        self.product_offsets: dict[str, array] = {}
        self.goal_products: dict[str, RawProduct] = {}
        cluster_no: dict[str, int] = {}  # asin -> cluster number, for the attributes pass only
        numbers: dict[str, int] = {}
        goals: list[Goal] = []
        skipped = 0
        hasher = hashlib.sha256()
        with open(self.products_path, "rb") as fh:
            try:
                for i, (offset, raw) in enumerate(iter_array(fh, hasher, chunk)):
                    rec = check_product(self.products_path, i, raw)
                    if rec is None or rec.asin in cluster_no:
                        continue
                    if rec.query not in numbers:
                        numbers[rec.query] = len(numbers)
                        self.product_offsets[rec.query] = array("q")
                    self.product_offsets[rec.query].append(offset)
                    cluster_no[rec.asin] = numbers[rec.query]
                    for text, attributes, options in human.get(rec.asin, ()):
                        if not attributes:
                            skipped += 1  # get_human_goals skips (and counts) these
                            continue
                        price = pinned_price(rec.asin, rec.pricing)
                        goals.append(Goal(-1, rec.asin, rec.query, text, attributes, options, price, price_ceiling(price)))
                        self.goal_products[rec.asin] = rec
            except Malformed as exc:
                raise HostDataError(f"{self.products_path}: {exc} (field: {exc.field})") from None
            except UnicodeDecodeError as exc:
                raise HostDataError(f"{self.products_path}: not UTF-8 ({exc}) (field: <file>)") from None
        self.sha256[self.products_path.name] = hasher.hexdigest()
        self.skipped_instructions = skipped
        self.products_loaded = len(cluster_no)

        names = list(numbers)
        self.attr_offsets: dict[str, array] = {name: array("q") for name in names}
        hasher = hashlib.sha256()
        with open(self.attrs_path, "rb") as fh:
            try:
                for offset, asin, value in iter_object(fh, hasher, chunk):
                    attrs = check_attributes(self.attrs_path, asin, value)
                    if asin in cluster_no and attrs is not None:
                        self.attr_offsets[names[cluster_no[asin]]].append(offset)
            except Malformed as exc:
                raise HostDataError(f"{self.attrs_path}: {exc} (field: {exc.field})") from None
            except UnicodeDecodeError as exc:
                raise HostDataError(f"{self.attrs_path}: not UTF-8 ({exc}) (field: <file>)") from None
        self.sha256[self.attrs_path.name] = hasher.hexdigest()
        del cluster_no

        random.Random(GOAL_SHUFFLE_SEED).shuffle(goals)  # == random.seed(233); random.shuffle(goals)
        self.goals = [dataclasses.replace(g, index=i) for i, g in enumerate(goals)]

    @property
    def clusters(self) -> list[str]:
        return list(self.product_offsets)

    def load_cluster(self, cluster: str) -> list[Product]:
        """The cluster's products in file order, parsed from their offsets (LRU-cached)."""
        if cluster in self._clusters:
            self._clusters.move_to_end(cluster)
            return self._clusters[cluster]
        if cluster not in self.product_offsets:
            raise NotExecutable("unknown_cluster", cluster)
        attributes: dict[str, tuple[str, ...]] = {}
        with open(self.attrs_path, "rb") as fh:
            for offset in self.attr_offsets.get(cluster, ()):
                asin, value = read_entry_at(fh, offset)
                attributes[asin] = check_attributes(self.attrs_path, asin, value) or (DUMMY_ATTR,)
        products = []
        with open(self.products_path, "rb") as fh:
            for offset in self.product_offsets[cluster]:
                rec = check_product(self.products_path, f"at byte {offset}", read_value_at(fh, offset))
                assert rec is not None
                products.append(Product(
                    asin=rec.asin, name=rec.name, query=rec.query, category=rec.category,
                    product_category=rec.product_category, bullet_points=rec.bullets, description=rec.description,
                    attributes=attributes.get(rec.asin, (DUMMY_ATTR,)), options=rec.options, pricing=rec.pricing,
                    price=pinned_price(rec.asin, rec.pricing),
                ))
        self._clusters[cluster] = products
        while len(self._clusters) > self._cluster_cache:
            self._clusters.popitem(last=False)
        return products
