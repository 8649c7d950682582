"""The API every learnsim metric learner shares, checked on every (estimator, dataset) case of
``registry.CASES``: scikit-learn's estimator contract, the consistency of the metric methods
with each other, persistence, search, and clear errors for bad input.

A new method gets this whole suite by adding its cases to ``tests/registry.py``.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import cdist
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

import registry
from learnsim.persistence import ModelFormatError, load, save
from learnsim.search import MetricSearch, top_k

CASES = registry.CASES
IDS = registry.ids()

# Above this many output entries the tests that go through transform() are skipped for a case
# (transform is then not "affordable": the metric methods must work without it).
_MAX_TRANSFORM_ENTRIES = 5_000_000


# ---------------------------------------------------------------------------------- helpers
@pytest.fixture(scope="module", autouse=True)
def _single_threaded_blas():
    # Every matrix here is tiny: threaded BLAS only adds overhead, and when other test processes
    # share the cores it oversubscribes them and makes a 100 x 400 SVD take a second.
    with threadpool_limits(limits=1, user_api="blas"):
        yield


@functools.lru_cache(maxsize=None)
def _cached_data(case_id):
    case = next(c for c in CASES if c.id == case_id)
    return case.make_data()


def data(case):
    """A private copy of the case's (X, supervision), so a test may damage it freely."""
    X, y = _cached_data(case.id)
    return X.copy(), (y.copy() if hasattr(y, "copy") else y)


def dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X)


def eps_of(X):
    return np.finfo(X.dtype).eps


def dist_tol(X, D):
    """Absolute tolerance for distances computed two ways from X. Distances go through
    |a|^2 + |b|^2 - 2 a.b, whose cancellation costs about sqrt(eps) of the scale near zero."""
    return 10 * np.sqrt(eps_of(X)) * max(float(np.max(D)), 1.0)


def transform_or_skip(est, X):
    if X.shape[0] * est.n_features_in_ > _MAX_TRANSFORM_ENTRIES:
        pytest.skip("transform would build a large dense array for this case")
    return est.transform(X)


def pairs_as_points(X, idx):
    """Index pairs -> the (n_pairs, 2, n_features) array of points metric-learn takes."""
    Xd = dense(X)
    return np.stack([Xd[idx[:, 0]], Xd[idx[:, 1]]], axis=1)


# fitted attributes that record how long the fit took: they differ between identical fits
TIMING_ATTRIBUTES = {"fit_time_", "timings_"}


def fitted_attributes(est):
    return {k: v for k, v in vars(est).items()
            if k.endswith("_") and not k.startswith("_") and k not in TIMING_ATTRIBUTES}


def assert_same_value(got, want, where):
    if isinstance(want, np.ndarray) or sp.issparse(want):
        assert type(got) is type(want), f"{where}: {type(got).__name__} != {type(want).__name__}"
        if sp.issparse(want):
            got, want = got.toarray(), want.toarray()
        assert got.shape == want.shape, f"{where}: shape {got.shape} != {want.shape}"
        np.testing.assert_array_equal(got, want, err_msg=where)
    else:
        assert got == want, f"{where}: {got!r} != {want!r}"


def assert_same_params(got, want):
    assert set(got) == set(want)
    for name, value in want.items():
        if isinstance(value, (type, np.dtype)) or isinstance(got[name], (type, np.dtype)):
            # a dtype may come back as its name (JSON); either spelling means the same dtype
            assert np.dtype(got[name]) == np.dtype(value), name
        else:
            assert got[name] == value, f"{name}: {got[name]!r} != {value!r}"


@dataclass
class Fitted:
    case: registry.Case
    X: object
    y: object
    est: object


@pytest.fixture(scope="module", params=CASES, ids=IDS)
def fitted(request):
    """One fitted estimator per case, shared by the read-only tests of this module."""
    case = request.param
    X, y = data(case)
    return Fitted(case, X, y, case.make_estimator().fit(X, y))


