"""WebShop (princeton-nlp/WebShop) on its own three data files, with its reward as the oracle.

Files, in WebShop's layouts (``web_agent_site/utils.py``), read from one directory (default:
the catalogue this repository ships in ``data/webshop/``):

* ``items_shuffle*.json``: a JSON list of scraped products;
* ``items_ins_v2*.json``: ``asin -> {"attributes": [...], ...}`` (mined attributes);
* ``items_human_ins.json``: ``asin -> [{"instruction", "instruction_attributes",
  "instruction_options", ...}]`` (the human AMT instructions).

Goals are built as WebShop's server builds its human goals: in product order, one per
instruction of a loaded product (instructions without attributes skipped), then shuffled as by
``random.seed(233); random.shuffle(goals)``; indices 0-499 are the test split, 500-1499 eval,
the rest train. WebShop draws each price ceiling at random; here it is pinned to the second
10-dollar step of the 10..990 ladder above the product price (the reference release's rule) and
recorded in the seed and in the intent. A ranged price ("$10 - $20") is pinned by a draw seeded
with the asin.

An intent is ``base = {"cluster": <scrape query>, "target": <opaque reference>}`` plus
conditions ``attr:<text> = <text>`` (goal attributes; the slot name states its value),
``option:<name> = <value>`` (goal options, named after the target's option that offers them)
and ``price <= <ceiling>``. The target reference is a hash of the annotated product's asin: the
goal's type factor compares product names with the target's name, so the target belongs to the
frame, but neither its asin nor its name is ever put into words a writer sees. Intents live in
a per-cluster scope of the catalogue's environment (``<env_id>/<cluster hash>``): candidate
scans, retrieval and pivots stay inside the product's cluster, as in the reference release.

The ground truth of an intent is every purchase (a product of the cluster and one chosen value
for each of its options) that WebShop's reward scores 1.0: see :mod:`adapters.webshop_reward`.

Large catalogues: the products and attributes files are streamed once (never loaded whole);
each product's byte offset is indexed by cluster, and a cluster is parsed on demand (a small
LRU keeps the recent ones). The same path serves the 425-product shipped catalogue and the
1.18M-product full one.
"""

from __future__ import annotations

import codecs
import dataclasses
import hashlib
import json
import random
import re
from array import array
from collections import Counter, OrderedDict
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Iterator, Mapping, Sequence

from miscue.host import Adapter, Extra, FaultSupport, HostDataError, Mismatch, NotExecutable, Seed, SeedCheck
from adapters.webshop.reward import (
    DUMMY_ATTR,
    PRICE_RANGE,
    PRICE_UNBOUNDED,
    ClusterOracle,
    GoalSpec,
    NounTagger,
    Product,
    Purchase,
    Reward,
    TooManyPurchases,
    distinguishable,
    fuzz_process,
    load_noun_tagger,
    option_values_match,
    reward,
    rewards_of_choices,
)
from miscue.canonical import content_hash
from miscue.schema import Condition, GroundTruth, Intent
from miscue.taxonomy import FAULT_TYPES

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "data" / "webshop"
GOAL_SHUFFLE_SEED = 233
#: (split, first goal index, end) after the seed-233 shuffle (baseline_models/env.py)
SPLITS = (("test", 0, 500), ("eval", 500, 1500), ("train", 1500, None))
MAX_PURCHASES = 200_000
MAX_WITNESSES = 200

ATTR, OPTION, PRICE = "attr:", "option:", "price"

#: what a WebShop session can do: search[...] and click[...] on results, options, the item's
#: tabs (description, features, reviews), pagination, "Buy Now". Operations a shopper may ask
#: for that are none of these (the wrong instrument for a purchase the site can make).
UNSUPPORTED_OPERATIONS: dict[str, str] = {
    "price_alert": "set a price alert so it gets ordered automatically once it is cheap enough",
    "sort_by_price": "sort the search results by lowest price and take the first one",
    "price_filter": "use the store's price filter to show only items under my budget",
    "store_pickup": "reserve it for in-store pickup",
    "subscribe_and_save": "set it up as a subscribe-and-save delivery",
    "ask_seller": "ask the seller to confirm it before ordering",
}


def split_of(goal_index: int) -> str:
    for name, lo, hi in SPLITS:
        if goal_index >= lo and (hi is None or goal_index < hi):
            return name
    raise ValueError(f"negative goal index {goal_index}")


def price_ceiling(price: float) -> int | None:
    """The second ladder step strictly above ``price`` (None when fewer than two remain)."""
    steps = [p for p in PRICE_RANGE if p > price][:4]
    return steps[1] if len(steps) >= 2 else None


def target_ref(asin: str) -> str:
    return "t" + content_hash("webshop-target", asin, length=12)


# ------------------------------------------------------------------------- streaming JSON
_DECODER = json.JSONDecoder()
_NON_WS = re.compile(r"[^ \t\n\r]")


