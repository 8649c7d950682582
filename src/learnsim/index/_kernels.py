"""The inner loops of an index search: numba kernels when numba is installed (the ``fast``
extra), numpy otherwise; both give the same hits.

- :func:`sparse_candidates`: add up the posting lists of a query's terms into a per-segment
  buffer, and return the rows they touched with their scores. A sparse-only score is 0 for every
  row the query does not touch, so the k best are among the touched rows and the first k
  untouched ones: a search costs the length of the posting lists, not the size of the segment
  (bm25s's habit).
- :func:`largest_k`: positions of the k largest values of a score vector in one pass, ties to
  the lower position (a stable sort's order), restricted to allowed positions.
- :func:`sparse_top_k` and :func:`dense_top_k`: the two above fused into one call, the search of a
  segment with no array of scores written and read back and no numpy call per step (cProfile of
  400 LearnedBM25 searches at 100k documents: the numpy calls around the kernels took 3x the
  kernels' time); a large dense segment is scanned through its int8 copy first
  (:mod:`learnsim.index._prefilter`).
"""
from __future__ import annotations

import numpy as np

from ._prefilter import prefilter_of

__all__ = ["note_search", "warm_dense", "block_top_k", "sparse_candidates", "dense_scores", "best_of_candidates", "largest_k", "have_numba",
           "sparse_top_k", "dense_top_k", "NUMBA_MIN_ROWS"]

# numba costs about 0.5 s to import and load the cached kernels: a command-line search of a small
# index (one query, 0.2 s in all) is faster without it. So the kernels are used for indexes of
# NUMBA_MIN_ROWS rows or more, and for indexes of WARM_MIN_ROWS or more in a process that has
# searched WARM_SEARCHES times already (a server, a batch) or imports numba anyway;
# LEARNSIM_NUMBA=1 always, =0 never. Below WARM_MIN_ROWS numpy is as fast (at 10k rows the fused
# kernels save a third of a dense search: 0.19 -> 0.13 ms of scan and top k).
NUMBA_MIN_ROWS = 200_000
WARM_MIN_ROWS = 5_000
WARM_SEARCHES = 32
_compiled = {}
_searches = [0]


def note_search():
    """Count one search of this process (see WARM_SEARCHES)."""
    _searches[0] += 1


def note_long_running():
    """This process will search many times (a server): as if it had searched WARM_SEARCHES
    times already."""
    _searches[0] = max(_searches[0], WARM_SEARCHES)


def searching_often():
    """Whether this process searches many times (a server, a batch, or WARM_SEARCHES searches
    so far): what pays for a structure built on first use."""
    return _searches[0] >= WARM_SEARCHES


def _kernels(n_rows):
    """The numba-compiled kernels, or None (numpy path)."""
    import os

    import sys

    flag = os.environ.get("LEARNSIM_NUMBA", "")
    if flag == "0":
        return None
    warm = _searches[0] >= WARM_SEARCHES or "numba" in sys.modules
    if flag != "1" and n_rows < NUMBA_MIN_ROWS and not (warm and n_rows >= WARM_MIN_ROWS):
        return None
    if "ok" not in _compiled:
        try:
            import numba
        except ImportError:  # pragma: no cover - depends on the environment
            _compiled["ok"] = False
            return None
        jit = numba.njit(cache=True, nogil=True)
        fast = numba.njit(cache=True, nogil=True, fastmath=True)
        # the kernels below call these: they must be compiled functions when those compile
        global _insert_best, _insert_position, _accumulate
        _insert_best = numba.njit(inline="always")(_insert_best)
        _insert_position = numba.njit(inline="always")(_insert_position)
        _accumulate = jit(_accumulate)
        # fastmath lets the row dot products use SIMD lanes (a different summation order than
        # BLAS: float32 rounding, about 1e-7 of a unit vector's score); every kernel that takes
        # a row's dot product runs the same loop, so they give the same float32 score
        _compiled.update(ok=True, accumulate=_accumulate, collect=jit(_collect),
                         largest_k=jit(_largest_k_kernel),
                         # no NaN (the rows and queries are checked finite): the chunks' max is SIMD
                         largest_k_chunked=numba.njit(cache=True, nogil=True, fastmath={"nnan", "nsz"})(_largest_k_chunked),
                         block_top_k=numba.njit(cache=True, nogil=True, fastmath={"nnan", "nsz"})(_block_top_k),
                         dots=fast(_dots),
                         sparse_top_k=jit(_sparse_top_k_kernel), dots_at=fast(_dots_at),
                         q8_blocks=fast(_q8_blocks_kernel), kth_largest=jit(_kth_largest_kernel),
                         at_least=jit(_at_least_kernel), q8_prepare=jit(_q8_prepare_kernel))
        # the int8 copy's last steps call these compiled (the candidates' dot products the same
        # fastmath loop as every other scan's, so the same float32 scores)
        global _q8_kth, _q8_at_least, _q8_dots_at
        _q8_kth, _q8_at_least, _q8_dots_at = _compiled["kth_largest"], _compiled["at_least"], _compiled["dots_at"]
        _compiled["q8_finish"] = jit(_q8_finish_kernel)
    return _compiled if _compiled["ok"] else None


