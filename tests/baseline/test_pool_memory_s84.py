"""The held-out search check's pool keeps its answers and sheds its copies (stop 84: `learnsim fit
--input` of 30,000 short documents peaked at 890 MB, 240x the input, inside the pool: each base's
whole block of argpartition indices kept alive by a slice, the learned distances' documents
projected again for every block of queries and their block copied six times)."""
import tracemalloc

import numpy as np

from learnsim.baseline import SearchBaselines, split_clusters
from learnsim.baseline import _search
from learnsim.mcd import MinimumClusterDistortion
from learnsim.mcd._linalg import _bilinear_sq_dist
from learnsim.mcd._scoring import minus_distances_to


def _collection(n=600, n_labels=12, seed=0):
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(300)]
    texts, labels = [], []
    for i in range(n):
        label = i % n_labels
        words = list(rng.choice(vocab, int(rng.integers(6, 14)))) + [f"topic{label}a", f"topic{label}b"]
        texts.append(" ".join(words))
        labels.append(label)
    return texts, np.array(labels)


def _fitted(texts, labels):
    from sklearn.feature_extraction.text import TfidfVectorizer

    X = TfidfVectorizer().fit_transform(texts).astype(np.float64)
    metric = MinimumClusterDistortion(n_basis=8, baseline_holdout=None, random_state=0).fit(X, labels)
    return X, metric


def test_the_in_place_bilinear_distances_equal_the_plain_ones_bit_for_bit():
    rng = np.random.default_rng(1)
    A, B = rng.standard_normal((7, 20)), rng.standard_normal((11, 20))
    PA, PB = rng.standard_normal((7, 4)), rng.standard_normal((11, 4))
    w = np.abs(rng.standard_normal(4))
    for beta, weights in ((0.7, w), (0.0, w), (0.7, w[:0])):
        sa, sb = np.einsum("ij,ij->i", A, A), np.einsum("ij,ij->i", B, B)
        plain = _bilinear_sq_dist(sa, sb, A @ B.T, PA, PB, weights, beta)
        c = weights - beta
        qb = (PB * PB) @ c if c.size else None
        G = A @ B.T
        lean = _bilinear_sq_dist(sa, sb, G, PA, PB, weights, beta, overwrite_g=True, qb=qb)
        assert np.array_equal(plain, lean)
        assert plain.min() >= 0.0


def test_the_learned_scores_equal_minus_the_pairwise_distances_bit_for_bit():
    texts, labels = _collection()
    X, metric = _fitted(texts, labels)
    score = minus_distances_to(metric, X)
    for q in (np.arange(5), np.array([3, 100, 599]), np.arange(600)):
        got = score(X[q])
        assert np.array_equal(got, -metric.pairwise_distances(X[q], X))
    # dense rows too, and a set of documents other than all texts
    D = X[::3].toarray()
    assert np.array_equal(minus_distances_to(metric, D)(X[:9].toarray()), -metric.pairwise_distances(X[:9].toarray(), D))


def _pool(monkeypatch, block_entries):
    texts, labels = _collection()
    X, metric = _fitted(texts, labels)
    train, split = split_clusters(labels, 0.3, random_state=0)
    baselines = SearchBaselines(texts, split.documents)
    monkeypatch.setattr(_search, "_BLOCK_ENTRIES", block_entries)
    score = minus_distances_to(metric, X[split.documents])
    return baselines.pool(split, learned={"learned": lambda q: score(X[q])}, random_state=0)


def test_the_pool_is_the_same_at_any_block_size(monkeypatch):
    """The same pools at three queries a block and at every query in one (the scores to the last
    bits BLAS may round differently for blocks of another height)."""
    small = _pool(monkeypatch, 600 * 3)
    whole = _pool(monkeypatch, 2 ** 22)
    assert small.documents.shape[0] > 10
    assert np.array_equal(small.documents, whole.documents)
    assert set(small.bases) == set(whole.bases) == {"bm25", "cosine", "learned"}
    for name in whole.bases:
        assert np.allclose(small.bases[name], whole.bases[name], rtol=1e-12, atol=1e-12)
    assert np.array_equal(small.judged.documents, whole.judged.documents)
    for name in whole.judged.bases:
        assert np.array_equal(small.judged.bases[name], whole.judged.bases[name])


def test_the_pool_keeps_no_block_of_indices_per_base(monkeypatch):
    """Over 4,000 documents in blocks of 250 held-out queries (8 MB a block of scores) with a
    learned metric's distances, the pool's traced peak stays within eight such blocks: 6.5 now,
    10.5 before, when a slice of argpartition kept each base's whole block of indices alive and
    the distances were copied at each step (fails before)."""
    rng = np.random.default_rng(0)
    n = 4000
    vocab = [f"w{i}" for i in range(500)]
    texts = [" ".join(rng.choice(vocab, 12)) + f" topic{i % 40}" for i in range(n)]
    labels = np.arange(n) % 40
    train, split = split_clusters(labels, 0.3, random_state=0)
    baselines = SearchBaselines(texts, split.documents)
    X, metric = _fitted(texts, train)
    score = minus_distances_to(metric, X[split.documents])
    monkeypatch.setattr(_search, "_BLOCK_ENTRIES", 250 * split.documents.size)
    block = 250 * split.documents.size * 8
    tracemalloc.start()
    try:
        baselines.pool(split, learned={"learned": lambda q: score(X[q])}, random_state=0, judged=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * block, peak / block
