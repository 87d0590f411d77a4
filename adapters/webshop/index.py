"""The cluster index: what every scan of one cluster reads, built once, without whole products.

A goal's predicates are evaluated against a whole cluster (all products sharing its scrape
query: tens of thousands in WebShop's full catalogue). The index holds what those scans read,
compactly, so that every cluster of a 1.18M-product catalogue can stay indexed at once and a
full :class:`~miscue.adapters.webshop.reward.Product` is only built for the products that pass it:

* per product: its asin and its (pinned) price;
* the processed product attributes, each with the products holding it (the fuzzy rule compares
  a goal attribute with the distinct ones, not with every product);
* the option values, each with the products offering it, and per option name the values
  offered, in first-seen order with the number of products offering each;
* the lower-cased title, bullets and description of every product, as one byte string per
  cluster (fields and products separated by NUL bytes), which the substring rule searches at C
  speed; a source may keep it elsewhere (the catalogue spills it to a temporary file).

Everything depends on the cluster's products only, never on a goal, so one index serves every
goal of the cluster and every fresh oracle (:mod:`miscue.adapters.webshop.oracle` keeps the per-goal
memo). The same ``add_product`` / ``add_attributes`` calls build it from WebShop's files
(:mod:`miscue.adapters.webshop.catalogue`) or from products in memory (:meth:`ClusterIndex.of`).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from typing import Callable, Iterator, Mapping, Sequence

from miscue.adapters.webshop.matching import fuzz_process, normalize_color
from miscue.adapters.webshop.reward import DUMMY_ATTR, Product, lowered_texts

SEPARATOR = b"\x00"  # between the fields of a product's text and between products


def text_of(name: str, bullet_points: Sequence[str], description: str) -> bytes:
    """One product's searchable text: the three lower-cased fields, each ending with NUL."""
    title, bullets, body = lowered_texts(name, bullet_points, description)
    return f"{title}\x00{bullets}\x00{body}\x00".encode("utf-8", "surrogatepass")


class Products(Sequence[Product]):
    """A cluster's products by position, built on first access by ``build`` (and not kept
    here: the builder's owner decides how many stay in memory)."""

    def __init__(self, size: Callable[[], int], build: Callable[[int], Product]) -> None:
        self._size = size
        self._build = build

    def __len__(self) -> int:
        return self._size()

    def __getitem__(self, i):  # type: ignore[override]
        if type(i) is int and 0 <= i:
            if i >= self._size():
                raise IndexError(i)
            return self._build(i)
        if isinstance(i, slice):
            return [self._build(k) for k in range(*i.indices(len(self)))]
        if not -len(self) <= i < 0:
            raise IndexError(i)
        return self._build(i + len(self))

    def __iter__(self) -> Iterator[Product]:
        return (self._build(k) for k in range(len(self)))