def have_numba():
    """Whether numba is importable (the kernels' fast path)."""
    try:
        import numba  # noqa: F401
    except ImportError:  # pragma: no cover
        return False
    return True


# largest_k keeps its k best in an insertion-sorted buffer: above this k a sort is cheaper
_MAX_KERNEL_K = 256
_NO_ROWS = np.zeros(0, dtype=np.int64)


def _accumulate(indptr, indices, data, terms, weights, buf, touched):
    """buf[rows] += weight x posting weights for every query term; the touched rows (each once)
    go to ``touched``; returns how many."""
    m = 0
    for t in range(terms.shape[0]):
        term = terms[t]
        w = weights[t]
        for p in range(indptr[term], indptr[term + 1]):
            r = indices[p]
            if buf[r] == 0.0:
                # a row whose running sum is exactly 0 may be listed twice: dropped below
                touched[m] = r
                m += 1
            buf[r] += w * data[p]
    return m


def _collect(buf, touched, m, out_rows, out_vals):
    """Move the touched rows' sums out of ``buf`` (and zero it again); returns how many rows."""
    n = 0
    for i in range(m):
        r = touched[i]
        v = buf[r]
        if v != 0.0:
            out_rows[n] = r
            out_vals[n] = v
            n += 1
            buf[r] = 0.0
    return n


def _dots(D, q, out):
    """out[i] = D[i] . q (float32 rows)."""
    n, d = D.shape
    for i in range(n):
        s = out.dtype.type(0.0)
        for j in range(d):
            s += D[i, j] * q[j]
        out[i] = s


def _insert_best(pos, vals, count, k, p, v):
    """Put (p, v) in the best-first buffers ``pos``/``vals`` of ``count`` (<= k) entries (higher
    value first, ties to the lower position); returns the new count. The caller has checked that
    it beats the last of k: that test written in the caller's loop keeps the loop fast (called
    on every row, the kernel was five times slower, inlined or not)."""
    if count == k:
        j = k - 1
    else:
        j = count
        count += 1
    while j > 0 and (v > vals[j - 1] or (v == vals[j - 1] and p < pos[j - 1])):
        pos[j] = pos[j - 1]
        vals[j] = vals[j - 1]
        j -= 1
    pos[j] = p
    vals[j] = v
    return count


def _sparse_top_k_kernel(indptr, indices, data, terms, weights, buf, touched, k, allowed, use_allowed,
                         out_pos, out_vals):
    """The posting lists of the query's terms added up in ``buf`` (:func:`_accumulate`), and the
    k best allowed rows whose sum is not 0 chosen as ``buf`` is zeroed again (as
    :func:`_collect`); returns how many (<= k)."""
    m = _accumulate(indptr, indices, data, terms, weights, buf, touched)
    count = 0
    for i in range(m):
        r = touched[i]
        v = buf[r]
        if v != 0.0:
            buf[r] = 0.0
            if use_allowed and not allowed[r]:
                continue
            if count == k and not (v > out_vals[k - 1] or (v == out_vals[k - 1] and r < out_pos[k - 1])):
                continue
            count = _insert_best(out_pos, out_vals, count, k, r, v)
    return count


