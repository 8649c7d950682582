"""Scoring every document of an index for a query, and the k best: numpy, and the kernels of
:mod:`learnsim.index._kernels` where they pay."""
from __future__ import annotations

import numpy as np

# a search's kernels (numba loaded only where they pay: see the module); imported here, not in
# the functions a search calls, whose relative imports cost it a few microseconds each
from ._kernels import (best_of_candidates, dense_scores, dense_top_k, largest_k, note_search,
                       sparse_candidates, sparse_top_k)

__all__ = ["MemorySegment", "SegmentRun", "closeness", "closeness_at", "scanned_segments", "top_k"]

# Consecutive small segments (adds of a few documents each, kept until MERGE_AT of them are
# merged) are scanned as one: each segment costs a search a fixed 20-30 us of calls whatever its
# rows (bench_index's 10k FILM index after its adds, segments of 10,000, 2,104, 1 and 1 rows: the
# two 1-row segments 27 us each, the 2,104 rows 74 us). A segment joins a run up to this many rows,
RUN_MEMBER_ROWS = 4096
# ... and a run holds a copy of its segments' rows up to this many bytes
RUN_MAX_BYTES = 8 << 20


class MemorySegment:
    """Rows held in memory (documents added after the last segment): the interface of
    :class:`learnsim.index._segments.Segment`."""

    def __init__(self, seqs, rows, dtype):
        self.name = "(in memory)"
        self.seqs = np.asarray(seqs, dtype=np.int64)
        self.n = self.seqs.shape[0]
        self.dtype = np.dtype(dtype)
        self.dense = None if rows.dense is None else np.ascontiguousarray(rows.dense, dtype=self.dtype)
        self.indptr = None
        if rows.sparse is not None:
            import scipy.sparse as sp

            csc = sp.csc_matrix(rows.sparse, dtype=self.dtype)
            csc.sort_indices()
            self.indptr = csc.indptr.astype(np.int64)
            self.indices = csc.indices.astype(np.int32)
            self.data = csc.data
        self.sq = None if rows.sq is None else np.asarray(rows.sq, dtype=np.float64)

    def check(self):
        return None

    def has(self, key):
        """Whether the rows have the array ``key`` (the interface of Segment.has)."""
        return getattr(self, key, None) is not None

    def inner(self, q_sparse, q_dense):
        from ._segments import Segment

        return Segment.inner(self, q_sparse, q_dense)


class SegmentRun:
    """Consecutive small segments scanned as one: their rows concatenated in order, so that
    local positions run on from one segment to the next (the hits, their order and their ties
    are those of the segments one by one). The interface of
    :class:`learnsim.index._segments.Segment`; every member's :meth:`check` runs before its rows
    are read. Only similarity rows without an approximate structure (see :func:`scanned_segments`)."""

    ann_meta = None
    sq = None

    def __init__(self, members, base=None):
        self.members = tuple(members)
        self.name = "+".join(m.name for m in self.members)
        self.n = sum(m.n for m in self.members)
        self.dtype = self.members[0].dtype
        self._rows = None
        # a run of the first of these members made before (the run an add extended): its rows,
        # once built, are copied whole, so that a write does not make the next search restack
        # every member's posting lists (one piece a member: 0.3 ms for 17 small segments over a
        # vocabulary of 100k documents, a tenth of a LearnedBM25 search's reload after a write)
        self._base = base

    def check(self):
        self._built()

    def has(self, key):
        return self.members[0].has(key)

    def _built(self):
        if self._rows is None:
            for m in self.members:
                m.check()
            base = self._base
            pieces = list(self.members)
            if base is not None and base._rows is not None:
                # the base's rows stand for its members (their concatenation, in order)
                pieces = [base] + pieces[len(base.members):]
            rows = {"dense": None, "indptr": None, "indices": None, "data": None}
            if self.has("dense"):
                rows["dense"] = np.ascontiguousarray(np.concatenate([np.asarray(m.dense) for m in pieces]))
            if self.has("indptr"):
                # scipy only for sparse rows: its import (0.2-0.4 s) was most of a dense index's
                # first search in a fresh process (the CLI's)
                import scipy.sparse as sp

                n_terms = pieces[0].indptr.shape[0] - 1
                csc = sp.vstack([sp.csc_matrix((m.data, m.indices, m.indptr), shape=(m.n, n_terms))
                                 for m in pieces], format="csc")
                csc.sort_indices()
                rows.update(indptr=csc.indptr.astype(np.int64), indices=csc.indices.astype(np.int32),
                            data=np.asarray(csc.data, dtype=self.dtype))
            self._rows = rows
            self._base = None       # not kept alive by the run that extended it
        return self._rows

    dense = property(lambda self: self._built()["dense"])
    indptr = property(lambda self: self._built()["indptr"])
    indices = property(lambda self: self._built()["indices"])
    data = property(lambda self: self._built()["data"])

    def inner(self, q_sparse, q_dense):
        # each segment's own: BLAS's sums may round a row differently at another address, and
        # two equal documents in two segments must keep their equal scores (ties to the lower)
        return np.concatenate([m.inner(q_sparse, q_dense) for m in self.members])