class ClusterIndex:
    """The index of one cluster's products, in file order."""

    def __init__(self, name: str, product: Callable[[int], Product], text: Callable[[], bytes] | None = None) -> None:
        self.name = name
        self.asins: list[str] = []
        self.prices = array("d")
        #: option value -> its processed, colour-normalised form (values in first-seen order)
        self.value_proc: dict[str, str] = {}
        #: option value -> positions of the products offering it (ascending)
        self.value_holders: dict[str, array] = {}
        self._offered: dict[str, dict[str, int]] = {}
        self._owners: dict[str, array] = {}
        self._processed: dict[str, str] = {}  # mined attribute -> fuzz_process(attribute)
        self._with_attributes = bytearray()  # per position: 1 once it had attributes
        self._common: set[str] | None = None  # the attributes, as mined, of every product so far
        #: the attributes every product of the cluster holds, as mined (after :meth:`finish`)
        self.common_attributes: frozenset[str] = frozenset()
        self.attr_choices: list[str] = []
        self._attr_owners: list[array] = []
        self.text_starts = array("Q", [0])  # product k's text: text_starts[k]:text_starts[k + 1]
        self._text = bytearray() if text is None else None
        self._load_text = text
        self.products = Products(lambda: len(self.asins), product)
        self._position: dict[str, int] | None = None

    @classmethod
    def of(cls, products: Sequence[Product], name: str = "") -> "ClusterIndex":
        """The index of products held in memory (their texts too)."""
        held = list(products)
        index = cls(name, held.__getitem__)
        for p in held:
            pos = index.add_product(p.asin, p.price, p.options, text_of(p.name, p.bullet_points, p.description))
            index.add_attributes(pos, p.attributes)
        index.finish()
        return index

    def add_product(self, asin: str, price: float, options: Mapping[str, Sequence[str]], text: bytes) -> int:
        """Index one product (its text only when the index keeps texts); its position."""
        pos = len(self.asins)
        self.asins.append(asin)
        self.prices.append(price)
        holders = self.value_holders
        for name, values in options.items():
            counts = self._offered.get(name)
            if counts is None:
                counts = self._offered[name] = {}
            for v in dict.fromkeys(values):
                counts[v] = counts.get(v, 0) + 1
                held = holders.get(v)
                if held is None:
                    self.value_proc[v] = fuzz_process(normalize_color(v))
                    held = holders[v] = array("I")
                if not held or held[-1] != pos:
                    held.append(pos)
        self.text_starts.append(self.text_starts[-1] + len(text))
        if self._text is not None:
            self._text += text
        return pos

    def add_attributes(self, pos: int, attributes: Sequence[str]) -> None:
        """The product's mined attributes (WebShop's ``DUMMY_ATTR`` when it has none)."""
        if len(self._with_attributes) <= pos:
            self._with_attributes.extend(bytes(pos + 1 - len(self._with_attributes)))
        self._with_attributes[pos] = 1
        processed, owners = self._processed, self._owners
        attributes = attributes or (DUMMY_ATTR,)
        if self._common is None:
            self._common = set(attributes)
        elif self._common:
            self._common.intersection_update(attributes)
        for a in attributes:
            key = processed.get(a)
            if key is None:
                key = processed[a] = fuzz_process(a)
            held = owners.get(key)
            if held is None:
                held = owners[key] = array("I")
            if not held or held[-1] != pos:
                held.append(pos)

    def clear_attributes(self) -> None:
        """Forget the attributes added so far (to add each product's final ones again)."""
        self._owners = {}
        self._common = None
        self._with_attributes = bytearray()

    def finish(self) -> None:
        """After the last product and attributes: products without attributes hold DUMMY_ATTR."""
        flags = self._with_attributes
        missing = [pos for pos in range(len(self.asins)) if pos >= len(flags) or not flags[pos]]
        if missing:
            held = self._owners.setdefault(fuzz_process(DUMMY_ATTR), array("I"))
            held.extend(missing)
            self._owners[fuzz_process(DUMMY_ATTR)] = array("I", sorted(set(held)))
            self._common = {DUMMY_ATTR} if self._common is None else self._common & {DUMMY_ATTR}
        self.common_attributes = frozenset(self._common or ())
        self._common = None
        self._with_attributes = bytearray()
        self._processed = {}
        self.attr_choices = sorted(self._owners)
        self._attr_owners = [self._owners[a] for a in self.attr_choices]
        if self._text is not None:
            self._text = bytes(self._text)

    def __len__(self) -> int:
        return len(self.asins)

    @property
    def position(self) -> dict[str, int]:
        """asin -> position (the first product with that asin is the only one indexed)."""
        if self._position is None:
            self._position = {a: i for i, a in enumerate(self.asins)}
        return self._position

    def owners(self, choice: int) -> array:
        """Positions of the products holding the ``choice``-th processed attribute."""
        return self._attr_owners[choice]

    def offered(self, option: str) -> dict[str, int]:
        """Values offered under option ``option`` -> how many products offer them (each product
        counted once per value), in first-seen order."""
        return self._offered.get(option, {})

    @property
    def price_range(self) -> tuple[float, float]:
        return (min(self.prices), max(self.prices)) if self.prices else (0.0, 0.0)

    def text(self) -> bytes:
        """The cluster's searchable text (see :func:`text_of`), product after product."""
        return self._text if self._text is not None else self._load_text()  # type: ignore[misc, return-value]

    def substring_matches(self, goal_attr: str, within: Sequence[int] | None = None) -> set[int]:
        """Positions (of all products, or of ``within``) whose lower-cased title, joined bullets
        or description contain ``goal_attr``."""
        needle = goal_attr.encode("utf-8", "surrogatepass")
        if SEPARATOR in needle:  # the text uses NUL as separator: test whole products
            return {i for i in (range(len(self.asins)) if within is None else within) if _in_fields(goal_attr, self.products[i])}
        text, starts = self.text(), self.text_starts
        if within is not None:
            return {i for i in within if text.find(needle, starts[i], starts[i + 1]) >= 0}
        return _occurrences(text, starts, needle)

    def texts_of(self, positions: Sequence[int]) -> "Texts":
        """The texts of some products, gathered to be searched for many attributes."""
        text, starts = self.text(), self.text_starts
        pieces = [text[starts[i]:starts[i + 1]] for i in positions]
        sub_starts = array("Q", [0])
        for piece in pieces:
            sub_starts.append(sub_starts[-1] + len(piece))
        return Texts(self, list(positions), b"".join(pieces), sub_starts)


class Texts:
    """Some products' texts, gathered (see :meth:`ClusterIndex.texts_of`)."""

    def __init__(self, index: ClusterIndex, positions: list[int], text: bytes, starts: array) -> None:
        self._index, self.positions, self._text, self._starts = index, positions, text, starts

    def substring_matches(self, goal_attr: str) -> set[int]:
        """The positions whose texts contain ``goal_attr`` (as :meth:`ClusterIndex.substring_matches`)."""
        needle = goal_attr.encode("utf-8", "surrogatepass")
        if SEPARATOR in needle:
            return self._index.substring_matches(goal_attr, self.positions)
        return {self.positions[k] for k in _occurrences(self._text, self._starts, needle)}


def _occurrences(text: bytes, starts: array, needle: bytes) -> set[int]:
    """The numbers of the products (``text[starts[k]:starts[k + 1]]``) containing ``needle``."""
    if not needle:
        return set(range(len(starts) - 1))
    found: set[int] = set()
    at = text.find(needle)
    while at >= 0:
        k = bisect_right(starts, at) - 1
        found.add(k)
        at = text.find(needle, starts[k + 1])
    return found


def _in_fields(goal_attr: str, p: Product) -> bool:
    return goal_attr in p.title_lower or goal_attr in p.bullets_lower or goal_attr in p.description_lower