class _Malformed(Exception):
    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


class _Reader:
    """Sequential reader of one JSON text that knows the byte offset of every value it reads.

    Reads fixed-size chunks, so a multi-gigabyte file is never held whole; ``hasher`` sees
    every byte read (the content hash comes for free with the single streaming pass).
    """

    MAX_VALUE_CHARS = 64 << 20

    def __init__(self, fh: BinaryIO, offset: int = 0, hasher: Any = None, chunk: int = 1 << 20) -> None:
        self._fh = fh
        fh.seek(offset)
        self._dec = codecs.getincrementaldecoder("utf-8")()
        self._hasher = hasher
        self._chunk = chunk
        self.buf = ""
        self.pos = 0
        self.byte = offset  # byte offset of buf[pos]
        self.eof = False

    def _fill(self) -> bool:
        if self.eof:
            return False
        data = self._fh.read(self._chunk)
        if self._hasher is not None:
            self._hasher.update(data)
        text = self._dec.decode(data, final=not data)
        self.buf = self.buf[self.pos:] + text
        self.pos = 0
        if not data:
            self.eof = True
        return bool(data)

    def _advance(self, end: int) -> None:
        piece = self.buf[self.pos:end]
        self.byte += len(piece) if piece.isascii() else len(piece.encode("utf-8"))
        self.pos = end

    def peek(self) -> str | None:
        """The next non-whitespace character (not consumed); None at the end of the file."""
        while True:
            m = _NON_WS.search(self.buf, self.pos)
            if m:
                self._advance(m.start())
                return self.buf[self.pos]
            self._advance(len(self.buf))
            if not self._fill() and self.pos >= len(self.buf):
                return None

    def take(self, expected: str, field: str) -> None:
        ch = self.peek()
        if ch != expected:
            raise _Malformed(f"expected {expected!r} at byte {self.byte}, found {ch!r}", field)
        self._advance(self.pos + 1)

    def value(self, field: str) -> tuple[int, Any]:
        """(byte offset, parsed value) of the JSON value starting at the next character."""
        if self.peek() is None:
            raise _Malformed(f"unexpected end of file at byte {self.byte}", field)
        start = self.byte
        while True:
            try:
                obj, end = _DECODER.raw_decode(self.buf, self.pos)
                if end < len(self.buf) or self.eof:  # a number could go on in the next chunk
                    self._advance(end)
                    return start, obj
            except json.JSONDecodeError as exc:
                if self.eof or len(self.buf) - self.pos > self.MAX_VALUE_CHARS:
                    raise _Malformed(f"not valid JSON at byte {start}: {exc.msg}", field) from None
            self._fill()

    def drain(self) -> None:
        """Require only whitespace up to the end (and let the hasher see every byte)."""
        ch = self.peek()
        if ch is not None:
            raise _Malformed(f"unexpected {ch!r} after the top-level value at byte {self.byte}", "<root>")


def iter_array(fh: BinaryIO, hasher: Any = None, chunk: int = 1 << 20) -> Iterator[tuple[int, Any]]:
    """(byte offset, element) of a top-level JSON list, streamed."""
    r = _Reader(fh, 0, hasher, chunk)
    if r.peek() != "[":
        raise _Malformed("the top level must be a JSON list", "<root>")
    r.take("[", "<root>")
    if r.peek() == "]":
        r.take("]", "<root>")
    else:
        i = 0
        while True:
            yield r.value(f"[{i}]")
            i += 1
            ch = r.peek()
            if ch == ",":
                r.take(",", f"[{i}]")
                continue
            r.take("]", f"[{i}]")
            break
    r.drain()


def iter_object(fh: BinaryIO, hasher: Any = None, chunk: int = 1 << 20) -> Iterator[tuple[int, str, Any]]:
    """(byte offset of the key, key, value) of a top-level JSON object, streamed."""
    r = _Reader(fh, 0, hasher, chunk)
    if r.peek() != "{":
        raise _Malformed("the top level must be a JSON object", "<root>")
    r.take("{", "<root>")
    if r.peek() == "}":
        r.take("}", "<root>")
    else:
        while True:
            offset, key = r.value("<key>")
            if not isinstance(key, str):
                raise _Malformed(f"object key at byte {offset} is not a string", "<key>")
            r.take(":", key)
            _, value = r.value(key)
            yield offset, key, value
            if r.peek() == ",":
                r.take(",", key)
                continue
            r.take("}", key)
            break
    r.drain()


def read_value_at(fh: BinaryIO, offset: int, chunk: int = 1 << 16) -> Any:
    return _Reader(fh, offset, chunk=chunk).value("<value>")[1]


def read_entry_at(fh: BinaryIO, offset: int, chunk: int = 1 << 16) -> tuple[str, Any]:
    r = _Reader(fh, offset, chunk=chunk)
    _, key = r.value("<key>")
    r.take(":", str(key))
    return key, r.value(str(key))[1]


