"""Tests of learnsim.hybrid (input cosine mixed with a learned cosine) and of its use by
ThresholdMatcher(input_weight=...)."""
from __future__ import annotations

import numpy as np
from sklearn.metrics import roc_auc_score
import pytest
import scipy.sparse as sp
from sklearn.decomposition import TruncatedSVD
from sklearn.exceptions import NotFittedError

from learnsim import persistence
from learnsim.evaluation import best_threshold
from learnsim.film import FILM
from learnsim.film.hybrid import HybridEmbedding, hybrid_rows, select_input_weight
from learnsim.matching import ThresholdMatcher, pair_similarity
from learnsim.supervision import Pairs


def _cos(A, B):
    A, B = np.asarray(A, float), np.asarray(B, float)
    na, nb = np.linalg.norm(A, axis=1), np.linalg.norm(B, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = np.einsum("ij,ij->i", A, B) / (na * nb)
    return np.where((na > 0) & (nb > 0), c, 0.0)


def _data(seed=0, n=60, D=12, d=4):
    rng = np.random.default_rng(seed)
    X = rng.random((n, D)) * (rng.random((n, D)) < 0.5)
    X[3] = 0.0                                     # an all-zero input row
    L = rng.normal(size=(d, D))
    return X, L


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("w", [0.0, 0.3, 1.0])
def test_hybrid_rows_inner_product_is_the_mixed_cosine(sparse, w):
    X, L = _data()
    E = X @ L.T
    H = hybrid_rows(sp.csr_matrix(X) if sparse else X, E, w)
    assert sp.issparse(H) == sparse
    H = H.toarray() if sparse else H
    a, b = np.arange(0, 59), np.arange(1, 60)
    expected = w * _cos(X[a], X[b]) + (1 - w) * _cos(E[a], E[b])
    np.testing.assert_allclose(np.einsum("ij,ij->i", H[a], H[b]), expected, atol=1e-12)
    assert np.allclose(H[3], 0.0)                  # zero input and zero embedding stay zero


def test_hybrid_rows_checks_its_input():
    X, L = _data()
    with pytest.raises(ValueError, match="input_weight must be a number in \\[0, 1\\]"):
        hybrid_rows(X, X @ L.T, 1.5)
    with pytest.raises(ValueError, match="X has 60 rows but its embedding has 59"):
        hybrid_rows(X, (X @ L.T)[:-1], 0.5)


def test_select_input_weight_takes_the_best_and_breaks_ties_low():
    a, b = np.array([0.0, 1.0, 2.0]), np.array([2.0, 1.0, 0.0])
    # criterion: closeness of the mix to (1, 1, 1) -> w = 0.5 exactly
    w, values = select_input_weight(a, b, lambda s: -np.abs(s - 1).sum(), grid=(0.0, 0.25, 0.5, 0.75, 1.0))
    assert w == 0.5 and values.shape == (5,) and np.argmax(values) == 2
    w, _ = select_input_weight(a, b, lambda s: 1.0, grid=(0.2, 0.8))
    assert w == 0.2
    with pytest.raises(ValueError, match="equal length"):
        select_input_weight(a, b[:2], np.sum)
    with pytest.raises(ValueError, match="grid is empty"):
        select_input_weight(a, b, np.sum, grid=())
    with pytest.raises(ValueError, match="every weight of grid must be a number in \\[0, 1\\]"):
        select_input_weight(a, b, np.sum, grid=(0.5, 2.0))


def test_hybrid_embedding_transform_save_and_errors(tmp_path):
    X, _ = _data()
    X[3] = 1.0
    y = np.repeat(np.arange(6), 10)
    film = FILM(3, max_iter=20, random_state=0).fit(X, y)
    hyb = HybridEmbedding(film, input_weight=0.25).fit(X)
    H = hyb.transform(X)
    E = film.transform(X)
    np.testing.assert_allclose(H[0] @ H[1], 0.25 * _cos(X[:1], X[1:2])[0] + 0.75 * _cos(E[:1], E[1:2])[0])
    persistence.save(hyb, tmp_path / "h.npz")
    back = persistence.load(tmp_path / "h.npz")
    assert isinstance(back, HybridEmbedding) and isinstance(back.transformer, FILM)
    np.testing.assert_array_equal(back.transform(X), H)
    with pytest.raises(NotFittedError):
        HybridEmbedding(film).transform(X)
    with pytest.raises(NotFittedError):
        HybridEmbedding(FILM(3)).fit(X)
    with pytest.raises(TypeError, match="fitted object with a transform"):
        HybridEmbedding(None).fit(X)
    with pytest.raises(ValueError, match="input_weight must be a number in \\[0, 1\\]"):
        HybridEmbedding(film, input_weight=-0.1).fit(X)
    with pytest.raises(ValueError, match="X has 5 features, but the transformer expects 12"):
        HybridEmbedding(film).fit(X[:, :5])


def _pairs_data(seed=0, n_groups=150, D=30):
    """Items with a near copy (duplicates) and an item of another group (non-duplicates)."""
    rng = np.random.default_rng(seed)
    base = rng.random((n_groups, D)) * (rng.random((n_groups, D)) < 0.3)
    base[:, 0] += 0.1
    X = np.vstack([base, base + 0.3 * rng.random((n_groups, D)) * (rng.random((n_groups, D)) < 0.3)])
    dup = np.column_stack([np.arange(n_groups), np.arange(n_groups) + n_groups])
    non = np.column_stack([np.arange(n_groups), rng.permutation(n_groups) + n_groups])
    non = non[non[:, 1] != non[:, 0] + n_groups]
    idx = np.vstack([dup, non])
    labels = np.r_[np.ones(len(dup), bool), np.zeros(len(non), bool)]
    return X, Pairs(idx, labels=labels)


@pytest.mark.parametrize("sparse,criterion", [(False, "auc"), (True, "auc"), (False, "accuracy")])
def test_threshold_matcher_mixes_the_input_cosine(sparse, criterion):
    X, pairs = _pairs_data()
    Xs = sp.csr_matrix(X) if sparse else X
    svd = TruncatedSVD(3, random_state=0).fit(X)
    grid = (0.0, 0.1, 0.5, 0.9, 1.0)
    m = ThresholdMatcher(svd, input_weight="auto", weight_grid=grid, weight_criterion=criterion).fit(Xs, pairs)
    cos_in = pair_similarity(X, pairs.indices)
    cos_e = pair_similarity(svd.transform(X), pairs.indices)
    measure = ((lambda s: roc_auc_score(pairs.labels, s)) if criterion == "auc"
               else (lambda s: best_threshold(s, pairs.labels)[1]))
    expected = [measure(w * cos_in + (1 - w) * cos_e) for w in grid]
    np.testing.assert_allclose(m.weight_scores_, expected)
    assert m.input_weight_ == grid[int(np.argmax(expected))]
    w = m.input_weight_
    np.testing.assert_allclose(m.pair_score(pairs), w * cos_in + (1 - w) * cos_e, atol=1e-12)
    # new X: embedded and mixed the same way
    np.testing.assert_allclose(m.pair_score(pairs.indices[:5], X=Xs), (w * cos_in + (1 - w) * cos_e)[:5],
                               atol=1e-12)
    assert m.report(pairs)["input_weight"] == w
    fixed = ThresholdMatcher(svd, input_weight=0.5).fit(Xs, pairs)
    np.testing.assert_allclose(fixed.pair_score(pairs), 0.5 * cos_in + 0.5 * cos_e, atol=1e-12)
    assert fixed.weight_scores_ is None


def test_threshold_matcher_mixing_persists(tmp_path):
    X, pairs = _pairs_data()
    film = FILM(3, max_iter=20, random_state=0).fit(X, np.arange(X.shape[0]) % 150)
    m = ThresholdMatcher(film, input_weight="auto").fit(X, pairs)
    persistence.save(m, tmp_path / "m.npz")
    back = persistence.load(tmp_path / "m.npz")
    assert back.input_weight_ == m.input_weight_
    np.testing.assert_allclose(back.weight_scores_, m.weight_scores_)
    np.testing.assert_array_equal(back.predict(pairs, X=X), m.predict(pairs, X=X))
    np.testing.assert_allclose(back.predict_proba(pairs), m.predict_proba(pairs))
    meta, arrays = m._get_state()
    with pytest.raises(ValueError, match="input_weight_fitted must be a number in \\[0, 1\\]"):
        ThresholdMatcher._from_state(dict(meta, input_weight_fitted=3.0), arrays)
    with pytest.raises(ValueError, match="n_input_features must fit the embedding"):
        ThresholdMatcher._from_state(dict(meta, n_input_features=10**6), arrays)


def test_threshold_matcher_mixing_errors():
    X, pairs = _pairs_data()
    svd = TruncatedSVD(3, random_state=0).fit(X)
    with pytest.raises(ValueError, match="it needs a transformer"):
        ThresholdMatcher(input_weight=0.5).fit(X, pairs)
    with pytest.raises(ValueError, match="needs metric='cosine', got 'euclidean'"):
        ThresholdMatcher(svd, metric="euclidean", input_weight=0.5).fit(X, pairs)
    with pytest.raises(ValueError, match="input_weight must be a number in \\[0, 1\\], 'auto'"):
        ThresholdMatcher(svd, input_weight="best").fit(X, pairs)
    with pytest.raises(TypeError, match="input_weight needs numeric rows.*contains text"):
        ThresholdMatcher(lambda texts: X[:len(texts)], input_weight=0.5).fit(["a b"] * X.shape[0], pairs)


def test_threshold_matcher_refuses_an_unknown_weight_criterion():
    X, pairs = _pairs_data()
    svd = TruncatedSVD(3, random_state=0).fit(X)
    with pytest.raises(ValueError, match="weight_criterion"):
        ThresholdMatcher(svd, input_weight="auto", weight_criterion="f1").fit(X, pairs)


def test_auc_criterion_needs_both_classes():
    X, pairs = _pairs_data()
    svd = TruncatedSVD(3, random_state=0).fit(X)
    only_dup = Pairs(pairs.indices[pairs.labels], labels=pairs.labels[pairs.labels])
    with pytest.raises(ValueError, match="both kinds are needed"):
        ThresholdMatcher(svd, input_weight="auto").fit(X, only_dup)
