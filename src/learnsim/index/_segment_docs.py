"""A segment's document store: the id, text and metadata of its rows, read without SQLite (issue 46).

A search's hits were read from ``docs.sqlite``: ten rows by their sequence numbers, each checked
against the digest recorded when it was written, cost 65-110 us at 100k documents (the SQL
statement, a B-tree search per row, the digest's JSON built again), half of a sparse query's time
and more than bm25s's whole read of its hits from its memory-mapped corpus. A segment written now
also holds its rows as bm25s holds its corpus, next to the arrays they match:

- ``docs.bin``           the rows one after another, each the bytes its digest is taken over
  (:func:`learnsim.index._store.row_bytes`: the JSON array ``[id, text, metadata JSON or null]``);
- ``docs_offsets.npy``   int64 (n + 1,): where each row starts, and the end;
- ``docs_digest.npy``    uint8 (n, 16): each row's BLAKE2b digest, the one ``docs.sqlite`` records.

``segment.json`` records the size and sha256 of ``docs.bin`` (under ``"docs"``) and the sha256 of
the two arrays, which are read whole and checked at their first use, as the other arrays are.
``docs.bin`` is not: a hit reads its row with one ``pread`` and checks it against its digest, so
a row damaged on disk is refused when it is found (and ``learnsim index verify`` checks the whole
file). It is never memory-mapped: a file truncated under a running process gives a short read,
which is damage, not a SIGBUS. A segment is never rewritten in place (a write makes a new one), so
a descriptor held open reads the file the manifest listed when it was opened.

Segments written before have no store; their hits are read from SQLite as before.

Only numpy and the standard library are imported here.
"""
from __future__ import annotations

import bisect
import hashlib
import json
import os
import threading
import weakref

import numpy as np

from ..exceptions import IndexDamagedError, IndexFormatError

__all__ = ["SegmentDocs", "docs_layout", "documents_at", "merged_docs"]

_SCAN = json.JSONDecoder().scan_once
_blake2b = hashlib.blake2b


if hasattr(os, "pread"):
    _pread = os.pread
else:                                   # Windows: no pread; a seek and a read, one at a time
    _seek_lock = threading.Lock()

    def _pread(fd, size, offset):
        with _seek_lock:
            os.lseek(fd, offset, os.SEEK_SET)
            return os.read(fd, size)


def _close(fd):
    try:
        os.close(fd)
    except OSError:
        pass


