"""A compressed answer inflated a piece at a time (:class:`Inflater`), so that the client's
``max_answer_bytes`` bounds what it holds. httpx's own decoders inflate each piece read from the
socket whole: a gzip layer turns 64 KiB into some 64 MiB at once, two layers ("gzip, gzip") or
zstd into gigabytes, before any bound is looked at (1,827 bytes made a client bounded at 1 MB
allocate 1 GiB). The client asks only for the encodings inflated here (:data:`ACCEPTED`) and
refuses any other unread. Plain Python: nothing here imports httpx."""
from __future__ import annotations

import zlib

#: The ``Accept-Encoding`` the client sends: what :class:`Inflater` inflates in bounded pieces.
ACCEPTED = "gzip, deflate"
#: The most bytes one step of inflating gives: what the client holds beyond the answer so far.
STEP = 64 * 1024

_GZIP = zlib.MAX_WBITS | 16
_NAMES = {"gzip": "gzip", "x-gzip": "gzip", "deflate": "deflate"}


class Undecodable(ValueError):
    """A body that is not its ``Content-Encoding`` (the client raises httpx's DecodingError from it)."""


def inflater(content_encoding):
    """The :class:`Inflater` of an answer's ``Content-Encoding`` header (None or "identity":
    None, nothing to inflate); ``ValueError`` naming the header for one the client did not ask for."""
    layers = [part.strip().lower() for part in (content_encoding or "").split(",")]
    layers = [part for part in layers if part not in ("", "identity")]
    if not layers:
        return None
    if len(layers) > 1 or layers[0] not in _NAMES:
        raise ValueError(f"its Content-Encoding {content_encoding.strip()[:60]!r} is not one the client asked for "
                         f"(Accept-Encoding: {ACCEPTED}, one layer); not read")
    return Inflater(_NAMES[layers[0]])


class Inflater:
    """Inflate a gzip or deflate body given piece by piece (:meth:`pieces`, then :meth:`end`),
    yielding at most :data:`STEP` bytes at a time: the caller's bound stops it between two."""

    def __init__(self, name):
        self.name = name
        # deflate is zlib's format by RFC 9110, raw deflate by some servers: tried in that order
        # on the first bytes, as httpx does
        self._zlib = zlib.decompressobj(_GZIP if name == "gzip" else zlib.MAX_WBITS)
        self._first = name == "deflate"
        self._pending = b""   # deflate's first byte, when a piece held no more: its header is two

    def pieces(self, data):
        """The inflated bytes of ``data`` (the next piece of the body), :data:`STEP` at a time."""
        if not data:
            return
        if self._first:
            data, self._pending = self._pending + data, b""
            if len(data) < 2:
                self._pending = data
                return
            self._first = False
            try:
                # nothing is yielded before the first step has worked: a raw stream is retried whole
                zlib.decompressobj(zlib.MAX_WBITS).decompress(data[:2], 0)
            except zlib.error:
                self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
        yield from self._drain(data)

    def _drain(self, data):
        try:
            while True:
                out = self._zlib.decompress(data, STEP)
                if out:
                    yield out
                if self._zlib.eof and self._zlib.unused_data:
                    data = self._zlib.unused_data
                    if not data.strip(b"\0"):
                        return     # zero padding after the stream (Python's gzip reads past it too)
                    if self.name != "gzip":
                        raise Undecodable("the deflate body holds bytes after the end of its stream")
                    # RFC 1952: a series of members (a compressor flushing as it streams); httpx
                    # read the first alone, a JSON cut short or one that ended early
                    self._zlib = zlib.decompressobj(_GZIP)
                    continue
                # a step that filled STEP may have more behind it, input or output
                if not (self._zlib.unconsumed_tail or len(out) == STEP):
                    return
                data = self._zlib.unconsumed_tail
        except zlib.error as exc:
            raise Undecodable(f"the {self.name} body could not be inflated: {exc}") from None

    def end(self):
        """What is left once the body has ended; :class:`Undecodable` for a stream cut short."""
        if self._pending:
            self._first = False
            yield from self._drain(self._pending)
        if not self._zlib.eof:
            raise Undecodable(f"the {self.name} body ends before its compressed stream does")
        rest = self._zlib.flush()
        if rest:
            yield rest
