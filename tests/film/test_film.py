"""FILM (Tang & Aw, paper 001): the equations of sec. 3 against their literal dense forms, learning
on a problem with a known answer, and the errors and persistence of the estimator."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import expit

from learnsim.evaluation import evaluate_triplets
from learnsim.film._film import FILM, _FilmObjective, _random_stiefel, _softplus
from learnsim.persistence import load, save
from learnsim.supervision import Pairs, Triplets, clusters_to_triplets

N_TRAIN, N_TEST = 300, 150


def _clusters_in_a_subspace(seed=1, n=N_TRAIN + N_TEST, n_features=40, n_signal=3, n_clusters=6, noise=1.0):
    """Cluster centres in a random 3-D subspace, isotropic noise in all 40 dimensions, plus a
    common offset (rows are not centred, as tf.idf rows are not)."""
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.normal(size=(n_features, n_signal)))[0]
    centres = rng.normal(scale=2.0, size=(n_clusters, n_signal))
    labels = np.arange(n) % n_clusters
    X = centres[labels] @ basis.T + noise * rng.normal(size=(n, n_features))
    X += 2.0 * rng.normal(size=n_features) / np.sqrt(n_features)
    return X, labels


@pytest.fixture(scope="module")
def problem():
    X, labels = _clusters_in_a_subspace()
    train, test = np.arange(N_TRAIN), np.arange(N_TRAIN, N_TRAIN + N_TEST)
    T_train = clusters_to_triplets(labels[train], 5 * N_TRAIN, random_state=0)
    T_test = clusters_to_triplets(labels[test], 3000, random_state=1)
    return X[train], X[test], labels[train], T_train, T_test


@pytest.fixture(scope="module")
def fitted(problem):
    X_train, _, _, T_train, _ = problem
    return FILM(n_components=3, random_state=0).fit(X_train, T_train)


def _unit(X):
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def _small_problem(seed=0, n=30, r=8, n_triplets=80):
    rng = np.random.default_rng(seed)
    V = np.linalg.qr(rng.normal(size=(n, r)))[0]
    T = np.array([rng.choice(n, 3, replace=False) for _ in range(n_triplets)])
    return rng, V, T


# ------------------------------------------------------------------ the equations of sec. 3
@pytest.mark.parametrize("temperature", [0.0, 0.05])
def test_z_lambda_and_K_match_the_dense_formulas_of_the_paper(temperature):
    rng, V, T = _small_problem()
    n, r = V.shape
    objective = _FilmObjective(V, T, margin=0.02, temperature=temperature)
    P = _random_stiefel(rng, r, 3)
    s = objective.scales(P)
    assert objective.refresh(P) is True           # Lambda moved away from the all-active start

    # eq. (8)-(10) with the n x n matrices written out: C has +1 at (j, i), -1 at (k, i)
    C = np.zeros((n, n))
    for i, j, k in T:
        C[j, i] += 1.0
        C[k, i] -= 1.0
    counts = np.bincount(T[:, 0], minlength=n)
    T_diag = np.diag(1.0 / (counts + 1.0))
    Y = (V @ P * np.sqrt(s)).T                    # d x n, Y = B V^T with B^T B = P S P^T
    z = np.diag(-Y.T @ Y @ C @ T_diag)
    # ... which is the averaged triplet gap y_i^T y_k - y_i^T y_j of eq. (7)
    gap = np.zeros(n)
    for i, j, k in T:
        gap[i] += Y[:, i] @ Y[:, k] - Y[:, i] @ Y[:, j]
    np.testing.assert_allclose(z, gap / (counts + 1.0), atol=1e-15)
    anchors = objective.block.anchors
    np.testing.assert_array_equal(anchors, np.flatnonzero(counts))
    np.testing.assert_allclose(objective.z_values(P, s), z[anchors], atol=1e-15)

    lam = np.zeros(n)
    if temperature == 0.0:
        lam[anchors] = (z[anchors] + 0.02 > 0)    # lambda(z_i + m), step 2
        assert set(np.unique(objective.lam)) <= {0.0, 1.0}
    else:
        lam[anchors] = expit((z[anchors] + 0.02) / temperature)
    np.testing.assert_allclose(objective.lam, lam[anchors], atol=1e-15)
    K = -V.T @ C @ T_diag @ np.diag(lam) @ V      # step 4
    np.testing.assert_allclose(objective.K, K, atol=1e-14)

    # eq. (19) at fixed Lambda: f2 = -1/2 sum_l k_l mu(k_l) + m tr(Lambda), k_l = -p_l^T K p_l
    k = -np.einsum("rl,rs,sl->l", P, K, P)
    f, _ = objective(P)
    np.testing.assert_allclose(f, -0.5 * np.sum(k * _softplus(k)) + 0.02 * lam.sum(), rtol=1e-12)


def test_gradient_of_eq_28_matches_finite_differences_of_f2():
    rng, V, T = _small_problem(seed=3)
    objective = _FilmObjective(V, T, margin=0.01, temperature=0.01)
    P = _random_stiefel(rng, V.shape[1], 4)
    objective.refresh(P)
    X = rng.normal(size=P.shape)                  # any point: the formula holds off the manifold too
    f, G = objective(X)
    h = 1e-6
    for _ in range(5):
        E = rng.normal(size=X.shape)
        numeric = (objective(X + h * E)[0] - objective(X - h * E)[0]) / (2 * h)
        np.testing.assert_allclose(np.vdot(G, E), numeric, rtol=1e-6, atol=1e-9)
    assert np.linalg.norm(G) > 0


def test_components_are_sqrt_S_P_T_inverse_sigma_U_T(problem, fitted):
    """Algorithm 1's output: y_i = L x_i reproduces the training embedding sqrt(S) P^T V_i^T."""
    X_train = problem[0]
    L = fitted.components_
    assert L.shape == (3, X_train.shape[1])
    Y = fitted.transform(_unit(X_train))
    # the embedding's Gram matrix is V P S P^T V^T, so its eigenvalues are exactly S
    eig = np.sort(np.linalg.eigvalsh(Y.T @ Y))
    np.testing.assert_allclose(eig, np.sort(fitted.scales_), rtol=1e-8)
    assert np.all(fitted.scales_ > 0)
    assert fitted.singular_values_.shape == (fitted.svd_rank_,)
    assert fitted.svd_rank_ == 15                 # default: 5 x n_components