@pytest.fixture(params=CASES, ids=IDS)
def case(request):
    return request.param


# ------------------------------------------------------------- scikit-learn's estimator contract
def _distinct_estimators():
    # Cases that share an estimator (same class and params, different data) are checked once.
    seen = {}
    for c in CASES:
        if c.id in registry.TRIPLETS_ONLY:
            continue
        est = c.make_estimator()
        key = (type(est).__qualname__, repr(sorted(est.get_params(deep=False).items())))
        seen.setdefault(key, est)
    return list(seen.values())


# sklearn's check data have 2-3 classes: too few clusters for the "auto" selection, which says so.
@pytest.mark.filterwarnings(r"ignore:only \d+ clusters:UserWarning")
@parametrize_with_checks(_distinct_estimators())
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_init_only_stores_params(case):
    est = case.make_estimator()
    params = est.get_params(deep=False)
    # __init__ sets exactly the parameters, under their own names, and nothing else
    assert set(vars(est)) == set(params)
    for name, value in params.items():
        assert vars(est)[name] is value
    assert not fitted_attributes(est)
    with pytest.raises(NotFittedError):
        check_is_fitted(est)


def test_clone_and_get_set_params_round_trip(case):
    est = case.make_estimator()
    params = est.get_params()
    copy = clone(est)
    assert copy is not est and type(copy) is type(est)
    assert copy.get_params() == params
    assert repr(copy) == repr(est)
    fresh = type(est)()
    assert fresh.set_params(**params) is fresh
    assert fresh.get_params() == params


def test_fit_returns_self_and_sets_only_underscore_attributes(case):
    X, y = data(case)
    est = case.make_estimator()
    params_before = est.get_params()
    before = set(vars(est))
    assert est.fit(X, y) is est
    added = set(vars(est)) - before
    public = {a for a in added if not a.startswith("_")}
    assert public, "fit set no fitted attribute"
    assert all(a.endswith("_") for a in public), sorted(a for a in public if not a.endswith("_"))
    assert est.n_features_in_ == X.shape[1]
    check_is_fitted(est)
    assert est.get_params() == params_before, "fit changed the parameters"


def test_fit_does_not_modify_its_input(case):
    X, y = data(case)
    X_copy, y_copy = X.copy(), np.array(y, copy=True)
    case.make_estimator().fit(X, y)
    np.testing.assert_array_equal(dense(X), dense(X_copy))
    np.testing.assert_array_equal(np.asarray(y), y_copy)


_UNFITTED_CALLS = {
    "transform": lambda est, X: est.transform(X),
    "pairwise_distances": lambda est, X: est.pairwise_distances(X),
    "pairwise_distances_AB": lambda est, X: est.pairwise_distances(X[:3], X[3:6]),
    "pair_distance_points": lambda est, X: est.pair_distance(pairs_as_points(X, np.array([[0, 1]]))),
    "pair_distance_indices": lambda est, X: est.pair_distance(np.array([[0, 1]]), X=X),
    "pair_score": lambda est, X: est.pair_score(np.array([[0, 1]]), X=X),
    "get_metric": lambda est, X: est.get_metric(),
    "get_mahalanobis_matrix": lambda est, X: est.get_mahalanobis_matrix(),
    "components_": lambda est, X: est.components_,
}


@pytest.mark.parametrize("method", list(_UNFITTED_CALLS))
def test_unfitted_use_raises_not_fitted(case, method):
    X, _ = data(case)
    est = case.make_estimator()
    with pytest.raises(NotFittedError, match="not fitted"):
        _UNFITTED_CALLS[method](est, X)


def test_refit_is_deterministic(fitted):
    X, y, est = fitted.X, fitted.y, fitted.est
    D = est.pairwise_distances(X)
    again = fitted.case.make_estimator().fit(X, y)
    np.testing.assert_array_equal(again.pairwise_distances(X), D)
    for name, value in fitted_attributes(est).items():
        assert_same_value(getattr(again, name), value, name)
    # refitting an object leaves no state behind from its first fit
    again.fit(X, y)
    np.testing.assert_array_equal(again.pairwise_distances(X), D)


