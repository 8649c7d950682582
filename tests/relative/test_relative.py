"""The Schultz-Joachims relative-comparison metric (paper 004): the exact solvers against a
general QP solver, the KKT conditions, the metric's properties, errors and persistence."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError

import learnsim.relative._relative as relative
from learnsim.persistence import load, save
from learnsim.relative import RelativeComparisonMetric
from learnsim.supervision import sample_label_triplets


def _problem(seed, n=40, d=25, m=200, sparse=True):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.3, random_state=seed, format="csr")
    X.data[:] = rng.uniform(0.5, 2.0, X.nnz)
    T = np.array([rng.choice(n, 3, replace=False) for _ in range(m)])
    return (X if sparse else X.toarray()), T


def _deltas(Z, T):
    Z = Z.toarray() if sp.issparse(Z) else np.asarray(Z)
    return (Z[T[:, 0]] - Z[T[:, 2]]) ** 2 - (Z[T[:, 0]] - Z[T[:, 1]]) ** 2


def _osqp(D, L, C):
    """Problem (8) written out for OSQP: variables (w, xi)."""
    osqp = pytest.importorskip("osqp")
    m, b = D.shape
    P = sp.block_diag([sp.csc_matrix(L), sp.csc_matrix((m, m))]).tocsc()
    q = np.concatenate([np.zeros(b), C * np.ones(m)])
    A = sp.vstack([sp.hstack([sp.csc_matrix(D), sp.eye(m)]), sp.hstack([sp.eye(b), sp.csc_matrix((b, m))]),
                   sp.hstack([sp.csc_matrix((m, b)), sp.eye(m)])]).tocsc()
    lower = np.concatenate([np.ones(m), np.zeros(b + m)])
    solver = osqp.OSQP()
    solver.setup(P, q, A, lower, np.full(m + b + m, np.inf), eps_abs=1e-10, eps_rel=1e-10, max_iter=200_000,
                 polish=True, verbose=False)
    w = np.maximum(solver.solve().x[:b], 0.0)
    return 0.5 * w @ L @ w + C * np.maximum(0.0, 1.0 - D @ w).sum(), w


def _check_kkt(D, L, C, w, alpha, tol):
    """Stationarity with w >= 0 (complementary slackness), the box, and alpha's sign rules."""
    assert (w >= 0).all() and (alpha >= -1e-12).all() and (alpha <= C + 1e-12).all()
    grad = L @ w - D.T @ alpha                     # = mu >= 0, and mu_f w_f = 0
    scale = max(1.0, np.abs(D.T @ alpha).max())
    assert grad.min() >= -tol * scale
    assert np.abs(grad * w).max() <= tol * scale * max(1.0, w.max())
    margins = D @ w
    assert np.all(alpha[margins > 1 + 1e-6] <= tol * C)          # satisfied with room: alpha = 0
    assert np.all(alpha[margins < 1 - 1e-6] >= C * (1 - tol))    # violated: alpha = C


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
@pytest.mark.parametrize("sparse", [True, False])
def test_identity_solver_matches_osqp_and_kkt(C, sparse):
    X, T = _problem(int(C * 10) + sparse, sparse=sparse)
    # baseline_holdout=None: the solver on all the triplets, without the held-out check
    model = RelativeComparisonMetric(C=C, tol=1e-10, random_state=0, baseline_holdout=None).fit(X, T)
    D = _deltas(X, T)
    reference, w_ref = _osqp(D, np.eye(D.shape[1]), C)
    assert model.objective_ == pytest.approx(reference, rel=1e-6)
    assert model.duality_gap_ <= 1e-9
    np.testing.assert_allclose(model.weights_, w_ref, atol=1e-5 * max(1.0, w_ref.max()))
    _check_kkt(D, np.eye(D.shape[1]), C, model.weights_, model.dual_coef_, 1e-5)
    # some constraints are violated at the optimum: the slacks are active
    assert model.n_bounded_ > 0


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_kernel_solver_matches_osqp_and_kkt(C):
    X, T = _problem(3, sparse=False)
    model = RelativeComparisonMetric(C=C, kernel="rbf", n_basis=15, tol=1e-10, random_state=0,
                                     baseline_holdout=None).fit(X, T)
    Z = model._features(X)
    K_bb = model._kernel_matrix(model.basis_, model.basis_)
    L = K_bb * K_bb + model.ridge_ * np.eye(15)          # eq. (3)-(4): L = (A^T A) * (A^T A)
    D = _deltas(Z, T)
    reference, _ = _osqp(D, L, C)
    assert model.objective_ == pytest.approx(reference, rel=1e-6)
    _check_kkt(D, L, C, model.weights_, model.dual_coef_, 1e-4)