def _dots_at(D, q, rows, use_rows, k, out_pos, out_vals):
    """The k best of ``rows`` (increasing positions of D; every row when not ``use_rows``) by
    D[i] . q (the loop of :func:`_dots`): the candidates of an int8 scan, the allowed rows or all
    of a small segment."""
    d = D.shape[1]
    count = 0
    for t in range(rows.shape[0] if use_rows else D.shape[0]):
        i = rows[t] if use_rows else t
        s = out_vals.dtype.type(0.0)
        for j in range(d):
            s += D[i, j] * q[j]
        # rows come in increasing order: an equal score never beats an earlier row
        if count == k and not s > out_vals[k - 1]:
            continue
        count = _insert_best(out_pos, out_vals, count, k, i, s)
    return count


def _q8_blocks_kernel(C, qs, base, out):
    """out[i] = base + sum_j qs[j] C[b, j, l] for row i = b * B + l of the int8 copy's blocks
    (:class:`learnsim.index._prefilter.Int8Rows`): an approximate score a row. Four dimensions a
    pass over a block's sums, each pass whole SIMD vectors of rows."""
    nb, d, B = C.shape
    for b in range(nb):
        o = b * B
        for t in range(B):
            out[o + t] = base
        j = 0
        while j + 3 < d:
            w0, w1, w2, w3 = qs[j], qs[j + 1], qs[j + 2], qs[j + 3]
            for t in range(B):
                out[o + t] += ((w0 * out.dtype.type(C[b, j, t]) + w1 * out.dtype.type(C[b, j + 1, t]))
                               + (w2 * out.dtype.type(C[b, j + 2, t]) + w3 * out.dtype.type(C[b, j + 3, t])))
            j += 4
        while j < d:
            w0 = qs[j]
            for t in range(B):
                out[o + t] += w0 * out.dtype.type(C[b, j, t])
            j += 1


def _kth_largest_kernel(values, k, allowed, use_allowed, best):
    """The k-th largest of the allowed ``values`` (-inf when fewer than k are allowed): an
    insertion-sorted buffer ``best`` of the k largest, no positions."""
    count = 0
    for i in range(values.shape[0]):
        s = values[i]
        if use_allowed and not allowed[i]:
            continue
        if count == k:
            if not s > best[k - 1]:
                continue
            j = k - 1
        else:
            j = count
            count += 1
        while j > 0 and s > best[j - 1]:
            best[j] = best[j - 1]
            j -= 1
        best[j] = s
    return best[k - 1] if count == k else -np.inf


def _at_least_kernel(values, threshold, allowed, use_allowed, out):
    """The allowed positions whose value is at least ``threshold``, in increasing order; returns
    how many."""
    m = 0
    for i in range(values.shape[0]):
        if values[i] >= threshold and not (use_allowed and not allowed[i]):
            out[m] = i
            m += 1
    return m


def _q8_prepare_kernel(q, scale, center, error, rounding_terms, weights):
    """What a query needs to search an int8 copy (:meth:`learnsim.index._prefilter.Int8Rows.top_k`):
    fills ``weights`` (float32 ``q_j s_j``) and returns the float32 offset ``sum_j q_j c_j`` and the
    margin below the approximate k-th best within which a row may still be among the k best
    (twice the approximation's bound ``sum_j |q_j| e_j`` and the float32 rounding of both sums,
    four times over); in float64, in one call (as numpy calls, a dozen of them, 15-20 us)."""
    d = q.shape[0]
    base = 0.0
    eps = 0.0
    terms = 0.0
    for j in range(d):
        x = np.float64(q[j])
        weights[j] = np.float32(x * scale[j])
        base += x * center[j]
        eps += abs(x) * error[j]
        terms += abs(x) * rounding_terms[j]
    rounding = 4.0 * (d + 2) * 2.0 ** -24 * (terms + abs(base))
    return np.float32(base), 2.0 * eps + rounding


def _q8_finish_kernel(approx, n, k, allowed, use_allowed, best, margin, D, q, candidates, out_pos, out_vals):
    """The k best allowed rows of ``D`` from the approximate scores ``approx[:n]`` of an int8 copy:
    its k-th best, the rows within ``margin`` of it (every allowed row when fewer than k are),
    and their exact float32 dot products; returns how many (:meth:`Int8Rows.top_k`)."""
    values = approx[:n]
    kth = _q8_kth(values, k, allowed, use_allowed, best)
    threshold = np.float32(-np.inf)
    if kth > -np.inf:
        threshold = np.float32(np.float64(kth) - margin)
    m = _q8_at_least(values, threshold, allowed, use_allowed, candidates)
    return _q8_dots_at(D, q, candidates[:m], True, k, out_pos, out_vals)


