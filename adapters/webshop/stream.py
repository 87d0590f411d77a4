"""Streaming JSON: the top-level list or object of a multi-gigabyte file, one value at a time.

WebShop's full products and attributes files are several gigabytes; they are read in
fixed-size chunks, never held whole, and every value comes with its byte offset, so a value can
be parsed again later straight from the file (:func:`read_value_at`).
"""

from __future__ import annotations

import codecs
import json
import re
from typing import Any, BinaryIO, Iterator

_DECODER = json.JSONDecoder()
_NON_WS = re.compile(r"[^ \t\n\r]")
_WS = " \t\n\r"


class Malformed(Exception):
    """The text breaks off or is not JSON; ``field`` says where (the caller names the file)."""

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
        self._ascii = True  # buf holds only ASCII: a character is a byte

    def _fill(self) -> bool:
        if self.eof:
            return False
        data = self._fh.read(self._chunk)
        if self._hasher is not None:
            self._hasher.update(data)
        text = self._dec.decode(data, final=not data)
        self.buf = self.buf[self.pos:] + text
        self.pos = 0
        self._ascii = self.buf.isascii()
        if not data:
            self.eof = True
        return bool(data)

    def _advance(self, end: int) -> None:
        if self._ascii:
            self.byte += end - self.pos
        else:
            piece = self.buf[self.pos:end]
            self.byte += len(piece) if piece.isascii() else len(piece.encode("utf-8"))
        self.pos = end

    def peek(self) -> str | None:
        """The next non-whitespace character (not consumed); None at the end of the file."""
        if self.pos < len(self.buf) and self.buf[self.pos] not in _WS:
            return self.buf[self.pos]
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
            raise Malformed(f"expected {expected!r} at byte {self.byte}, found {ch!r}", field)
        self._advance(self.pos + 1)

    def value(self, field: str) -> tuple[int, Any]:
        """(byte offset, parsed value) of the JSON value starting at the next character."""
        if self.peek() is None:
            raise Malformed(f"unexpected end of file at byte {self.byte}", field)
        start = self.byte
        while True:
            try:
                obj, end = _DECODER.raw_decode(self.buf, self.pos)
                if end < len(self.buf) or self.eof:  # a number could go on in the next chunk
                    self._advance(end)
                    return start, obj
            except json.JSONDecodeError as exc:
                if self.eof or len(self.buf) - self.pos > self.MAX_VALUE_CHARS:
                    raise Malformed(f"not valid JSON at byte {start}: {exc.msg}", field) from None
            self._fill()

    def more(self, close: str, field: str) -> bool:
        """After a value: consume ',' (True: another value follows) or ``close`` (False)."""
        pos = self.pos
        if pos < len(self.buf) and self.buf[pos] == ",":  # the common case, without peek()
            self.pos = pos + 1
            self.byte += 1
            return True
        if self.peek() == ",":
            self.take(",", field)
            return True
        self.take(close, field)
        return False

    def drain(self) -> None:
        """Require only whitespace up to the end (and let the hasher see every byte)."""
        ch = self.peek()
        if ch is not None:
            raise Malformed(f"unexpected {ch!r} after the top-level value at byte {self.byte}", "<root>")


def iter_array(fh: BinaryIO, hasher: Any = None, chunk: int = 1 << 20) -> Iterator[tuple[int, Any]]:
    """(byte offset, element) of a top-level JSON list, streamed."""
    r = _Reader(fh, 0, hasher, chunk)
    if r.peek() != "[":
        raise Malformed("the top level must be a JSON list", "<root>")
    r.take("[", "<root>")
    if r.peek() == "]":
        r.take("]", "<root>")
    else:
        i = 0
        while True:
            yield r.value(f"[{i}]")
            i += 1
            if not r.more("]", f"[{i}]"):
                break
    r.drain()


def iter_object(fh: BinaryIO, hasher: Any = None, chunk: int = 1 << 20) -> Iterator[tuple[int, str, Any]]:
    """(byte offset of the key, key, value) of a top-level JSON object, streamed."""
    r = _Reader(fh, 0, hasher, chunk)
    if r.peek() != "{":
        raise Malformed("the top level must be a JSON object", "<root>")
    r.take("{", "<root>")
    if r.peek() == "}":
        r.take("}", "<root>")
    else:
        while True:
            offset, key = r.value("<key>")
            if not isinstance(key, str):
                raise Malformed(f"object key at byte {offset} is not a string", "<key>")
            r.take(":", key)
            _, value = r.value(key)
            yield offset, key, value
            if not r.more("}", key):
                break
    r.drain()


def read_value_at(fh: BinaryIO, offset: int, chunk: int = 1 << 16) -> Any:
    """The JSON value starting at byte ``offset`` (its end found by parsing)."""
    return _Reader(fh, offset, chunk=chunk).value("<value>")[1]