def _topic_data(seed=0, n_per=30, informative=4, noise=60):
    """Clusters told apart by a few features, buried in many noisy ones."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(3), n_per)
    X = (rng.random((y.size, informative * 3 + noise)) < 0.15).astype(float)
    for c in range(3):
        X[y == c, c * informative:(c + 1) * informative] = rng.random(((y == c).sum(), informative)) < 0.9
    return sp.csr_matrix(X), y


def test_learns_the_informative_features():
    X, y = _topic_data()
    Xt, yt = _topic_data(seed=1)
    train = sample_label_triplets(y, 3000, random_state=0)
    test = sample_label_triplets(yt, 3000, random_state=1)
    model = RelativeComparisonMetric(random_state=0).fit(X, train)
    from learnsim.evaluation import evaluate_triplets
    euclid = evaluate_triplets(test.indices, Xt)["accuracy"]
    learned = model.score(Xt, test)
    assert learned > euclid + 0.1 and learned > 0.9, (learned, euclid)
    # the informative features carry most of the weight
    assert model.weights_[:12].mean() > 5 * model.weights_[12:].mean()


def test_weights_non_negative_and_distance_is_a_metric():
    X, y = _topic_data()
    model = RelativeComparisonMetric(random_state=0).fit(X, sample_label_triplets(y, 2000, random_state=0))
    assert (model.weights_ >= 0).all() and (model.weights_ > 0).any()
    Dm = model.pairwise_distances(X)
    np.testing.assert_allclose(Dm, Dm.T, atol=1e-12)
    np.testing.assert_array_equal(np.diag(Dm), 0.0)
    slack = Dm[:, :, None] + Dm[None, :, :] - Dm[:, None, :]
    assert slack.min() >= -1e-9
    np.testing.assert_allclose(model.get_mahalanobis_matrix(), np.diag(model.weights_))


def test_pure_python_path_gives_the_numba_result(monkeypatch):
    X, T = _problem(7, n=20, d=10, m=60)
    fast = RelativeComparisonMetric(tol=1e-9, random_state=0, baseline_holdout=None).fit(X, T)
    for name in ("_delta", "_line_search", "_epoch", "_full_pass"):
        monkeypatch.setattr(relative, name, getattr(relative, name).py_func)
    slow = RelativeComparisonMetric(tol=1e-9, random_state=0, baseline_holdout=None).fit(X, T)
    np.testing.assert_allclose(slow.weights_, fast.weights_, rtol=1e-9, atol=1e-12)
    assert slow.objective_ == pytest.approx(fast.objective_, rel=1e-12)


@pytest.mark.parametrize("kernel", [None, "rbf"])
def test_save_and_load_round_trip(kernel, tmp_path):
    X, T = _problem(2, sparse=kernel is None)
    model = RelativeComparisonMetric(kernel=kernel, n_basis=10, random_state=0).fit(X, T)
    save(model, tmp_path / "m.npz")
    again = load(tmp_path / "m.npz")
    np.testing.assert_array_equal(again.weights_, model.weights_)
    np.testing.assert_allclose(again.pairwise_distances(X), model.pairwise_distances(X), rtol=1e-12)
    assert again.get_params() == model.get_params()


@pytest.mark.parametrize("triplets, error, match", [
    ([[0, 1, 99]], ValueError, "out of range|range"),
    ([[0, 1, 1]], ValueError, "repeated index"),
    (np.zeros((0, 3), dtype=int), ValueError, "empty|at least one"),
])
def test_bad_triplets(triplets, error, match):
    X, _ = _problem(0)
    with pytest.raises(error, match=match):
        RelativeComparisonMetric().fit(X, triplets)


@pytest.mark.parametrize("params, match", [
    ({"C": 0}, "C must be a positive"), ({"C": -1.0}, "C must be a positive"), ({"C": "1"}, "C must be"),
    ({"kernel": "poly"}, "kernel must be"), ({"n_basis": 0}, "n_basis"), ({"tol": 0}, "tol"),
    ({"max_iter": 0}, "max_iter"), ({"gamma": -1.0}, "gamma"),
])
def test_bad_parameters(params, match):
    X, T = _problem(0)
    with pytest.raises((ValueError, TypeError), match=match):
        RelativeComparisonMetric(**params).fit(X, T)


def test_bad_matrices_and_unfitted_use():
    X, T = _problem(0)
    with pytest.raises(ValueError, match="empty|0 feature|no feature"):
        RelativeComparisonMetric().fit(np.zeros((5, 0)), [[0, 1, 2]])
    bad = X.toarray()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN|finite"):
        RelativeComparisonMetric().fit(bad, T)
    with pytest.raises(NotFittedError):
        RelativeComparisonMetric().transform(X)
    model = RelativeComparisonMetric().fit(X, T)
    with pytest.raises(ValueError, match="features"):
        model.transform(X[:, :5])


def test_select_C_prefers_regularisation_on_unseen_items():
    # many triplets over few training items, each item with its own noise features: a large C
    # fits the noise (validation accuracy falls from about 0.82 at C = 0.01 to 0.75 at C = 10)
    rng = np.random.default_rng(3)
    n, y = 160, np.repeat(np.arange(4), 40)
    X = (rng.random((n, 16 + 400)) < 0.03).astype(float)
    for c in range(4):
        X[y == c, c * 4:(c + 1) * 4] = rng.random(((y == c).sum(), 4)) < 0.5
    X = sp.csr_matrix(X)
    fit_items, valid_items = np.arange(0, n, 2), np.arange(1, n, 2)
    fit = fit_items[sample_label_triplets(y[fit_items], 5000, random_state=0).indices]
    valid = valid_items[sample_label_triplets(y[valid_items], 3000, random_state=1).indices]
    Cs = (1e-3, 1e-2, 1.0, 10.0)
    best, scores = relative.select_C(X, fit, valid, Cs=Cs, tol=1e-4, random_state=0)
    assert sorted(scores) == sorted(Cs)
    assert scores[best] == max(scores.values())
    assert best <= 1e-2 and scores[best] > scores[10.0] + 0.05, scores


def test_select_C_bad_input():
    X, T = _problem(0)[:2]
    with pytest.raises(ValueError, match="Cs is empty"):
        relative.select_C(X, T, T, Cs=[])
    with pytest.raises(ValueError, match="C must be a positive"):
        relative.select_C(X, T, T, Cs=[1.0, -1.0])
    with pytest.raises(TypeError, match="chooses C itself"):
        relative.select_C(X, T, T, Cs=[1.0], C=2.0)


def test_a_prior_of_one_keeps_the_weight_of_what_no_triplet_mentions():
    """prior="one" shrinks towards W = 1: a feature no triplet touches keeps 1 (under the paper's
    prior it gets 0), small C stays near W = 1, and the solver closes its duality gap."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 10)
    X = np.hstack([np.eye(3)[y] + 0.3 * rng.normal(size=(30, 3)), np.zeros((30, 2))])
    X[:, 4] = rng.normal(size=30)
    X[:, 3] = 0.0                      # a feature no item has: no triplet mentions it
    T = sample_label_triplets(y, 150, random_state=0)
    zero = RelativeComparisonMetric(baseline_holdout=None, random_state=0).fit(X, T)
    one = RelativeComparisonMetric(baseline_holdout=None, random_state=0, prior="one").fit(X, T)
    assert zero.weights_[3] == 0.0 and one.weights_[3] == 1.0
    assert one.duality_gap_ <= 1e-6 and one.objective_ >= one.dual_objective_ - 1e-9
    assert one.weights_[4] < one.weights_[:3].min()          # the noise feature still weighs least
    tiny = RelativeComparisonMetric(C=1e-6, baseline_holdout=None, random_state=0, prior="one").fit(sp.csr_matrix(X), T)
    assert np.allclose(tiny.weights_, 1.0, atol=1e-3)
    assert one.score(X, T) >= 0.8
    with pytest.raises(ValueError, match="kernel=None only"):
        RelativeComparisonMetric(kernel="rbf", prior="one", baseline_holdout=None).fit(X, T)
    with pytest.raises(ValueError):
        RelativeComparisonMetric(prior="two", baseline_holdout=None).fit(X, T)


