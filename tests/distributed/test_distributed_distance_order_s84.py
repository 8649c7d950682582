"""A distance model's hits (float64 rows) in the order of their distances. merge_best took values
within 1e-6 of the largest distance among the candidates as one tie, ordered by position: with
k = the whole collection (distances up to ~150), two documents at 111.81499 and 111.81503 (apart
by 4e-5, 400 million times float64's rounding) came back the farther first, where Index.search
and Pipeline.search give the closer first. Now a distance model's values are tied on the scale
of the squared distances its rows round on, by the rows' dtype (float64: 1e-12)."""
import os
import warnings

import numpy as np
import pytest

pytest.importorskip("dask", reason="the dask extra is not installed (pip install learnsim[dask])")

import dask  # noqa: E402
import dask.bag as db  # noqa: E402

from learnsim.datasets import make_clustered_corpus  # noqa: E402
from learnsim.distributed import DistributedIndex, fit_mcd, fit_vectorizer, vectorize  # noqa: E402
from learnsim.distributed._partition import merge_best  # noqa: E402
from learnsim.index import Index  # noqa: E402
from learnsim.pipeline import Pipeline  # noqa: E402


def test_a_float64_distance_is_not_tied_with_one_4e5_apart():
    # values are minus the distances; the farthest candidate (150) used to set the tolerance
    parts = [[(np.array([28, 99]), np.array([-111.81502956358497, -150.0]))],
             [(np.array([46]), np.array([-111.81498754067151]))]]
    pos, vals = merge_best(parts, k=3, distance=True, dtype="float64")[0]
    assert pos.tolist() == [46, 28, 99]
    assert np.all(np.diff(vals) <= 0)
    # float32 rows round at 1e-7: these two are within it, a tie to the lower position
    pos, _ = merge_best(parts, k=3, distance=True, dtype="float32")[0]
    assert pos.tolist() == [28, 46, 99]


def test_copies_at_distance_zero_stay_a_tie_to_the_lower_position():
    # a copy's distance rounds to 0 in one product and ~1e-8 in another: still one tie
    parts = [[(np.array([7]), np.array([-1.5e-8]))], [(np.array([3]), np.array([0.0]))],
             [(np.array([1]), np.array([-2e-8]))]]
    for dtype in ("float32", "float64"):
        pos, _ = merge_best(parts, k=3, distance=True, dtype=dtype)[0]
        assert pos.tolist() == [1, 3, 7]


def test_distributed_hits_are_in_the_order_of_index_search(tmp_path):
    c = make_clustered_corpus(n_clusters=6, docs_per_cluster=20)
    texts, labels = list(c.data), np.asarray(c.target)
    with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bag = db.from_sequence(texts, npartitions=4)
        vec = fit_vectorizer(bag, weighting="tfidf")
        model = fit_mcd(vectorize(bag, vec), labels, n_basis=16, shrinkage=0.1, complement_weight=0.3,
                        baseline_holdout=None)
        pipeline = Pipeline(vec, model)
        index = DistributedIndex.build(os.path.join(tmp_path, "d"), pipeline, bag)
        queries = texts[:5] + [texts[3] + " " + texts[50]]
        found = index.search(queries, k=len(texts))
    with Index.build(tmp_path / "local", pipeline, texts) as local:
        for query, hits in zip(queries, found):
            expected = local.search(query, k=len(texts))
            assert [h["id"] for h in hits] == [h["id"] for h in expected]
            got, want = np.array([h["score"] for h in hits]), np.array([h["score"] for h in expected])
            # a distance found as sqrt(|q|^2 + |d|^2 - 2 q.d) is exact to about sqrt(eps) x the
            # scale near zero (a query's distance to its own text: 0.0 one way, 1.9e-06 the other
            # in a CI run, where the BLAS summed in another order), to 1e-9 away from it
            near_zero = 4 * np.sqrt(np.finfo(np.float64).eps) * np.abs(want).max()
            far = np.abs(want) > near_zero
            assert np.allclose(got[far], want[far], rtol=1e-9, atol=1e-9)
            assert np.allclose(got[~far], want[~far], rtol=0, atol=near_zero)
