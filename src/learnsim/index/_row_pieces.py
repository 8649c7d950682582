"""A long document's row bytes and UTF-8 a piece at a time, for their digests and a segment's copy.

A row's digest is taken over the UTF-8 of ``json.dumps([id, text, metadata], ensure_ascii=False)``
(learnsim.index._store.row_bytes), and its text key over the text's UTF-8. Built whole, a 60 MB
text was escaped into a second str, joined into a third (the brackets and the id), encoded into
bytes and joined again with the segment's other rows: some 300 MB beside the text, twice at a
build (the digest when stored in SQLite, the row when its segment is written). JSON's escapes
and UTF-8 (with ``surrogatepass``) are each of one code point at a time, so the text cut into
pieces of :data:`CHUNK` characters, each escaped and encoded, gives the same bytes one piece
after another.

Only the standard library is imported here.
"""
from __future__ import annotations

import json.encoder

__all__ = ["CHUNK", "long_row_pieces", "utf8_pieces"]

# characters of a text escaped and encoded at a time; a shorter text is built whole (the faster)
CHUNK = 1 << 20

_JSON_STRING = json.encoder.encode_basestring


def utf8_pieces(text):
    """Pieces whose bytes, joined, are ``text.encode("utf-8", "surrogatepass")``."""
    if len(text) <= CHUNK:
        yield text.encode("utf-8", "surrogatepass")
        return
    for start in range(0, len(text), CHUNK):
        yield text[start:start + CHUNK].encode("utf-8", "surrogatepass")


def long_row_pieces(doc_id, text, meta):
    """Pieces whose bytes, joined, are ``row_bytes(doc_id, text, meta)``, for a text longer than
    :data:`CHUNK` with a str id and a str or None metadata JSON; None otherwise (build it whole)."""
    if not (type(text) is str and len(text) > CHUNK and type(doc_id) is str and (meta is None or type(meta) is str)):
        return None
    return _pieces(doc_id, text, meta)


def _pieces(doc_id, text, meta):
    yield ("[" + _JSON_STRING(doc_id) + ", \"").encode("utf-8", "surrogatepass")
    for start in range(0, len(text), CHUNK):
        yield _JSON_STRING(text[start:start + CHUNK])[1:-1].encode("utf-8", "surrogatepass")
    yield ("\", " + ("null" if meta is None else _JSON_STRING(meta)) + "]").encode("utf-8", "surrogatepass")
