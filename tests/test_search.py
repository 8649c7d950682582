"""Exact search against brute force: every metric, dense and sparse, many block shapes."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError
from sklearn.metrics.pairwise import cosine_similarity, euclidean_distances

import learnsim.search as search_mod
from learnsim.search import METRICS, ExactIndex, MetricSearch, NeighborIndex, top_k


def brute_scores(Q, C, metric):
    """Full score matrix, oriented so that smaller is better, plus the scores as reported."""
    Qd = Q.toarray() if sp.issparse(Q) else np.asarray(Q)
    Cd = C.toarray() if sp.issparse(C) else np.asarray(C)
    Qd, Cd = Qd.astype(np.float64), Cd.astype(np.float64)
    if metric == "sqeuclidean":
        S = euclidean_distances(Qd, Cd, squared=True)
        return S, S
    if metric == "euclidean":
        S = euclidean_distances(Qd, Cd)
        return S, S
    S = Qd @ Cd.T if metric == "inner_product" else cosine_similarity(Qd, Cd)
    return -S, S


def brute_top_k(Q, C, k, metric, exclude_self=False):
    order_key, reported = brute_scores(Q, C, metric)
    if exclude_self:
        order_key = order_key.copy()
        np.fill_diagonal(order_key, np.inf)
    # stable sort: ties go to the lower corpus index, as top_k promises
    idx = np.argsort(order_key, axis=1, kind="stable")[:, :k]
    return idx, np.take_along_axis(reported, idx, axis=1)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    Q = rng.normal(size=(13, 6))
    C = rng.normal(size=(29, 6))
    return Q, C


def _sparse(X, seed):
    rng = np.random.default_rng(seed)
    X = X.copy()
    X[rng.random(X.shape) < 0.5] = 0.0
    return sp.csr_matrix(X)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("block_size", [None, 1, 4, 13, (1, 1), (5, 7), (13, 29), (2, 100)])
def test_dense_matches_brute_force(data, metric, block_size):
    Q, C = data
    idx, scores = top_k(Q, C, 5, metric=metric, block_size=block_size)
    want_idx, want_scores = brute_top_k(Q, C, 5, metric)
    assert idx.dtype == np.int64 and idx.shape == (13, 5)
    np.testing.assert_array_equal(idx, want_idx)
    np.testing.assert_allclose(scores, want_scores, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("layout", ["sparse-sparse", "sparse-dense", "dense-sparse"])
@pytest.mark.parametrize("block_size", [None, (3, 4)])
def test_sparse_and_mixed_match_brute_force(data, metric, layout, block_size):
    Q, C = data
    Qs, Cs = _sparse(Q, 1), _sparse(C, 2)
    q = Qs if layout.startswith("sparse") else Qs.toarray()
    c = Cs if layout.endswith("sparse") else Cs.toarray()
    idx, scores = top_k(q, c, 4, metric=metric, block_size=block_size)
    want_idx, want_scores = brute_top_k(Qs, Cs, 4, metric)
    np.testing.assert_array_equal(idx, want_idx)
    np.testing.assert_allclose(scores, want_scores, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("metric", METRICS)
def test_score_order(data, metric):
    Q, C = data
    _, scores = top_k(Q, C, 10, metric=metric)
    steps = np.diff(scores, axis=1)
    if metric in ("inner_product", "cosine"):
        assert (steps <= 0).all()
    else:
        assert (steps >= 0).all()


@pytest.mark.parametrize("metric", ["sqeuclidean", "euclidean", "inner_product"])
@pytest.mark.parametrize("block_size", [None, 1, (2, 3), (4, 1)])
@pytest.mark.parametrize("sparse", [False, True])
def test_ties_go_to_lower_index(metric, block_size, sparse):
    # small integers: every score is exact, so the data is full of genuine ties
    rng = np.random.default_rng(3)
    Q = rng.integers(0, 2, size=(9, 3)).astype(float)
    C = rng.integers(0, 2, size=(40, 3)).astype(float)
    if sparse:
        Q, C = sp.csr_matrix(Q), sp.csr_matrix(C)
    for k in (1, 3, 7, 40):
        idx, scores = top_k(Q, C, k, metric=metric, block_size=block_size)
        want_idx, want_scores = brute_top_k(Q, C, k, metric)
        np.testing.assert_array_equal(idx, want_idx)
        np.testing.assert_array_equal(scores, want_scores)


def test_ties_cosine_duplicates():
    C = np.array([[0, 1.0], [1, 0], [0, 2], [2, 0], [0, 3]])
    idx, scores = top_k(np.array([[0, 5.0], [4.0, 0]]), C, 3, metric="cosine")
    np.testing.assert_array_equal(idx, [[0, 2, 4], [1, 3, 0]])
    np.testing.assert_allclose(scores, [[1, 1, 1], [1, 1, 0]])


def test_all_equal_scores_return_first_indices():
    C = np.ones((50, 4))
    idx, _ = top_k(np.ones((3, 4)), C, 5, block_size=(2, 7))
    np.testing.assert_array_equal(idx, np.tile(np.arange(5), (3, 1)))


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("block_size", [None, 1, (4, 6), (29, 1)])
def test_exclude_self(data, metric, block_size):
    _, C = data
    idx, scores = top_k(C, C, 4, metric=metric, exclude_self=True, block_size=block_size)
    assert not (idx == np.arange(len(C))[:, None]).any()
    want_idx, want_scores = brute_top_k(C, C, 4, metric, exclude_self=True)
    np.testing.assert_array_equal(idx, want_idx)
    np.testing.assert_allclose(scores, want_scores, rtol=1e-9, atol=1e-9)


def test_exclude_self_keeps_duplicates():
    C = np.array([[0.0, 0], [0, 0], [5, 5]])
    idx, scores = top_k(C, C, 1, exclude_self=True)
    np.testing.assert_array_equal(idx[:, 0], [1, 0, 0])
    np.testing.assert_allclose(scores[:2, 0], 0.0)


@pytest.mark.parametrize("metric", ["sqeuclidean", "euclidean"])
def test_duplicates_have_distance_zero_not_negative(metric):
    # ||a||^2 + ||b||^2 - 2 a.b rounds below zero for some equal points; sqrt would give NaN
    X = np.random.default_rng(1).normal(size=(5, 7)) * 60
    idx, scores = top_k(X, np.vstack([X, X]), 2, metric=metric)
    assert np.isfinite(scores).all() and (scores >= 0).all()
    np.testing.assert_allclose(scores, 0.0, atol=1e-5)
    np.testing.assert_array_equal(idx, np.c_[np.arange(5), np.arange(5, 10)])


def test_exclude_self_with_k_equal_n_minus_1(data):
    _, C = data
    idx, _ = top_k(C, C, len(C) - 1, exclude_self=True, block_size=(3, 5))
    for i, row in enumerate(idx):
        assert sorted(row) == [j for j in range(len(C)) if j != i]


@pytest.mark.parametrize("metric", METRICS)
def test_k1_and_k_equal_n(data, metric):
    Q, C = data
    for k in (1, len(C)):
        idx, scores = top_k(Q, C, k, metric=metric, block_size=(5, 4))
        want_idx, want_scores = brute_top_k(Q, C, k, metric)
        np.testing.assert_array_equal(idx, want_idx)
        np.testing.assert_allclose(scores, want_scores, rtol=1e-10, atol=1e-10)
    assert sorted(idx[0]) == list(range(len(C)))


def test_return_scores_false(data):
    Q, C = data
    idx = top_k(Q, C, 3, return_scores=False)
    np.testing.assert_array_equal(idx, top_k(Q, C, 3)[0])


@pytest.mark.parametrize("metric", METRICS)
def test_float32(data, metric):
    Q, C = (x.astype(np.float32) for x in data)
    idx, scores = top_k(Q, C, 5, metric=metric)
    assert scores.dtype == np.float32
    want_idx, want_scores = brute_top_k(Q, C, 5, metric)
    np.testing.assert_array_equal(idx, want_idx)
    np.testing.assert_allclose(scores, want_scores, rtol=1e-5, atol=1e-5)
    # mixed precision is computed in float64
    assert top_k(Q, data[1], 2, metric=metric)[1].dtype == np.float64


def test_float32_euclidean_keeps_precision():
    # near-duplicates far from the origin: float32 q.d would cancel to noise
    base = np.full((1, 50), 1000.0, dtype=np.float32)
    C = np.repeat(base, 4, axis=0)
    C[:, 0] += np.array([0.5, 0.25, 0.125, 1.0], dtype=np.float32)
    idx, scores = top_k(base, C, 4, metric="sqeuclidean")
    np.testing.assert_array_equal(idx, [[2, 1, 0, 3]])
    np.testing.assert_allclose(scores, [[0.015625, 0.0625, 0.25, 1.0]], rtol=1e-6)


def test_zero_rows_cosine():
    C = np.array([[0.0, 0], [1, 0], [0, 1]])
    idx, scores = top_k(np.array([[0.0, 0], [1.0, 1]]), C, 3, metric="cosine")
    np.testing.assert_array_equal(idx, [[0, 1, 2], [1, 2, 0]])
    np.testing.assert_allclose(scores, [[0, 0, 0], [2 ** -0.5, 2 ** -0.5, 0]])


def test_list_input():
    idx, scores = top_k([[0.0, 0.0]], [[3.0, 4.0], [1.0, 0.0]], 2, metric="euclidean")
    np.testing.assert_array_equal(idx, [[1, 0]])
    np.testing.assert_allclose(scores, [[1.0, 5.0]])


def test_blocks_stay_within_budget(monkeypatch):
    rng = np.random.default_rng(5)
    Q, C = rng.normal(size=(40, 3)), rng.normal(size=(300, 3))
    shapes = []
    original = search_mod._score_block

    def spy(Q_block, C_chunk, *args):
        shapes.append((Q_block.shape[0], C_chunk.shape[0]))
        return original(Q_block, C_chunk, *args)

    monkeypatch.setattr(search_mod, "_score_block", spy)
    budget = 24 * 500  # 24 bytes per float64 score -> at most 500 scores per block
    idx, _ = top_k(Q, C, 7, max_block_bytes=budget)
    assert max(q * c for q, c in shapes) <= 500
    assert len(shapes) > 1
    assert sum(q * c for q, c in shapes) == 40 * 300  # every score computed exactly once
    np.testing.assert_array_equal(idx, brute_top_k(Q, C, 7, "sqeuclidean")[0])
    # a budget below one row still works, one score at a time
    shapes.clear()
    idx_tiny, _ = top_k(Q[:2], C[:10], 3, max_block_bytes=1)
    assert set(shapes) == {(1, 1)}
    np.testing.assert_array_equal(idx_tiny, brute_top_k(Q[:2], C[:10], 3, "sqeuclidean")[0])


def test_default_budget_uses_one_chunk_for_small_corpus(monkeypatch, data):
    Q, C = data
    shapes = []
    original = search_mod._score_block
    monkeypatch.setattr(search_mod, "_score_block",
                        lambda q, c, *a: shapes.append((q.shape[0], c.shape[0])) or original(q, c, *a))
    top_k(Q, C, 3)
    assert shapes == [(13, 29)]


# --- errors -------------------------------------------------------------------------------

@pytest.mark.parametrize("k", [0, -1])
def test_k_not_positive(data, k):
    with pytest.raises(ValueError, match="positive"):
        top_k(*data, k)


@pytest.mark.parametrize("k", [2.0, "3", True, None])
def test_k_not_integer(data, k):
    with pytest.raises(TypeError, match="k must be a positive integer"):
        top_k(*data, k)


def test_k_larger_than_corpus(data):
    Q, C = data
    with pytest.raises(ValueError, match=r"k=30 is larger than the 29"):
        top_k(Q, C, 30)
    with pytest.raises(ValueError, match="exclude_self"):
        top_k(C, C, 29, exclude_self=True)


def test_feature_mismatch(data):
    Q, C = data
    with pytest.raises(ValueError, match="queries has 5 features but corpus has 6"):
        top_k(Q[:, :5], C, 2)


def test_nan_rejected(data):
    Q, C = data
    Q = Q.copy()
    Q[0, 0] = np.nan
    with pytest.raises(ValueError, match="queries contains NaN"):
        top_k(Q, C, 2)
    with pytest.raises(ValueError, match="corpus contains NaN"):
        top_k(C, Q, 2)


def test_overflow_reported():
    with pytest.raises(ValueError, match="overflowed"):
        top_k(np.array([[1e200, 1e200]]), np.array([[1e200, -1e200]]), 1)


def test_unknown_metric(data):
    with pytest.raises(ValueError, match="metric must be one of"):
        top_k(*data, 2, metric="manhattan")


def test_exclude_self_needs_same_n(data):
    with pytest.raises(ValueError, match="exclude_self"):
        top_k(*data, 2, exclude_self=True)


@pytest.mark.parametrize("block_size", [0, -3, 1.5, (1,), (2, 0)])
def test_bad_block_size(data, block_size):
    with pytest.raises(ValueError, match="block_size"):
        top_k(*data, 2, block_size=block_size)


def test_empty_and_1d_inputs(data):
    Q, C = data
    with pytest.raises(ValueError, match="empty"):
        top_k(np.empty((0, 6)), C, 1)
    with pytest.raises(ValueError, match="2-D"):
        top_k(Q[0], C, 1)


# --- index interface ------------------------------------------------------------------------

@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("sparse", [False, True])
def test_exact_index_matches_top_k(data, metric, sparse):
    Q, C = data
    if sparse:
        Q, C = _sparse(Q, 1), _sparse(C, 2)
    index = ExactIndex(metric=metric, block_size=(4, 5)).fit(C)
    assert index.n_items_ == 29 and index.n_features_in_ == 6
    assert index.larger_is_better == (metric in ("inner_product", "cosine"))
    idx, scores = index.search(Q, 6)
    want_idx, want_scores = top_k(Q, C, 6, metric=metric)
    np.testing.assert_array_equal(idx, want_idx)
    np.testing.assert_allclose(scores, want_scores, rtol=1e-12, atol=1e-12)
    idx_self, _ = index.search(C, 3, exclude_self=True)
    np.testing.assert_array_equal(idx_self, top_k(C, C, 3, metric=metric, exclude_self=True)[0])


def test_index_errors(data):
    Q, C = data
    with pytest.raises(NotFittedError):
        ExactIndex().search(Q, 1)
    index = ExactIndex().fit(C)
    with pytest.raises(ValueError, match="queries has 5 features, but this ExactIndex is expecting 6"):
        index.search(Q[:, :5], 1)
    with pytest.raises(ValueError, match="larger than the 29"):
        index.search(Q, 30)
    with pytest.raises(ValueError, match="one query per item"):
        index.search(Q, 2, exclude_self=True)
    with pytest.raises(ValueError, match="metric must be one of"):
        ExactIndex(metric="l1").fit(C)
    bad = Q.copy()
    bad[1, 1] = np.inf
    with pytest.raises(ValueError, match="queries contains infinite"):
        index.search(bad, 1)


def test_neighbor_index_is_abstract_and_pluggable(data):
    Q, C = data
    with pytest.raises(TypeError):
        NeighborIndex()

    class FirstItems(NeighborIndex):
        """A toy backend: always answers the first k items."""

        def __init__(self, metric="sqeuclidean"):
            self.metric = metric

        def _fit(self, corpus):
            pass

        def _search(self, queries, k, exclude_self):
            idx = np.tile(np.arange(k), (queries.shape[0], 1))
            return idx, np.zeros(idx.shape)

    backend = FirstItems().fit(C)
    with pytest.raises(ValueError, match="features"):
        backend.search(Q[:, :2], 1)  # the base class checks, whatever the backend
    idx, _ = MetricSearch(_Scale(2.0), index=FirstItems()).fit(C).search(Q, 2)
    np.testing.assert_array_equal(idx, np.tile([0, 1], (len(Q), 1)))


class _Scale:
    """Stands in for a fitted learnsim metric: transform multiplies by a factor per column."""

    def __init__(self, factor):
        self.factor = factor
        self.calls = 0

    def transform(self, X):
        self.calls += 1
        return np.asarray(X) * self.factor


def test_metric_search_uses_transformed_space(data):
    Q, C = data
    weights = np.array([10.0, 1, 1, 1, 1, 0.1])
    transformer = _Scale(weights)
    searcher = MetricSearch(transformer).fit(C)
    assert transformer.calls == 1 and searcher.n_items_ == 29
    idx, scores = searcher.search(Q, 4)
    assert transformer.calls == 2  # corpus once at fit, queries once per search
    want_idx, want_scores = brute_top_k(Q * weights, C * weights, 4, "sqeuclidean")
    np.testing.assert_array_equal(idx, want_idx)
    np.testing.assert_allclose(scores, want_scores, rtol=1e-10)
    # the weighting changes the answer, so the transform is really used
    assert not np.array_equal(idx, brute_top_k(Q, C, 4, "sqeuclidean")[0])


def test_metric_search_custom_index_is_cloned(data):
    Q, C = data
    template = ExactIndex("cosine")
    searcher = MetricSearch(_Scale(1.0), index=template).fit(C)
    assert not hasattr(template, "n_items_")
    assert searcher.index_.metric == "cosine"
    np.testing.assert_array_equal(searcher.search(Q, 3)[0], top_k(Q, C, 3, metric="cosine")[0])


def test_metric_search_errors(data):
    Q, C = data
    with pytest.raises(NotFittedError):
        MetricSearch(_Scale(1.0)).search(Q, 1)
    with pytest.raises(TypeError, match="transform"):
        MetricSearch(object()).fit(C)
    with pytest.raises(TypeError, match="NeighborIndex"):
        MetricSearch(_Scale(1.0), index="exact").fit(C)
