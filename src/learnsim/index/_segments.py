"""Segments and the manifest of an index: ``.npy`` arrays opened with mmap, written atomically.

A segment holds the rows of a run of documents, in the order of their sequence numbers:

- ``seqs.npy``      int64 (n,): the documents' sequence numbers (strictly increasing);
- ``dense.npy``     float32/float64 (n, d): the dense part of the rows (FILM, MCD), if any;
- ``indptr.npy``, ``indices.npy``, ``data.npy``: the sparse part by term (CSC: the posting list
  of term t is ``indices[indptr[t]:indptr[t + 1]]``, rows within the segment, with its weights
  in ``data``), if any;
- ``sq.npy``        float64 (n,): squared norms in the model's metric (distance models only);
- ``segment.json``  what the arrays must be (n, shapes, dtype), written last.

A segment is written into a temporary directory, every file and the directory are fsynced,
and it is renamed into place; only then does the manifest (written the same way: a temporary
file, fsync, rename, fsync of the directory) list it. Opening reads only the segments the
manifest lists, so a half-written segment is never read, whatever stopped the writer.

Only numpy and the standard library are imported here.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
from pathlib import Path

import numpy as np

__all__ = ["IndexFormatError", "write_json_atomic", "write_segment", "Segment", "fsync_dir", "rows_of", "merged_rows"]

FORMAT_NAME = "learnsim-index"
FORMAT_VERSION = 1


class IndexFormatError(ValueError):
    """The directory is not a valid learnsim index (damaged, edited, or from a newer version)."""


def fsync_dir(path):
    """fsync a directory, so that a rename inside it survives a crash (no-op where unsupported)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _fsync_file(path):
    with open(path, "rb+") as fh:
        os.fsync(fh.fileno())


def read_manifest(path, name, format_name, format_version, what="index"):
    """The manifest ``path / name`` of a learnsim ``what`` whose format is ``format_name``, read
    and checked as far as every manifest goes (a dict, the format, a version this learnsim reads);
    IndexFormatError otherwise. The fields of each kind of manifest are checked by its reader."""
    try:
        with open(path / name, encoding="utf-8") as fh:
            m = json.load(fh)
    except (OSError, ValueError) as exc:
        raise IndexFormatError(f"{path}: cannot read {name} ({exc})") from None
    if not isinstance(m, dict) or m.get("format") != format_name:
        raise IndexFormatError(f"{path}: {name} is not a learnsim {what} manifest")
    if not isinstance(m.get("format_version"), int) or m["format_version"] > format_version:
        raise IndexFormatError(f"{path}: {what} format version {m.get('format_version')!r} is newer than "
                               f"this learnsim reads ({format_version}); upgrade learnsim")
    return m


