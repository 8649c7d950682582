"""The search over an index's segments (learnsim.index._scan.best_k): the k best rows of all
segments, ties to the lower position, whatever the segments' sizes, masks and signs of scores."""
import numpy as np
import pytest
import scipy.sparse as sp

from learnsim.index import _scan
from sparse_segments import SparseSegment


def _segments(rng, sizes, n_terms=40, density=0.08):
    mats = []
    for n in sizes:
        W = sp.random(n, n_terms, density=density, random_state=int(rng.integers(1 << 30)), format="csr")
        W.data = np.round(W.data * 4) - 1          # signed weights, ties, some sums exactly 0
        mats.append(W)
    return [SparseSegment(W) for W in mats], sp.vstack(mats).tocsr()


def _reference(W, terms, weights, k, allowed):
    q = np.zeros(W.shape[1])
    q[terms] = weights
    full = np.asarray(W.astype(np.float32).astype(np.float64) @ q).ravel()
    pos = np.arange(full.shape[0]) if allowed is None else np.flatnonzero(allowed)
    order = np.lexsort((pos, -full[pos]))[:k]
    return pos[order], full[pos][order]


@pytest.mark.parametrize("numba", ["0", "1"])
@pytest.mark.parametrize("sizes", [(300, 7, 3), (5, 300, 2), (300,), (4, 3, 2)])
@pytest.mark.parametrize("k", [1, 10])
def test_best_k_over_segments_is_the_stable_sort_of_every_row(monkeypatch, numba, sizes, k):
    if numba == "1":
        pytest.importorskip("numba")
    monkeypatch.setenv("LEARNSIM_NUMBA", numba)
    rng = np.random.default_rng(sum(sizes) + k)
    segs, W = _segments(rng, sizes)
    n = W.shape[0]
    for trial in range(40):
        terms = np.unique(rng.integers(0, W.shape[1], size=int(rng.integers(1, 6))))
        weights = rng.integers(1, 3, size=terms.size).astype(float)
        allowed = None if trial % 3 == 0 else rng.random(n) < (0.9 if trial % 3 == 1 else 0.2)
        got_pos, got_vals = _scan.best_k(segs, (terms, weights), None, None, False, k, allowed)
        want_pos, want_vals = _reference(W, terms, weights, k, allowed)
        assert got_pos.tolist() == want_pos.tolist(), (trial, got_vals, want_vals)
        assert np.allclose(got_vals, want_vals, atol=1e-9)


def test_a_later_segment_does_not_look_for_untouched_rows_once_k_are_found(monkeypatch):
    """A small segment after a large one: the k best are among the large one's rows and the small
    one's touched rows; its untouched rows (score 0) lose to the earlier rows and are not
    searched for (first_zero_rows: numpy calls and a pass over the mask, 8-50 us a query)."""
    monkeypatch.setenv("LEARNSIM_NUMBA", "0")
    rng = np.random.default_rng(3)
    segs, W = _segments(rng, (400, 6), density=0.3)
    W.data = np.abs(W.data) + 1                     # every touched row scores > 0
    segs = [SparseSegment(W[:400]), SparseSegment(W[400:])]
    calls = []
    real = _scan.first_zero_rows

    def counted(n, *args, **kw):
        calls.append(n)
        return real(n, *args, **kw)
    monkeypatch.setattr(_scan, "first_zero_rows", counted)
    terms, weights = np.arange(10), np.ones(10)
    allowed = np.ones(W.shape[0], dtype=bool)
    allowed[::7] = False
    got_pos, _ = _scan.best_k(segs, (terms, weights), None, None, False, 10, allowed)
    assert got_pos.tolist() == _reference(W, terms, weights, 10, allowed)[0].tolist()
    assert 6 not in calls               # the small segment's zeros were not looked for
    # and where the first segment has fewer than k rows, they are: a 0 of the second beats a
    # negative score of the first
    segs2, W2 = _segments(rng, (3, 6))
    W2 = W2.tolil()
    W2[:3, :] = 0
    W2[0, 0] = -1.0
    W2 = W2.tocsr()
    segs2 = [SparseSegment(W2[:3]), SparseSegment(W2[3:])]
    got_pos, got_vals = _scan.best_k(segs2, (np.array([0]), np.array([1.0])), None, None, False, 5, None)
    want_pos, want_vals = _reference(W2, np.array([0]), np.array([1.0]), 5, None)
    assert got_pos.tolist() == want_pos.tolist()
    assert np.allclose(got_vals, want_vals)
