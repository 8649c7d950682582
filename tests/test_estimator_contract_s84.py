"""scikit-learn's contract, continued (helper apiwalk2): LinkLearn's and LearnedBM25's tags say
they take sparse term counts (non-negative) and need their links, and FILM and
MinimumClusterDistortion, transformers to new features, name them as scikit-learn's
ClassNamePrefixFeaturesOutMixin does ("film0", "film1", ...), one name per column of transform."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from learnsim.datasets import make_clustered_corpus
from learnsim.film import FILM
from learnsim.linklearn import LearnedBM25, LinkLearn
from learnsim.mcd import MinimumClusterDistortion
from learnsim.supervision import Links, clusters_to_triplets
from learnsim.text import TextVectorizer


@pytest.fixture(scope="module")
def d():
    c = make_clustered_corpus(n_clusters=6, docs_per_cluster=15, random_state=0)
    texts, y = [str(t) for t in c.data], np.asarray(c.target)
    X = TextVectorizer().fit(texts).transform(texts)
    counts = TextVectorizer("tf").fit_transform(texts)
    edges = np.array([(i, j) for i in range(90) for j in range(90) if i != j and y[i] == y[j] and (i + j) % 5 == 0])
    return dict(y=y, X=X, counts=counts, links=Links.from_edges(edges, n_items=90),
                triplets=clusters_to_triplets(y, 400, random_state=0))


@pytest.mark.parametrize("make", [lambda: LinkLearn(max_iter=50, baseline_holdout=None, random_state=0),
                                  lambda: LearnedBM25()], ids=["LinkLearn", "LearnedBM25"])
def test_link_weightings_say_they_take_sparse_counts_and_need_links(d, make):
    tags = make().__sklearn_tags__()
    assert tags.input_tags.sparse and tags.input_tags.positive_only
    assert tags.target_tags.required
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        W = make().fit(d["counts"], d["links"]).transform(d["counts"][:4])      # and they do: sparse counts fit
    assert W.shape == (4, d["counts"].shape[1])


def _fitted(d, name, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "FILM":
            return FILM(n_components=4, random_state=0, **kw).fit(d["X"], d["triplets"])
        return MinimumClusterDistortion(baseline_holdout=None, random_state=0, **kw).fit(d["X"], d["y"])


@pytest.mark.parametrize("name, kw, prefix", [
    ("FILM", {}, "film"),
    ("MCD", dict(n_basis=8, shrinkage=0.1, complement_weight=0.0), "minimumclusterdistortion"),
    ("MCD", dict(n_basis=8, shrinkage=0.1, complement_weight=0.5), "minimumclusterdistortion"),
])
def test_transformers_name_their_output_features(d, name, kw, prefix):
    est = _fitted(d, name, **kw)
    width = est.transform(d["X"][:3]).shape[1]
    names = est.get_feature_names_out()
    assert names.tolist() == [f"{prefix}{i}" for i in range(width)]
    assert names.dtype == object


@pytest.mark.parametrize("name", ["FILM", "MCD"])
def test_feature_names_need_a_fit(name):
    est = FILM() if name == "FILM" else MinimumClusterDistortion()
    with pytest.raises(NotFittedError):
        est.get_feature_names_out()


def test_a_scikit_learn_pipeline_names_the_steps_output(d):
    from sklearn.pipeline import make_pipeline

    film = _fitted(d, "FILM")
    assert make_pipeline(film).get_feature_names_out().tolist() == ["film0", "film1", "film2", "film3"]


@pytest.mark.parametrize("name", ["FILM", "MCD"])
def test_pandas_output_config_leaves_the_metric_working(d, name):
    # set_output is not offered (the metric's own methods embed through transform and take arrays):
    # a global transform_output="pandas" leaves transform an array and the distances right
    pytest.importorskip("pandas")
    from sklearn import config_context

    est = _fitted(d, name, **({} if name == "FILM" else dict(n_basis=8, shrinkage=0.1, complement_weight=0.0)))
    want = est.pairwise_distances(d["X"][:3], d["X"][:5])
    with config_context(transform_output="pandas"):
        assert isinstance(est.transform(d["X"][:3].toarray()), np.ndarray)
        np.testing.assert_allclose(est.pairwise_distances(d["X"][:3], d["X"][:5]), want)
    assert not hasattr(est, "set_output")
