"""The fit of MinimumClusterDistortion without its needless full-size copies (stop 85: `learnsim
fit --input` of 30,000 short documents peaked at 726-737 MB inside mcd's fits): the scatter
centred and weighted the basis coordinates through three more rows x k arrays, and the
principal basis's SVD computed the n x k left factor it dropped, with transposed copies of the
right one and a float64 slot of n_features x (k + 10) for each of its four row groups. The
same numbers now, with one copy of the coordinates and one slot a thread."""
import tracemalloc

import numpy as np
import scipy.sparse as sp

from learnsim._utils import linalg as _linalg
from learnsim.mcd import _linalg as _mcd_linalg
from learnsim.mcd._linalg import _PrincipalBasis, cluster_membership


def _basis(n=20000, k=64, seed=0):
    rng = np.random.default_rng(seed)
    basis = _PrincipalBasis.__new__(_PrincipalBasis)
    basis.coords = rng.standard_normal((n, k))
    labels = rng.integers(-1, 50, n)
    return basis, labels, np.arange(50), rng.random(50)


def _plain_scatter(basis, labels, ids, weights, k=None):
    """The scatter as it was computed before stop 85 (whole arrays)."""
    rows, pos, sizes, member = cluster_membership(labels, ids)
    Y = basis.coords[rows, :k]
    centroids = np.asarray(member @ Y)
    centroids /= np.maximum(sizes, 1)[:, None]
    Z = (Y - centroids[pos]) * np.sqrt(np.asarray(weights)[pos])[:, None]
    return Z.T @ Z


def test_the_scatter_is_the_same_at_any_block_size(monkeypatch):
    basis, labels, ids, w = _basis(n=3000, k=24)
    default = basis.scatter(labels, ids, w)
    assert np.array_equal(default, _plain_scatter(basis, labels, ids, w))
    for entries in (1, 24 * 7, 24 * 3000):
        monkeypatch.setattr(_mcd_linalg, "_SCATTER_BLOCK_ENTRIES", entries)
        assert np.array_equal(basis.scatter(labels, ids, w), default)
        assert np.array_equal(basis.scatter(labels, ids, w, k=10), _plain_scatter(basis, labels, ids, w, k=10))


def test_the_scatter_holds_one_copy_of_the_coordinates():
    basis, labels, ids, w = _basis()
    membership = cluster_membership(labels, ids)
    full = int((labels >= 0).sum()) * basis.coords.shape[1] * 8      # one rows x k float64 array
    tracemalloc.start()
    try:
        basis.scatter(labels, ids, w, membership=membership)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # before: the copy, centroids[pos], the difference and the weighted one alive at once (3x)
    assert peak < 1.3 * full, peak / full


def _tall(n=30000, m=10000, seed=0):
    return sp.random(n, m, density=0.001, random_state=seed, format="csr")


def test_the_basis_svd_of_a_tall_matrix_is_the_same_without_its_left_factor():
    X = _tall(6000, 3000)
    assert _linalg._exact_route(X, 40) is None and X.shape[1] <= X.shape[0]
    s, V = _linalg.truncated_svd_components(X, 40, seed=3, all_ritz_pairs=True)
    s0, Vt = _linalg.truncated_svd(X, 40, seed=3)
    assert np.array_equal(s, s0) and np.array_equal(V, Vt.T) and V.flags.c_contiguous


def test_the_gram_products_are_the_same_with_a_slot_a_group_or_one(monkeypatch):
    X = _tall(6000, 3000)
    answers = []
    for threads in (1, 2, 4):
        monkeypatch.setattr(_linalg, "_thread_count", lambda: threads)
        answers.append(_linalg._sparse_randomized_factors(X, 30, 5))
        answers.append(_linalg.truncated_svd_components(X.T.tocsr(), 30, seed=5, all_ritz_pairs=True))
    for other in answers[2:]:
        got, want = (answers[0], other) if len(other) == 3 else (answers[1], other)
        assert all(np.array_equal(a, b) for a, b in zip(got, want))


def test_the_basis_svd_holds_no_left_factor_and_one_slot_a_thread(monkeypatch):
    X = _tall(12000, 4000)
    k = 20
    monkeypatch.setattr(_linalg, "_thread_count", lambda: 1)
    monkeypatch.setattr(_linalg, "_BLOCK_BYTES", 2**16)        # the products' small buffers, out of the way
    slot = X.shape[1] * (k + _linalg._OVERSAMPLES) * 8              # n_features x width, float64
    left = X.shape[0] * k * 8
    tracemalloc.start()
    try:
        _linalg.truncated_svd_components(X, k, seed=1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # before: 4 slots, the total, Q, the left factor and copies of V; now one slot, the total,
    # Q, the Gram product and V, with the sparse copies
    assert left > slot
    assert peak < 4.5 * slot, peak / slot    # 3.2 now, 6.1 before
