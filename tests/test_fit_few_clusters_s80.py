"""A fit on clusters too few to hold two out and learn from two ends as the strongest baseline,
chosen on the clustered items as queries, as judgements too few to check do
(:func:`learnsim.baseline.baseline_of_judgements`), not as the unchecked learned model.

Found: a new user's 60 Chinese notes in 3 topics got mcd, unchecked, searching a weather
question to three food notes (nDCG@10 0.600 against BM25's 0.752 in ``learnsim evaluate``).
"""
import warnings

import numpy as np
import pytest

from learnsim._baseline_models import baseline_pipeline
from learnsim.datasets import make_clustered_corpus
from learnsim.fitting import fit


def _corpus(n_clusters=3, per=10, seed=0):
    corpus = make_clustered_corpus(n_clusters=n_clusters, docs_per_cluster=per, random_state=seed)
    return list(corpus.data), [int(c) for c in corpus.target]


def _fit(texts, labels, **options):
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        result = fit(texts, clusters=labels, **options)
    return result, [w for w in said if issubclass(w.category, UserWarning)]


@pytest.mark.parametrize("method", ["mcd", "film"])
def test_three_clusters_end_as_the_strongest_baseline_chosen_on_the_clustered_items(method):
    texts, labels = _corpus()
    result, said = _fit(texts, labels, method=method)
    report = result.report
    gain = report["search_baseline_gain"]
    assert gain["status"] == "baseline"
    assert "too few" in gain["reason"] and "3 cluster" in gain["reason"]
    assert report["model"] in ("bm25", "cosine") and report["strongest_baseline"] == report["model"]
    detail = gain["detail"]
    # every clustered item asks for its cluster mates (30 here: fewer than the sample's cap)
    assert detail["strongest_chosen_on"] == len(texts)
    judged = {name: detail[f"judged_{name}"] for name in ("bm25", "cosine")}
    assert judged[report["model"]] == max(judged.values())
    assert 0.0 < gain["baseline_score"] <= 1.0
    assert result.pipeline.method == "baseline"
    # the model searches as the baseline's own pipeline does
    plain = baseline_pipeline(report["model"], texts)
    for q in (0, 11, 25):
        got = [h["corpus_id"] for h in result.pipeline.search(texts[q], texts, k=10)]
        assert got == [h["corpus_id"] for h in plain.search(texts[q], texts, k=10)]
    # one warning, the search check's: it says what the model became
    assert len(said) == 1, [str(w.message) for w in said]
    assert "strongest baseline" in str(said[0].message)


def test_checks_turned_off_keep_the_unchecked_mcd_model():
    texts, labels = _corpus()
    result, _ = _fit(texts, labels, baseline_holdout=None)
    assert result.pipeline.method == "MinimumClusterDistortion"
    assert "search_baseline_gain" not in result.report


def test_enough_clusters_are_still_checked_on_held_out_clusters():
    texts, labels = _corpus(n_clusters=6, per=6)
    result, _ = _fit(texts, labels)
    gain = result.report["search_baseline_gain"]
    assert gain["status"] in ("learned", "baseline")
    assert "held_out" in result.report and gain["n_units"] >= 2
    assert "too few" not in (gain["reason"] or "") or "hold two out" not in gain["reason"]


def test_single_items_and_unlabelled_texts_are_documents_not_queries():
    texts, labels = _corpus()
    labels = labels[:]
    labels[0], labels[1] = -1, 7        # an unlabelled text, a cluster of one
    result, _ = _fit(texts, labels)
    detail = result.report["search_baseline_gain"]["detail"]
    assert detail["strongest_chosen_on"] == len(texts) - 2
    assert "3 cluster" in result.report["search_baseline_gain"]["reason"]


def test_a_large_cluster_is_sampled_not_made_into_millions_of_pairs():
    from learnsim._search_checks import few_cluster_judgements

    y = np.repeat([0, 1, 2], 5000)
    y[:10] = -1
    queries, relevant = few_cluster_judgements(y, random_state=0)
    assert 2 <= len(queries) <= 300
    assert sum(len(r) for r in relevant) <= 1_000_000
    for q, rel in zip(queries, relevant):
        mates = np.flatnonzero(y == y[q])
        assert q not in rel and set(rel) == set(mates.tolist()) - {q}
    # seeded: the same sample again; the clusters all asked
    again, _ = few_cluster_judgements(y, random_state=0)
    assert list(again) == list(queries)
    assert set(y[list(queries)].tolist()) == {0, 1, 2}


def test_with_an_encoder_its_cosine_is_among_the_baselines_chosen_from():
    from encoder_fakes import HashedWordEncoder

    texts, labels = _corpus()
    result, said = _fit(texts, labels, encoder=HashedWordEncoder())
    gain = result.report["search_baseline_gain"]
    assert gain["status"] == "baseline" and "judged_encoder" in gain["detail"]
    assert result.report["model"] in ("bm25", "cosine", "encoder", "encoder+bm25")
    assert result.pipeline.method == "baseline" or isinstance(result.pipeline.vectorizer, HashedWordEncoder)
    assert len(said) == 1, [str(w.message) for w in said]
