"""fit_mcd and fit_film on a Dask LocalCluster give the single-process fits (learnsim.distributed.methods)."""
import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("dask", reason="the dask extra is not installed (pip install learnsim[dask])")
pytest.importorskip("distributed", reason="the dask extra is not installed (pip install learnsim[dask])")

import dask  # noqa: E402
import dask.array as da  # noqa: E402

from dask_cluster import local_client  # noqa: E402
from learnsim.datasets import make_clustered_corpus  # noqa: E402
from learnsim.distributed.methods import fit_film, fit_mcd, from_local  # noqa: E402
from learnsim.film import FILM  # noqa: E402
from learnsim.mcd import PAPER_PARAMS, MinimumClusterDistortion  # noqa: E402
from learnsim.supervision import Clusters  # noqa: E402
from learnsim.text import TextVectorizer  # noqa: E402

TOL = 1e-6


client = pytest.fixture(scope="module")(local_client)


def _corpus(n_clusters, docs_per_cluster, vocab_size, seed=0):
    """tf-idf rows (float64) of a clustered corpus, shuffled so that every cluster spans several
    partitions, with every 7th row unlabelled."""
    c = make_clustered_corpus(n_clusters=n_clusters, docs_per_cluster=docs_per_cluster, vocab_size=vocab_size,
                              topic_words=30, random_state=seed)
    X = sp.csr_matrix(TextVectorizer(dtype=np.float64).fit_transform(c.data))
    y = np.asarray(c.target).copy()
    perm = np.random.default_rng(seed).permutation(X.shape[0])
    X, y = X[perm], y[perm]
    y[::7] = -1
    return X, y


@pytest.fixture(scope="module")
def wide():
    """More features than clustered items: the single-process fit takes the Gram route."""
    return _corpus(8, 40, 800)


@pytest.fixture(scope="module")
def tall():
    """Fewer features (< 4000) than clustered items: the covariance (and Cholesky) route."""
    return _corpus(6, 80, 300, seed=1)


def _rel(a, b):
    return float(np.abs(a - b).max() / max(np.abs(a).max(), 1e-300))


def _with_empty_partition(X, rows):
    """X as row blocks with an empty block in the middle."""
    parts = [from_local(X[:rows], rows), from_local(X[:0], rows), from_local(X[rows:], rows)]
    return da.concatenate(parts, axis=0)


def _assert_same_mcd(a, b):
    assert a.solver_ == b.solver_
    assert a.rank_ == b.rank_
    assert _rel(a.get_mahalanobis_matrix(), b.get_mahalanobis_matrix()) < TOL
    np.testing.assert_allclose(a.scale_, b.scale_, rtol=TOL)
    np.testing.assert_array_equal(a.active_features_, b.active_features_)


@pytest.mark.parametrize("params", [
    dict(PAPER_PARAMS),
    dict(n_basis=None, shrinkage=0.1, complement_weight=0.3, baseline_holdout=None),
    dict(n_basis=16, shrinkage=0.1, complement_weight=0.3, baseline_holdout=None),
], ids=["paper", "shrunk", "basis"])
@pytest.mark.parametrize("data", ["wide", "tall"])
def test_fit_mcd_equals_single_process(client, request, data, params):
    X, y = request.getfixturevalue(data)
    local = MinimumClusterDistortion(**params).fit(X, y)
    dist = fit_mcd(from_local(X, 90), y, **params)
    _assert_same_mcd(local, dist)
    if data == "tall" and params["n_basis"] is None:
        # the distributed scatter is a sum of per-partition scatters, not a gathered Gram matrix
        assert dist.solver_ == ("cholesky" if params["shrinkage"] == 0 else "covariance")
    Q = X[:5]
    np.testing.assert_allclose(dist.pairwise_distances(Q), local.pairwise_distances(Q), rtol=TOL, atol=TOL)


