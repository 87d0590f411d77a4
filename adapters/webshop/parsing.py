"""The products and attributes files, parsed and checked in file order: what the catalogue
indexes, here or in a child process on another core.

Reading WebShop's full catalogue is two halves of about equal cost: decoding and checking the
JSON records (and preparing what the catalogue keeps of each: its pinned price, its lower-cased
text, its compact record), and indexing them. For a large catalogue the first half runs in a
child process, which sends its records in batches through a pipe while this process indexes the
ones before: the two halves overlap on two cores. A small catalogue is parsed in this process
(starting a process costs more than it saves).

:func:`parsed` yields, in file order:

* ``(PRODUCT, asin, query, price, options, text, record)`` for every product WebShop loads (the
  first of an asin only), ``record`` being the ``marshal`` form the catalogue spills;
* ``(DIGEST, file name, sha256)`` after each file;
* ``(ATTRIBUTES, asin, attributes, packed)`` for every attributes entry of a loaded product
  (``packed``: the attributes in ``marshal`` form).

A record that breaks WebShop's layout raises :class:`~miscue.host.HostDataError` naming file,
record and field, from whichever process found it.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator

from miscue.adapters.webshop.index import text_of
from miscue.adapters.webshop.records import check_attributes, check_product, pinned_price
from miscue.adapters.webshop.stream import Malformed, iter_array, iter_object
from miscue.host import HostDataError

PRODUCT, ATTRIBUTES, DIGEST = 0, 1, 2
#: a products file at least this large is parsed in a child process (when one may be started)
CHILD_FROM_BYTES = 64 << 20
BATCH = 256  # events per message from the child
_EVENTS, _ERROR = 0, 1
_HEAD = struct.Struct("<BQ")  # a message: its kind and its length, then its marshal form


class _Hasher:
    """sha256 of the bytes read, each chunk also counted by ``seen`` (progress)."""

    def __init__(self, seen: Callable[[int], None]) -> None:
        self._hasher = hashlib.sha256()
        self._seen = seen

    def update(self, data: bytes) -> None:
        self._hasher.update(data)
        self._seen(len(data))

    def hexdigest(self) -> str:
        return self._hasher.hexdigest()


def parse(products: Path, attributes: Path, chunk: int, seen: Callable[[int], None]) -> Iterator[tuple[Any, ...]]:
    """The events of the two files (see the module docstring), parsed in this process;
    ``seen`` is told the size of every chunk read."""
    loaded: set[str] = set()
    hasher = _Hasher(seen)
    with _named(products), open(products, "rb") as fh:
        for i, (_, raw) in enumerate(iter_array(fh, hasher, chunk)):
            rec = check_product(products, i, raw)
            if rec is None or rec.asin in loaded:
                continue
            loaded.add(rec.asin)
            price = pinned_price(rec.asin, rec.pricing)
            record = marshal.dumps((rec.asin, rec.name, rec.category, rec.product_category, rec.bullets, rec.description,
                                    rec.options, rec.pricing, price))
            yield PRODUCT, rec.asin, rec.query, price, rec.options, text_of(rec.name, rec.bullets, rec.description), record
    yield DIGEST, products.name, hasher.hexdigest()
    hasher = _Hasher(seen)
    with _named(attributes), open(attributes, "rb") as fh:
        for _, asin, value in iter_object(fh, hasher, chunk):
            attrs = check_attributes(attributes, asin, value)
            if attrs is not None and asin in loaded:
                yield ATTRIBUTES, asin, attrs, marshal.dumps(attrs)
    yield DIGEST, attributes.name, hasher.hexdigest()


class _named:
    """Turn the streaming reader's errors into HostDataError naming ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        if isinstance(exc, Malformed):
            raise HostDataError(f"{self.path}: {exc} (field: {exc.field})") from None
        if isinstance(exc, UnicodeDecodeError):
            raise HostDataError(f"{self.path}: not UTF-8 ({exc}) (field: <file>)") from None


def in_child_by_default(products: Path) -> bool:
    """A products file large enough that parsing it on another core pays."""
    return products.stat().st_size >= CHILD_FROM_BYTES


def parsed(products: Path, attributes: Path, chunk: int, seen: Callable[[int], None],
           in_child: bool | None = None) -> Iterator[tuple[Any, ...]]:
    """:func:`parse`'s events, parsed in a child process when ``in_child`` (default: see
    :func:`in_child_by_default`); ``seen`` is told the bytes read as the events arrive.

    The child is a Python process running :func:`main`, writing framed batches to its standard
    output (a plain subprocess, not :mod:`multiprocessing`: it imports no caller's main module
    and may be started from a daemonic process such as a Dask worker)."""
    if in_child is None:
        in_child = in_child_by_default(products)
    if not in_child:
        yield from parse(products, attributes, chunk, seen)
        return
    # the child imports this module as the parent did: same interpreter, same import path
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, sys.path))}
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(products), str(attributes), str(chunk)],
                             stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env, bufsize=1 << 20)
    assert child.stdout is not None
    digests = 0
    try:
        while digests < 2:
            head = child.stdout.read(_HEAD.size)
            if len(head) < _HEAD.size:
                raise HostDataError(f"{products}: the process parsing the catalogue ended before the end of the files "
                                    f"(exit code {child.wait()}) (field: <file>)")
            tag, size = _HEAD.unpack(head)
            body = marshal.loads(child.stdout.read(size))
            if tag == _ERROR:
                raise HostDataError(body)
            read, events = body
            if read:
                seen(read)
            yield from events
            digests += sum(1 for event in events if event[0] == DIGEST)
    finally:
        child.stdout.close()
        if child.poll() is None and digests < 2:  # the reader stopped early: nothing left to read the child
            child.kill()
        child.wait()


def _child(products: Path, attributes: Path, chunk: int, out: BinaryIO) -> None:
    """The child's side: the events in batches, each with the bytes read since the last one."""
    read = [0]

    def seen(n: int) -> None:
        read[0] += n

    def send(tag: int, body: Any) -> None:
        data = marshal.dumps(body)
        out.write(_HEAD.pack(tag, len(data)))
        out.write(data)

    batch: list[tuple[Any, ...]] = []
    try:
        for event in parse(products, attributes, chunk, seen):
            batch.append(event)
            if len(batch) >= BATCH or event[0] == DIGEST:
                send(_EVENTS, (read[0], batch))
                read[0], batch = 0, []
    except HostDataError as exc:
        send(_ERROR, str(exc))
    except Exception as exc:  # noqa: BLE001 - reported to the reader, which raises it
        send(_ERROR, f"{products}: parsing failed: {exc!r} (field: <file>)")
    out.flush()


def main() -> None:
    """The child process: ``<products> <attributes> <chunk>``."""
    _child(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), sys.stdout.buffer)


_CHILD = "from miscue.adapters.webshop.parsing import main; main()"