def _weighted_cosine(w, A, B):
    """cos_w between the rows of A and B, by hand (0 where a weighted norm is 0)."""
    A, B = np.asarray(A, dtype=float), np.asarray(B, dtype=float)
    inner = (A * w) @ B.T
    na, nb = np.sqrt((A * A) @ w), np.sqrt((B * B) @ w)
    den = na[:, None] * nb[None, :]
    return np.divide(inner, den, out=np.zeros_like(inner), where=den > 0)


@pytest.mark.parametrize("sparse", [True, False])
def test_normalize_scores_by_the_weighted_cosine(sparse):
    """normalize=True: unit rows sqrt(w) x / |sqrt(w) x|, so d = sqrt(2 - 2 cos_w) and ranking by
    the distance is ranking by cos_w (a zero row stays zero); the weights are those of the plain
    fit (the map changes, not problem 8)."""
    X, y = _topic_data()
    X = X if sparse else X.toarray()
    T = sample_label_triplets(y, 1500, random_state=0)
    plain = RelativeComparisonMetric(baseline_holdout=None, random_state=0, prior="one").fit(X, T)
    model = RelativeComparisonMetric(baseline_holdout=None, random_state=0, prior="one", normalize=True).fit(X, T)
    np.testing.assert_array_equal(model.weights_, plain.weights_)
    w = model.weights_
    E = model.transform(X)
    assert sp.issparse(E) == sparse
    norms = np.sqrt(np.asarray(E.multiply(E).sum(axis=1)).ravel() if sparse else (E * E).sum(axis=1))
    Xd = X.toarray() if sparse else X
    nonzero = (Xd * Xd) @ w > 0
    np.testing.assert_allclose(norms[nonzero], 1.0, atol=1e-12)
    np.testing.assert_array_equal(norms[~nonzero], 0.0)
    cos = _weighted_cosine(w, Xd, Xd)
    D = model.pairwise_distances(X)
    both = nonzero[:, None] & nonzero[None, :]
    np.testing.assert_allclose(D[both], np.sqrt(np.maximum(2.0 - 2.0 * cos[both], 0.0)), atol=1e-7)
    # pair distances and the metric function agree with the matrix
    pairs = np.array([[0, 5], [3, 40], [7, 7]])
    np.testing.assert_allclose(model.pair_distance(pairs, X), D[pairs[:, 0], pairs[:, 1]], atol=1e-12)
    # the ranking of every row's neighbours is the weighted-cosine ranking computed by hand
    rows = np.flatnonzero(nonzero)[:10]
    for i in rows:
        by_distance = np.lexsort((np.arange(len(D)), D[i, nonzero]))
        by_cosine = np.lexsort((np.arange(len(D)), -cos[i, nonzero]))
        # equal up to ties of the rounding: compare the values along either order
        np.testing.assert_allclose(cos[i, nonzero][by_distance], cos[i, nonzero][by_cosine], atol=1e-9)
    # a new query (a few features) ranks the collection by cos_w as well
    q = np.zeros((1, X.shape[1]))
    q[0, [0, 1, 20]] = [1.0, 0.5, 2.0]
    d = model.pairwise_distances(q, X)[0]
    c = _weighted_cosine(w, q, Xd)[0]
    np.testing.assert_allclose(d[nonzero], np.sqrt(np.maximum(2 - 2 * c[nonzero], 0)), atol=1e-7)
    assert np.argmin(np.where(nonzero, d, np.inf)) == np.argmax(np.where(nonzero, c, -np.inf))
    # the score (triplet accuracy) is on the normalised map
    from learnsim.evaluation import evaluate_triplets
    assert model.score(X, T) == evaluate_triplets(T.indices, E)["accuracy"]