class SegmentDocs:
    """The document store of one segment (see the module notes).

    Parameters
    ----------
    path : Path
        The segment's directory.
    n : int
        Its number of rows.
    entry : dict
        ``segment.json``'s ``"docs"``: ``{"bytes": size of docs.bin, "sha256": its sha256}``.
    sum_of : callable
        The sha256 ``segment.json`` records of an array (by key), or None where it records none.
    npy_header, load_npy : callable
        learnsim.index._segments's readers of a ``.npy`` file's header and of the file checked
        against its sha256 (passed in: that module imports this one).
    """

    def __init__(self, path, n, entry, sum_of, npy_header, load_npy):
        where = f"segment {path.name!r} ({path})"
        if (not isinstance(entry, dict) or isinstance(entry.get("bytes"), bool)
                or not isinstance(entry.get("bytes"), int) or entry["bytes"] < 0
                or not isinstance(entry.get("sha256"), str)):
            raise IndexDamagedError(path / "segment.json", "its 'docs' entry is not {bytes, sha256}")
        self.path, self.n, self.size, self.sha256 = path, int(n), int(entry["bytes"]), entry["sha256"]
        self._sums = {key: sum_of(key) for key in ("docs_offsets", "docs_digest")}
        for key, shape, dtype in (("docs_offsets", (self.n + 1,), np.int64), ("docs_digest", (self.n, 16), np.uint8)):
            file = path / f"{key}.npy"
            if not file.is_file():
                raise IndexFormatError(f"{where}: {key}.npy is missing ({file})")
            got = npy_header(file)
            if got[0] != shape or got[1] != dtype:
                if self._sums[key] is not None:
                    # another index's file put there: its sha256 names it (the header, read before
                    # the bytes, named the segment alone); hashed on this error's path only
                    load_npy(file, self._sums[key])
                raise IndexFormatError(f"{where}: {key}.npy must be {np.dtype(dtype)} of shape {shape}; "
                                       f"got {got[1]} {got[0]}")
        self._check_size(os.stat(path / "docs.bin").st_size if (path / "docs.bin").is_file() else None)
        self._lock = threading.Lock()
        self._state = None
        self._load_npy = load_npy

    def _check_size(self, size):
        if size is None:
            raise IndexFormatError(f"segment {self.path.name!r}: docs.bin is missing ({self.path / 'docs.bin'})")
        if size != self.size:
            raise IndexDamagedError(self.path / "docs.bin", f"it holds {size} bytes where segment.json records "
                                                            f"{self.size} (truncated or rewritten)")

    def files(self):
        """{path: recorded sha256 or None} of the store's files."""
        return {self.path / "docs.bin": self.sha256,
                **{self.path / f"{key}.npy": digest for key, digest in self._sums.items()}}

    def _open(self):
        """(the offsets, the digests as bytes, the descriptor of docs.bin), read and checked once."""
        state = self._state
        if state is not None:
            return state
        with self._lock:
            if self._state is None:
                offsets = self._load_npy(self.path / "docs_offsets.npy", self._sums["docs_offsets"])
                digests = self._load_npy(self.path / "docs_digest.npy", self._sums["docs_digest"])
                if self.n and (int(offsets[0]) != 0 or int(offsets[-1]) != self.size
                               or not np.all(np.diff(offsets) > 0)):
                    raise IndexDamagedError(self.path / "docs_offsets.npy", "its offsets do not cut docs.bin "
                                                                            "into rows")
                fd = os.open(self.path / "docs.bin", os.O_RDONLY | getattr(os, "O_BINARY", 0))
                try:
                    self._check_size(os.fstat(fd).st_size)
                except BaseException:
                    os.close(fd)
                    raise
                weakref.finalize(self, _close, fd)
                self._state = (offsets, digests.tobytes(), fd)
            return self._state

    def rows(self, rows, seqs):
        """[(id, text, metadata JSON or None)] of the segment's rows ``rows`` (ints), whose
        sequence numbers are ``seqs`` (to name a damaged one)."""
        offsets, digests, fd = self._open()
        starts = offsets[rows].tolist()
        ends = offsets[np.asarray(rows) + 1].tolist()
        out = []
        for r, a, b, seq in zip(rows, starts, ends, seqs):
            raw = _pread(fd, b - a, a)
            if _blake2b(raw, digest_size=16).digest() != digests[16 * r:16 * r + 16]:
                raise IndexDamagedError(self.path / "docs.bin", self._problem(seq, raw, b - a))
            try:
                text = raw.decode("utf-8", "surrogatepass")
                value, end = _SCAN(text, 0)
            except (ValueError, StopIteration):
                text, value, end = "", None, None
            if (end != len(text) or type(value) is not list or len(value) != 3 or type(value[0]) is not str
                    or type(value[1]) is not str or not (value[2] is None or type(value[2]) is str)):
                raise IndexDamagedError(self.path / "docs.bin", f"the row of the document with sequence number "
                                                                f"{seq} is not [id, text, metadata]")
            out.append(value)
        return out

    def whole(self):
        """(docs.bin's bytes, checked against its sha256, the offsets, the digests (n, 16)): what
        a merge or a compaction copies (:func:`merged_docs`)."""
        offsets, digests, fd = self._open()
        with open(self.path / "docs.bin", "rb") as fh:
            raw = fh.read()
        if len(raw) != self.size or hashlib.sha256(raw).hexdigest() != self.sha256:
            raise IndexDamagedError(self.path / "docs.bin", "its sha256 does not match the one recorded when it was "
                                                            "written")
        return raw, offsets, np.frombuffer(digests, dtype=np.uint8).reshape(self.n, 16)

    def stored_digests(self, rows):
        """The digests ``docs_digest.npy`` records of the rows ``rows`` (ints): 16 bytes each, read
        on their own (its size was checked against its header at construction: the array is its
        last ``16 * n`` bytes), not checked against its sha256; a short read gives fewer bytes.
        What an open compares with ``docs.sqlite`` (learnsim.index._integrity.check_same_documents)."""
        file = self.path / "docs_digest.npy"
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        try:
            start = os.fstat(fd).st_size - 16 * self.n
            return [_pread(fd, 16, start + 16 * int(r)) for r in rows]
        finally:
            os.close(fd)

    def checked_digests(self):
        """The digests of every row, ``docs_digest.npy`` read whole and checked against its sha256
        (IndexDamagedError naming it when it does not match)."""
        return self._open()[1]

    @staticmethod
    def _problem(seq, raw, size):
        if len(raw) != size:
            return f"it ends before the row of the document with sequence number {seq} (truncated)"
        return (f"the row of the document with sequence number {seq} does not match the checksum recorded "
                "when it was written")