# what _q8_finish_kernel calls: the compiled kernels once numba is loaded (see _kernels)
_q8_kth, _q8_at_least, _q8_dots_at = _kth_largest_kernel, _at_least_kernel, _dots_at


def _mask(allowed):
    return (np.zeros(1, dtype=np.bool_), False) if allowed is None else (np.asarray(allowed, dtype=np.bool_), True)


def sparse_top_k(seg, terms, weights, k, allowed=None, n_total=None):
    """(rows, scores) of the k best allowed rows of ``seg`` whose sparse score is not 0, best
    first, ties to the lower row, in one kernel call; fewer when fewer have a score. None where
    the kernels do not apply (numpy path, k above 256): :func:`sparse_candidates` then."""
    kernels = _kernels(seg.n if n_total is None else n_total)
    if kernels is None or not 0 < k <= _MAX_KERNEL_K:
        return None
    terms = np.asarray(terms, dtype=np.int64)
    weights = np.asarray(weights, dtype=np.float64)
    indptr = seg.indptr
    buf = getattr(seg, "_buffer", None)
    if buf is None or buf.shape[0] != seg.n:
        buf = seg._buffer = np.zeros(seg.n)
    total = int((indptr[terms + 1] - indptr[terms]).sum()) if terms.size else 0
    # the rows touched, at most one per posting: a buffer kept with the segment's sums, grown
    # when a query's lists are longer than any before (a fresh one costs its page faults)
    touched = getattr(seg, "_touched", None)
    if touched is None or touched.shape[0] < total:
        touched = seg._touched = np.empty(max(total, 1024), dtype=np.int64)
    pos, vals = np.empty(k, dtype=np.int64), np.empty(k)
    mask, use = _mask(allowed)
    try:
        count = kernels["sparse_top_k"](indptr, seg.indices, seg.data, terms, weights, buf, touched, k, mask, use,
                                        pos, vals)
    except BaseException:
        buf[:] = 0.0
        raise
    return pos[:count], vals[:count]


def dense_top_k(seg, q, k, allowed=None, n_total=None):
    """(positions, float64 scores) of the k best allowed rows of a dense-only segment by the
    float32 inner product with ``q``, best first, ties to the lower position, without an array
    of scores: a large segment through its int8 copy (:mod:`learnsim.index._prefilter`, the same
    hits), a small one in one pass. None where the kernels do not apply."""
    D = seg.dense
    kernels = _kernels(seg.n if n_total is None else n_total)
    if kernels is None or not 0 < k <= _MAX_KERNEL_K or D.ndim != 2 or not D.flags.c_contiguous:
        return None
    q = np.ascontiguousarray(q, dtype=D.dtype)
    mask, use = _mask(allowed)
    pre = prefilter_of(seg, searching_often(), n_total)
    pos, vals = np.empty(k, dtype=np.int64), np.empty(k, dtype=D.dtype)
    if pre is None:
        # every row when no mask (an empty list of rows: no flatnonzero a search)
        count = kernels["dots_at"](D, q, np.flatnonzero(mask) if use else _NO_ROWS, use, k, pos, vals)
    else:
        count = pre.top_k(kernels, D, q, k, mask, use, pos, vals)
    return pos[:count], vals[:count].astype(np.float64)


def warm_dense(D, n_total):
    """Load the kernels that an exact scan of dense rows like ``D`` uses (numba's import and the
    compiled code for D's dtype, from numba's cache) in an index of ``n_total`` rows, where they
    apply. A server's index whose one large segment is searched through an approximate structure
    runs none of them until a write adds a small segment, which is scanned exactly: its first
    search then waited for them (0.8-1.1 s on a 2-core Xeon), and every client of that process
    with it (the 560-770 ms maximum of bench_serve's first approximate run)."""
    kernels = _kernels(n_total)
    if kernels is None or D is None or D.ndim != 2 or not D.shape[0] or not D.flags.c_contiguous:
        return
    D = D[:64]
    q = np.ascontiguousarray(D[0])
    pos, vals = np.empty(1, dtype=np.int64), np.empty(1, dtype=D.dtype)
    kernels["dots_at"](D, q, np.zeros(0, dtype=np.int64), False, 1, pos, vals)
    # the batch path's top k, over a row of a block's scores (the rows' dtype), with and without a mask
    scores = np.ascontiguousarray(D @ q)
    largest_k(scores, 1, None, n_total)
    largest_k(scores, 1, np.ones(scores.shape[0], dtype=bool), n_total)
    # and the batch's: a block of scores of a few queries, its dtype the rows'
    block = D @ np.ascontiguousarray(D[:4].T)
    out_pos, out_vals = np.empty((4, 1), dtype=np.int64), np.empty((4, 1), dtype=block.dtype)
    for allowed in (None, np.ones(block.shape[0], dtype=bool)):
        block_top_k(kernels, block, 0, 1, allowed, out_pos, out_vals, np.zeros(4, dtype=np.int64))