# ------------------------------------------------------------------------ records and checks
def _fail(path: Path, where: str, field: str, problem: str) -> HostDataError:
    return HostDataError(f"{path}: {where}: field {field!r} {problem}")


def _want(path: Path, where: str, record: Any, field: str, kind: type | tuple[type, ...], optional: bool = False) -> Any:
    if not isinstance(record, dict):
        raise _fail(path, where, field, f"cannot be read: the record is a {type(record).__name__}, not an object")
    if field not in record:
        if optional:
            return None
        raise _fail(path, where, field, "is missing")
    value = record[field]
    if optional and value is None:
        return None
    if not isinstance(value, kind):
        names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise _fail(path, where, field, f"must be {names}, got {type(value).__name__}")
    return value


def _parse_pricing(path: Path, where: str, raw: Any) -> tuple[float, ...]:
    """load_products: split on '$', strip everything but digits and dots; none -> [100.0]."""
    if raw is None or raw == "" or raw == []:
        return (100.0,)
    if not isinstance(raw, str):
        raise _fail(path, where, "pricing", f"must be a string like '$12.99', got {type(raw).__name__}")
    try:
        values = tuple(float(Decimal(re.sub(r"[^\d.]", "", part))) for part in raw.split("$")[1:])
    except InvalidOperation:
        raise _fail(path, where, "pricing", f"cannot be parsed as a price: {raw!r}") from None
    return values[:2]


def pinned_price(asin: str, pricing: Sequence[float]) -> float:
    """generate_product_prices, pinned: one price per product; a range draws once, seeded by asin."""
    if not pricing:
        return 100.0
    if len(pricing) == 1:
        return float(pricing[0])
    return round(random.Random(f"webshop-price:{asin}").uniform(pricing[0], pricing[1]), 2)


@dataclass(frozen=True)
class _RawProduct:
    asin: str
    name: str
    query: str
    category: str
    product_category: str
    bullets: tuple[str, ...]
    description: str
    options: dict[str, tuple[str, ...]]
    pricing: tuple[float, ...]


def _check_product(path: Path, index: int | str, raw: Any) -> _RawProduct | None:
    """One raw record as load_products reads it; None for records WebShop skips."""
    where = f"product #{index}"
    asin = _want(path, where, raw, "asin", str)
    if asin == "nan" or len(asin) > 10:
        return None
    where = f"product #{index} (asin {asin})"
    name = _want(path, where, raw, "name", str)
    query = _want(path, where, raw, "query", str)
    category = _want(path, where, raw, "category", str)
    product_category = _want(path, where, raw, "product_category", str)
    description = _want(path, where, raw, "full_description", str)
    small = _want(path, where, raw, "small_description", (list, str))
    bullets = [small] if isinstance(small, str) else small
    if not all(isinstance(b, str) for b in bullets):
        raise _fail(path, where, "small_description", "must hold only strings")
    if "customization_options" not in raw:
        raise _fail(path, where, "customization_options", "is missing (null when the product has none)")
    custom = _want(path, where, raw, "customization_options", dict, optional=True) or {}
    options: dict[str, tuple[str, ...]] = {}
    for opt_name, contents in custom.items():
        if contents is None:
            continue
        field = f"customization_options.{opt_name}"
        if not isinstance(contents, list):
            raise _fail(path, where, field, f"must be a list of {{'value', 'image'}} objects, got {type(contents).__name__}")
        values = []
        for k, content in enumerate(contents):
            value = _want(path, where, content, "value", str) if isinstance(content, dict) else None
            if value is None:
                raise _fail(path, where, f"{field}[{k}].value", "must be a string")
            values.append(value.strip().replace("/", " | ").lower())
        if values:  # an option without values offers nothing to click: no choice to make
            options[opt_name.lower()] = tuple(values)
    pricing = _parse_pricing(path, where, raw.get("pricing"))
    return _RawProduct(asin, name, query.lower().strip(), category, product_category, tuple(bullets), description, options, pricing)


def _check_attributes(path: Path, asin: str, value: Any) -> tuple[str, ...] | None:
    where = f"entry {asin!r}"
    if not isinstance(value, dict):
        raise _fail(path, where, "attributes", f"cannot be read: the entry is a {type(value).__name__}, not an object")
    if "attributes" not in value:
        return None
    attrs = value["attributes"]
    if not isinstance(attrs, list) or not all(isinstance(a, str) for a in attrs):
        raise _fail(path, where, "attributes", "must be a list of strings")
    return tuple(attrs)


