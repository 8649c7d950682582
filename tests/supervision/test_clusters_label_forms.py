"""The same cluster labels read the same from a list, a tuple, an object array and a pandas
Series (helper h-api's sweep of the Python API): numpy made a list of str and int labels an
array of str, so that the integer -1 (in no cluster) became the label "-1", a cluster of its
own, and 1 and "1" one cluster, where an object array or a Series kept them apart."""
from __future__ import annotations

import numpy as np
import pytest

from learnsim.supervision import Clusters

FORMS = {"list": list, "tuple": tuple, "object array": lambda v: np.array(v, dtype=object)}


def _series(values):
    pd = pytest.importorskip("pandas")
    return pd.Series(values, dtype=object, index=range(100, 100 + len(values)))


@pytest.mark.parametrize("form", [*FORMS, "Series"])
def test_minus_one_among_str_labels_is_in_no_cluster_in_every_form(form):
    values = ["sport", "sport", -1, "news", "news", -1]
    clusters = Clusters((FORMS.get(form) or _series)(values))
    assert clusters.n_clusters == 2
    assert clusters.labels.tolist()[2] == clusters.labels.tolist()[5] == -1
    assert sorted(map(str, clusters.classes_)) == ["news", "sport"]


@pytest.mark.parametrize("form", [*FORMS, "Series"])
def test_an_int_and_its_str_are_the_same_partition_in_every_form(form):
    values = [1, "1", 1, "1", 2, 2]
    got = Clusters((FORMS.get(form) or _series)(values)).labels
    expected = Clusters(np.array(values, dtype=object)).labels
    # the same items together, whatever the ids
    assert [[j for j in range(6) if got[j] == got[i]] for i in range(6)] == \
        [[j for j in range(6) if expected[j] == expected[i]] for i in range(6)]


def test_an_estimator_given_a_list_leaves_the_minus_one_rows_out_of_the_clusters():
    from learnsim.mcd import MinimumClusterDistortion

    rng = np.random.default_rng(0)
    X = rng.normal(size=(9, 4))
    y = ["a", "a", "a", "b", "b", "b", -1, -1, -1]
    as_list = MinimumClusterDistortion(n_basis=3, shrinkage=0.1, complement_weight=0.3).fit(X, y)
    as_object = MinimumClusterDistortion(n_basis=3, shrinkage=0.1, complement_weight=0.3).fit(
        X, np.array(y, dtype=object))
    np.testing.assert_allclose(as_list.transform(X), as_object.transform(X), rtol=1e-9, atol=1e-12)
