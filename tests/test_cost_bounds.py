"""Costs bounded by blocks where that leaves the results as they were (issue 16, part 3).

LinkLearn's validation ranks by blocks of queries instead of an n_val x n_val matrix; MCD's
principal basis skips two transposed copies; the selection's sampled scorer sorts integer keys
instead of an argsort. Each is checked against the former computation.
"""
import numpy as np
import pytest
import scipy.sparse as sp

import learnsim.mcd._fold_sampling as fs
import learnsim.linklearn._linklearn as linklearn
from learnsim._utils.linalg import truncated_svd, truncated_svd_components
from learnsim.evaluation import cluster_retrieval_report, constraint_error_rate, per_query_measures


# ----------------------------------------------------------------------------- LinkLearn
def _former_validation_scores(self, theta, mlps, codes, adjacency, queries=None):
    """LinkLearn's validation before issue 16: the whole n_val x n_val similarity matrix."""
    W = self._weighted(theta, mlps, codes)
    S = (W @ W.T).toarray()
    m = per_query_measures(S, adjacency, exclude_self=True, measures=("ap", "p@10"))
    keep = ~np.isnan(m["ap"])
    err = constraint_error_rate(S, adjacency, exclude_self=True)
    return {"ap": float(np.mean(m["ap"][keep])), "p@10": float(np.mean(m["p@10"][keep])),
            "error_rate": float(np.nanmean(err))}


def _linked(seed=0, n=90, vocab=120, n_topics=5):
    from learnsim.supervision import Links

    rng = np.random.default_rng(seed)
    topic = np.arange(n) % n_topics
    X = np.zeros((n, vocab))
    for d in range(n):
        np.add.at(X[d], rng.integers(0, 20, 30), 1.0)                                   # background
        np.add.at(X[d], 20 + topic[d] * 15 + rng.integers(0, 15, 6), 1.0)               # topic words
    edges = [(d, j) for d in range(n) for j in rng.choice(np.flatnonzero(topic == topic[d]), 3) if j != d]
    return sp.csr_matrix(X), Links.from_edges(np.array(edges), n)


@pytest.mark.parametrize("block_elements", [1, 7 * 45])   # one query a block; 7 queries a block
def test_linklearn_validation_by_blocks_matches_the_whole_matrix(monkeypatch, block_elements):
    X, links = _linked()
    Xv, links_v = _linked(seed=1, n=45)
    params = dict(learning_rate=0.05, batch_size=4, max_iter=600, validation_interval=100, n_iter_no_change=3,
                  baseline_holdout=None, random_state=0)
    monkeypatch.setattr(linklearn, "_VALIDATION_BLOCK_ELEMENTS", block_elements)
    blocks = linklearn.LinkLearn(2, 2, 2, **params).fit(X, links, validation=(Xv, links_v))
    monkeypatch.setattr(linklearn.LinkLearn, "_validation_scores", _former_validation_scores)
    whole = linklearn.LinkLearn(2, 2, 2, **params).fit(X, links, validation=(Xv, links_v))
    assert len(blocks.validation_curve_["ap"]) == len(whole.validation_curve_["ap"]) >= 3
    for key in ("ap", "p@10", "error_rate"):
        np.testing.assert_allclose(blocks.validation_curve_[key], whole.validation_curve_[key], rtol=0, atol=1e-9)
    assert len(set(np.round(whole.validation_curve_["ap"], 6))) > 1       # the curve moved: a real check


def test_linklearn_validation_never_builds_the_whole_matrix(monkeypatch):
    X, links = _linked()
    Xv, links_v = _linked(seed=1, n=45)
    monkeypatch.setattr(linklearn, "_VALIDATION_BLOCK_ELEMENTS", 10 * 45)
    seen = []
    real = per_query_measures

    def spy(scores, *args, **kwargs):
        seen.append(np.shape(scores))
        return real(scores, *args, **kwargs)

    import learnsim.evaluation as evaluation
    monkeypatch.setattr(evaluation, "per_query_measures", spy)
    linklearn.LinkLearn(2, 2, 2, max_iter=200, validation_interval=100, baseline_holdout=None,
                        random_state=0).fit(X, links, validation=(Xv, links_v))
    assert seen and max(rows for rows, _ in seen) <= 10 and all(cols == 45 for _, cols in seen)


def test_linklearn_samples_the_queries_of_large_parts(monkeypatch):
    """Above _MAX_VALIDATION_QUERIES linked documents, the validation and the held-out check rank
    every document for a seeded sample of the linked ones only (cost ~ n, not n^2): each sampled
    query's AvgP is the one the whole matrix gives it, and both weightings get the same queries."""
    X, links = _linked()
    Xv, links_v = _linked(seed=1, n=45)
    monkeypatch.setattr(linklearn, "_MAX_VALIDATION_QUERIES", 10)
    rows_seen = []
    real = per_query_measures

    def spy(scores, relevant, *args, **kwargs):
        rows_seen.append(np.shape(scores)[0])
        return real(scores, relevant, *args, **kwargs)

    import learnsim.evaluation as evaluation
    monkeypatch.setattr(evaluation, "per_query_measures", spy)
    model = linklearn.LinkLearn(2, 2, 2, max_iter=200, validation_interval=100, baseline_holdout=0.3,
                                random_state=0).fit(X, links, validation=(Xv, links_v))
    assert rows_seen and max(rows_seen) <= 10
    adjacency = links_v.symmetric().adjacency.tocsr()
    queries = linklearn._query_rows(adjacency, 0)
    assert queries.size == 10 and np.all(np.diff(adjacency.indptr)[queries] > 0)
    np.testing.assert_array_equal(queries, linklearn._query_rows(adjacency, 0))      # seeded
    # the sampled queries' measures equal the whole matrix's rows for them
    W = model._weighted(model.coef_, model._fitted_mlps(), linklearn._Codes(sp.csr_matrix(Xv)))
    S = (W @ W.T).toarray()
    whole = real(S, adjacency, exclude_self=True, measures=("ap",))["ap"]
    sampled = linklearn._block_ap(lambda r: S[r], adjacency, queries, ("ap",))["ap"]
    np.testing.assert_allclose(sampled, whole[queries], rtol=0, atol=1e-12)
    assert model.baseline_gain_ is not None