def _joins_run(seg, width):
    """Whether ``seg`` may be scanned in a run (``width``: bytes of a row's dense part)."""
    return (getattr(seg, "ann_meta", None) is None and not seg.has("sq") and 0 < seg.n <= RUN_MEMBER_ROWS
            and seg.n * width <= RUN_MAX_BYTES)


def scanned_segments(segments, dense_dim, previous=()):
    """``segments`` as a search scans them: each run of two or more consecutive small segments
    with the same arrays (dense rows, posting lists) as one :class:`SegmentRun` (``dense_dim``:
    the dense rows' width, or None). ``previous``: runs made before, kept where their members
    are the same objects (their rows are not copied again)."""
    known = {tuple(map(id, run.members)): run for run in previous}
    out, run, size = [], [], 0

    def close():
        if len(run) > 1:
            key = tuple(map(id, run))
            found = known.get(key)
            if found is None:
                # the longest run of before whose members begin this one (an add appended to it)
                bases = [r for k, r in known.items() if len(k) < len(key) and key[:len(k)] == k]
                found = SegmentRun(run, base=max(bases, key=lambda r: len(r.members)) if bases else None)
            out.append(found)
        else:
            out.extend(run)

    for seg in segments:
        width = (dense_dim or 0) * np.dtype(getattr(seg, "dtype", np.float32)).itemsize
        if _joins_run(seg, width):
            same = not run or all(seg.has(key) == run[0].has(key) for key in ("dense", "indptr"))
            if same and size + seg.n * width <= RUN_MAX_BYTES:
                run.append(seg)
                size += seg.n * width
                continue
            close()
            run, size = [seg], seg.n * width
            continue
        close()
        run, size = [], 0
        out.append(seg)
    close()
    return out


def closeness(segments, q_sparse, q_dense, q_sq, distance):
    """Higher-is-closer values (float64) of one query against every row of ``segments``, in
    order: inner products, or minus the distances sqrt(|q|^2 + |d|^2 - 2 q.d)."""
    parts = []
    for seg in segments:
        inner = seg.inner(q_sparse, q_dense)
        if distance:
            inner = -np.sqrt(np.maximum(q_sq + np.asarray(seg.sq) - 2.0 * inner, 0.0))
        parts.append(inner)
    return np.concatenate(parts) if parts else np.zeros(0)


