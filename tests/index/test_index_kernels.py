"""The index's search kernels: numba and numpy give the same k best, ties to the lower position."""
import numpy as np
import pytest

from learnsim.index import _kernels as K
from sparse_segments import SparseSegment


def _reference(values, k, allowed=None):
    pos = np.arange(values.shape[0]) if allowed is None else np.flatnonzero(allowed)
    order = np.argsort(-values[pos], kind="stable")
    return pos[order][:k]


@pytest.mark.parametrize("numba", ["0", "1"])
@pytest.mark.parametrize("k", [1, 3, 10, 300])
def test_largest_k_matches_a_stable_sort_with_ties_and_masks(monkeypatch, numba, k):
    monkeypatch.setenv("LEARNSIM_NUMBA", numba)
    rng = np.random.default_rng(k)
    for dtype in (np.float32, np.float64):
        values = rng.integers(0, 5, size=500).astype(dtype)      # many ties
        allowed = rng.random(500) < 0.3
        assert np.array_equal(K.largest_k(values, k), _reference(values, k))
        assert np.array_equal(K.largest_k(values, k, allowed), _reference(values, k, allowed))
    assert K.largest_k(np.zeros(0), 5).shape == (0,)


@pytest.mark.parametrize("numba", ["0", "1"])
def test_sparse_candidates_are_the_nonzero_scores(monkeypatch, numba):
    import scipy.sparse as sp

    monkeypatch.setenv("LEARNSIM_NUMBA", numba)
    rng = np.random.default_rng(0)
    W = sp.random(300, 40, density=0.1, random_state=1, format="csr")
    W.data = np.round(W.data * 4) - 2          # signed weights, some sums exactly 0
    seg = SparseSegment(W)
    for _ in range(20):
        terms = np.unique(rng.integers(0, 40, size=4))
        weights = rng.integers(1, 3, size=terms.size).astype(float)
        rows, vals = K.sparse_candidates(seg, terms, weights)
        order = np.argsort(rows)
        rows, vals = rows[order], vals[order]
        q = np.zeros(40)
        q[terms] = weights
        full = np.asarray(W.astype(np.float32) @ q).ravel()
        nz = np.flatnonzero(full)
        assert np.array_equal(rows, nz)
        assert np.allclose(vals, full[nz], atol=1e-6)
    # the buffer is left clean for the next query
    assert not np.any(getattr(seg, "_buffer", np.zeros(1)))


def test_best_of_candidates_orders_by_value_then_row():
    rows = np.array([9, 3, 7, 1, 5, 2], dtype=np.int64)
    vals = np.array([1.0, 2.0, 2.0, 0.5, 2.0, 1.0])
    assert rows[K.best_of_candidates(rows, vals, 4)].tolist() == [3, 5, 7, 2]
    assert rows[K.best_of_candidates(rows, vals, 10)].tolist() == [3, 5, 7, 2, 9, 1]


@pytest.mark.parametrize("numba", ["0", "1"])
def test_dense_scores_match_blas_to_float32_rounding(monkeypatch, numba):
    monkeypatch.setenv("LEARNSIM_NUMBA", numba)
    rng = np.random.default_rng(3)
    D = rng.standard_normal((400, 33)).astype(np.float32)
    D /= np.linalg.norm(D, axis=1, keepdims=True)
    q = D[5].astype(np.float64)
    got = K.dense_scores(D, q)
    assert got.dtype == np.float32
    assert np.allclose(got, D.astype(np.float64) @ q, atol=1e-6)


def _best_reference(values, k, allowed=None, candidates=None):
    """Positions of the k best values (higher first, ties to the lower position)."""
    pos = np.arange(values.shape[0]) if candidates is None else np.asarray(candidates)
    if allowed is not None:
        pos = pos[allowed[pos]]
    order = np.lexsort((pos, -values[pos]))
    return pos[order][:k]


@pytest.mark.parametrize("k", [1, 4, 10, 300])
def test_sparse_top_k_is_the_k_best_nonzero_rows(monkeypatch, k):
    import scipy.sparse as sp

    pytest.importorskip("numba")
    monkeypatch.setenv("LEARNSIM_NUMBA", "1")
    rng = np.random.default_rng(k)
    W = sp.random(400, 30, density=0.15, random_state=k, format="csr")
    W.data = np.round(W.data * 4) - 1          # signed weights, many ties, some sums exactly 0
    seg = SparseSegment(W)
    for trial in range(30):
        terms = np.unique(rng.integers(0, 30, size=5))
        weights = rng.integers(1, 3, size=terms.size).astype(float)
        allowed = None if trial % 2 else rng.random(400) < 0.5
        got = K.sparse_top_k(seg, terms, weights, k, allowed)
        if k > 256:
            assert got is None                 # the kernel's buffer bound: the numpy path then
            continue
        q = np.zeros(30)
        q[terms] = weights
        full = np.asarray(W.astype(np.float32).astype(np.float64) @ q).ravel()
        nonzero = np.flatnonzero(full)
        want = _best_reference(full, k, allowed, nonzero)
        assert got[0].tolist() == want.tolist()
        assert np.allclose(got[1], full[want], atol=1e-9)
        assert not np.any(seg._buffer)            # left clean for the next query