def test_refit_on_other_data_replaces_the_metric(fitted):
    # Guards the determinism test above against a metric that ignores its data.
    X, y = fitted.X, fitted.y
    rng = np.random.default_rng(1)
    perm = rng.permutation(X.shape[1])
    est = fitted.case.make_estimator().fit(X[:, perm], y)
    D_other = est.pairwise_distances(X)
    D = fitted.est.pairwise_distances(X)
    assert not np.allclose(D_other, D)


# ------------------------------------------------------------------------- metric consistency
def test_pairwise_distances_equal_euclidean_after_transform(fitted):
    X, est = fitted.X, fitted.est
    A, B = X[:20], X[20:60]
    D = est.pairwise_distances(A, B)
    assert D.shape == (A.shape[0], B.shape[0])
    E = cdist(dense(transform_or_skip(est, A)), dense(transform_or_skip(est, B)))
    np.testing.assert_allclose(D, E, rtol=1e-6, atol=dist_tol(X, D))
    np.testing.assert_allclose(est.pairwise_distances(A, B, squared=True), D ** 2,
                               rtol=1e-10, atol=dist_tol(X, D) ** 2)


def test_mahalanobis_matrix_components_and_distances_agree(fitted):
    X, est = fitted.X, fitted.est
    M = est.get_mahalanobis_matrix()
    d = X.shape[1]
    assert M.shape == (d, d)
    np.testing.assert_allclose(M, M.T, atol=1e-12 * np.abs(M).max())
    L = est.components_
    # M = L^T L also proves M positive semi-definite. float32 input is learned to float32
    # accuracy: the identity then holds to about sqrt(eps) only.
    np.testing.assert_allclose(L.T @ L, M, atol=0.1 * np.sqrt(eps_of(X)) * np.abs(M).max())
    Xd = dense(X)
    diff = Xd[:15, None, :] - Xd[None, 15:40, :]
    D_M = np.sqrt(np.maximum(np.einsum("ijk,kl,ijl->ij", diff, M, diff), 0.0))
    D = est.pairwise_distances(X[:15], X[15:40])
    np.testing.assert_allclose(D, D_M, rtol=1e-6, atol=dist_tol(X, D))


def test_pairwise_distances_symmetric_zero_diagonal_non_negative(fitted):
    X, est = fitted.X, fitted.est
    D = est.pairwise_distances(X)
    n = X.shape[0]
    assert D.shape == (n, n)
    assert np.isfinite(D).all()
    assert (D >= 0).all()
    np.testing.assert_array_equal(np.diag(D), 0.0)
    np.testing.assert_allclose(D, D.T, rtol=1e-10, atol=dist_tol(X, D))
    # the metric separates the data: a zero matrix would pass every check above
    assert np.median(D[~np.eye(n, dtype=bool)]) > 0
    # B given explicitly as A: the diagonal is zero up to rounding, not exactly
    D_AA = est.pairwise_distances(X, X)
    np.testing.assert_allclose(D_AA, D, rtol=1e-6, atol=dist_tol(X, D))


def test_pair_distance_forms_pair_score_and_get_metric_agree(fitted):
    X, est = fitted.X, fitted.est
    n = X.shape[0]
    rng = np.random.default_rng(0)
    idx = rng.integers(0, n, size=(40, 2))
    idx[:3, 1] = idx[:3, 0]  # a few pairs of an item with itself
    D = est.pairwise_distances(X)
    expected = D[idx[:, 0], idx[:, 1]]
    tol = dist_tol(X, D)

    by_index = est.pair_distance(idx, X=X)
    assert by_index.shape == (len(idx),)
    np.testing.assert_allclose(by_index, expected, rtol=1e-6, atol=tol)
    np.testing.assert_array_equal(by_index[:3], 0.0)

    points = pairs_as_points(X, idx)
    by_points = est.pair_distance(points)
    np.testing.assert_allclose(by_points, expected, rtol=1e-6, atol=tol)

    np.testing.assert_array_equal(est.pair_score(idx, X=X), -by_index)
    np.testing.assert_array_equal(est.pair_score(points), -by_points)

    metric = est.get_metric()
    from_metric = np.array([metric(u, v) for u, v in points[:10]])
    assert all(isinstance(metric(u, v), float) for u, v in points[:2])
    np.testing.assert_allclose(from_metric, expected[:10], rtol=1e-6, atol=tol)