def write_json_atomic(path, obj):
    """Write JSON to ``path`` through a fsynced temporary file and a rename."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, indent=1, sort_keys=True)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)


def write_segment(directory, name, seqs, rows, dtype, extra=None):
    """Write a segment (see the module notes) of documents ``seqs`` with ``rows`` (a Rows of CSR
    and dense parts) and return its manifest entry. ``extra(tmp_dir, rows, meta)``, if given,
    writes more files into the segment's temporary directory (fsynced) and records them in
    ``meta`` (segment.json) before the rename: the approximate structure of
    :mod:`learnsim.index._ann`."""
    import scipy.sparse as sp

    directory = Path(directory)
    final = directory / name
    tmp = directory / f".tmp-{name}-{secrets.token_hex(4)}"
    tmp.mkdir(parents=True)
    try:
        seqs = np.asarray(seqs, dtype=np.int64)
        n = seqs.shape[0]
        meta = {"n": int(n), "dtype": np.dtype(dtype).name, "first_seq": int(seqs[0]) if n else 0,
                "last_seq": int(seqs[-1]) if n else 0}
        files = {"seqs": seqs}
        if rows.dense is not None:
            dense = np.ascontiguousarray(rows.dense, dtype=dtype)
            files["dense"] = dense
            meta["dense_dim"] = int(dense.shape[1])
        if rows.sparse is not None:
            csc = sp.csc_matrix(rows.sparse, dtype=dtype)
            csc.sort_indices()
            files["indptr"] = csc.indptr.astype(np.int64)
            files["indices"] = csc.indices.astype(np.int32)
            files["data"] = csc.data.astype(dtype)
            meta["n_features"] = int(csc.shape[1])
            meta["nnz"] = int(csc.nnz)
        if rows.sq is not None:
            files["sq"] = np.asarray(rows.sq, dtype=np.float64)
        for key, arr in files.items():
            np.save(tmp / f"{key}.npy", arr, allow_pickle=False)
            _fsync_file(tmp / f"{key}.npy")
        meta["files"] = sorted(files)
        if extra is not None:
            extra(tmp, rows, meta)
        with open(tmp / "segment.json", "w", encoding="utf-8") as fh:
            json.dump(meta, fh)
            fh.flush()
            os.fsync(fh.fileno())
        fsync_dir(tmp)
        os.replace(tmp, final)
        fsync_dir(directory)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return {"name": name, "n": int(n), "first_seq": meta["first_seq"], "last_seq": meta["last_seq"]}


class Segment:
    """A segment opened with mmap; its arrays are checked against ``segment.json`` and the
    manifest entry at open (shapes, dtypes) and once, at first use, entry by entry (finite
    values, rows in range, increasing sequence numbers): what is read from disk is checked like
    what the index computed."""

    def __init__(self, directory, entry, *, kind, n_features=None, dense_dim=None):
        name = entry.get("name") if isinstance(entry, dict) else None
        if (not isinstance(name, str) or not name or name.startswith(".") or "/" in name or "\\" in name
                or isinstance(entry.get("n"), bool) or not isinstance(entry.get("n"), int) or entry["n"] < 0):
            raise IndexFormatError(f"a segment entry of the manifest is not {{name, n, ...}} with a plain "
                                   f"directory name: {entry!r}")
        self.name = name
        self.path = path = Path(directory) / self.name
        self.kind = kind
        where = f"segment {self.name!r}"
        try:
            with open(path / "segment.json", encoding="utf-8") as fh:
                meta = json.load(fh)
        except (OSError, ValueError) as exc:
            raise IndexFormatError(f"{where}: cannot read segment.json ({exc})") from None
        if not isinstance(meta, dict) or meta.get("n") != entry.get("n"):
            raise IndexFormatError(f"{where}: segment.json does not match the manifest")
        self.n = int(entry["n"])
        # the approximate structure, opened on first use (learnsim.index._ann.segment_ann)
        self.ann_meta = meta.get("ann")
        self.dtype = np.dtype(meta.get("dtype", "float32"))
        if self.dtype not in (np.float32, np.float64):
            raise IndexFormatError(f"{where}: dtype {self.dtype} is not float32 or float64")

        def load(key, required=True):
            file = path / f"{key}.npy"
            if not file.exists():
                if required:
                    raise IndexFormatError(f"{where}: {key}.npy is missing")
                return None
            try:
                arr = np.load(file, mmap_mode="r", allow_pickle=False)
            except (OSError, ValueError) as exc:
                raise IndexFormatError(f"{where}: cannot read {key}.npy ({exc})") from None
            # a plain ndarray over the same mapping: np.memmap makes every slice a memmap object,
            # which costs more than the slice in a search over short posting lists
            return arr.view(np.ndarray) if isinstance(arr, np.memmap) else arr

        self.seqs = load("seqs")
        if self.seqs.shape != (self.n,) or self.seqs.dtype != np.int64:
            raise IndexFormatError(f"{where}: seqs.npy must be int64 of shape ({self.n},)")
        if self.n and [int(self.seqs[0]), int(self.seqs[-1])] != [entry.get("first_seq"), entry.get("last_seq")]:
            raise IndexFormatError(f"{where}: seqs.npy does not hold the documents the manifest lists")
        self.dense = load("dense", required=dense_dim is not None)
        if self.dense is not None and (self.dense.ndim != 2 or self.dense.shape != (self.n, dense_dim)
                                       or self.dense.dtype != self.dtype):
            raise IndexFormatError(f"{where}: dense.npy must be {self.dtype} of shape ({self.n}, {dense_dim}); "
                                   f"got {self.dense.dtype} {self.dense.shape}")
        self.indptr = load("indptr", required=n_features is not None)
        if self.indptr is not None:
            self.indices, self.data = load("indices"), load("data")
            if (self.indptr.shape != (n_features + 1,) or self.indptr.dtype != np.int64
                    or self.indices.dtype != np.int32 or self.data.dtype != self.dtype
                    or self.indices.shape != self.data.shape or self.indices.ndim != 1
                    or int(self.indptr[0]) != 0 or int(self.indptr[-1]) != self.indices.shape[0]):
                raise IndexFormatError(f"{where}: the posting lists (indptr, indices, data) are inconsistent")
        self.sq = load("sq", required=kind == "distance")
        if self.sq is not None and (self.sq.shape != (self.n,) or self.sq.dtype != np.float64):
            raise IndexFormatError(f"{where}: sq.npy must be float64 of shape ({self.n},)")
        self._checked = False

    def check(self):
        """The entry-by-entry checks (once): O(size of the segment)."""
        if self._checked:
            return
        where = f"segment {self.name!r}"
        if self.n and not np.all(np.diff(self.seqs) > 0):
            raise IndexFormatError(f"{where}: sequence numbers are not increasing")
        if self.dense is not None and not np.isfinite(self.dense).all():
            raise IndexFormatError(f"{where}: dense.npy holds NaN or infinite values")
        if self.indptr is not None:
            if np.any(np.diff(self.indptr) < 0):
                raise IndexFormatError(f"{where}: indptr.npy is not non-decreasing")
            if self.indices.size and (int(self.indices.min()) < 0 or int(self.indices.max()) >= self.n):
                raise IndexFormatError(f"{where}: a posting list names a row outside the segment")
            if not np.isfinite(self.data).all():
                raise IndexFormatError(f"{where}: data.npy holds NaN or infinite values")
        if self.sq is not None and not (np.isfinite(self.sq).all() and (self.sq >= -1e-6 * max(1.0, float(np.abs(self.sq).max(initial=0)))).all()):
            raise IndexFormatError(f"{where}: sq.npy holds NaN, infinite or negative values")
        self._checked = True

    def inner(self, q_sparse, q_dense):
        """Inner products (float64, n) of one query's rows with this segment's rows.

        ``q_sparse``: (term ids int64, weights float64) or None; ``q_dense``: float64 (d,) or None.
        """
        self.check()
        out = np.zeros(self.n)
        if q_sparse is not None and self.indptr is not None and q_sparse[0].size:
            terms, weights = q_sparse
            starts, ends = self.indptr[terms], self.indptr[terms + 1]
            hit = ends > starts
            if hit.any():
                rows = np.concatenate([self.indices[s:e] for s, e in zip(starts[hit], ends[hit])])
                vals = np.concatenate([self.data[s:e].astype(np.float64) * w
                                       for s, e, w in zip(starts[hit], ends[hit], weights[hit])])
                out += np.bincount(rows, weights=vals, minlength=self.n)
        if q_dense is not None and self.dense is not None and self.n:
            out += (self.dense @ np.asarray(q_dense, dtype=self.dtype)).astype(np.float64)
        return out


def rows_of(seg, keep=None):
    """The Rows (CSR sparse part) of a segment, optionally only the rows in ``keep``."""
    import scipy.sparse as sp

    from ..scorer import Rows

    sparse = dense = sq = None
    if seg.indptr is not None:
        n_features = seg.indptr.shape[0] - 1
        sparse = sp.csc_matrix((np.asarray(seg.data), np.asarray(seg.indices), np.asarray(seg.indptr)),
                               shape=(seg.n, n_features)).tocsr()
        sparse = sparse[keep] if keep is not None else sparse
    if seg.dense is not None:
        dense = np.asarray(seg.dense)
        dense = dense[keep] if keep is not None else dense
    if seg.sq is not None:
        sq = np.asarray(seg.sq)
        sq = sq[keep] if keep is not None else sq
    return Rows(sparse=sparse, dense=dense, sq=sq)


def merged_rows(segments, keep):
    """The Rows of ``segments`` one after another, only the rows where ``keep`` (a mask over all
    of them) is True: what a merge or a compaction writes as one segment."""
    import scipy.sparse as sp

    from ..scorer import Rows

    parts, offset = [], 0
    for seg in segments:
        parts.append(rows_of(seg, np.asarray(keep[offset:offset + seg.n])))
        offset += seg.n
    if not parts:
        return Rows()
    sparse = sp.vstack([r.sparse for r in parts], format="csr") if parts[0].sparse is not None else None
    dense = np.vstack([r.dense for r in parts]) if parts[0].dense is not None else None
    sq = np.concatenate([r.sq for r in parts]) if parts[0].sq is not None else None
    return Rows(sparse=sparse, dense=dense, sq=sq)