def test_normalize_zero_rows_and_params():
    X = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0], [0.0, 0.0, 0.0]])
    model = RelativeComparisonMetric(baseline_holdout=None, normalize=True)
    model.weights_, model.n_features_in_ = np.array([1.0, 0.0, 4.0]), 3
    E = model.transform(X)
    np.testing.assert_allclose(E[0], np.array([1.0, 0.0, 4.0]) / np.sqrt(17.0))
    np.testing.assert_array_equal(E[1:], 0.0)       # weighted norm 0, and an empty row, stay 0
    np.testing.assert_allclose(model._row_scales(X), [1 / np.sqrt(17.0), 0.0, 0.0])
    assert RelativeComparisonMetric().normalize is False
    with pytest.raises((ValueError, TypeError), match="normalize"):
        RelativeComparisonMetric(normalize="yes")._check_params()


def test_normalize_checks_against_the_plain_cosine_and_refuses_kernels():
    X, y = _topic_data()
    T = sample_label_triplets(y, 1500, random_state=0)
    model = RelativeComparisonMetric(random_state=0, prior="one", normalize=True).fit(X, T)
    report = model.baseline_gain_
    assert report is not None and report.baseline == relative.BASELINE_NAME_NORMALIZED
    assert RelativeComparisonMetric(random_state=0).fit(X, T).baseline_gain_.baseline == relative.BASELINE_NAME
    with pytest.raises(ValueError, match="kernel=None only"):
        RelativeComparisonMetric(kernel="rbf", normalize=True, baseline_holdout=None).fit(X.toarray(), T)
    with pytest.raises(ValueError, match="kernel=None only"):
        RelativeComparisonMetric(kernel="linear", normalize=True).fit(X.toarray(), T)


def test_normalize_survives_save_and_load_and_old_files_load_as_false(tmp_path):
    X, y = _topic_data()
    T = sample_label_triplets(y, 800, random_state=0)
    model = RelativeComparisonMetric(random_state=0, normalize=True).fit(X, T)
    save(model, tmp_path / "m.npz")
    again = load(tmp_path / "m.npz")
    assert again.normalize is True and again.get_params() == model.get_params()
    np.testing.assert_allclose(again.pairwise_distances(X), model.pairwise_distances(X), atol=1e-12)
    # a file written before the option: no "normalize" among its params
    meta, arrays = model._get_state()
    del meta["params"]["normalize"]
    old = RelativeComparisonMetric._from_state(meta, arrays)
    assert old.normalize is False
    plain = RelativeComparisonMetric(random_state=0).fit(X, T)
    np.testing.assert_allclose(old.transform(X).toarray(), (X @ sp.diags(np.sqrt(old.weights_))).toarray())
    assert plain.normalize is False
