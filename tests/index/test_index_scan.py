"""The search over an index's segments (learnsim.index._scan.best_k): the k best rows of all
segments, ties to the lower position, whatever the segments' sizes, masks and signs of scores;
for a query of posting lists, among the rows with a score (a row sharing no word with the query,
or whose weights add up to exactly 0, is no hit: not k rows padded with the first ones)."""
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
    pos = pos[full[pos] != 0]
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


@pytest.mark.parametrize("numba", ["0", "1"])
def test_a_short_list_is_not_padded_with_untouched_rows(monkeypatch, numba):
    """Fewer than k rows share a word with the query: those are the hits, a negative score
    among them (it shares a word) after the positive ones; the untouched rows of every segment,
    scoring 0 alike, are not (they were the first rows of the index, any k of them)."""
    if numba == "1":
        pytest.importorskip("numba")
    monkeypatch.setenv("LEARNSIM_NUMBA", numba)
    rng = np.random.default_rng(3)
    segs, W = _segments(rng, (3, 6))
    W = W.tolil()
    W[:, :] = 0
    W[0, 0] = -1.0
    W[5, 0] = 2.0
    W[7, 1] = 1.0
    W = W.tocsr()
    segs = [SparseSegment(W[:3]), SparseSegment(W[3:])]
    got_pos, got_vals = _scan.best_k(segs, (np.array([0, 1]), np.array([1.0, 1.0])), None, None, False, 5, None)
    assert got_pos.tolist() == [5, 7, 0] and got_vals.tolist() == [2.0, 1.0, -1.0]
    got_pos, _ = _scan.best_k(segs, (np.array([3]), np.array([1.0])), None, None, False, 5, None)
    assert got_pos.tolist() == []
