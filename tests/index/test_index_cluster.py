"""``Index.cluster`` (issue 32, part 1): K-means runs on the index's own rows, read from its
segments (not the texts vectorised again), in a space where the learned distance is exactly the
Euclidean one, and its labels are scikit-learn's ``KMeans`` (default ``n_init``) on those rows;
a metric that weights some learned directions below the others gets an exact dense factor;
deleted documents are left out and added ones clustered; average link gives the labels of the
dense rows."""
from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from index_models import FAMILIES, corpus, model

from learnsim.index import Index
from learnsim.index import _cluster

pytestmark = pytest.mark.filterwarnings("ignore::learnsim.baseline.BaselineWarning")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    root = tmp_path_factory.mktemp("cluster")
    return {f: Index.build(root / f, model(f), texts, ids, meta) for f in FAMILIES}


def _rows(idx):
    ids, rows = _cluster._live_rows(idx)
    return ids, _cluster._embedding(idx, rows)


def _sq_distances(E):
    G = E @ E.T
    G = G.toarray() if sp.issparse(G) else np.asarray(G)
    sq = np.diag(G)
    return sq[:, None] + sq[None, :] - 2.0 * G


def _learned_sq_distances(pipeline, texts):
    X = pipeline.vectorize(texts)
    return pipeline.metric.pairwise_distances(X, X) ** 2


@pytest.mark.parametrize("family", FAMILIES)
def test_the_rows_clustered_are_the_index_rows_in_the_learned_space(built, family, monkeypatch):
    idx = built[family]
    texts = corpus()[0]
    pipeline = model(family)

    # read from the segments: the texts are never vectorised again
    def refuse(*args, **kwargs):
        raise AssertionError("the clustering vectorised the texts")

    monkeypatch.setattr(type(pipeline), "vectorize", refuse)
    ids, E = _rows(idx)
    monkeypatch.undo()
    assert ids == corpus()[2] and E.shape[0] == len(texts)
    if idx.kind == "distance":
        # squared Euclidean distances of the rows = squared learned distances
        expected = _learned_sq_distances(pipeline, texts)
        assert np.allclose(_sq_distances(E), expected, atol=1e-9 * max(1.0, expected.max()))
        return
    got = E.toarray() if sp.issparse(E) else np.asarray(E)
    norms = np.linalg.norm(got, axis=1)
    assert np.allclose(norms[norms > 0], 1.0, atol=1e-6)
    if idx.kind == "cosine":
        # the rows' inner products are the learned (mixed) cosine the search scores with, so
        # their squared distances are 2 - 2 x that similarity (the index stores float32 rows)
        for i in (0, 33, 77):
            for hit in idx.search(texts[i], k=5):
                j = ids.index(hit["id"])
                assert float(got[i] @ got[j]) == pytest.approx(hit["score"], abs=1e-5)


@pytest.mark.parametrize("family", ["mcd", "film", "bm25"])
def test_kmeans_is_scikit_learns_on_those_rows(built, family):
    from sklearn.cluster import KMeans

    idx = built[family]
    labels = idx.cluster(6, random_state=3)
    ids, E = _rows(idx)
    theirs = KMeans(n_clusters=6, random_state=3).fit(E).labels_
    assert [labels[i] for i in ids] == theirs.tolist()


def _with_low_weights(family):
    """The family's pipeline with MCD's complement weight raised above every learned weight: M
    stays positive definite, but the sparse rows cannot carry its negative corrections."""
    p = copy.deepcopy(model(family))
    p.metric.residual_weight_ = 2.0 * float(np.max(p.metric.weights_))
    return p


@pytest.mark.parametrize("lsi", [None, 40])
def test_a_metric_with_directions_weighted_below_the_rest_is_factored_exactly(tmp_path, lsi):
    import learnsim

    texts, topics, ids, _ = corpus()
    if lsi is None:
        pipeline = _with_low_weights("mcd")            # more features than documents: the Gram matrix
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pipeline = learnsim.fit(texts, clusters=topics, lsi=lsi)
        pipeline.metric.residual_weight_ = 2.0 * float(np.max(pipeline.metric.weights_))   # fewer: M's own factor
    assert np.all(pipeline.metric.weights_ < pipeline.metric.residual_weight_)
    idx = Index.build(tmp_path / "idx", pipeline, texts, ids)
    _, E = _rows(idx)
    assert isinstance(E, np.ndarray) and E.shape[1] <= min(len(texts), pipeline.metric.n_features_in_)
    expected = _learned_sq_distances(pipeline, texts)
    assert np.allclose(_sq_distances(E), expected, atol=1e-8 * max(1.0, expected.max()))
    assert set(idx.cluster(6).values()) == set(range(6))


