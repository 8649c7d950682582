"""A segment's document store written a row at a time, from the texts the writer already holds.

:meth:`learnsim.index._store.DocumentStore.segment_docs` reads a segment's rows back from SQLite
and appends their bytes (:func:`learnsim.index._store.row_bytes`) to one bytearray, written to
``docs.bin`` once whole. A build holds every text already; for one 60 MB line with a curly quote
every 10,000 characters (held two bytes a character) that made three copies at once: the text,
SQLite's copy of it and the row's UTF-8 (tracemalloc on a 12 MB line: the segment write's peak
was some 4.5 times the line's size). :class:`RowsFromTexts` writes the same bytes into
``docs.bin`` a piece at a time (learnsim.index._row_pieces) from the texts the writer gives,
reading each row's id, metadata and recorded digest from SQLite, not its text. The check is the
one ``segment_docs`` makes: each row's bytes must match the digest recorded when it was added (a
row that does not is refused, not copied under a new checksum), so the bytes written are the ones
SQLite's row was recorded with. A row recorded without a digest (written before digests; a build
writes none such) has its text read from SQLite, as ``segment_docs`` does.

Only numpy and the standard library are imported here (and the store's row functions).
"""
from __future__ import annotations

import hashlib

import numpy as np

from . import _row_pieces
from ._store import row_bytes

__all__ = ["RowsFromTexts"]


class RowsFromTexts:
    """The document store of the segment of ``seqs`` (increasing), whose texts are ``texts``
    (aligned), written by :meth:`write` (learnsim.index._segment_docs.write_docs) with
    ``store`` (a :class:`learnsim.index._store.DocumentStore`) giving each row's id, metadata and
    recorded digest. ``texts`` None: each row's text read from SQLite with its other columns (an
    add's copy: one text read back at a time, still never joined whole with the others)."""

    def __init__(self, store, seqs, texts=None):
        self.store, self.seqs, self.texts = store, np.asarray(seqs, dtype=np.int64), texts
        if texts is not None and len(texts) != self.seqs.shape[0]:
            raise ValueError(f"{len(self.texts)} texts for a segment of {self.seqs.shape[0]} documents")

    def write(self, fh):
        """Write the rows' bytes into the binary file ``fh``; returns (their size, their offsets
        int64 (n + 1,), their BLAKE2b digests uint8 (n, 16)), as ``segment_docs`` gives them."""
        store, n = self.store, int(self.seqs.shape[0])
        offsets, digests, size = np.zeros(n + 1, dtype=np.int64), bytearray(), 0
        if n:
            wanted = self.seqs.tolist()
            i = 0
            held = self.texts is not None
            # where the texts are held, the rows' other columns only (the digest checks the held
            # text is the one SQLite recorded)
            columns = "seq, id, meta, " + ("digest" if store.digests else "NULL") + (", NULL" if held else ", text")
            cursor = store.conn.execute(f"SELECT {columns} FROM docs WHERE seq BETWEEN ? AND ? ORDER BY seq",
                                        (wanted[0], wanted[-1]))
            for seq, doc_id, meta, digest, text in cursor:
                if i == n or seq != wanted[i]:
                    continue                # a row between them that the segment does not hold
                if held:
                    text = self.texts[i]
                if held and digest is None:     # nothing to check the held text against: SQLite's
                    text = store.conn.execute("SELECT text FROM docs WHERE seq = ?", (seq,)).fetchone()[0]
                try:
                    h, written = _write_row(fh, doc_id, text, meta) if isinstance(text, str) else (None, 0)
                except (TypeError, ValueError):
                    h, written = None, 0
                if h is None or (digest is not None and h.hexdigest() != digest):
                    raise store._tampered(seq, doc_id)
                digests += h.digest()
                size += written
                i += 1
                offsets[i] = size
            if i != n:
                from ..exceptions import IndexDamagedError

                raise IndexDamagedError(store.path, f"the document with sequence number {wanted[i]}, which a "
                                                    "segment being written holds, is missing")
        return size, offsets, np.frombuffer(bytes(digests), dtype=np.uint8).reshape(n, 16)


def _write_row(fh, doc_id, text, meta):
    """(the BLAKE2b of :func:`row_bytes`, its size), its bytes written to ``fh``: a long text's a
    piece at a time (learnsim.index._row_pieces), never whole."""
    pieces = _row_pieces.long_row_pieces(doc_id, text, meta)
    if pieces is None:
        raw = row_bytes(doc_id, text, meta)
        fh.write(raw)
        return hashlib.blake2b(raw, digest_size=16), len(raw)
    h, size = hashlib.blake2b(digest_size=16), 0
    for piece in pieces:
        h.update(piece)
        fh.write(piece)
        size += len(piece)
    return h, size