def dense_scores(D, q, n_total=None):
    """D @ q for the dense rows of a segment (``n_total``: rows of the whole index, which
    decides whether the numba kernel is worth its import)."""
    q = np.asarray(q, dtype=D.dtype)
    kernels = _kernels(D.shape[0] if n_total is None else n_total)
    if kernels is None or D.ndim != 2 or not D.flags.c_contiguous:
        return D @ q
    out = np.empty(D.shape[0], dtype=D.dtype)
    kernels["dots"](D, q, out)
    return out


def sparse_candidates(seg, terms, weights, n_total=None):
    """(rows, scores) of the rows of ``seg`` whose sparse score is not 0 (in no particular order)."""
    terms = np.asarray(terms, dtype=np.int64)
    weights = np.asarray(weights, dtype=np.float64)
    indptr, indices, data = seg.indptr, seg.indices, seg.data
    kernels = _kernels(seg.n if n_total is None else n_total)
    if kernels is not None:
        buf = getattr(seg, "_buffer", None)
        if buf is None or buf.shape[0] != seg.n:
            buf = seg._buffer = np.zeros(seg.n)
        total = int((np.asarray(indptr[terms + 1]) - np.asarray(indptr[terms])).sum()) if terms.size else 0
        touched = np.empty(total, dtype=np.int64)
        try:
            m = kernels["accumulate"](indptr, indices, data, terms, weights, buf, touched)
            rows = np.empty(m, dtype=np.int64)
            vals = np.empty(m)
            n = kernels["collect"](buf, touched, m, rows, vals)
        except BaseException:
            buf[:] = 0.0
            raise
        return rows[:n], vals[:n]
    starts, ends = indptr[terms], indptr[terms + 1]
    hit = ends > starts
    if not hit.any():
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    rows = np.concatenate([indices[s:e] for s, e in zip(starts[hit], ends[hit])])
    vals = np.concatenate([data[s:e].astype(np.float64) * w for s, e, w in zip(starts[hit], ends[hit], weights[hit])])
    sums = np.bincount(rows, weights=vals, minlength=seg.n)
    nz = np.flatnonzero(sums)
    return nz.astype(np.int64), sums[nz]


def _insert_position(values, out, count, k, i):
    """Put position i in the best-first positions ``out`` of ``count`` (<= k) entries, by
    ``values`` (ties to the lower position: positions come in increasing order); returns the new
    count. The caller has checked that it beats the last of k (see :func:`_insert_best`)."""
    v = values[i]
    if count == k:
        j = k - 1
    else:
        j = count
        count += 1
    # shift down the ones it beats (strictly: an equal earlier position stays ahead)
    while j > 0 and v > values[out[j - 1]]:
        out[j] = out[j - 1]
        j -= 1
    out[j] = i
    return count


def _largest_k_kernel(values, k, allowed, use_allowed, out):
    """Insertion-sorted buffer of the k largest (ties to the lower position); returns the count."""
    count = 0
    for i in range(values.shape[0]):
        if use_allowed and not allowed[i]:
            continue
        if count == k and not values[i] > values[out[k - 1]]:
            continue
        count = _insert_position(values, out, count, k, i)
    return count