@dataclass(frozen=True)
class Goal:
    """One WebShop human goal, as ``get_human_goals`` builds it (price ceiling pinned)."""

    index: int  # goal index after the seed-233 shuffle
    asin: str
    cluster: str
    instruction: str
    attributes: tuple[str, ...]
    options: tuple[str, ...]
    price: float
    price_upper: int | None  # None: no ladder step left (WebShop's 1,000,000, no price text)

    @property
    def instruction_text(self) -> str:
        text = self.instruction.strip(".")
        if self.price_upper is not None:
            text += f", and price lower than {self.price_upper:.2f} dollars"
        return text

    def payload(self, product: _RawProduct) -> dict[str, Any]:
        return {
            "goal_idx": self.index, "asin": self.asin, "name": product.name, "query": self.cluster,
            "category": product.category, "product_category": product.product_category,
            "instruction": self.instruction, "instruction_text": self.instruction_text,
            "attributes": list(self.attributes), "goal_options": list(self.options),
            "price": self.price, "price_upper": self.price_upper,
            "price_rule": "second 10-dollar step of 10..990 above the product price",
        }


def _check_human(path: Path, data: Any) -> dict[str, list[tuple[str, tuple[str, ...], tuple[str, ...]]]]:
    if not isinstance(data, dict):
        raise _fail(path, "top level", "<root>", f"must be an object asin -> instructions, got {type(data).__name__}")
    out: dict[str, list[tuple[str, tuple[str, ...], tuple[str, ...]]]] = {}
    for asin, items in data.items():
        if not isinstance(items, list):
            raise _fail(path, f"asin {asin!r}", "<instructions>", f"must be a list, got {type(items).__name__}")
        rows = []
        for k, item in enumerate(items):
            where = f"asin {asin!r} instruction #{k}"
            text = _want(path, where, item, "instruction", str)
            fields = []
            for field in ("instruction_attributes", "instruction_options"):
                values = _want(path, where, item, field, list)
                if not all(isinstance(v, str) for v in values):
                    raise _fail(path, where, field, "must be a list of strings")
                fields.append(tuple(values))
            rows.append((text, fields[0], fields[1]))
        out[asin] = rows
    return out


# ---------------------------------------------------------------------------------- catalogue
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
            human = _check_human(self.human_path, json.loads(human_bytes))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise HostDataError(f"{self.human_path}: not valid JSON ({exc}) (field: <root>)") from None
        del human_bytes

        self.product_offsets: dict[str, array] = {}
        self.goal_products: dict[str, _RawProduct] = {}
        cluster_no: dict[str, int] = {}  # asin -> cluster number, for the attributes pass only
        numbers: dict[str, int] = {}
        goals: list[Goal] = []
        skipped = 0
        hasher = hashlib.sha256()
        with open(self.products_path, "rb") as fh:
            try:
                for i, (offset, raw) in enumerate(iter_array(fh, hasher, chunk)):
                    rec = _check_product(self.products_path, i, raw)
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
            except _Malformed as exc:
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
                    attrs = _check_attributes(self.attrs_path, asin, value)
                    if asin in cluster_no and attrs is not None:
                        self.attr_offsets[names[cluster_no[asin]]].append(offset)
            except _Malformed as exc:
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
                attributes[asin] = _check_attributes(self.attrs_path, asin, value) or (DUMMY_ATTR,)
        products = []
        with open(self.products_path, "rb") as fh:
            for offset in self.product_offsets[cluster]:
                rec = _check_product(self.products_path, f"at byte {offset}", read_value_at(fh, offset))
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


# ------------------------------------------------------------------------------------ adapter
@dataclass(frozen=True)
class _Spec:
    cluster: str
    asin: str
    goal: GoalSpec
    operation: str | None = None  # a store capability the site does not offer