def test_get_metric_refuses_more_than_two_points(fitted):
    X, est = fitted.X, fitted.est
    Xd = dense(X)
    metric = est.get_metric()
    for u, v in ((Xd[:3], Xd[3:6]), (Xd[:1], Xd[3:5]), (Xd[:3], Xd[3])):
        with pytest.raises(ValueError, match=r"point|1-D|single|one"):
            metric(u, v)


def test_float32_input_is_as_accurate_as_float64(fitted):
    # Same input values in both dtypes: only the precision of the computation differs.
    X32 = dense(fitted.X).astype(np.float32)
    X64 = X32.astype(np.float64)
    est = fitted.est
    D64 = est.pairwise_distances(X64[:30], X64)
    D32 = est.pairwise_distances(X32[:30], X32)
    np.testing.assert_allclose(D32, D64, rtol=1e-6, atol=1e-6 * D64.max())


def test_triangle_inequality(fitted):
    X, est = fitted.X, fitted.est
    Xd = dense(X)
    rng = np.random.default_rng(0)
    # data points and points off the data (random mixtures of rows plus noise)
    mix = rng.dirichlet(np.ones(Xd.shape[0]), size=15) @ Xd
    mix += rng.normal(scale=Xd.std(), size=mix.shape)
    P = np.vstack([Xd[rng.choice(Xd.shape[0], 25, replace=False)], mix])
    D = est.pairwise_distances(P)
    # D[i, k] <= D[i, j] + D[j, k] for every triple (i, j, k)
    slack = D[:, :, None] + D[None, :, :] - D[:, None, :]
    assert slack.min() >= -dist_tol(P, D), f"triangle inequality violated by {-slack.min():.3g}"


def test_sparse_and_dense_input_agree(fitted):
    X, y, est = fitted.X, fitted.y, fitted.est
    Xd, Xs = dense(X), sp.csr_matrix(X)
    D = est.pairwise_distances(X[:25], X)
    tol = dist_tol(X, D)
    for A, B in ((Xd[:25], Xd), (Xs[:25], Xs), (Xs[:25], Xd), (Xd[:25], Xs), (sp.csc_matrix(Xs[:25]), Xs)):
        np.testing.assert_allclose(est.pairwise_distances(A, B), D, rtol=1e-6, atol=tol)
    idx = np.array([[0, 1], [2, 7], [5, 5], [10, 3]])
    np.testing.assert_allclose(est.pair_distance(idx, X=Xs), est.pair_distance(idx, X=Xd),
                               rtol=1e-6, atol=tol)
    T_dense = dense(transform_or_skip(est, Xd[:25]))
    T_sparse = dense(transform_or_skip(est, Xs[:25]))
    np.testing.assert_allclose(T_sparse, T_dense, rtol=1e-6, atol=tol)

    # fitting on the other representation learns the same metric
    other = Xd if sp.issparse(X) else Xs
    refit = fitted.case.make_estimator().fit(other, y)
    D_refit = refit.pairwise_distances(X[:25], X)
    np.testing.assert_allclose(D_refit, D, rtol=1e-6, atol=tol)