def closeness_at(segments, positions, q_sparse, q_dense, q_sq, distance):
    """Higher-is-closer values (float64) of one query against the rows at global ``positions``
    of ``segments`` (in order; not runs): what :func:`closeness` gives at those positions, to
    rounding, without scoring the other rows. A row's weight for a query term is found in the
    term's posting list by bisection (a segment's posting lists are sorted by row, as
    write_segment and MemorySegment write them): microseconds a row, where a scan of 100,000
    dense rows takes milliseconds."""
    import math

    starts = np.cumsum([0] + [int(seg.n) for seg in segments])
    out = np.zeros(len(positions))
    terms = weights = None
    if q_sparse is not None and q_sparse[0].size:
        terms, weights = q_sparse[0].tolist(), q_sparse[1].tolist()
    for i, p in enumerate(positions):
        j = int(np.searchsorted(starts, int(p), side="right")) - 1
        if not 0 <= j < len(segments):
            raise IndexError(f"position {p} is outside the segments ({int(starts[-1])} rows)")
        seg, r = segments[j], int(p) - int(starts[j])
        seg.check()
        v = 0.0
        if terms is not None and seg.indptr is not None:
            indptr, indices, data = seg.indptr, seg.indices, seg.data
            for t, w in zip(terms, weights):
                lo, hi = int(indptr[t]), int(indptr[t + 1])
                if hi > lo:
                    at = lo + int(np.searchsorted(indices[lo:hi], r))
                    if at < hi and int(indices[at]) == r:
                        v += float(data[at]) * w
        if q_dense is not None and seg.dense is not None:
            v += float(np.dot(seg.dense[r], np.asarray(q_dense, dtype=seg.dtype)))
        if distance:
            v = -math.sqrt(max(q_sq + float(seg.sq[r]) - 2.0 * v, 0.0))
        out[i] = v
    return out


def top_k(values, k, allowed=None):
    """Positions of the k largest ``values`` (ties to the lower position, as a stable sort), among
    the positions where ``allowed`` is True (all when None); fewer when fewer are allowed."""
    values = np.asarray(values, dtype=np.float64)
    if allowed is not None:
        values = np.where(allowed, values, -np.inf)
        n_ok = int(np.count_nonzero(allowed))
    else:
        n_ok = values.shape[0]
    k = min(int(k), n_ok)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k >= values.shape[0]:
        order = np.argsort(-values, kind="stable")
    else:
        # the k-th largest value; everything above it is in, ties at it go to the lower positions
        kth = np.partition(values, values.shape[0] - k)[values.shape[0] - k]
        above = np.flatnonzero(values > kth)
        above = above[np.argsort(-values[above], kind="stable")]
        at = np.flatnonzero(values == kth)[:k - above.shape[0]]
        order = np.concatenate([above, at])
    order = order[:k]
    if allowed is not None:
        order = order[np.isfinite(values[order])]
    return order


def _segment_best(seg, q_sparse, q_dense, q_sq, distance, k, allowed, n_total):
    """(local positions, higher-is-closer values) of the k best rows of one segment, best first,
    ties to the lower position; ``allowed``: a boolean mask of the segment's rows or None.

    A model that scores by shared words alone (posting lists, no dense part, not a distance)
    finds the rows that share a word with the query, up to k: a row sharing none scores 0 like
    every other such row, and k of those would be any k (the first in the index), so they are
    no hits, as Elasticsearch and Pyserini answer (bm25s fills k with them). The same rule as a
    query with no known word (no hits), applied to the rest of a short list."""
    seg.check()
    n = seg.n
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    sparse_only = (q_dense is None or seg.dense is None) and not distance
    if sparse_only and seg.indptr is not None:
        if q_sparse is None or not q_sparse[0].size:
            rows, vals = np.zeros(0, dtype=np.int64), np.zeros(0)
        else:
            # one kernel call: the k best of the rows with a score (not 0)
            fused = sparse_top_k(seg, q_sparse[0], q_sparse[1], k, allowed, n_total)
            if fused is not None:
                return fused
            rows, vals = sparse_candidates(seg, q_sparse[0], q_sparse[1], n_total)
        if allowed is not None:
            keep = allowed[rows]
            rows, vals = rows[keep], vals[keep]
        best = best_of_candidates(rows, vals, k)
        return rows[best], vals[best]
    if distance:
        values = closeness([seg], q_sparse, q_dense, q_sq, True)
    elif seg.indptr is None and q_dense is not None and seg.dense is not None:
        # dense only: rank the float32 inner products as they come (the kernels: without an
        # array of them, a large segment through its int8 copy, learnsim.index._prefilter)
        fused = dense_top_k(seg, q_dense, k, allowed, n_total)
        if fused is not None:
            return fused
        values = dense_scores(seg.dense, q_dense, n_total)
    else:
        values = seg.inner(q_sparse, q_dense)
    pos = largest_k(values, k, allowed, n_total)
    return pos, np.asarray(values[pos], dtype=np.float64)