# ------------------------------------------------------------------ learning
def test_film_beats_the_input_space_and_random_projections_on_held_out_triplets(problem, fitted):
    _, X_test, _, _, T_test = problem
    film = evaluate_triplets(T_test.indices, fitted.transform(X_test))["accuracy"]
    inputs = evaluate_triplets(T_test.indices, _unit(X_test))["accuracy"]
    rng = np.random.default_rng(0)
    random_proj = np.mean([evaluate_triplets(T_test.indices, _unit(X_test) @ rng.normal(size=(X_test.shape[1], 3)))
                           ["accuracy"] for _ in range(10)])
    # measured: FILM 0.87, input space 0.75, random 3-D projections 0.59 on average
    assert film > inputs + 0.08, (film, inputs)
    assert film > random_proj + 0.2, (film, random_proj)


def test_training_loss_decreases_and_the_iteration_converges(fitted):
    loss, hinge = fitted.loss_curve_, fitted.hinge_loss_curve_
    assert loss.shape == hinge.shape == (fitted.n_iter_ + 1,)
    assert np.all(np.isfinite(loss)) and np.all(hinge >= 0)
    # measured: f2 1.51 -> 0.87 and the hinge loss of eq. (7) 1.96 -> 0.88
    assert loss[-1] < 0.7 * loss[0]
    assert np.ptp(loss[-10:]) < 1e-4 * loss[-1]   # settled: no longer jumping with Lambda
    assert hinge[-1] < 0.6 * hinge[0]
    assert fitted.converged_ and 0 < fitted.n_iter_ < 200