def docs_layout(segments):
    """(the segments, where each one's rows start among an index's positions): what
    :func:`documents_at` reads, made once per load, together (a search reads them once); None
    where no segment holds its documents (the hits are then read from SQLite)."""
    if not any(getattr(seg, "docs", None) is not None for seg in segments):
        return None
    return list(segments), np.cumsum([0] + [seg.n for seg in segments])[:-1].tolist()


def documents_at(positions, seqs, segments, starts):
    """({seq: (id, text, metadata JSON or None)} of the documents at the global ``positions``
    (ints) whose segments hold their documents, [the sequence numbers of the others]: ``seqs``
    their sequence numbers (aligned), ``segments`` and ``starts`` the index's :func:`docs_layout`."""
    by_segment = {}
    for p, seq in zip(positions, seqs):
        si = bisect.bisect_right(starts, p) - 1
        got = by_segment.get(si)
        if got is None:
            by_segment[si] = got = ([], [])
        got[0].append(p - starts[si])
        got[1].append(seq)
    out, rest = {}, []
    for si, (rows, found) in by_segment.items():
        store = getattr(segments[si], "docs", None)
        if store is None:
            rest.extend(found)
            continue
        out.update(zip(found, store.rows(rows, found)))
    return out, rest


def merged_docs(segments, keep, store):
    """The document store of ``segments`` merged, only the rows where ``keep`` (a mask over all
    of them) is True, as :meth:`learnsim.index._store.DocumentStore.segment_docs` gives it:
    copied from the segments' stores (each checked against its sha256 first: damage is not
    copied under a new checksum), and read from ``store`` (SQLite, 5-7 us a document) for the
    segments without one."""
    parts, lengths, digests, start = [], [], [], 0
    for seg in segments:
        rows = np.flatnonzero(np.asarray(keep[start:start + seg.n]))
        start += seg.n
        if getattr(seg, "docs", None) is None:
            raw, offsets, digest = store.segment_docs(np.asarray(seg.seqs)[rows])     # those rows only
        else:
            raw, offsets, digest = seg.docs.whole()
            if rows.size < seg.n:
                view = memoryview(raw)
                raw = b"".join(view[a:b] for a, b in zip(offsets[rows].tolist(), offsets[rows + 1].tolist()))
                offsets, digest = np.concatenate([[0], np.cumsum(np.diff(offsets)[rows])]), digest[rows]
        parts.append(raw)
        lengths.append(np.diff(offsets))
        digests.append(digest)
    sizes = np.concatenate(lengths) if lengths else np.zeros(0, dtype=np.int64)
    offsets = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return (b"".join(parts), offsets,
            np.concatenate(digests) if digests else np.zeros((0, 16), dtype=np.uint8))


def write_docs(tmp, docs, meta):
    """Write a segment's store into its temporary directory ``tmp`` (``docs``: the bytes, offsets
    and digests of :meth:`learnsim.index._store.DocumentStore.segment_docs`, or an object whose
    ``write(fh)`` writes the rows and returns their size, offsets and digests:
    learnsim.index._docs_writer.RowsFromTexts, a row at a time), recording it in ``meta``
    (segment.json). Returns the arrays' files to fsync and hash as the other arrays are."""
    with open(tmp / "docs.bin", "wb") as fh:
        if hasattr(docs, "write"):
            size, offsets, digests = docs.write(fh)
        else:
            blob, offsets, digests = docs
            fh.write(blob)
            size = len(blob)
        fh.flush()
        os.fsync(fh.fileno())
    from .._utils.files import sha256_file

    # of the bytes on disk, read back: what verify will hash
    meta["docs"] = {"bytes": size, "sha256": sha256_file(tmp / "docs.bin")}
    return {"docs_offsets": np.asarray(offsets, dtype=np.int64), "docs_digest": np.asarray(digests, dtype=np.uint8)}
