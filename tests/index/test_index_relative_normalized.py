"""A relative-comparison metric scored by the weighted cosine (``normalize=True``): the index
ranks as the pipeline does, with its query plan and without it, and the plan carries the flag."""
from __future__ import annotations

import functools
import json
import warnings

import numpy as np
import pytest

from index_edit import without_plan
from index_models import corpus, topic_triplets

from learnsim.index import Index

TOL = 1e-6


@functools.lru_cache(maxsize=None)
def _model(normalize):
    import learnsim

    texts, y, _, _ = corpus()
    triplets = topic_triplets(y, np.random.default_rng(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # the relative family itself, unchecked as search
        return learnsim.fit(texts, triplets=triplets, weighting="tfidf", prior="one", normalize=normalize,
                            baseline_holdout=None)


def _queries():
    texts = corpus()[0]
    return [texts[0], texts[33], texts[71], " ".join(texts[5].split()[:20] + texts[100].split()[:20]),
            "", "unknownword", "W001 w001, w002!"]


def _same(a, b, tol=TOL):
    assert [h["id"] for h in a] == [h["id"] for h in b]
    np.testing.assert_allclose([h["score"] for h in a], [h["score"] for h in b], rtol=0, atol=tol)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    root = tmp_path_factory.mktemp("relative-normalized")
    return Index.build(root / "idx", _model(True), texts, ids, meta, dtype="float64")


def test_the_fitted_model_scores_by_the_weighted_cosine():
    pipe = _model(True)
    metric = pipe.metric
    assert metric.normalize is True and pipe.scorer.kind == "distance"
    X = pipe.vectorizer.transform(corpus()[0])
    E = metric.transform(X)
    norms = np.sqrt(np.asarray(E.multiply(E).sum(axis=1)).ravel())
    assert np.allclose(norms[norms > 0], 1.0)
    # the prior and the option travel to the fit's report
    assert "cosine" in metric.baseline_gain_.baseline


def test_index_search_equals_the_pipeline_search_with_and_without_the_plan(built, tmp_path):
    texts, _, ids, _ = corpus()
    pipe = _model(True)
    assert built.info()["query_plan"]
    plan = json.loads((built.path / built.manifest["plan_dir"] / "plan.json").read_text())
    assert plan["model"] == {"op": "diagonal", "normalize": True}
    queries = _queries()
    memory = [[{"id": ids[h["corpus_id"]], "score": h["score"]} for h in hits]
              for hits in pipe.search(queries, texts, k=10)]
    planned = built.search(queries, k=10)
    for a, b in zip(planned, memory):
        _same(a, b)
    slow = without_plan(built.path, tmp_path)
    for a, b in zip(slow.search(queries, k=10), memory):
        _same(a, b)
    # the weighted-cosine ranking by hand, for a query with words: d = sqrt(2 - 2 cos_w)
    w = pipe.metric.weights_
    X = pipe.vectorizer.transform(texts).toarray()
    q = pipe.vectorizer.transform([queries[3]]).toarray()[0]
    cos = (X * w) @ q / (np.sqrt((X * X) @ w) * np.sqrt((q * q) @ w))
    hits = planned[3]
    np.testing.assert_allclose([h["score"] for h in hits],
                               np.sqrt(np.maximum(2 - 2 * cos[[int(h["id"][1:]) for h in hits]], 0)), atol=1e-7)
    assert [int(h["id"][1:]) for h in hits][:3] == list(np.argsort(-cos, kind="stable")[:3])


def test_a_plan_without_the_flag_is_the_unnormalised_distance():
    """Plans written before the option ({"op": "diagonal"}) keep their meaning."""
    from learnsim.index._query import QueryPlan

    meta = {"tokenizer": {"lowercase": True, "token_pattern": r"(?u)\b\w\w+\b", "stop_words": None, "stem": None,
                          "ngram_range": [1, 1]},
            "weighting": {"kind": "tf", "sublinear_tf": False, "norm": None, "k1": 1.2, "b": 0.75, "avgdl": 1.0,
                          "dtype": "float64"},
            "model": {"op": "diagonal"}, "arrays": ["weights"]}
    weights = np.array([4.0, 1.0, 0.0])
    old = QueryPlan(meta, {"weights": weights}, ["aa", "bb", "cc"]).rows(["aa bb bb cc"])
    new = QueryPlan(dict(meta, model={"op": "diagonal", "normalize": True}), {"weights": weights},
                    ["aa", "bb", "cc"]).rows(["aa bb bb cc"])
    np.testing.assert_allclose(old.sparse[0][1], [2.0, 2.0, 0.0])
    assert old.sq[0] == pytest.approx(8.0)
    np.testing.assert_allclose(new.sparse[0][1], np.array([2.0, 2.0, 0.0]) / np.sqrt(8.0))
    assert new.sq[0] == pytest.approx(1.0)


def test_an_unnormalised_model_writes_the_flag_false(tmp_path):
    texts, _, ids, meta = corpus()
    idx = Index.build(tmp_path / "plain", _model(False), texts, ids, meta, dtype="float64")
    plan = json.loads((idx.path / idx.manifest["plan_dir"] / "plan.json").read_text())
    assert plan["model"] == {"op": "diagonal", "normalize": False}
    texts_q = _queries()
    memory = [[{"id": ids[h["corpus_id"]], "score": h["score"]} for h in hits]
              for hits in _model(False).search(texts_q, texts, k=10)]
    for a, b in zip(idx.search(texts_q, k=10), memory):
        _same(a, b)


def test_an_explained_hit_explains_the_distance_ranked(built):
    """The explanation's score is the hit's (the distance between the unit rows), and its words
    split the squared distance."""
    query = _queries()[3]
    for hit in built.search(query, k=5, explain=True, n_top=50):
        e = hit["explanation"]
        assert e["score"] == pytest.approx(hit["score"], abs=TOL)
        assert e["squared_distance"] == pytest.approx(hit["score"] ** 2, abs=TOL)
    e = _model(True).explain(query, corpus()[0][5], n_top=5)
    assert e["reference_squared_distance"] == pytest.approx(1.0)      # a unit query row to an empty document