# ----------------------------------------------------------------------------- MCD's basis
@pytest.mark.parametrize("k", [5, 40])
def test_principal_components_are_the_transposed_right_factor_bit_for_bit(k):
    from learnsim._utils import linalg as _linalg

    # wide and sparse (more terms than documents) and past the dense-SVD size: the randomised route
    X = sp.random(300, 4000, density=0.01, random_state=2, format="csr")
    assert X.shape[0] * X.shape[1] > _linalg._DENSE_SVD_MAX_ELEMENTS
    s, Vt = truncated_svd(X, k, seed=4)
    s2, V = truncated_svd_components(X, k, seed=4)
    np.testing.assert_array_equal(s2, s)
    np.testing.assert_array_equal(V, Vt.T)
    assert V.flags.c_contiguous and V.shape == (4000, k)
    # the small dense route gives the same too
    s3, V3 = truncated_svd_components(X[:50, :100], 8, seed=4)
    np.testing.assert_array_equal(V3, truncated_svd(X[:50, :100], 8, seed=4)[1].T)


# ----------------------------------------------------------------------------- the sampled scorer
def _former_score(design, D2, measure):
    """SampledFold.score before issue 16, part 3 (an argsort of every row)."""
    q = design.queries.size
    relevant = design.qc[:, None] == design.cluster[None, :]
    relevant[np.arange(q), design.queries] = False
    other_weight = np.where(relevant, 0.0, design.col_weight[None, :])
    other_weight[np.arange(q), design.queries] = 0.0
    D2 = np.array(D2, dtype=float)
    D2[np.arange(q), design.queries] = np.inf
    order = np.argsort(D2, axis=1, kind="stable")          # ties by position, as the keys do
    rel = np.take_along_axis(relevant, order, axis=1)
    cum_other = np.cumsum(np.take_along_axis(other_weight, order, axis=1), axis=1)
    if measure == "r_precision":
        cum_rel = np.cumsum(rel, axis=1)
        est_rank = cum_rel * design.rel_scale[:, None] + cum_other
        last = (est_rank <= design.true_rel[:, None] * (1 + 1e-12)).sum(axis=1)
        got = np.where(last > 0, cum_rel[np.arange(q), np.maximum(last - 1, 0)], 0)
        values = np.minimum(got * design.rel_scale / design.true_rel, 1.0)
    else:
        r, c = np.nonzero(rel)
        first = np.concatenate(([0], np.cumsum(design.n_rel)[:-1]))
        m = np.arange(r.size) - first[r] + 1
        est_rel = m * design.rel_scale[r]
        precision = est_rel / (est_rel + cum_other[r, c])
        if measure == "ap":
            values = np.bincount(r, weights=precision, minlength=q) / design.n_rel
        else:
            padded = np.zeros((q, int(design.n_rel.max())))
            padded[r, m - 1] = precision
            tail_max = np.maximum.accumulate(padded[:, ::-1], axis=1)[:, ::-1]
            values = np.zeros(q)
            for level in np.arange(11) / 10.0:
                m_min = np.maximum(1, np.floor(level * design.n_rel + 0.9).astype(np.int64))
                values += tail_max[np.arange(q), m_min - 1]
            values /= 11.0
    return float(np.sum(values * design.query_weight) / np.sum(design.query_weight))


@pytest.mark.parametrize("measure", ["ap11", "ap", "r_precision"])
def test_keyed_sort_scores_as_the_argsort_did(measure):
    rng = np.random.default_rng(7)
    labels = np.repeat(np.arange(12), rng.integers(30, 90, 12))
    X = rng.normal(size=(labels.size, 6)) + rng.normal(size=(12, 6))[labels] * 0.7
    X[5] = X[9]                                               # a duplicate: exactly tied distances
    design = fs.sample_fold(labels, np.arange(12), 300, 60, np.random.default_rng(1))
    Xv = X[design.rows]
    D2 = ((Xv[design.queries][:, None, :] - Xv[None, :, :]) ** 2).sum(-1)
    D2 -= 1e-3                                                # negative distances sort right too
    stack = np.stack([D2, D2 * 3.0 + 0.5, np.round(D2, 1)])  # the last has many exact ties
    got = design.scores(stack, measure)
    for i in range(3):
        assert got[i] == pytest.approx(_former_score(design, stack[i], measure), abs=1e-12)
        assert design.score(stack[i], measure) == pytest.approx(got[i], abs=1e-12)
    # every sampled query with the whole fold sampled: the exact measure
    full = fs.sample_fold(labels, np.arange(12), 10_000, 10_000, np.random.default_rng(0))
    Xf = X[full.rows]
    D_all = ((Xf[:, None, :] - Xf[None, :, :]) ** 2).sum(-1)
    exact = cluster_retrieval_report(-D_all, labels[full.rows], measures=(measure,))[measure]
    assert full.scores(D_all[None], measure)[0] == pytest.approx(exact, abs=1e-12)