# -------------------------------------------------------------------------------- persistence
def test_save_load_round_trip(fitted, tmp_path):
    X, est = fitted.X, fitted.est
    path = save(est, tmp_path / "metric.npz")
    loaded = load(path)
    assert type(loaded) is type(est)
    assert loaded.get_params() == est.get_params()
    for name, value in fitted_attributes(est).items():
        assert_same_value(getattr(loaded, name), value, name)
    D = est.pairwise_distances(X[:30], X)
    np.testing.assert_allclose(loaded.pairwise_distances(X[:30], X), D, rtol=1e-12, atol=1e-12)
    idx = np.array([[0, 1], [4, 9]])
    np.testing.assert_allclose(loaded.pair_distance(idx, X=X), est.pair_distance(idx, X=X),
                               rtol=1e-12, atol=1e-12)
    # the loaded estimator is an ordinary unfitted-able estimator: clone + fit works
    assert clone(loaded).get_params() == est.get_params()


def _truncate(raw, fraction):
    return raw[:int(len(raw) * fraction)]


def _flip_bytes(raw, fraction, width=16):
    start = int(len(raw) * fraction)
    out = bytearray(raw)
    for i in range(start, min(start + width, len(out))):
        out[i] ^= 0xFF
    return bytes(out)


_CORRUPTIONS = {
    "empty": lambda raw: b"",
    "truncated-half": lambda raw: _truncate(raw, 0.5),
    "truncated-last-bytes": lambda raw: raw[:-10],
    "flipped-quarter": lambda raw: _flip_bytes(raw, 0.25),
    "flipped-middle": lambda raw: _flip_bytes(raw, 0.5),
    "flipped-three-quarters": lambda raw: _flip_bytes(raw, 0.75),
}


@pytest.mark.parametrize("corruption", list(_CORRUPTIONS))
def test_corrupted_file_raises_model_format_error(fitted, tmp_path, corruption):
    path = save(fitted.est, tmp_path / "metric.npz")
    raw = path.read_bytes()
    damaged = _CORRUPTIONS[corruption](raw)
    assert damaged != raw
    path.write_bytes(damaged)
    with pytest.raises(ModelFormatError):
        load(path)


def test_save_unfitted_raises_not_fitted(case, tmp_path):
    path = tmp_path / "metric.npz"
    with pytest.raises(NotFittedError):
        save(case.make_estimator(), path)
    assert list(tmp_path.iterdir()) == [], "a failed save left a file behind"


