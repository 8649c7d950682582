"""The pairs fit's re-ranker features without whole copies of the pairs' rows (stop 85:
`learnsim.fit(texts, pairs=...)` on 30,000 short documents peaked at 1,060-1,079 MB in the
re-ranker's selection, pair_similarity of the character n-gram rows: 65,536 pairs' rows copied
twice and multiplied at once, some 500 MB). Sparse rows are now taken in chunks of about
_SPARSE_PAIR_ENTRIES stored entries; a pair's value is its two rows' alone, so no bit changes."""
import tracemalloc

import numpy as np
import scipy.sparse as sp

from learnsim.matching import _matchers, pair_similarity


def _rows(n=4000, m=3000, per_row=60, seed=0):
    rng = np.random.default_rng(seed)
    cols = rng.integers(0, m, (n, per_row))
    E = sp.csr_matrix((rng.random(n * per_row), cols.ravel(), np.arange(0, n * per_row + 1, per_row)), shape=(n, m))
    E.sum_duplicates()
    pairs = rng.integers(0, n, (30000, 2))
    pairs[:, 1] = (pairs[:, 0] + 1 + pairs[:, 1] % (n - 1)) % n      # two distinct items a pair
    return E, pairs


def test_pair_similarity_of_sparse_rows_is_the_same_at_any_chunk(monkeypatch):
    E, pairs = _rows()
    pairs = pairs[:3000]
    want = {metric: pair_similarity(E, pairs, metric=metric) for metric in ("cosine", "inner_product", "euclidean")}
    dense = pair_similarity(E.toarray(), pairs)
    np.testing.assert_allclose(want["cosine"], dense, rtol=1e-12, atol=1e-15)
    for entries in (60 * 3, 60 * 70, 2**40):
        monkeypatch.setattr(_matchers, "_SPARSE_PAIR_ENTRIES", entries)
        for metric, value in want.items():
            assert np.array_equal(pair_similarity(E, pairs, metric=metric), value)


def test_pair_similarity_of_sparse_rows_copies_a_chunk_not_every_pair(monkeypatch):
    E, pairs = _rows()
    # about 1,000 pairs a chunk (raising=False: the test fails before on its memory, not here)
    monkeypatch.setattr(_matchers, "_SPARSE_PAIR_ENTRIES", 60 * 1000, raising=False)
    rows_of_all = pairs.shape[0] * 60 * 12                               # E[a]: data and indices, every pair
    pair_similarity(E[:10], np.array([[0, 1], [2, 3]]))                               # imports and caches, before counting
    tracemalloc.start()
    try:
        pair_similarity(E, pairs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # before: every pair's two rows and their product at once (4x rows_of_all and more)
    assert peak < 0.5 * rows_of_all, peak / rows_of_all