def test_the_hinge_plateau_rule_stops_before_the_gradient_test_at_the_same_quality(problem, fitted):
    X_train, X_test, _, T_train, T_test = problem
    # The gradient test's iteration count is set by rounding, not by the problem: Lambda is
    # re-estimated at every step, so the gradient creeps below tol=1e-5 while the loss is flat
    # to 1e-7, and 1e-14 relative changes of X move it from 110 to 341 iterations here (another
    # BLAS took more than 200). Give it room, and run it on a perturbed X so this test does not
    # hang on the one rounding path of one machine.
    X_other = X_train * (1.0 + 1e-14 * np.random.default_rng(3).standard_normal(X_train.shape))
    full = FILM(n_components=3, random_state=0, n_iter_no_change=None, max_iter=2000).fit(X_other, T_train)
    assert full.converged_ and fitted.n_iter_ < full.n_iter_
    # the last n_iter_no_change hinge values did not fall below (1 - loss_tol) of the best before them
    h = fitted.hinge_loss_curve_
    assert h[-11:-1].min() >= (1 - fitted.loss_tol) * h[:-11].min()
    accuracy = [evaluate_triplets(T_test.indices, m.transform(X_test))["accuracy"] for m in (fitted, full)]
    assert abs(accuracy[0] - accuracy[1]) < 0.01, accuracy


def test_the_gradient_test_fires_late_while_the_loss_is_flat(problem):
    """Why the plateau rule exists: under 1e-14 relative changes of X (what another BLAS does)
    the gradient test still fires, but only after the hinge loss has long been flat."""
    X_train, _, _, T_train, _ = problem
    rng = np.random.default_rng(0)
    runs = []
    for _ in range(4):
        Xp = X_train * (1.0 + 1e-14 * rng.standard_normal(X_train.shape))
        runs.append(FILM(n_components=3, random_state=0, n_iter_no_change=None, max_iter=2000).fit(Xp, T_train))
    assert all(m.converged_ for m in runs)
    for m in runs:
        h = m.hinge_loss_curve_
        # flat to 1e-3 relative over the last 50 steps before the gradient test fired
        assert m.n_iter_ > 60 and np.ptp(h[-50:]) <= 1e-3 * h[-1], (m.n_iter_, np.ptp(h[-50:]))


@pytest.mark.parametrize("params,match", [({"n_iter_no_change": 0}, "n_iter_no_change"),
                                          ({"n_iter_no_change": 2.5}, "n_iter_no_change"),
                                          ({"loss_tol": 1.0}, "loss_tol"), ({"loss_tol": -0.1}, "loss_tol")])
def test_stopping_parameters_are_checked(problem, params, match):
    X_train, _, _, T_train, _ = problem
    with pytest.raises(ValueError, match=match):
        FILM(n_components=3, **params).fit(X_train, T_train)


def test_smoothed_active_set_reaches_the_same_metric_from_any_start(problem, fitted):
    X_train, X_test, _, T_train, _ = problem
    other = FILM(n_components=3, random_state=5).fit(X_train, T_train)
    assert not np.allclose(other.components_, fitted.components_)     # another start, other P
    D, D_other = fitted.pairwise_distances(X_test[:40]), other.pairwise_distances(X_test[:40])
    # measured: 0.3% of the largest distance apart (both stop at tol=1e-5)
    assert np.abs(D_other - D).max() < 0.02 * D.max()


def test_paper_step_active_set_and_mini_batches_also_learn(problem):
    X_train, X_test, _, T_train, T_test = problem
    inputs = evaluate_triplets(T_test.indices, _unit(X_test))["accuracy"]
    for params in ({"hinge_smoothing": 0.0}, {"batch_size": 300}):
        est = FILM(n_components=3, random_state=0, **params).fit(X_train, T_train)
        acc = evaluate_triplets(T_test.indices, est.transform(X_test))["accuracy"]
        assert acc > inputs + 0.05, (params, acc, inputs)