@pytest.mark.parametrize("k", [1, 10, 50])
def test_dense_top_k_is_the_full_scan_with_ties_to_the_lower_row(monkeypatch, k):
    pytest.importorskip("numba")
    monkeypatch.setenv("LEARNSIM_NUMBA", "1")
    monkeypatch.setenv("LEARNSIM_PREFILTER", "0")
    rng = np.random.default_rng(k)
    D = rng.integers(-2, 3, size=(600, 20)).astype(np.float32)   # integer rows: exact sums, ties
    seg = _DenseSeg(D)
    for trial in range(10):
        q = rng.integers(-1, 2, size=20).astype(np.float64)
        allowed = None if trial % 2 else rng.random(600) < 0.3
        pos, vals = K.dense_top_k(seg, q, k, allowed)
        full = D.astype(np.float64) @ q
        want = _best_reference(full, k, allowed)
        assert pos.tolist() == want.tolist()
        assert vals.dtype == np.float64 and np.array_equal(vals, full[want])


class _DenseSeg:
    def __init__(self, D):
        self.dense, self.n = np.ascontiguousarray(D), D.shape[0]


def test_the_kernels_step_aside_without_numba(monkeypatch):
    monkeypatch.setenv("LEARNSIM_NUMBA", "0")
    seg = _DenseSeg(np.ones((5, 3), dtype=np.float32))
    assert K.dense_top_k(seg, np.ones(3), 2) is None


@pytest.mark.parametrize("order", ["random", "increasing", "ties"])
def test_largest_k_in_chunks_is_the_stable_sorts(monkeypatch, order):
    """The unmasked kernel reads 16 values at a time: whatever the order (increasing values make
    every chunk beat the k-th best; equal values must keep the lower positions) and the length
    (a tail shorter than a chunk), the k best of a stable sort."""
    monkeypatch.setenv("LEARNSIM_NUMBA", "1")
    rng = np.random.default_rng(len(order))
    for n in (5, 17, 1000, 4099):
        values = {"random": rng.standard_normal(n), "increasing": np.arange(n, dtype=float),
                  "ties": rng.integers(0, 3, n).astype(float)}[order].astype(np.float32)
        for k in (1, 7, 16, 100):
            assert K.largest_k(values, k).tolist() == _reference(values, k).tolist()


def test_sparse_top_k_grows_its_row_buffer_for_longer_posting_lists(monkeypatch):
    """The rows a query touches are kept in a buffer of the segment's, sized by the longest
    query so far: a query whose lists are longer than any before gets a larger one, and the
    same hits as the candidates' path."""
    import scipy.sparse as sp

    pytest.importorskip("numba")
    monkeypatch.setenv("LEARNSIM_NUMBA", "1")
    n = 3000
    W = sp.lil_matrix((n, 3))
    W[:, 0] = 1.0 + np.arange(n).reshape(-1, 1) % 7        # a term in every row
    W[5, 1] = W[17, 1] = 2.0                                # a rare one
    W[::2, 2] = 1.0
    seg = SparseSegment(W.tocsr())
    for terms in ([1], [0], [0, 2], [1]):
        terms = np.asarray(terms)
        got = K.sparse_top_k(seg, terms, np.ones(terms.size), 10)
        rows, vals = K.sparse_candidates(seg, terms, np.ones(terms.size))
        best = K.best_of_candidates(rows, vals, 10)
        assert got[0].tolist() == rows[best].tolist() and np.allclose(got[1], vals[best])
    assert seg._touched.shape[0] >= 2 * n - n // 2


@pytest.mark.parametrize("order", ["random", "increasing", "ties"])
def test_block_top_k_keeps_each_querys_stable_sort_across_blocks(monkeypatch, order):
    """A batch's scores come in blocks of rows (rows x queries); the kernel keeps each query's k
    best across the blocks: those of a stable sort of its whole column, with and without a mask,
    whatever the order (increasing values displace the list on every row, equal values must keep
    the lower rows) and however the rows are cut."""
    monkeypatch.setenv("LEARNSIM_NUMBA", "1")
    kernels = K._kernels(10)
    rng = np.random.default_rng(len(order))
    n, m = 1000, 5
    S = {"random": rng.standard_normal((n, m)), "increasing": np.repeat(np.arange(n, dtype=float)[:, None], m, 1),
         "ties": rng.integers(0, 3, (n, m)).astype(float)}[order].astype(np.float32)
    allowed = rng.random(n) < 0.4
    for k, step, mask in [(1, 1000, None), (7, 13, None), (16, 64, allowed), (100, 250, allowed), (300, 99, None)]:
        pos, vals = np.empty((m, k), dtype=np.int64), np.empty((m, k), dtype=np.float32)
        counts = np.zeros(m, dtype=np.int64)
        for lo in range(0, n, step):
            K.block_top_k(kernels, np.ascontiguousarray(S[lo:lo + step]), lo, k,
                          None if mask is None else mask[lo:lo + step], pos, vals, counts)
        for r in range(m):
            ref = _reference(S[:, r], k, mask)
            assert counts[r] == ref.shape[0]
            assert pos[r, :counts[r]].tolist() == ref.tolist()
            assert np.array_equal(vals[r, :counts[r]], S[ref, r])
