"""What fit_mcd ships with each task stays bounded as the partitions grow: the principal basis,
the active features and the centroids are one key each, not a copy pickled into every
partition's task (they were: at 16 partitions a 2,000-feature, 32-direction basis was sent 32
times, 0.5 MB each). Measured on the synchronous scheduler: the sum over the tasks of each
computation of their pickled size (what a distributed scheduler sends task by task)."""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("dask", reason="the dask extra is not installed (pip install learnsim[dask])")

import dask  # noqa: E402

import learnsim.distributed._methods_common as common  # noqa: E402
import learnsim.distributed.methods as methods  # noqa: E402
from learnsim.distributed.methods import fit_mcd, from_local  # noqa: E402
from learnsim.mcd import MinimumClusterDistortion  # noqa: E402


def _data(n, d, k=8, seed=0):
    """Sparse rows: noise, and 20 topic words of each row's cluster (the clusters' directions
    stand out of the noise, so a basis of k directions is well defined)."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k                                 # every cluster in every partition
    topics = (y[:, None] * 20 + np.arange(20)[None, :]).ravel()
    X = sp.random(n, d, density=0.01, random_state=seed, format="csr") + sp.csr_matrix(
        (rng.uniform(1.0, 2.0, topics.size), (np.repeat(np.arange(n), 20), topics)), shape=(n, d))
    return sp.csr_matrix(X), y


def _shipped(monkeypatch, X, y, partitions, **params):
    """(the fit, the largest sum of per-task pickled sizes over the fit's computations)."""
    sizes = []
    real = common._compute

    def measuring(*tasks):
        graph = {}
        for t in tasks:
            graph.update(dict(t.__dask_graph__()))
        sizes.append(sum(len(pickle.dumps(task, protocol=5)) for task in graph.values()))
        return real(*tasks)

    monkeypatch.setattr(common, "_compute", measuring)
    monkeypatch.setattr(methods, "_compute", measuring)
    with dask.config.set(scheduler="synchronous"):
        model = fit_mcd(from_local(X, -(-X.shape[0] // partitions)), y, **params)
    return model, max(sizes)


# the basis over 2,000 features; the scatter (the covariance route: more clustered items than
# features) over 300
# features) over 300; the basis of a subspace iteration (its products over the active features,
# 8,000 of them: the route of a vocabulary wider than 4,000, and of FILM's SVD)
@pytest.mark.parametrize("params, shape, exact", [(dict(n_basis=32), (480, 2000), True),
                                                  (dict(n_basis=None), (960, 300), True),
                                                  (dict(n_basis=8), (480, 8000), False)],
                         ids=["basis", "scatter", "subspace"])
def test_the_graph_does_not_grow_with_a_copy_per_partition(monkeypatch, params, shape, exact):
    if not exact:
        monkeypatch.setattr(methods, "_MAX_EXACT_BASIS_FEATURES", 100)
    X, y = _data(*shape)
    params = dict(params, shrinkage=0.1, complement_weight=0.3, baseline_holdout=None)
    few, few_bytes = _shipped(monkeypatch, X, y, 2, **params)
    many, many_bytes = _shipped(monkeypatch, X, y, 16, **params)
    # 14 more partitions: each adds its task tuples and its own slices of the labels, a few kB;
    # a 2,000 x 32 basis (0.5 MB) or the centroids (8 x 2,000) pickled into each added far more
    assert many_bytes - few_bytes < 14 * 20_000, (few_bytes, many_bytes)
    # and the fit is the same: the distances among some rows (the Mahalanobis matrix is
    # features x features: 0.5 GB at 8,000); the subspace iteration's against the same at 2
    # partitions (the single-process randomised SVD differs on this flat spectrum)
    def distances(model):
        Z = np.asarray(model.transform(X[:20]))
        return np.sqrt(((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1))

    reference = distances(MinimumClusterDistortion(**params).fit(X, y) if exact else few)
    for fitted in (few, many):
        assert float(np.abs(distances(fitted) - reference).max() / reference.max()) < 1e-6


def test_film_refreshes_send_their_map_once(monkeypatch):
    """fit_film's refreshes (each an r x r map P and its scales) were pickled into every
    partition's task, every refresh: 4 kB a partition here (r about 30; 720 kB at r = 300),
    56 kB more at 16 partitions than at 2. Now its task tuple alone, a few hundred bytes."""
    import learnsim.distributed._methods_film as film_module
    from learnsim.distributed.methods import fit_film

    X, y = _data(480, 2000)
    sizes = {}
    real = common._compute
    for partitions in (2, 16):
        found = sizes[partitions] = []

        def measuring(*tasks):
            graph = {}
            for t in tasks:
                graph.update(dict(t.__dask_graph__()))
            # the partitions' states are the data (the same in all at any partition count)
            found.append(sum(len(pickle.dumps(task, protocol=5)) for key, task in graph.items()
                             if "anchor_state" not in str(key)))
            return real(*tasks)

        monkeypatch.setattr(film_module, "_compute", measuring)
        with dask.config.set(scheduler="synchronous"):
            fit_film(from_local(X, -(-X.shape[0] // partitions)), y, n_components=3, svd_rank=150,
                     baseline_holdout=None, random_state=0, max_iter=3)
    # the refreshes: every computation after the start's two (its SVD, the first active set)
    refreshes = {n: max(found[2:]) for n, found in sizes.items()}
    assert refreshes[16] - refreshes[2] < 14 * 1_000, refreshes