def test_mini_batches_are_whole_anchors_and_cover_every_anchor_once_per_epoch():
    rng, V, T = _small_problem(n=40, n_triplets=200)
    objective = _FilmObjective(V, T, margin=0.01, batch_size=30, rng=np.random.default_rng(0))
    n_anchors = objective.n_anchors
    # the constructor drew the first batch; the rest of its epoch follows
    seen = list(objective.block.anchors)
    while len(seen) < n_anchors:
        block = objective._next_block()
        triplets_in_block = objective.counts[np.searchsorted(objective.anchors, block.anchors)].sum()
        assert triplets_in_block >= 30 or len(seen) + block.anchors.size == n_anchors
        assert block.scale == pytest.approx(n_anchors / block.anchors.size)
        seen.extend(block.anchors)
    assert sorted(seen) == sorted(objective.anchors)
    # every triplet of a batch's anchors is in it: D_i sums all of T_i
    i = objective.block.anchors[0]
    mine = T[T[:, 0] == i]
    np.testing.assert_allclose(objective.block.D[0], (V[mine[:, 1]] - V[mine[:, 2]]).sum(axis=0), atol=1e-14)


def test_class_labels_are_turned_into_triplets(problem):
    X_train, X_test, labels, _, T_test = problem
    est = FILM(n_components=3, random_state=0).fit(X_train, labels)
    assert est.n_triplets_ == 5 * X_train.shape[0]
    acc = evaluate_triplets(T_test.indices, est.transform(X_test))["accuracy"]
    assert acc > evaluate_triplets(T_test.indices, _unit(X_test))["accuracy"] + 0.05


# ------------------------------------------------------------------ input handling
def test_sparse_and_dense_input_learn_the_same_map(problem):
    X_train, _, _, T_train, _ = problem
    X_train = X_train[:120]
    T = T_train.indices[np.all(T_train.indices < 120, axis=1)]
    dense = FILM(n_components=3, random_state=0).fit(X_train, T)
    sparse = FILM(n_components=3, random_state=0).fit(sp.csr_matrix(X_train), T)
    np.testing.assert_array_equal(sparse.components_, dense.components_)
    np.testing.assert_allclose(sparse.transform(sp.csr_matrix(X_train)), dense.transform(X_train), atol=1e-12)


def test_rows_are_l2_normalised_so_their_length_does_not_matter(problem, fitted):
    X_train, _, _, T_train, _ = problem
    scaled = X_train * np.where(np.arange(X_train.shape[0]) % 2 == 0, 4.0, 0.25)[:, None]  # exact in binary
    again = FILM(n_components=3, random_state=0).fit(scaled, T_train)
    np.testing.assert_array_equal(again.components_, fitted.components_)


def test_fit_is_deterministic(problem, fitted):
    X_train, _, _, T_train, _ = problem
    again = FILM(n_components=3, random_state=0).fit(X_train, Triplets(T_train))
    np.testing.assert_array_equal(again.components_, fitted.components_)
    np.testing.assert_array_equal(again.loss_curve_, fitted.loss_curve_)


def test_transform_similarity_and_pair_similarity(problem, fitted):
    _, X_test, _, _, _ = problem
    E = fitted.transform(X_test)
    assert E.shape == (X_test.shape[0], 3)
    np.testing.assert_allclose(E, X_test @ fitted.components_.T, rtol=1e-12)
    assert isinstance(fitted.transform(sp.csr_matrix(X_test)), np.ndarray)
    S = fitted.similarity(X_test[:10], X_test)
    U = E / np.linalg.norm(E, axis=1, keepdims=True)
    np.testing.assert_allclose(S, U[:10] @ U.T, atol=1e-12)
    np.testing.assert_allclose(np.diag(fitted.similarity(X_test[:10])), 1.0)
    # cosine: the length of the input rows does not matter
    np.testing.assert_allclose(fitted.similarity(3.0 * X_test[:10], X_test), S, atol=1e-12)
    idx = np.array([[0, 1], [2, 7], [4, 4]])
    np.testing.assert_allclose(fitted.pair_similarity(idx, X=X_test), S[idx[:, 0], idx[:, 1]], atol=1e-12)
    points = np.stack([X_test[idx[:, 0]], X_test[idx[:, 1]]], axis=1)
    np.testing.assert_allclose(fitted.pair_similarity(points), S[idx[:, 0], idx[:, 1]], atol=1e-12)


