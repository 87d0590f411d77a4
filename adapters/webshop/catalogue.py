"""The catalogue: WebShop's three data files, streamed once into goals and cluster indexes.

Files, in WebShop's layouts (``web_agent_site/utils.py``), read from one directory:

* ``items_shuffle*.json``: a JSON list of scraped products;
* ``items_ins_v2*.json``: ``asin -> {"attributes": [...], ...}`` (mined attributes);
* ``items_human_ins.json``: ``asin -> [{"instruction", "instruction_attributes",
  "instruction_options", ...}]`` (the human AMT instructions).

Large catalogues: the products and attributes files are streamed once (never loaded whole)
and every record is checked on the way -- for a large catalogue by a child process on another
core while this one indexes (:mod:`miscue.adapters.webshop.parsing`). What the goal scans read is
indexed per cluster in memory (:class:`~miscue.adapters.webshop.index.ClusterIndex`: a few hundred
bytes a product). The rest goes to an anonymous temporary file: the products' lower-cased
texts, in runs per cluster, and each checked record with its attributes in a compact form
(``marshal``), so a full product is rebuilt without JSON or checks, only when a scan needs it
(the most recent ones are kept). The catalogue is thus a snapshot of the files whose hashes it
reports. The same path serves the 425-product shipped catalogue and the 1.18M-product full one.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import hashlib
import json
import marshal
import os
import random
import tempfile
import weakref
from array import array
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable

from miscue.adapters.webshop.goals import GOAL_SHUFFLE_SEED, Goal, price_ceiling
from miscue.adapters.webshop.index import ClusterIndex
from miscue.adapters.webshop.parsing import ATTRIBUTES, PRODUCT, parsed
from miscue.adapters.webshop.records import RawProduct, check_human
from miscue.adapters.webshop.reward import DUMMY_ATTR, Product
from miscue.host import HostDataError, NotExecutable

SPILL_RUN = 1 << 20  # a cluster's texts go to the spill file in runs of about this many bytes
#: told (bytes read, bytes to read) of the products and attributes files after every chunk
Progress = Callable[[int, int], None]


def _find_files(directory: Path, suffix: str | None) -> tuple[Path, Path, Path]:
    if not directory.is_dir():
        raise HostDataError(f"{directory}: WebShop data directory not found (field: <directory>, holding items_shuffle*.json, "
                            "items_ins_v2*.json, items_human_ins.json)")
    if suffix is None:
        found = sorted(directory.glob("items_shuffle*.json"))
        if not found:
            raise HostDataError(f"{directory / 'items_shuffle*.json'}: file not found (field: <file>, the WebShop products list)")
        full = directory / "items_shuffle.json"
        if len(found) > 1 and full not in found:
            names = ", ".join(p.name for p in found)
            raise HostDataError(f"{directory / 'items_shuffle*.json'}: several candidates ({names}); "
                                "pass suffix= to choose (field: <file>)")
        products = full if len(found) > 1 else found[0]
        suffix = products.name[len("items_shuffle"):-len(".json")]
    products = directory / f"items_shuffle{suffix}.json"
    attrs = directory / f"items_ins_v2{suffix}.json"
    human = directory / "items_human_ins.json"
    for path, what in ((products, "the products list"), (attrs, "asin -> attributes"), (human, "asin -> human instructions")):
        if not path.is_file():
            raise HostDataError(f"{path}: file not found (field: <file>, {what})")
    return products, attrs, human


def _without_cycle_collection(read: Callable[..., None]) -> Callable[..., None]:
    """Pause Python's cyclic garbage collector while the files are read: the pass allocates
    millions of short-lived containers and builds no reference cycles, and the collector's full
    passes over the growing index cost about a tenth of the pass (measured at 100 k products)."""

    @functools.wraps(read)
    def paused(*args: Any, **kwargs: Any) -> None:
        enabled = gc.isenabled()
        gc.disable()
        try:
            read(*args, **kwargs)
        finally:
            if enabled:
                gc.enable()

    return paused


class _Cluster:
    """One cluster's index plus where its spilled data is: per position the span of the product
    record and of its attributes (length 0: none), and the runs of its texts."""

    def __init__(self, index: ClusterIndex, number: int) -> None:
        self.index = index
        self.number = number  # order of first appearance in the products file
        self.record_offsets, self.record_lengths = array("q"), array("I")
        self.attr_offsets, self.attr_lengths = array("q"), array("I")
        self.runs: list[tuple[int, int]] = []
        self.pending = bytearray()
        self.rewritten = False  # an asin had several attributes entries (the last one counts)


def _raw_product(query: str, record: bytes) -> RawProduct:
    """The checked record of a product from its spilled form."""
    asin, name, category, product_category, bullets, description, options, pricing, _ = marshal.loads(record)
    return RawProduct(asin, name, query, category, product_category, bullets, description, options, pricing)


class Catalogue:
    """The three files, streamed once: goals, cluster indexes, content hashes.

    ``product_cache`` full products and ``text_cache`` bytes of cluster texts stay in memory,
    the most recently used first; ``progress`` is told how far the streaming has come.
    ``parse_in_child``: decode and check the records in a child process, overlapped with the
    indexing here (default: for a large products file, see :mod:`miscue.adapters.webshop.parsing`).
    """

    @_without_cycle_collection
    def __init__(self, directory: Path, suffix: str | None = None, chunk: int = 1 << 20,
                 product_cache: int = 100_000, text_cache: int = 512 << 20, progress: Progress | None = None,
                 parse_in_child: bool | None = None) -> None:
        self.products_path, self.attrs_path, self.human_path = _find_files(Path(directory), suffix)
        total = self.products_path.stat().st_size + self.attrs_path.stat().st_size
        self.sha256: dict[str, str] = {}
        self._product_cache, self._text_cache = product_cache, text_cache
        self._products: OrderedDict[tuple[str, int], Product] = OrderedDict()
        self._texts: OrderedDict[str, bytes] = OrderedDict()
        self._texts_held = 0
        self.parsed = 0  # full products rebuilt since the files were indexed
        self._spill = tempfile.TemporaryFile(prefix="miscue-webshop-")
        self._spill_end = 0
        weakref.finalize(self, self._spill.close)
        human_bytes = self.human_path.read_bytes()
        self.sha256[self.human_path.name] = hashlib.sha256(human_bytes).hexdigest()
        try:
            human = check_human(self.human_path, json.loads(human_bytes))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise HostDataError(f"{self.human_path}: not valid JSON ({exc}) (field: <root>)") from None
        del human_bytes

        self._clusters: dict[str, _Cluster] = {}
        self.goal_products: dict[str, RawProduct] = {}
        where: dict[str, int] = {}  # asin -> cluster number << 32 | position, for the attributes
        order: list[_Cluster] = []
        goals: list[Goal] = []
        skipped = 0
        read = 0

        def seen(n: int) -> None:
            nonlocal read
            read += n
            if progress is not None:
                progress(read, total)

        for event in parsed(self.products_path, self.attrs_path, chunk, seen, parse_in_child):
            if event[0] == PRODUCT:
                _, asin, query, price, options, text, record = event
                c = self._clusters.get(query)
                if c is None:
                    c = self._clusters[query] = self._new_cluster(query, len(order))
                    order.append(c)
                pos = c.index.add_product(asin, price, options, text)
                self._spill_to(c.record_offsets, c.record_lengths, record)
                c.pending += text
                if len(c.pending) >= SPILL_RUN:
                    self._flush(c)
                where[asin] = c.number << 32 | pos
                for text_, attributes, goal_options in human.get(asin, ()):
                    if not attributes:
                        skipped += 1  # get_human_goals skips (and counts) these
                        continue
                    goals.append(Goal(-1, asin, query, text_, attributes, goal_options, price, price_ceiling(price)))
                    self.goal_products[asin] = _raw_product(query, record)
            elif event[0] == ATTRIBUTES:
                _, asin, attrs, packed = event
                at = where[asin]
                c, pos = order[at >> 32], at & 0xFFFFFFFF
                c.rewritten |= c.attr_lengths[pos] > 0
                c.attr_offsets[pos], c.attr_lengths[pos] = self._append(packed), len(packed)
                c.index.add_attributes(pos, attrs)
            else:  # DIGEST: the end of a file
                _, name, digest = event
                self.sha256[name] = digest
                if name == self.products_path.name:  # every product is in: room for the attributes
                    self.products_loaded = len(where)
                    for c in order:
                        self._flush(c)
                        n = len(c.index)
                        c.attr_offsets = array("q", bytes(8 * n))
                        c.attr_lengths = array("I", bytes(4 * n))
        self.skipped_instructions = skipped
        del where
        self._spill.flush()
        for c in order:
            if c.rewritten:  # index only the last entry of each asin, as a dict load would
                c.index.clear_attributes()
                for pos in range(len(c.index)):
                    attrs = self._attributes(c, pos)
                    if attrs is not None:
                        c.index.add_attributes(pos, attrs)
            c.index.finish()

        random.Random(GOAL_SHUFFLE_SEED).shuffle(goals)  # == random.seed(233); random.shuffle(goals)
        self.goals = [dataclasses.replace(g, index=i) for i, g in enumerate(goals)]

    def _new_cluster(self, name: str, number: int) -> _Cluster:
        return _Cluster(ClusterIndex(name, lambda pos: self.product(name, pos), lambda: self._text(name)), number)

    def _spill_to(self, offsets: array, lengths: array, data: bytes) -> None:
        offsets.append(self._append(data))
        lengths.append(len(data))

    def _flush(self, c: _Cluster) -> None:
        if c.pending:
            c.runs.append((self._append(c.pending), len(c.pending)))
            c.pending = bytearray()

    def _append(self, data: bytes | bytearray) -> int:
        """Write ``data`` at the end of the spill file; its offset (counted here: asking the
        buffered file costs a system call's worth of time per record)."""
        at = self._spill_end
        self._spill.write(data)
        self._spill_end = at + len(data)
        return at

    def _read(self, offset: int, length: int) -> bytes:
        return os.pread(self._spill.fileno(), length, offset)

    @property
    def spill_bytes(self) -> int:
        """Size of the temporary file holding the texts and compact records."""
        return os.fstat(self._spill.fileno()).st_size

    @property
    def clusters(self) -> list[str]:
        return list(self._clusters)

    def cluster_size(self, cluster: str) -> int:
        """How many products the cluster holds."""
        c = self._clusters.get(cluster)
        return len(c.index) if c is not None else 0

    def index(self, cluster: str) -> ClusterIndex:
        """The cluster's index (all clusters are indexed while the files are read)."""
        c = self._clusters.get(cluster)
        if c is None:
            raise NotExecutable("unknown_cluster", cluster)
        return c.index

    def _text(self, cluster: str) -> bytes:
        text = self._texts.get(cluster)
        if text is None:
            text = b"".join(self._read(offset, length) for offset, length in self._clusters[cluster].runs)
            self._texts[cluster] = text
            self._texts_held += len(text)
            while self._texts_held > self._text_cache and len(self._texts) > 1:
                _, evicted = self._texts.popitem(last=False)
                self._texts_held -= len(evicted)
        self._texts.move_to_end(cluster)
        return text

    def _attributes(self, c: _Cluster, pos: int) -> tuple[str, ...] | None:
        return marshal.loads(self._read(c.attr_offsets[pos], c.attr_lengths[pos])) if c.attr_lengths[pos] else None

    def product(self, cluster: str, pos: int) -> Product:
        """The ``pos``-th product of the cluster (file order), rebuilt from its spilled record."""
        key = (cluster, pos)
        product = self._products.get(key)
        if product is not None:
            self._products.move_to_end(key)
            return product
        c = self._clusters[cluster]
        asin, name, category, product_category, bullets, description, options, pricing, price = marshal.loads(
            self._read(c.record_offsets[pos], c.record_lengths[pos]))
        self.parsed += 1
        product = Product(
            asin=asin, name=name, query=cluster, category=category, product_category=product_category,
            bullet_points=bullets, description=description, attributes=self._attributes(c, pos) or (DUMMY_ATTR,),
            options=options, pricing=pricing, price=price,
        )
        self._products[key] = product
        if len(self._products) > self._product_cache:
            self._products.popitem(last=False)
        return product

    def load_cluster(self, cluster: str) -> list[Product]:
        """The cluster's products in file order, all parsed."""
        return list(self.index(cluster).products)