def test_save_load_dict_with_vectorizer(fitted, tmp_path):
    """A metric saved with what produces its input: the vectorizer for text cases."""
    est = fitted.est
    if fitted.case.make_text is not None:
        vectorizer, docs, _ = fitted.case.make_text()
        X_docs = vectorizer.fit_transform(docs)
        # the fixture's metric was fitted on exactly these vectors
        np.testing.assert_array_equal(dense(X_docs), dense(fitted.X))
        objects = {"vectorizer": vectorizer, "metric": est}
        new_docs = list(docs[:8]) + ["a document of words never seen", " ".join(docs[0].split()[:5])]

        def distances(objs):
            return objs["metric"].pairwise_distances(objs["vectorizer"].transform(new_docs))
    else:
        objects = {"metric": est}

        def distances(objs):
            return objs["metric"].pairwise_distances(fitted.X[:20], fitted.X)

    path = save(objects, tmp_path / "model.npz")
    loaded = load(path)
    assert isinstance(loaded, dict) and set(loaded) == set(objects)
    for name, obj in objects.items():
        assert type(loaded[name]) is type(obj)
        assert_same_params(loaded[name].get_params(), obj.get_params())
    D = distances(objects)
    assert D.max() > 0
    np.testing.assert_allclose(distances(loaded), D, rtol=1e-12, atol=1e-12)
    # one object can be taken out of the file by name
    metric_only = load(path, name="metric")
    np.testing.assert_allclose(metric_only.pairwise_distances(fitted.X[:5]),
                               est.pairwise_distances(fitted.X[:5]), rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------------------------- search
def test_top_k_after_transform_matches_pairwise_distances(fitted):
    X, est = fitted.X, fitted.est
    k = 7
    Q = X[::9]
    D = est.pairwise_distances(Q, X)
    idx, scores = top_k(transform_or_skip(est, Q), transform_or_skip(est, X), k, metric="euclidean")
    assert idx.shape == scores.shape == (Q.shape[0], k)
    tol = dist_tol(X, D)
    for q in range(Q.shape[0]):
        assert len(set(idx[q].tolist())) == k
        expected = np.sort(D[q])[:k]
        # the distances of what was returned are the k smallest (whatever the order of ties)
        np.testing.assert_allclose(D[q, idx[q]], expected, rtol=1e-6, atol=tol)
        np.testing.assert_allclose(scores[q], expected, rtol=1e-6, atol=tol)
        order = np.argsort(D[q], kind="stable")
        gap = D[q, order[k]] - D[q, order[k - 1]]
        if gap > 10 * tol:  # no tie across the cut: the same set of neighbours
            assert set(idx[q].tolist()) == set(order[:k].tolist())


def test_metric_search_matches_pairwise_distances(fitted):
    X, est = fitted.X, fitted.est
    transform_or_skip(est, X[:1])
    k = 5
    Q = X[1::11]
    idx, _ = MetricSearch(est).fit(X).search(Q, k)
    D = est.pairwise_distances(Q, X)
    np.testing.assert_allclose(np.take_along_axis(D, idx, axis=1), np.sort(D, axis=1)[:, :k],
                               rtol=1e-6, atol=dist_tol(X, D))


# ---------------------------------------------------------------------------------- bad input
def _with_value(X, value):
    X = X.copy()
    if sp.issparse(X):
        X.data[len(X.data) // 2] = value
    else:
        X[X.shape[0] // 2, X.shape[1] // 2] = value
    return X


def _wrong_length(y, delta):
    y = np.asarray(y)
    return y[:delta] if delta < 0 else np.concatenate([y, y[:delta]])


# name -> (make the arguments of fit from X, y; exception; regex of the message)
_BAD_FIT_INPUT = {
    "nan-in-X": (lambda X, y: (_with_value(X, np.nan), y), ValueError, r"NaN"),
    "inf-in-X": (lambda X, y: (_with_value(X, np.inf), y), ValueError, r"infinite"),
    "empty-X": (lambda X, y: (X[:0], np.asarray(y)[:0]), ValueError, r"0 sample|empty"),
    "labels-too-short": (lambda X, y: (X, _wrong_length(y, -1)), ValueError,
                         lambda X: rf"(?i)label.*\b{X.shape[0] - 1}\b.*\b{X.shape[0]}\b"),
    "labels-too-long": (lambda X, y: (X, _wrong_length(y, 3)), ValueError,
                        lambda X: rf"(?i)label.*\b{X.shape[0] + 3}\b.*\b{X.shape[0]}\b"),
    "1d-X": (lambda X, y: (dense(X)[0], y), ValueError, r"2-D"),
    "text-X": (lambda X, y: (["a document"] * X.shape[0], y), TypeError, r"text"),
    "no-supervision": (lambda X, y: (X, None), ValueError, r"requires y|y is None"),
}


@pytest.mark.parametrize("kind", list(_BAD_FIT_INPUT))
def test_fit_rejects_bad_input(case, kind):
    if kind.startswith("labels-") and case.supervision != "clusters":
        pytest.skip(f"wrong-length labels are defined for cluster supervision, not {case.supervision}")
    X, y = data(case)
    make_args, error, pattern = _BAD_FIT_INPUT[kind]
    if callable(pattern):
        pattern = pattern(X)
    X_bad, y_bad = make_args(X, y)
    with pytest.raises(error, match=pattern):
        case.make_estimator().fit(X_bad, y_bad)


def _feature_pattern(got, expected):
    return rf"\b{got} features.*\b{expected}\b"


# name -> (call on a fitted estimator with the training X; exception; regex from X)
_BAD_METHOD_INPUT = {
    "transform-too-few-features": (lambda est, X: est.transform(X[:, :-1]), ValueError,
                                   lambda X: _feature_pattern(X.shape[1] - 1, X.shape[1])),
    "transform-too-many-features": (lambda est, X: est.transform(sp.hstack([X, X[:, :2]]).tocsr()
                                                                 if sp.issparse(X) else np.hstack([X, X[:, :2]])),
                                    ValueError, lambda X: _feature_pattern(X.shape[1] + 2, X.shape[1])),
    "pairwise-A-wrong-features": (lambda est, X: est.pairwise_distances(X[:, :-1]), ValueError,
                                  lambda X: _feature_pattern(X.shape[1] - 1, X.shape[1])),
    "pairwise-B-wrong-features": (lambda est, X: est.pairwise_distances(X, X[:, 1:]), ValueError,
                                  lambda X: r"\bB\b.*" + _feature_pattern(X.shape[1] - 1, X.shape[1])),
    "pair-index-X-wrong-features": (lambda est, X: est.pair_distance(np.array([[0, 1]]), X=X[:, :-1]),
                                    ValueError, lambda X: _feature_pattern(X.shape[1] - 1, X.shape[1])),
    "pair-points-wrong-features": (lambda est, X: est.pair_distance(pairs_as_points(X[:, :-1], np.array([[0, 1]]))),
                                   ValueError, lambda X: _feature_pattern(X.shape[1] - 1, X.shape[1])),
    "get-metric-wrong-features": (lambda est, X: est.get_metric()(dense(X)[0, :-1], dense(X)[1, :-1]),
                                  ValueError, lambda X: _feature_pattern(X.shape[1] - 1, X.shape[1])),
    "transform-1d": (lambda est, X: est.transform(dense(X)[0]), ValueError, r"2-D"),
    "pairwise-1d": (lambda est, X: est.pairwise_distances(dense(X)[0]), ValueError, r"2-D"),
    "transform-nan": (lambda est, X: est.transform(_with_value(X, np.nan)), ValueError, r"NaN"),
    "pairwise-nan": (lambda est, X: est.pairwise_distances(X[:5], _with_value(X, np.nan)), ValueError, r"NaN"),
    "pair-points-nan": (lambda est, X: est.pair_distance(_with_value(pairs_as_points(X, np.array([[0, 1]]))
                                                                     .reshape(2, -1), np.nan).reshape(1, 2, -1)),
                        ValueError, r"NaN"),
    "transform-empty": (lambda est, X: est.transform(X[:0]), ValueError, r"0 sample|empty"),
    "transform-text": (lambda est, X: est.transform(["some text"]), TypeError, r"text"),
    "pair-points-bad-shape": (lambda est, X: est.pair_distance(np.zeros((3, 3, X.shape[1]))), ValueError,
                              r"shape"),
    "pair-index-out-of-range": (lambda est, X: est.pair_distance(np.array([[0, X.shape[0]]]), X=X), ValueError,
                                lambda X: rf"\b{X.shape[0]}\b.*out of range"),
    "pair-index-not-integer": (lambda est, X: est.pair_distance(np.array([[0.5, 1.0]]), X=X), ValueError,
                               r"integer"),
}


@pytest.mark.parametrize("kind", list(_BAD_METHOD_INPUT))
def test_methods_reject_bad_input(fitted, kind):
    call, error, pattern = _BAD_METHOD_INPUT[kind]
    X = fitted.X.copy()
    if callable(pattern):
        pattern = pattern(X)
    with pytest.raises(error, match=pattern):
        call(fitted.est, X)


def test_error_patterns_are_specific():
    # The regexes above must not match just anything: check a few against wrong messages.
    assert not re.search(_feature_pattern(7, 8), "X has 8 features, but the model is expecting 7")
    assert not re.search(r"(?i)label.*\b89\b.*\b90\b", "labels has 90 entries but X has 89 rows")