def _placeless(seg, distance=True):
    """Local positions of a segment's rows without a place in the model's space (no term of its
    vocabulary): a distance segment's rows whose squared norm is 0, whose distance to every query
    is the query's own norm, whatever its words, so they stood near every query (first for most
    queries of a small index); a similarity segment's rows with dense parts whose every part is
    zero, which score 0 against every query, above a document that shares a word with the query
    but whose learned cosine with it is below 0 (FILM). A search leaves them out, as
    ``Pipeline.search`` does (``Scorer.placeless``); cached per segment. Rows of posting lists
    alone need nothing: a row without a term is never a candidate."""
    found = getattr(seg, "_placeless_rows", None)
    if found is None:
        seg.check()
        if distance:
            sq = seg.sq
            found = np.zeros(0, dtype=np.int64) if sq is None else np.flatnonzero(np.asarray(sq) == 0)
        elif seg.n == 0 or not _holds(seg, "dense"):
            found = np.zeros(0, dtype=np.int64)
        else:
            empty = ~np.any(np.asarray(seg.dense) != 0, axis=1)
            if _holds(seg, "indptr"):
                # posting lists by term: a row's entries are where ``indices`` names it
                data, rows = np.asarray(seg.data), np.asarray(seg.indices)
                empty &= np.bincount(rows[data != 0], minlength=seg.n) == 0
            found = np.flatnonzero(empty)
        try:
            seg._placeless_rows = found
        except AttributeError:      # a read-only object: found again next time
            pass
    return found


def _holds(seg, key):
    """Whether a segment has the array ``key`` (Segment.has; any object with the arrays as
    attributes otherwise)."""
    has = getattr(seg, "has", None)
    return has(key) if has is not None else getattr(seg, key, None) is not None


def best_k(segments, q_sparse, q_dense, q_sq, distance, k, allowed=None, *, exclude=None, ann=None):
    """(global positions, higher-is-closer values) of the k best rows over all ``segments`` (in
    order), best first, ties to the lower position; ``allowed``: a mask over all rows or None;
    ``exclude``: global positions never returned (or None; a distance's placeless rows, too);
    ``ann``: the handle's
    :class:`learnsim.index._ann.AnnSearch`, to search the segments that have an approximate
    structure through it (None: every segment is scanned exactly)."""
    note_search()
    positions, values, offset = [], [], 0
    approximate = False
    n_total = sum(seg.n for seg in segments)
    exclude = None if exclude is None else np.unique(np.asarray(exclude, dtype=np.int64).ravel())
    for seg in segments:
        mask = None if allowed is None else np.asarray(allowed[offset:offset + seg.n])
        local = None
        if exclude is not None:
            local = exclude[(exclude >= offset) & (exclude < offset + seg.n)] - offset
        placeless = _placeless(seg, distance)
        if placeless.size:
            local = placeless if local is None else np.union1d(local, placeless)
        found = None
        if ann is not None and getattr(seg, "ann_meta", None) is not None:
            from ._ann import ann_segment_best

            seg.check()
            found = ann_segment_best(seg, q_dense, q_sq, distance, k, mask, local, ann)
            approximate = found is not None
        if found is None:
            if local is not None and local.size:
                mask = np.ones(seg.n, dtype=bool) if mask is None else mask.copy()
                mask[local] = False
            found = _segment_best(seg, q_sparse, q_dense, q_sq, distance, k, mask, n_total)
        pos, vals = found
        positions.append(pos + offset)
        values.append(vals)
        offset += seg.n
    if not positions:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    if len(positions) == 1 and not approximate:
        # one segment scanned exactly: its hits are best first, ties to the lower position, already
        return positions[0][:k], values[0][:k]
    pos, vals = np.concatenate(positions), np.concatenate(values)
    order = np.lexsort((pos, -vals))[:k]
    return pos[order], vals[order]