def test_fit_mcd_weighted_clusters_dense_input_empty_partition(client, tall):
    X, y = tall
    ids = np.unique(y[y >= 0])
    clusters = Clusters(y, weights=dict(zip(ids.tolist(), np.linspace(1.0, 3.0, ids.size))))
    params = dict(n_basis=None, shrinkage=0.05, complement_weight=0.0, baseline_holdout=None)
    local = MinimumClusterDistortion(**params).fit(X, clusters)
    _assert_same_mcd(local, fit_mcd(_with_empty_partition(X, 150), clusters, **params))
    dense = from_local(X.toarray(), 100)
    _assert_same_mcd(MinimumClusterDistortion(**params).fit(X.toarray(), y),
                     fit_mcd(dense, da.from_array(y, chunks=100), **params))


def test_fit_film_equals_single_process(client, wide):
    """The corpus has a clear spectral gap after the rank 5 (sigma_6 / sigma_5 ~ 0.44, and
    sigma_16 / sigma_5 ~ 0.3 with svd_compressed's 10 oversamples), so the subspace of
    svd_compressed converges to the exact SVD's in a few iterations (measured, relative error of
    the map: 3e-4 after 4, 1.5e-6 after 6, 1e-8 after 8, 4e-10 after 10)."""
    X, y = wide
    params = dict(n_components=3, svd_rank=5, baseline_holdout=None, random_state=0, max_iter=60)
    local = FILM(**params).fit(X, y)
    Xd = _with_empty_partition(X, 100)
    dist = fit_film(Xd, y, client=client, n_power_iter=8, **params)
    assert dist.n_iter_ == local.n_iter_ and dist.n_triplets_ == local.n_triplets_
    assert _rel(local.components_, dist.components_) < TOL
    np.testing.assert_allclose(dist.singular_values_, local.singular_values_, rtol=1e-9)
    np.testing.assert_allclose(dist.hinge_loss_curve_, local.hinge_loss_curve_, rtol=TOL)
    Q = X[:7]
    np.testing.assert_allclose(dist.transform(Q), local.transform(Q), atol=TOL * np.abs(local.transform(Q)).max())
    # given triplets, the paper's step active set and a numpy Generator as the seed
    T = np.random.default_rng(3).integers(0, X.shape[0], size=(500, 3))
    T = T[(T[:, 0] != T[:, 1]) & (T[:, 0] != T[:, 2]) & (T[:, 1] != T[:, 2])][:400]
    params = dict(n_components=2, svd_rank=5, baseline_holdout=None, hinge_smoothing=0.0, max_iter=25)
    local = FILM(**params, random_state=np.random.default_rng(5)).fit(X, T)
    dist = fit_film(from_local(X, 120), T, **params, random_state=np.random.default_rng(5))
    assert _rel(local.components_, dist.components_) < TOL


def test_mcd_wide_basis_by_subspace_iteration(client, wide, monkeypatch):
    """Over 4,000 active features the principal basis comes from the subspace iteration (here the
    limit is lowered to 100 so that the test corpus takes that route): the same fit as the
    single-process exact basis, with 31 partitions (one empty). The corpus' spectrum has a gap
    after 5 (sigma_6 / sigma_5 = 0.45; sigma_16 / sigma_5 = 0.3 with 10 oversamples): a basis
    of 16 would end inside a flat stretch, where no subspace iteration settles on one basis."""
    import learnsim.distributed.methods as methods

    X, y = wide
    params = dict(n_basis=5, shrinkage=0.1, complement_weight=0.3, baseline_holdout=None)
    local = MinimumClusterDistortion(**params).fit(X, y)
    monkeypatch.setattr(methods, "_MAX_EXACT_BASIS_FEATURES", 100)
    calls = []
    real = methods._svd
    monkeypatch.setattr(methods, "_svd", lambda *a, **k: calls.append(a) or real(*a, **k))
    dist = fit_mcd(_with_empty_partition(X, 10), y, client=client, **params)
    assert len(calls) == 1
    _assert_same_mcd(local, dist)