def test_a_factor_too_large_is_refused_with_the_reason(tmp_path, monkeypatch):
    texts, _, ids, _ = corpus()
    idx = Index.build(tmp_path / "idx", _with_low_weights("mcd"), texts, ids)
    monkeypatch.setattr(_cluster, "MAX_FACTOR_ENTRIES", 100)
    with pytest.raises(MemoryError, match="dense 120 x 120 factor"):
        idx.cluster(3)


def test_deleted_documents_are_left_out_and_added_ones_clustered(built, tmp_path):
    texts, _, ids, meta = corpus()
    idx = Index.build(tmp_path / "idx", model("mcd"), texts[:100], ids[:100], meta[:100])
    idx.delete(["d0", "d5"])
    idx.add(texts[100:], ids[100:])
    labels = idx.cluster(4)
    assert set(labels) == set(ids) - {"d0", "d5"}
    # the added documents sit in a segment of their own: their rows are those of a fresh build
    _, E = _rows(idx)
    live = [i for i in range(len(ids)) if ids[i] not in ("d0", "d5")]
    expected = _learned_sq_distances(model("mcd"), [texts[i] for i in live])
    assert np.allclose(_sq_distances(E), expected, atol=1e-9 * max(1.0, expected.max()))


@pytest.mark.parametrize("family", ["mcd", "film"])
def test_average_link_gives_the_labels_of_the_dense_rows(built, family):
    from sklearn.cluster import AgglomerativeClustering

    idx = built[family]
    ids, E = _rows(idx)
    dense = E.toarray() if sp.issparse(E) else E
    threshold = float(np.median(np.sqrt(np.maximum(_sq_distances(E), 0.0))))
    theirs = AgglomerativeClustering(n_clusters=None, distance_threshold=threshold, linkage="average").fit_predict(dense)
    labels = idx.cluster(distance_threshold=threshold)
    assert [labels[i] for i in ids] == theirs.tolist()


def test_bad_arguments_are_refused_before_any_work(built):
    idx = built["film"]
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="k must be a positive integer"):
            idx.cluster(bad)
    # (True read as 1.0 and "0.5" as 0.5 where k refused both)
    for bad in (0.0, -1.0, float("nan"), float("inf"), True, "0.5", [0.5]):
        with pytest.raises(ValueError, match="distance_threshold must be a positive number"):
            idx.cluster(distance_threshold=bad)
    for bad in (2 ** 70, -1, 1.5, True, "7"):       # scikit-learn's message named none of ours
        with pytest.raises(ValueError, match="seed .random_state. must be a whole number"):
            idx.cluster(3, random_state=bad)
    with pytest.raises(ValueError, match="either k"):
        idx.cluster(3, distance_threshold=1.0)


def test_an_index_of_one_document_is_one_cluster(tmp_path):
    texts, _, ids, meta = corpus()
    index = Index.build(tmp_path / "one", model("film"), texts[:1], ids[:1], meta[:1])
    assert index.cluster(distance_threshold=0.5) == {ids[0]: 0}
    assert index.cluster(1) == {ids[0]: 0}


def test_k_above_the_distinct_texts_is_refused_naming_both(tmp_path):
    # eight distinct texts, three of them given twice more: eleven documents, eight distinct rows
    texts, _, _, _ = corpus()
    docs = texts[:8] + texts[:3]
    index = Index.build(tmp_path / "i", model("mcd"), docs, ids=[f"x{i}" for i in range(len(docs))])
    with pytest.raises(ValueError, match=r"k=10 is more than the 8 distinct texts of the index \(its 11 documents"):
        index.cluster(10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # scikit-learn's "Number of distinct clusters" warning
        labels = index.cluster(8)
    assert len(set(labels.values())) == 8
    assert labels["x0"] == labels["x8"] and labels["x2"] == labels["x10"]