def test_zero_row_outside_the_triplets_is_allowed(problem):
    X_train, _, _, T_train, _ = problem
    X = np.vstack([X_train, np.zeros(X_train.shape[1])])      # a new row no triplet uses
    est = FILM(n_components=3, random_state=0, max_iter=5).fit(X, T_train)
    np.testing.assert_array_equal(est.transform(np.zeros((1, X.shape[1]))), 0.0)


def test_zero_labelled_row_is_left_out_with_a_warning(problem):
    X_train, _, labels, _, _ = problem
    X = X_train.copy()
    X[7] = 0.0
    with pytest.warns(UserWarning, match=r"1 labelled row\(s\) of X are all zero \(7\)"):
        est = FILM(n_components=3, random_state=0, max_iter=5).fit(X, labels)
    assert est.n_triplets_ == 5 * X.shape[0]


# ------------------------------------------------------------------ errors
def _data(n=20, n_features=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    T = clusters_to_triplets(np.arange(n) % 3, 40, random_state=0).indices
    return X, T


@pytest.mark.parametrize("make_args, error, pattern", [
    (lambda X, T: (X, None), ValueError, r"requires y to be passed"),
    (lambda X, T: (X, np.zeros((0, 3), dtype=int)), ValueError, r"no triplets"),
    (lambda X, T: (X, np.vstack([T, [[0, 1, X.shape[0]]]])), ValueError, r"\b20\b.*out of range"),
    (lambda X, T: (X, np.vstack([T, [[0, 0, 1]]])), ValueError, r"repeated index"),
    (lambda X, T: (X, T[:, :2]), ValueError, r"shape"),
    (lambda X, T: (X, Pairs(T[:, :2], labels=np.ones(len(T), bool))), TypeError, r"triplets"),
    (lambda X, T: (np.where(np.arange(X.shape[0])[:, None] == 5, np.nan, X), T), ValueError, r"NaN"),
    (lambda X, T: (np.where(np.arange(X.shape[0])[:, None] == T[0, 1], 0.0, X), T), ValueError,
     r"row\(s\) \d+ are all zero.*triplet 0"),
    (lambda X, T: (X[:2], T), ValueError, r"2 sample"),
])
def test_fit_rejects_bad_supervision_and_input(make_args, error, pattern):
    X, T = _data()
    X_bad, y_bad = make_args(X, T)
    with pytest.raises(error, match=pattern):
        FILM(n_components=2).fit(X_bad, y_bad)


def test_n_components_larger_than_the_rank_is_an_error():
    X, T = _data(n_features=6)
    with pytest.raises(ValueError, match=r"n_components=7 is larger than .*min\(20, 6\) = 6"):
        FILM(n_components=7).fit(X, T)
    with pytest.raises(ValueError, match=r"n_components=4 is larger than svd_rank=3"):
        FILM(n_components=4, svd_rank=3).fit(X, T)
    rank_two = np.random.default_rng(0).normal(size=(20, 2)) @ np.random.default_rng(1).normal(size=(2, 6))
    with pytest.raises(ValueError, match=r"numerical rank of X \(2 "):
        FILM(n_components=3).fit(rank_two, T)
    # a requested svd_rank above the shape is capped, not an error
    assert FILM(n_components=2, svd_rank=500, max_iter=3).fit(X, T).svd_rank_ == 6


@pytest.mark.parametrize("params, pattern", [
    ({"n_components": 0}, r"n_components must be a positive integer"),
    ({"svd_rank": 0}, r"svd_rank must be a positive integer or None"),
    ({"margin": -1.0}, r"margin must be 'auto' or a finite number >= 0"),
    ({"margin": "large"}, r"margin must be 'auto'"),
    ({"hinge_smoothing": -0.5}, r"hinge_smoothing must be a finite number >= 0"),
    ({"batch_size": 0}, r"batch_size must be a positive integer or None"),
    ({"max_iter": -1}, r"max_iter must be an integer >= 0"),
    ({"tol": float("nan")}, r"tol must be a finite number"),
    ({"triplets_per_item": 0}, r"triplets_per_item must be a positive integer"),
])
def test_bad_parameters_are_rejected_at_fit(params, pattern):
    X, T = _data()
    est = FILM(**{"n_components": 2, **params})
    with pytest.raises(ValueError, match=pattern):
        est.fit(X, T)


# ------------------------------------------------------------------ persistence
def test_save_load_round_trip(problem, fitted, tmp_path):
    _, X_test, _, _, _ = problem
    loaded = load(save(fitted, tmp_path / "film.npz"))
    assert type(loaded) is FILM and loaded.get_params() == fitted.get_params()
    np.testing.assert_array_equal(loaded.components_, fitted.components_)
    np.testing.assert_array_equal(loaded.transform(X_test), fitted.transform(X_test))
    for name in ("scales_", "singular_values_", "loss_curve_", "hinge_loss_curve_"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(fitted, name))
    for name in ("svd_rank_", "margin_", "temperature_", "n_triplets_", "n_iter_", "converged_", "n_features_in_"):
        assert getattr(loaded, name) == getattr(fitted, name), name


def test_the_map_is_column_major_fitted_and_loaded_and_saved_row_major(fitted, tmp_path):
    """L is kept column-major, so that the sparse product X @ L.T reads L.T in place (scipy
    copies a non-C-contiguous dense operand whole on every call); the saved array is row-major
    as before, and a loaded model is column-major again."""
    assert fitted.components_.T.flags.c_contiguous
    assert fitted._get_state()[1]["components"].flags.c_contiguous
    loaded = load(save(fitted, tmp_path / "film.npz"))
    assert loaded.components_.T.flags.c_contiguous
    X = sp.random(5, fitted.n_features_in_, density=0.3, format="csr", random_state=0)
    np.testing.assert_allclose(loaded.transform(X), X.toarray() @ np.ascontiguousarray(fitted.components_).T,
                               rtol=1e-12, atol=1e-12)


def test_from_state_refuses_inconsistent_arrays(fitted):
    meta, arrays = fitted._get_state()
    bad = dict(arrays, components=arrays["components"][:, :-1])
    with pytest.raises(ValueError, match=r"array 'components' has shape \(\d+, \d+\); expected"):
        FILM._from_state(meta, bad)
    with pytest.raises(ValueError, match=r"array 'scales' contains -1.0; its values must be >= 0"):
        FILM._from_state(meta, dict(arrays, scales=-np.ones_like(arrays["scales"])))
    with pytest.raises(ValueError, match=r"margin is NaN"):
        FILM._from_state(dict(meta, margin=float("nan")), arrays)
    with pytest.raises(ValueError, match=r"lacks the arrays \['scales'\]"):
        FILM._from_state(meta, {k: v for k, v in arrays.items() if k != "scales"})
    with pytest.raises(ValueError, match=r"lacks the metadata entry 'margin'"):
        FILM._from_state({k: v for k, v in meta.items() if k != "margin"}, arrays)


def test_one_cluster_among_single_labels_says_how_many_texts_are_in_none():
    """learnsim.fit leaves a label of one text out of the clusters: 40 labels of which 38 single
    read 'needs two clusters or more; got 1', as if the labels had not been read."""
    import warnings

    import learnsim

    texts = [f"document {i} about topic {i % 4} and w{i}" for i in range(40)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=r"got 1 \(38 item\(s\) in no cluster: label -1, or a label no other"):
            learnsim.fit(texts, clusters=[0, 0] + list(range(1, 39)), method="film")
    # FILM itself: singletons are clusters (negatives), only -1 is in none
    X = np.random.default_rng(0).normal(size=(6, 3))
    with pytest.raises(ValueError, match=r"got 1 \(4 item\(s\) in no cluster"):
        FILM(n_components=1).fit(X, np.array([0, 0, -1, -1, -1, -1]))
