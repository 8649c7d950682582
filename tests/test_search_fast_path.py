"""The small-search fast paths (issue 16): same results as the general paths, ties included.

:class:`learnsim.search.ExactIndex` scores a few queries in one block and selects candidates
by block minima (``_select_smallest``) instead of the blocked loop with ``_smallest_k``;
:class:`learnsim.ann.ApproximateIndex` skips the full validation and the sort where a query is
already a finite float ndarray and a backend's rows come back strictly ordered. These tests
check that nothing but the speed changes.
"""
import numpy as np
import pytest

from learnsim.search import ExactIndex, _select_smallest, _smallest_k, dense_queries_fast, top_k


def _integer_data(rng, n, d, dtype):
    # small integers: every dot product is exact in float32, so scores tie often and the
    # tie rule (lower index first) decides the order
    return rng.integers(-2, 3, size=(n, d)).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_select_smallest_equals_smallest_k(dtype):
    rng = np.random.default_rng(0)
    for trial in range(60):
        m, n = int(rng.integers(1, 40)), int(rng.integers(1, 600))
        k = int(rng.integers(1, min(n, 30) + 1))
        S = (rng.integers(-3, 4, size=(m, n)) if trial % 2 else rng.standard_normal((m, n))).astype(dtype)
        cols, vals = _select_smallest(S, k)
        ref_cols, ref_vals = _smallest_k(S, k)
        assert cols.dtype == np.int64 and vals.dtype == S.dtype
        np.testing.assert_array_equal(cols, ref_cols)
        np.testing.assert_array_equal(vals, ref_vals)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_select_smallest_one_row_equals_smallest_k(dtype):
    """The one-query path (_select_smallest_row: more blocks than k, the k-th smallest minimum as
    the bound) keeps the (value, column) order and the ties at the cut of _smallest_k."""
    rng = np.random.default_rng(2)
    for trial in range(200):
        n = int(rng.integers(1, 40_000 if trial % 10 == 0 else 3000))
        k = int(rng.integers(1, min(n, 40) + 1))
        kind = trial % 3
        S = (rng.integers(-2, 3, size=(1, n)) if kind == 0 else rng.standard_normal((1, n)) if kind == 1
             else np.sort(rng.integers(0, 5, size=(1, n)))).astype(dtype)       # sorted: ties in runs
        cols, vals = _select_smallest(S, k)
        ref_cols, ref_vals = _smallest_k(S, k)
        np.testing.assert_array_equal(cols, ref_cols)
        np.testing.assert_array_equal(vals, ref_vals)
    cols, vals = _select_smallest(np.zeros((1, 500), dtype=dtype), 9)
    np.testing.assert_array_equal(cols, [np.arange(9)])


def test_select_smallest_all_equal_row():
    S = np.zeros((2, 100), dtype=np.float32)
    cols, vals = _select_smallest(S, 7)
    np.testing.assert_array_equal(cols, np.tile(np.arange(7), (2, 1)))
    assert not vals.any()