class WebShopAdapter(Adapter[Purchase]):
    """WebShop human goals over a catalogue in WebShop's own file format."""

    benchmark = "webshop"
    name = "webshop"
    version = "1"

    def __init__(
        self,
        data_dir: str | Path | None = None,
        *,
        suffix: str | None = None,
        splits: Iterable[str] = ("test",),
        require_full_quota: bool = True,
        type_factor: str = "auto",
        cluster_cache: int = 32,
    ) -> None:
        self.data_dir = Path(data_dir) if data_dir is not None else DEFAULT_DATA_DIR
        self.cluster_cache = cluster_cache
        self.catalogue = Catalogue(self.data_dir, suffix, cluster_cache=4)
        self.splits = tuple(splits)
        unknown = set(self.splits) - {s for s, _, _ in SPLITS}
        if unknown:
            raise ValueError(f"unknown WebShop split(s) {sorted(unknown)}; known: test, eval, train")
        self.require_full_quota = require_full_quota
        self.tagger: NounTagger = load_noun_tagger(type_factor)
        self._env_id = "webshop:" + content_hash(sorted(self.catalogue.sha256.items()), self.tagger.id, length=12)
        self._targets = {target_ref(a): a for a in self.catalogue.goal_products}
        self._oracles: OrderedDict[str, ClusterOracle] = OrderedDict()
        self._compiled: OrderedDict[str, list[Purchase]] = OrderedDict()
        # domain() proposes values the reward cannot tell from the current one too; it remembers
        # them (candidate intent id -> the intents it is a blind shift of) for invalid_reason()
        self._blind_shifts: dict[str, set[str]] = {}
        self._domain_parent: str | None = None
        self.disagreements = 0  # compiled purchases the exact reward did not confirm (expected 0)

    # ------------------------------------------------------------------ identity and seeds
    @property
    def env_id(self) -> str:
        """The catalogue's environment: its three files' content hashes and the type factor."""
        return self._env_id

    @property
    def type_factor(self) -> str:
        """Which noun tagger the reward's type factor ran with (spaCy or the heuristic)."""
        return self.tagger.id

    def scope(self, cluster: str) -> str:
        """The per-cluster scope intents live in."""
        return f"{self._env_id}/{content_hash('cluster', cluster, length=8)}"

    def input_hashes(self) -> dict[str, str]:
        hashes = {f"webshop/{name}": sha for name, sha in sorted(self.catalogue.sha256.items())}
        hashes["webshop/oracle.type_factor"] = self.tagger.id
        return hashes

    def load_seeds(self) -> list[Seed]:
        return [
            Seed(str(g.index), split_of(g.index), g.payload(self.catalogue.goal_products[g.asin]))
            for g in self.catalogue.goals
            if split_of(g.index) in self.splits
        ]

    def goal(self, seed: Seed) -> Goal:
        return self.catalogue.goals[int(seed.task_id)]

    # ------------------------------------------------------------------------- validation
    def validate(self, seed: Seed) -> SeedCheck:
        goal = self.goal(seed)
        try:
            intent = self.lift(goal)
        except NotExecutable as exc:
            return SeedCheck(seed.task_id, False, f"seed:{exc.code}", exc.detail)
        try:
            purchases = self._confirmed(intent)
        except NotExecutable as exc:
            return SeedCheck(seed.task_id, False, "seed:not_executable", str(exc))
        if not any(p.asin == goal.asin for p in purchases):
            spec = self._spec(intent)
            product = self._product(goal.cluster, goal.asin)
            best = reward(product, spec.goal, product.price, _closest_choice(product, spec.goal.options), self.tagger)
            return SeedCheck(
                seed.task_id, False, "seed:target_not_maximal",
                f"the annotated product scores {best.total:.3f}: r_type {best.type.r_type}, unmatched attributes "
                f"{list(best.unmatched_attributes)}, unmatched options {list(best.unmatched_options)}, price ok {best.r_price}",
            )
        return SeedCheck(seed.task_id, True, "ok", "", intent)

    def lift(self, goal: Goal) -> Intent:
        """A goal as an intent: attributes, options (named by the target's options), ceiling."""
        target = self._product(goal.cluster, goal.asin)
        conds: list[Condition] = [Condition(slot=ATTR + a, value=a) for a in dict.fromkeys(goal.attributes)]
        used: Counter = Counter()
        for value in dict.fromkeys(goal.options):
            name = _offering_option(target, value)
            if name is None:
                raise NotExecutable("option_not_offered", f"goal option {value!r} matches no option value of the annotated product")
            used[name] += 1
            slot = OPTION + name if used[name] == 1 else f"{OPTION}{name}#{used[name]}"
            conds.append(Condition(slot=slot, value=value))
        if goal.price_upper is not None:
            conds.append(Condition(slot=PRICE, op="<=", value=goal.price_upper))
        return Intent(
            benchmark=self.benchmark, adapter=self.adapter_id, env_id=self.scope(goal.cluster),
            base={"cluster": goal.cluster, "target": target_ref(goal.asin)}, conditions=tuple(conds),
        )

    # --------------------------------------------------------------------- compile/execute
    def _product(self, cluster: str, asin: str) -> Product:
        oracle = self._oracle(cluster)
        if asin not in oracle.position:
            raise NotExecutable("unknown_target", f"{asin} is not in cluster {cluster!r}")
        return oracle.products[oracle.position[asin]]

    def _oracle(self, cluster: str) -> ClusterOracle:
        """The cluster's oracle (its memoised predicates), kept for the recent clusters."""
        oracle = self._oracles.get(cluster)
        if oracle is None:
            oracle = self._oracles[cluster] = ClusterOracle(self.catalogue.load_cluster(cluster), self.tagger)
        self._oracles.move_to_end(cluster)
        while len(self._oracles) > self.cluster_cache:
            self._oracles.popitem(last=False)
        return oracle

    def _spec(self, intent: Intent) -> _Spec:
        if intent.benchmark != self.benchmark:
            raise NotExecutable("foreign_benchmark", intent.benchmark)
        cluster, ref = intent.base.get("cluster"), intent.base.get("target")
        if not isinstance(cluster, str) or not isinstance(ref, str) or ref not in self._targets:
            raise NotExecutable("bad_base", "the base names no known cluster and target")
        operation = intent.base.get("operation")
        if operation is not None and operation not in UNSUPPORTED_OPERATIONS:
            raise NotExecutable("unknown_operation", repr(operation))
        extra = set(intent.base) - {"cluster", "target", "operation"}
        if extra:
            raise NotExecutable("bad_base", f"unknown base fields {sorted(extra)}")
        if intent.env_id != self.scope(cluster):
            raise NotExecutable("foreign_environment", f"{intent.env_id} is not {self.scope(cluster)}")
        asin = self._targets[ref]
        target = self._product(cluster, asin)
        attrs, opts, ceiling = [], [], PRICE_UNBOUNDED
        for c in intent.conditions:
            if c.slot.startswith(ATTR) and c.op == "=" and c.value == c.slot[len(ATTR):]:
                attrs.append(c.value)
            elif c.slot.startswith(OPTION) and c.op == "=" and isinstance(c.value, str):
                opts.append(c.value)
            elif c.slot == PRICE and c.op == "<=" and isinstance(c.value, (int, float)) and not isinstance(c.value, bool):
                ceiling = float(c.value)
            else:
                raise NotExecutable("unknown_condition", f"{c.slot} {c.op} {c.value!r}")
        if not attrs:
            raise NotExecutable("no_attribute_condition", "a WebShop goal needs an attribute (the reward divides by their count)")
        goal = GoalSpec(target.query, target.product_category, target.name, tuple(attrs), tuple(opts), ceiling)
        return _Spec(cluster, asin, goal, operation)

    def compile(self, intent: Intent) -> list[Purchase]:
        """Every purchase of the intent's cluster the reward's predicates accept."""
        cached = self._compiled.get(intent.intent_id)
        if cached is not None:
            self._compiled.move_to_end(intent.intent_id)
            return cached
        spec = self._spec(intent)
        if spec.operation is not None:
            return []  # the site offers only search, click, choose options and buy: nothing is reached this way
        try:
            purchases = self._oracle(spec.cluster).purchases(spec.goal, MAX_PURCHASES)
        except TooManyPurchases as exc:
            raise NotExecutable("answer_too_large", str(exc)) from None
        self._compiled[intent.intent_id] = purchases
        while len(self._compiled) > 4096:
            self._compiled.popitem(last=False)
        return purchases

    def _confirm(self, intent: Intent, recipes: Sequence[Purchase], products: Sequence[Product]) -> list[Purchase]:
        """The recipes WebShop's reward (computed in full) scores exactly 1.0."""
        spec = self._spec(intent)
        by_product: dict[int, list[Purchase]] = {}
        for r in recipes:
            by_product.setdefault(r.index, []).append(r)
        ok = []
        for index, group in by_product.items():
            product = products[index]
            totals = rewards_of_choices(product, spec.goal, [dict(g.options) for g in group], self.tagger)
            for purchase, total in zip(group, totals):
                if total == 1.0:
                    ok.append(purchase)
                else:
                    self.disagreements += 1
        return ok

    def _confirmed(self, intent: Intent) -> list[Purchase]:
        spec = self._spec(intent)
        return self._confirm(intent, self.compile(intent), self._oracle(spec.cluster).products)

    def execute(self, intent: Intent, recipes: Sequence[Purchase]) -> GroundTruth:
        spec = self._spec(intent)
        confirmed = self._confirm(intent, recipes, self._oracle(spec.cluster).products)
        return GroundTruth.of("purchases", (p.key for p in confirmed))

    def reexecute(self, intent: Intent) -> GroundTruth:
        """From scratch: a fresh oracle (no memoised predicate, no compiled purchase)."""
        spec = self._spec(intent)
        if spec.operation is not None:
            return GroundTruth.of("purchases", [])
        products = self.catalogue.load_cluster(spec.cluster)
        try:
            purchases = ClusterOracle(products, self.tagger).purchases(spec.goal, MAX_PURCHASES)
        except TooManyPurchases as exc:
            raise NotExecutable("answer_too_large", str(exc)) from None
        return GroundTruth.of("purchases", (p.key for p in self._confirm(intent, purchases, products)))

    def score(self, intent: Intent, asin: str, options: Mapping[str, str]) -> Reward:
        """WebShop's reward, in full, for buying ``asin`` with ``options`` under ``intent``."""
        spec = self._spec(intent)
        product = self._product(spec.cluster, asin)
        return reward(product, spec.goal, product.price, dict(options), self.tagger)

    # --------------------------------------------------------------- graph capabilities
    def _answer(self, intent: Intent, truth: GroundTruth | None = None) -> list[Purchase]:
        purchases = self.compile(intent)
        if truth is not None:
            keys = set(truth.value)
            purchases = [p for p in purchases if p.key in keys]
        return sorted(purchases, key=lambda p: p.key)

    def _properties(self, intent: Intent, purchases: Sequence[Purchase]) -> list[dict[str, Any]]:
        """Each purchase as flat properties: the attributes its product satisfies (by the
        reward's own attribute rule) and its chosen option values."""
        spec = self._spec(intent)
        oracle = self._oracle(spec.cluster)
        present = set(intent.slots)
        pool = sorted({
            a for p in purchases for a in oracle.products[p.index].attributes
            if a != DUMMY_ATTR and ATTR + a not in present and a.strip()
        })
        matches = {a: oracle.attribute_matches(a) for a in pool}
        out = []
        for p in purchases:
            props: dict[str, Any] = {ATTR + a: a for a in pool if p.index in matches[a]}
            props.update({OPTION + n: v for n, v in p.options})
            out.append(props)
        return out

    def witnesses(self, intent: Intent, truth: GroundTruth) -> list[dict[str, Any]]:
        """The purchases behind the answer (at most 200, by key) as flat properties."""
        self._domain_parent = None  # a new root's synthesis: earlier substitutions are not judged
        return self._properties(intent, self._answer(intent, truth)[:MAX_WITNESSES])

    def _option_name(self, slot: str) -> str:
        return slot[len(OPTION):].split("#", 1)[0]

    def domain(self, intent: Intent, slot: str) -> list[Any]:
        """Legal alternative values: option values the cluster offers under the option's name
        (the reward-distinguishable ones first), price ladder steps across the cluster's prices.

        Values the reward cannot tell from the current one are returned too (after the others),
        but remembered: :meth:`invalid_reason` rejects the shifted intent as
        ``indistinguishable_shift`` (normalised colours equal or token_set_ratio > 85).
        Attributes have no substitutes (an ``attr:`` slot's name is its value).
        """
        cond = intent.condition(slot)
        self._domain_parent = intent.intent_id
        if cond is None:
            return []
        spec = self._spec(intent)
        products = self._oracle(spec.cluster).products
        if slot.startswith(OPTION):
            name = self._option_name(slot)
            offered = Counter(v for p in products for v in dict.fromkeys(p.options.get(name, ())))
            current = fuzz_process(cond.value)
            seen_order = list(offered)
            values = sorted((v for v in offered if fuzz_process(v) != current), key=lambda v: (-offered[v], seen_order.index(v)))
            clear = [v for v in values if distinguishable(cond.value, v)][:6]
            unclear = [v for v in values if not distinguishable(cond.value, v)][:2]
            for v in unclear:
                self._blind_shifts.setdefault(intent.with_condition(cond.with_value(v)).intent_id, set()).add(intent.intent_id)
            return clear + unclear
        if slot == PRICE:
            prices = [p.price for p in products]
            top = next((s for s in PRICE_RANGE if s > max(prices)), PRICE_RANGE[-1])
            steps = [s for s in PRICE_RANGE if min(prices) < s <= top and s != cond.value]
            return sorted(steps, key=lambda s: (abs(s - cond.value), s))[:4]
        return []

    def invalid_reason(self, intent: Intent) -> str | None:
        """``indistinguishable_shift`` for a substitution (of the intent whose domain was asked
        last) the reward cannot tell from the original; ``no_attribute_condition`` for an intent
        without attributes (the reward divides by their count)."""
        if self._domain_parent in self._blind_shifts.get(intent.intent_id, ()):
            return "indistinguishable_shift"
        if not any(c.slot.startswith(ATTR) for c in intent.conditions):
            return "no_attribute_condition"
        return None

    def is_ordered_slot(self, intent: Intent, slot: str) -> bool:
        return slot == PRICE or (slot.startswith(OPTION) and "size" in self._option_name(slot))

    def slot_name_states_value(self, slot: str) -> bool:
        return slot.startswith(ATTR)

    def graph_config(self) -> dict[str, Any]:
        return {"require_full_quota": self.require_full_quota}

    # ------------------------------------------------------ the domain's words (for cards)
    def context_line(self, intent: Intent) -> str:
        return f"You are shopping in the {intent.base.get('cluster', '')} section of an online store."

    def request_phrase(self, intent: Intent) -> str:
        return f"find and buy a product from the {intent.base.get('cluster', '')} section"

    def slot_phrase(self, intent: Intent, slot: str) -> str:
        if slot.startswith(ATTR):
            return "a feature the product must have"
        if slot.startswith(OPTION):
            return f"the {self._option_name(slot)}"
        if slot == PRICE:
            return "the most the user will pay"
        return super().slot_phrase(intent, slot)

    def spoken_value(self, intent: Intent, slot: str, value: Any) -> str:
        if slot == PRICE and isinstance(value, (int, float)):
            return f"${value:g}" if float(value).is_integer() else f"${value:.2f}"
        if isinstance(value, str):
            return value.replace(" | ", "/")
        return super().spoken_value(intent, slot, value)

    def _phrase(self, slot: str, value: str) -> str:
        spoken = value.replace(" | ", "/")
        if slot.startswith(ATTR):
            return spoken
        name = self._option_name(slot)
        if name == "color":
            return f"in {spoken}"
        if name == "size":
            return f"in size {spoken}"
        return f"with {name} {spoken}"

    def extras(self, intent: Intent) -> list[Extra]:
        """Extra concrete details (an attribute some answers carry, an option value some choose)
        whose literal reading (truth plus the detail) strictly narrows a non-empty answer."""
        truth = self.ground_truth(intent)
        if len(truth.value) < 2:
            return []
        props = self._properties(intent, self._answer(intent, truth)[:MAX_WITNESSES])
        held = Counter((s, v) for w in props for s, v in w.items())
        present = set(intent.slots)
        out: list[Extra] = []
        for (slot, value), n in sorted(held.items(), key=lambda kv: (-kv[1], kv[0])):
            if slot in present or n >= len(props):
                continue
            reading = intent.with_condition(Condition(slot=slot, value=value))
            try:
                narrowed = self.ground_truth(reading)
            except NotExecutable:
                continue
            if not narrowed.empty and narrowed.issubset(truth) and narrowed.hash != truth.hash:
                out.append(Extra(self._phrase(slot, value), reading))
            if len(out) >= 6:
                break
        return out

    def mismatches(self, intent: Intent) -> list[Mismatch]:
        """Store capabilities the site does not offer; each reading is refused when executed."""
        return [
            Mismatch(phrase, intent.replace(base={**intent.base, "operation": op}))
            for op, phrase in UNSUPPORTED_OPERATIONS.items()
            if op not in ("price_alert", "price_filter") or intent.condition(PRICE) is not None
        ]

    def fault_support(self) -> dict[str, FaultSupport]:
        reasons = {
            "indirect_intent": "whole-message; the truth reading re-executes unchanged",
            "contextual_irrelevance": "whole-message; the truth reading re-executes unchanged",
            "factual_error": "option values and price steps have reward-distinguishable alternatives (domain); indistinguishable ones are rejected",
            "false_presupposition": "doubting one requirement and settling for a fallback changes the purchases that score 1.0",
            "tool_capability_mismatch": "store capabilities WebShop does not offer (price alerts, sorting, filters, pickup ...): mismatches() readings are refused",
            "insufficient_information": "dropping an option or the price ceiling widens the answer; an attr: slot only if another attribute remains",
            "irrelevant_information": "extras(): an attribute or option value some answers carry, strictly narrowing the answer",
            "lexical_ambiguity": "option and price slots (attr: slot names state their value)",
            "syntactic_ambiguity": "option and price slots (attr: slot names state their value)",
            "referential_ambiguity": "option and price slots (attr: slot names state their value)",
            "vagueness_subjectivity": "ordered slots: the price ceiling and size options",
        }
        assert set(reasons) == set(FAULT_TYPES)
        return {t: FaultSupport(True, reasons[t]) for t in FAULT_TYPES}

    # ------------------------------------------------------------------------ leak checks
    def answer_identifiers(self, intent: Intent) -> list[str]:
        """The target's hidden reference, asin and product name: no request may contain them."""
        ref = intent.base.get("target")
        asin = self._targets.get(ref) if isinstance(ref, str) else None
        out = [ref] if isinstance(ref, str) else []
        if asin is not None:
            out += [asin, self.catalogue.goal_products[asin].name]
        return out

    def leaks(self, intent: Intent, text: str, withheld: Sequence[Any] | None = None) -> list[str]:
        """Reasons a text must not be shown: it names the target (asin or product name) or a
        withheld value."""
        reasons = []
        ref = intent.base.get("target")
        asin = self._targets.get(ref) if isinstance(ref, str) else None
        lowered = text.lower()
        processed = f" {fuzz_process(text)} "
        if isinstance(ref, str) and ref.lower() in lowered:
            reasons.append("leak:target_reference")
        if asin is not None:
            if asin.lower() in lowered:
                reasons.append(f"leak:asin {asin}")
            name = fuzz_process(self.catalogue.goal_products[asin].name)
            if name and f" {name} " in processed:
                reasons.append("leak:product_name")
        for value in withheld or ():
            forms = {str(value)}
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                forms |= {f"{value:g}", f"{float(value):.2f}"}
            for form in sorted(forms):
                needle = fuzz_process(form)
                if needle and f" {needle} " in processed:
                    reasons.append(f"leak:withheld {value!r}")
                    break
        return reasons


def _offering_option(product: Product, value: str) -> str | None:
    """The option of ``product`` that offers ``value``: exact value first, then a reward match."""
    wanted = value.strip().replace("/", " | ").lower()
    for name, values in product.options.items():
        if wanted in values:
            return name
    for name, values in product.options.items():
        if any(option_values_match(v, value) for v in values):
            return name
    return None


def _closest_choice(product: Product, goal_options: Sequence[str]) -> dict[str, str]:
    """A full option choice of ``product`` clicking, per option, a value that matches some goal
    option where there is one (to explain why an annotated product fails its own goal)."""
    return {
        name: next((v for v in values if any(option_values_match(v, g) for g in goal_options)), values[0])
        for name, values in product.options.items()
    }