@pytest.mark.parametrize("dense", [False, True])
def test_truncated_svd_equals_exact(client, dense):
    """_svd's singular values and vectors (left and right) equal numpy's, sparse or dense rows,
    with an empty partition; every product is a sum of per-partition products."""
    from learnsim.distributed._methods_common import _Collection, _svd

    rng = np.random.default_rng(4)
    # a clear gap after the rank 6: the subspace converges in a few iterations
    A = (rng.standard_normal((300, 6)) * [50, 40, 30, 20, 15, 10]) @ rng.standard_normal((6, 120))
    A += 0.01 * rng.standard_normal(A.shape)
    X = A if dense else sp.csr_matrix(A)
    coll = _Collection(_with_empty_partition(X, 70), "X", "test")
    U, s, Vt = _svd(coll, np.arange(120), 6, 6, seed=1)
    U = U.compute()
    Ue, se, Vte = np.linalg.svd(A, full_matrices=False)
    np.testing.assert_allclose(s, se[:6], rtol=1e-9)
    signs = np.sign(Vte[np.arange(6), np.argmax(np.abs(Vte[:6]), axis=1)])
    np.testing.assert_allclose(Vt, Vte[:6] * signs[:, None], atol=1e-8)
    np.testing.assert_allclose(U, Ue[:, :6] * signs[None, :], atol=1e-8)
    _, s_only, _ = _svd(coll, np.arange(120), 6, 6, seed=1, left=False)
    np.testing.assert_allclose(s_only, s, rtol=1e-12)


def test_fit_film_few_power_iterations_differ(client, wide):
    """With too few subspace iterations the subspace has not converged: the test above is not vacuous."""
    X, y = wide
    params = dict(n_components=3, svd_rank=5, baseline_holdout=None, random_state=0, max_iter=5)
    local = FILM(**params).fit(X, y)
    dist = fit_film(from_local(X, 100), y, n_power_iter=0, **params)
    assert _rel(local.components_, dist.components_) > 1e-4


def test_bad_input(client, wide):
    X, y = wide
    Xd = from_local(X, 100)
    fixed = dict(PAPER_PARAMS)
    with pytest.raises(TypeError, match="dask.array.Array"):
        fit_mcd(X, y, **fixed)
    with pytest.raises(ValueError, match="shrinkage.*'auto'|'auto'"):
        fit_mcd(Xd, y, n_basis=None, complement_weight=0.0, baseline_holdout=None)
    with pytest.raises(ValueError, match="baseline_holdout=None"):
        fit_mcd(Xd, y, n_basis=None, shrinkage=0.0, complement_weight=0.0)
    with pytest.raises(ValueError, match="labels has 10 entries"):
        fit_mcd(Xd, y[:10], **fixed)
    with pytest.raises(ValueError, match="n_power_iter"):
        fit_mcd(Xd, y, n_power_iter=-1, **fixed)
    with pytest.raises(ValueError, match="baseline_holdout=None"):
        fit_film(Xd, y, n_components=2)
    with pytest.raises(ValueError, match="batch_size"):
        fit_film(Xd, y, n_components=2, baseline_holdout=None, batch_size=100)
    with pytest.raises(TypeError, match="client"):
        fit_film(Xd, y, n_components=2, baseline_holdout=None, client="tcp://127.0.0.1:1")
    with pytest.raises(ValueError, match="column chunks"):
        fit_mcd(da.concatenate([from_local(X[:, :400], 100), from_local(X[:, 400:], 100)], axis=1), y, **fixed)
    with pytest.raises(ValueError, match="unknown row chunk"):
        fit_mcd(da.from_array(X.toarray(), chunks=100)[da.from_array(y, chunks=100) >= -1], y, **fixed)
    bad = X.toarray()
    bad[5, 3] = np.nan
    with pytest.raises(ValueError, match="partition 0 contains NaN"):
        fit_mcd(from_local(sp.csr_matrix(bad), 100), y, **fixed)
    lying = da.from_delayed(dask.delayed(X[:50]), shape=(60, X.shape[1]), dtype=np.float64,
                            meta=sp.csr_matrix((0, X.shape[1])))
    with pytest.raises(ValueError, match="partition 0 has shape"):
        fit_film(lying, np.arange(60) % 3, n_components=2, baseline_holdout=None)
    with pytest.raises(ValueError, match="rows_per_partition"):
        from_local(X, 0)