def _largest_k_chunked(values, k, out):
    """:func:`_largest_k_kernel` without a mask, reading the values in chunks of 16: the largest
    of a chunk (a SIMD max) is compared with the k-th best so far, and only a chunk that beats it
    is inserted value by value; once the k best are found few chunks do (100,000 float32
    scores: 18 us against 55 us value by value, one core of a 2-core EPYC; one function, not a
    branch of the masked one, whose loop LLVM then did not vectorise)."""
    n = values.shape[0]
    count = 0
    i = 0
    while i < n and count < k:
        count = _insert_position(values, out, count, k, i)
        i += 1
    if count < k:
        return count
    # whole chunks (a fixed trip count: the max is vectorised), then the values left one by one
    while i + 16 <= n:
        m = values[i]
        for c in range(1, 16):
            if values[i + c] > m:
                m = values[i + c]
        if m > values[out[k - 1]]:
            for c in range(i, i + 16):
                if values[c] > values[out[k - 1]]:
                    count = _insert_position(values, out, count, k, c)
        i += 16
    for c in range(i, n):
        if values[c] > values[out[k - 1]]:
            count = _insert_position(values, out, count, k, c)
    return count


def _block_top_k(S, first, k, allowed, use_allowed, out_pos, out_vals, counts):
    """Add a block of a batch's scores to each query's best k: ``S`` (rows of the block,
    queries), whose row c is row ``first + c`` (blocks come in increasing rows); ``out_pos`` /
    ``out_vals`` (queries, k) hold each query's ``counts`` best so far, best first, ties to the
    lower row (:func:`_insert_best`). A row is compared with every query's k-th best in one SIMD
    pass, and only a row that beats one of them is inserted (about k log(n / k) rows a query)."""
    w, m = S.shape
    # the value a row must beat to enter each query's list (-inf while the list is not full:
    # the scores are finite)
    floor = np.empty(m, dtype=S.dtype)
    for r in range(m):
        floor[r] = out_vals[r, k - 1] if counts[r] == k else -np.inf
    for c in range(w):
        if use_allowed and not allowed[c]:
            continue
        beats = False
        for r in range(m):
            beats |= S[c, r] > floor[r]
        if not beats:
            continue
        for r in range(m):
            v = S[c, r]
            if v > floor[r]:
                count = _insert_best(out_pos[r], out_vals[r], counts[r], k, first + c, v)
                counts[r] = count
                if count == k:
                    floor[r] = out_vals[r, k - 1]


def block_top_k(kernels, S, first, k, allowed, out_pos, out_vals, counts):
    """:func:`_block_top_k` through the compiled kernels (``allowed``: the block's mask or None)."""
    mask, use = _mask(allowed)
    kernels["block_top_k"](S, first, k, mask, use, out_pos, out_vals, counts)


def best_of_candidates(rows, vals, k):
    """Indices into (rows, vals) of the k largest values, best first, ties to the lower row;
    linear in their number (no sort of them all)."""
    m = rows.shape[0]
    if m > k:
        kth = np.partition(vals, m - k)[m - k]
        above = np.flatnonzero(vals > kth)
        at = np.flatnonzero(vals == kth)
        at = at[np.argsort(rows[at], kind="stable")][:k - above.shape[0]]
        keep = np.concatenate([above, at])
    else:
        keep = np.arange(m)
    return keep[np.lexsort((rows[keep], -vals[keep]))]


def largest_k(values, k, allowed=None, n_total=None):
    """Positions of the k largest ``values`` (best first, ties to the lower position) among the
    allowed positions (all when None)."""
    values = np.asarray(values)
    n = values.shape[0]
    k = int(min(k, n))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    kernels = _kernels(n if n_total is None else n_total)
    if kernels is not None and k <= _MAX_KERNEL_K:
        out = np.empty(k, dtype=np.int64)
        if allowed is None and values.dtype.kind == "f" and values.flags.c_contiguous:
            return out[:kernels["largest_k_chunked"](values, k, out)]
        mask = allowed if allowed is not None else np.zeros(1, dtype=bool)
        count = kernels["largest_k"](values, k, np.asarray(mask, dtype=np.bool_), allowed is not None, out)
        return out[:count]
    if allowed is not None:
        pos = np.flatnonzero(allowed)
        sub = values[pos]
        return pos[_largest_k_numpy(sub, min(k, sub.shape[0]))]
    return _largest_k_numpy(values, k)


def _largest_k_numpy(values, k):
    n = values.shape[0]
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k >= n:
        return np.argsort(-values, kind="stable")
    kth = np.partition(values, n - k)[n - k]
    above = np.flatnonzero(values > kth)
    above = above[np.argsort(-values[above], kind="stable")]
    at = np.flatnonzero(values == kth)[:k - above.shape[0]]
    return np.concatenate([above, at]).astype(np.int64)
