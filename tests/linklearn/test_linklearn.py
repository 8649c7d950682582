"""LinkLearn (paper 002): the cost of eq. (4), its gradient, training, transfer, persistence."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError

from learnsim.evaluation import average_precision, constraint_error_rate
from learnsim.linklearn._linklearn import (LinkLearn, _Codes, _hinge_coefficients, document_lengths, idf_from_counts,
                                link_hinge_loss)
from learnsim.persistence import load, save
from learnsim.supervision import Links, split_links


def _linked_corpus(seed=0, n_topics=6, per_topic=25, vocab=300, topic_words=25):
    """Documents of a few topics sharing topic words; links join documents of one topic.

    Common background words occur often (high tf, low idf) and carry no topic, so a weighting
    that damps repetitions and frequent words should beat raw counts.
    """
    rng = np.random.default_rng(seed)
    n = n_topics * per_topic
    topic = np.repeat(np.arange(n_topics), per_topic)
    background = np.arange(20)
    own = [20 + t * topic_words + np.arange(topic_words) for t in range(n_topics)]
    rows = []
    for d in range(n):
        length = rng.integers(30, 120)
        counts = np.zeros(vocab)
        np.add.at(counts, rng.choice(background, size=length), 1.0)
        np.add.at(counts, rng.choice(own[topic[d]], size=max(3, length // 8)), 1.0)
        np.add.at(counts, rng.integers(20 + n_topics * topic_words, vocab, size=length // 4), 1.0)
        rows.append(counts)
    X = sp.csr_matrix(np.array(rows))
    edges = []
    for d in range(n):
        same = np.flatnonzero(topic == topic[d])
        for j in rng.choice(same[same != d], size=3, replace=False):
            edges.append((d, j))
    return X, Links.from_edges(np.array(edges), n), topic


@pytest.fixture(scope="module")
def corpus():
    return _linked_corpus()


@pytest.fixture(scope="module")
def fitted(corpus):
    X, links, _ = corpus
    parts = split_links(links, (0.5, 0.25, 0.25), random_state=0)
    (tr, Ltr), (va, Lva), (te, Lte) = parts
    # the paper's training alone (no held-out baseline check): the tests of eq. (5) itself
    model = LinkLearn(3, 3, 3, learning_rate=0.05, batch_size=4, max_iter=3000, validation_interval=200,
                      n_iter_no_change=5, baseline_holdout=None, random_state=0).fit(X[tr], Ltr, validation=(X[va], Lva))
    return model, X, parts


_RANDOM_SCORES = np.random.default_rng(1).normal(size=40) * 2


@pytest.mark.parametrize("s, pos, neg, own", [
    (_RANDOM_SCORES, np.arange(5), np.arange(6, 40), 5),
    # integer scores put negatives exactly on a positive's margin s_p - 1 (not a violation:
    # max(0, 1 - s_p + s_n) = 0 there) and give positives equal scores
    (np.array([9.0, 3.0, 3.0, 1.0, 2.0, 2.0, 3.0, 0.0, 5.0, 1.5]), np.array([1, 2, 3]),
     np.array([4, 5, 6, 7, 8, 9]), 0),
], ids=["random", "margin-and-ties"])
def test_hinge_coefficients_match_the_pairwise_sum(s, pos, neg, own):
    loss, coef = _hinge_coefficients(s, pos, neg)
    brute = np.maximum(0.0, 1.0 - s[pos][:, None] + s[neg][None, :])
    assert loss == pytest.approx(brute.mean(), rel=1e-12)
    active = brute > 0
    np.testing.assert_array_equal(coef[pos], -active.sum(axis=1) / active.size)
    np.testing.assert_array_equal(coef[neg], active.sum(axis=0) / active.size)
    assert coef[own] == 0.0                       # d itself: neither positive nor negative


def test_gradient_matches_finite_differences(corpus):
    X, links, _ = corpus
    model = LinkLearn(3, 4, 2, random_state=0)
    hidden = model._check_params()
    codes = _Codes(check := sp.csr_matrix(X[:60]))
    adjacency = Links(links.adjacency[:60][:, :60]).symmetric().adjacency
    scaling = [(float(np.mean(v)), float(np.std(v))) for v in
               (check.data, codes.idf[check.indices], codes.lengths)]
    mlps = model._mlps(hidden, scaling)
    rng = np.random.default_rng(3)
    theta = np.concatenate([m.init(rng) for m in mlps]) + rng.normal(0, 0.3, sum(m.size for m in mlps))
    docs = np.array([d for d in range(60) if adjacency[d].nnz][:3])
    loss, grad = model._batch_gradient(theta, mlps, codes, adjacency, docs)
    eps = 1e-6
    numeric = np.empty_like(theta)
    for i in range(theta.size):
        up, down = theta.copy(), theta.copy()
        up[i] += eps
        down[i] -= eps
        numeric[i] = (model._batch_gradient(up, mlps, codes, adjacency, docs)[0]
                      - model._batch_gradient(down, mlps, codes, adjacency, docs)[0]) / (2 * eps)
    assert loss > 0
    # the hinge has kinks; away from them (no pair exactly at the margin) the match is tight
    np.testing.assert_allclose(grad, numeric, rtol=1e-4, atol=1e-7)


def test_postings_sliced_or_gathered_give_the_same_step(corpus, monkeypatch):
    import learnsim.linklearn._step as step

    X, links, _ = corpus
    model = LinkLearn(3, 4, 2, random_state=0)
    codes = _Codes(sp.csr_matrix(X))
    adjacency = links.symmetric().adjacency
    mlps = model._mlps(model._check_params(), [(0.0, 1.0)] * 3)
    theta = np.concatenate([m.init(np.random.default_rng(5)) for m in mlps])
    docs = np.flatnonzero(np.diff(adjacency.indptr))[:8]
    steps = []
    for bound in (0, 10**9):                       # every list sliced; every list gathered
        monkeypatch.setattr(step, "SLICE_MIN_MEAN_POSTINGS", bound)
        steps.append(model._batch_gradient(theta, mlps, codes, adjacency, docs))
    assert steps[0][0] == pytest.approx(steps[1][0], rel=1e-12)
    np.testing.assert_allclose(steps[0][1], steps[1][1], rtol=1e-10, atol=1e-14)


def test_weights_are_the_product_of_three_positive_functions(fitted):
    model, X, _ = fitted
    W = model.transform(X)
    assert W.shape == X.shape and W.nnz == X.nnz and (W.data > 0).all()
    idf, lengths = idf_from_counts(X), document_lengths(X)
    d = 7
    lo, hi = X.indptr[d], X.indptr[d + 1]
    f = model.weight_functions(tf=X.data[lo:hi], idf=idf[X.indices[lo:hi]], length=[lengths[d]])
    np.testing.assert_allclose(W.data[lo:hi], f["tf"] * f["idf"] * f["length"][0], rtol=1e-5)


def test_training_beats_the_initial_and_the_raw_count_weighting(fitted):
    model, X, parts = fitted
    te, Lte = parts[2]
    curve = model.validation_curve_
    assert curve["ap"].max() > curve["ap"][0] + 0.05           # learned something on validation
    assert model.best_iter_ == curve["iteration"][np.argmax(curve["ap"])]
    W = model.transform(X[te])
    relevant = Lte.symmetric().adjacency
    ap_learned = np.nanmean(average_precision((W @ W.T).toarray(), relevant, exclude_self=True))
    C = X[te]
    ap_counts = np.nanmean(average_precision((C @ C.T).toarray(), relevant, exclude_self=True))
    assert ap_learned > ap_counts + 0.1, (ap_learned, ap_counts)
    # the learned weighting ranks linked documents first more often than it did at the start
    assert curve["error_rate"][-1] < curve["error_rate"][0]


def test_early_stopping_keeps_the_best_parameters(corpus):
    X, links, _ = corpus
    (tr, Ltr), (va, Lva), _ = split_links(links, (0.5, 0.25, 0.25), random_state=0)
    model = LinkLearn(2, 2, 2, learning_rate=0.05, batch_size=4, max_iter=100_000, validation_interval=100,
                      n_iter_no_change=3, baseline_holdout=None, random_state=0).fit(X[tr], Ltr, validation=(X[va], Lva))
    assert model.n_iter_ < 100_000                    # stopped early
    Wv = model.transform(X[va])
    ap = np.nanmean(average_precision((Wv @ Wv.T).toarray(), Lva.symmetric().adjacency, exclude_self=True))
    assert ap == pytest.approx(model.validation_curve_["ap"].max(), rel=1e-5)


def test_constraint_error_rate_counts_misordered_pairs():
    S = np.array([[0.0, 3.0, 1.0, 2.0], [1.0, 0.0, 1.0, 1.0]])
    R = np.array([[0, 1, 1, 0], [0, 0, 0, 0]], dtype=bool)
    err = constraint_error_rate(S, R)
    # query 0: positives 3 and 1 against negatives 0 and 2: (1 < 2) is the only violation of 4
    assert err[0] == pytest.approx(1 / 4)
    assert np.isnan(err[1])


def test_link_hinge_loss_is_zero_when_every_positive_leads_by_the_margin():
    s = np.array([0.0, 5.0, 5.0, 3.9, 0.0])
    assert link_hinge_loss(s, np.array([1, 2]), np.array([3, 4])) == 0.0
    assert link_hinge_loss(s, np.array([1, 2]), np.array([3, 4, 0])) == 0.0
    assert link_hinge_loss(np.array([0.0, 1.0, 1.0]), np.array([1]), np.array([2])) == pytest.approx(1.0)


def test_transfer_to_another_corpus_and_binary_queries(fitted):
    model, _, _ = fitted
    other, _, topic = _linked_corpus(seed=5, vocab=400)   # another vocabulary size, no retraining
    W = model.transform(other)
    assert W.shape == other.shape and W.dtype == np.float32
    Q = other[:5].multiply(3)                              # counts do not matter: queries are binary
    scores = LinkLearn.score_queries(Q, W)
    binary = other[:5].copy()
    binary.data[:] = 1
    np.testing.assert_allclose(scores, (binary @ W.T).toarray(), rtol=1e-5)
    idx, top = model.index(other).search(Q, 3)
    np.testing.assert_allclose(top, np.sort(scores, axis=1)[:, ::-1][:, :3], rtol=1e-5)


def test_save_and_load_round_trip(fitted, tmp_path):
    model, X, _ = fitted
    path = tmp_path / "linklearn.npz"
    save(model, path)
    loaded = load(path)
    assert (loaded.transform(X) != model.transform(X)).nnz == 0
    np.testing.assert_array_equal(loaded.validation_curve_["ap"], model.validation_curve_["ap"])
    assert loaded.get_params() == {**model.get_params(), "random_state": None}


def test_bad_input_gives_clear_errors(corpus):
    X, links, _ = corpus
    with pytest.raises(NotFittedError):
        LinkLearn().transform(X)
    with pytest.raises(ValueError, match="negative"):
        LinkLearn().fit(-X, links)
    with pytest.raises(ValueError, match="non-integer"):
        LinkLearn().fit(X * 0.5, links)                     # weighted vectors, not term counts
    empty = X.tolil()
    empty[4, :] = 0
    with pytest.raises(ValueError, match="document\\(s\\) 4 have no terms"):
        LinkLearn().fit(empty.tocsr(), links)
    with pytest.raises(ValueError, match="not in the corpus"):
        LinkLearn().fit(X[:-1], links)                      # a link to an unknown document
    with pytest.raises(ValueError, match="no links"):
        LinkLearn().fit(X, sp.csr_matrix(X.shape[:1] * 2))  # a corpus without links
    with pytest.raises(TypeError, match="Links"):
        LinkLearn().fit(X, [(0, 1)])
    with pytest.raises(ValueError, match="learning_rate"):
        LinkLearn(learning_rate=0).fit(X, links)
    with pytest.raises(ValueError, match="hidden_tf"):
        LinkLearn(hidden_tf=0).fit(X, links)
    with pytest.raises(ValueError, match="one vocabulary"):
        LinkLearn().fit(X, links, validation=(X[:, :-1], links))


def test_scikit_learn_contract(corpus):
    """LinkLearn is a term weighting scored by inner products, not a distance metric, so it is
    not in tests/registry.py (whose suite checks distances); the estimator contract is checked
    here instead. sklearn's check_estimator does not apply: fit needs a link graph, not y."""
    from sklearn.base import clone

    X, links, _ = corpus
    params = dict(hidden_tf=2, hidden_idf=3, hidden_length=4, learning_rate=0.02, batch_size=2, max_iter=300,
                  validation_interval=100, n_iter_no_change=2, tol=0.0, baseline_holdout=0.3, random_state=3,
                  verbose=False)
    est = LinkLearn(**params)
    assert est.get_params() == params
    assert not [k for k in vars(est) if k.endswith("_")]
    copy = clone(est)
    assert copy.get_params() == params
    for method, args in (("transform", (X,)), ("index", (X,)), ("weight_functions", (np.ones(2),))):
        with pytest.raises(NotFittedError):
            getattr(est, method)(*args)
    before = {k: v for k, v in vars(est).items()}
    assert est.fit(X, links) is est
    added = set(vars(est)) - set(before)
    assert added and all(k.endswith("_") for k in added), added
    assert est.get_params() == params          # fit leaves the parameters alone
    # the same seed gives the same weighting
    again = clone(est).fit(X, links)
    np.testing.assert_array_equal(again.coef_, est.coef_)
    np.testing.assert_array_equal(again.transform(X).toarray(), est.transform(X).toarray())