@pytest.mark.parametrize("metric", ["inner_product", "cosine"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_queries", [1, 3, 64])
def test_exact_fast_path_equals_blocked_path(metric, dtype, n_queries):
    rng = np.random.default_rng(1)
    if metric == "cosine":
        # entries +-1 in 16 dimensions: every norm is 4, so the normalised rows and their dot
        # products are exact and both paths must agree bit for bit, whatever the blocking
        corpus = rng.choice([-1.0, 1.0], size=(3000, 16)).astype(dtype)
        queries = rng.choice([-1.0, 1.0], size=(n_queries, 16)).astype(dtype)
    else:
        corpus = _integer_data(rng, 3000, 12, dtype)
        queries = _integer_data(rng, n_queries, 12, dtype)
    fast = ExactIndex(metric).fit(corpus)
    # corpus chunks smaller than the corpus: the general loop, merging chunk by chunk
    blocked = ExactIndex(metric, block_size=(n_queries, 700)).fit(corpus)
    for k in (1, 10, 50):
        ids, scores = fast.search(queries, k)
        ref_ids, ref_scores = blocked.search(queries, k)
        np.testing.assert_array_equal(ids, ref_ids)
        np.testing.assert_array_equal(scores, ref_scores)
        assert ids.dtype == ref_ids.dtype and scores.dtype == ref_scores.dtype


def test_exact_fast_path_orders_ties_by_index():
    base = np.random.default_rng(2).standard_normal((50, 8))
    base = (base / np.linalg.norm(base, axis=1, keepdims=True)).astype(np.float32)  # self is best
    corpus = np.vstack([base, base, base])  # item i ties with i + 50 and i + 100
    ids, scores = ExactIndex("inner_product").fit(corpus).search(base[:4], 3)
    for row, i in enumerate(range(4)):
        np.testing.assert_array_equal(ids[row], [i, i + 50, i + 100])
        assert scores[row, 0] == scores[row, 1] == scores[row, 2]


def test_top_k_fast_path_matches_float_data_in_one_block():
    # real-valued data: the fast path computes the very block the loop would (one block), so
    # indices and scores are identical, not merely close
    rng = np.random.default_rng(3)
    corpus = rng.standard_normal((5000, 20)).astype(np.float32)
    queries = rng.standard_normal((2, 20)).astype(np.float32)
    ids, scores = top_k(queries, corpus, 10, metric="inner_product")
    S = queries @ corpus.T
    ref = np.lexsort((np.broadcast_to(np.arange(5000), S.shape), -S), axis=-1)[:, :10]
    np.testing.assert_array_equal(ids, ref)
    np.testing.assert_array_equal(scores, np.take_along_axis(S, ref, axis=1))
    only_ids = top_k(queries, corpus, 10, metric="inner_product", return_scores=False)
    np.testing.assert_array_equal(only_ids, ids)


def test_dense_queries_fast_accepts_only_what_check_matrix_keeps():
    q = np.ones((2, 4), dtype=np.float32)
    assert dense_queries_fast(q, 4) is q
    assert dense_queries_fast(q, 5) is None
    assert dense_queries_fast(q.astype(np.float16), 4) is None
    assert dense_queries_fast(q.astype(">f4"), 4) is None
    assert dense_queries_fast(np.ones((4, 2), dtype=np.float64).T, 4) is None  # not C-contiguous
    assert dense_queries_fast(q.tolist(), 4) is None
    assert dense_queries_fast(np.ones((0, 4)), 4) is None
    for bad in (np.nan, np.inf, -np.inf):
        q_bad = q.copy()
        q_bad[1, 2] = bad
        assert dense_queries_fast(q_bad, 4) is None
    huge = np.full((1, 4), np.finfo(np.float32).max, dtype=np.float32)
    assert dense_queries_fast(huge, 4) is huge


def test_exact_search_still_refuses_bad_queries():
    index = ExactIndex("inner_product").fit(np.eye(5))
    with pytest.raises(ValueError, match="NaN"):
        index.search(np.array([[np.nan, 0, 0, 0, 0]]), 1)
    with pytest.raises(ValueError, match="features"):
        index.search(np.ones((1, 4)), 1)
    ids, _ = index.search([[0.0, 1.0, 0.0, 0.0, 0.0]], 1)  # a list still works
    np.testing.assert_array_equal(ids, [[1]])


@pytest.mark.parametrize("backend", ["faiss-flat", "faiss-ivf", "faiss-hnsw", "usearch"])
def test_ann_single_queries_equal_batched_with_ties(backend):
    pytest.importorskip("usearch.index" if backend == "usearch" else "faiss",
                        reason=f"the {backend} backend needs its package (pip install learnsim[ann])")
    from learnsim.ann import make_ann

    rng = np.random.default_rng(4)
    base = _integer_data(rng, 200, 8, np.float32)
    X = np.vstack([base, base])  # every vector twice: exact ties, ordered by id
    ids = np.arange(X.shape[0])[::-1].copy()  # ids in the reverse of row order
    params = {"faiss-ivf": {"nprobe": 64}, "faiss-hnsw": {"ef_search": 400},
              "usearch": {"expansion_search": 400}}.get(backend, {})
    index = make_ann(backend, metric="inner_product", threads=1, **params).fit(X, ids)
    Q = base[:20]
    batch_ids, batch_scores = index.search(Q, 5)
    for i in range(Q.shape[0]):
        one_ids, one_scores = index.search(Q[i:i + 1], 5)
        np.testing.assert_array_equal(one_scores, batch_scores[i:i + 1])
        # equal scores come by ascending id, in both
        s, d = one_scores[0], one_ids[0]
        assert np.all((s[1:] < s[:-1]) | ((s[1:] == s[:-1]) & (d[1:] > d[:-1])))
    # a float64 query and a list give the same results as the float32 array
    np.testing.assert_array_equal(index.search(Q[:1].astype(np.float64), 5)[1], batch_scores[:1])
    np.testing.assert_array_equal(index.search(Q[:1].tolist(), 5)[1], batch_scores[:1])
    with pytest.raises(ValueError, match="NaN"):
        index.search(np.full((1, 8), np.nan, dtype=np.float32), 5)
    with pytest.raises(ValueError, match="features"):
        index.search(np.ones((1, 7), dtype=np.float32), 5)


def test_faiss_thread_count_is_restored_and_left_alone():
    faiss = pytest.importorskip("faiss", reason="faiss-cpu is not installed (pip install learnsim[ann])")
    from learnsim.ann import make_ann

    X = np.random.default_rng(5).standard_normal((300, 8)).astype(np.float32)
    before = faiss.omp_get_max_threads()
    try:
        for threads in (1, 2, None):
            index = make_ann("faiss-hnsw", metric="inner_product", threads=threads).fit(X)
            index.search(X[:1], 3)
            assert faiss.omp_get_max_threads() == before
    finally:
        faiss.omp_set_num_threads(before)
