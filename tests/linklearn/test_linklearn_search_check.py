"""A weighting learned from links is checked as search is used (issue 42): the documents its own
check held out (the model never saw them) each search every document for those they link with,
against the strongest of BM25 and the tf.idf cosine; a fit that does not beat it is that baseline."""
import warnings

import numpy as np
import pytest

import learnsim.fitting
from learnsim.baseline import BaselineGain


def _linked(seed=0):
    from learnsim.datasets import make_clustered_corpus

    c = make_clustered_corpus(n_clusters=8, docs_per_cluster=20, vocab_size=500, topic_words=20, random_state=seed)
    texts, y = [str(t) for t in c.data], np.asarray(c.target)
    rng = np.random.default_rng(seed)
    links = [(i, int(j)) for i in range(len(texts))
             for j in rng.choice(np.flatnonzero((y == y[i]) & (np.arange(len(y)) != i)), 3, replace=False)]
    return texts, links


@pytest.mark.parametrize("variant", ["paper", "bm25"])
def test_the_held_out_documents_search_the_whole_collection_against_the_strongest_baseline(variant):
    texts, links = _linked()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = learnsim.fitting.fit(texts, links=links, variant=variant, max_iter=1500 if variant == "paper" else 20)
    report = BaselineGain.from_dict(result.report["search_baseline_gain"])
    assert report.measure == "nDCG@10" and report.cold is not None and report.cold["n_units"] == report.n_units
    assert f"searching all {len(texts)} documents" in result.report["held_out"]
    assert set(result.report["baseline_scores"]) == {"bm25", "cosine"}
    strongest = report.detail["strongest_baseline"]
    if report.status == "learned":
        assert result.report["model"] == "learned" and report.ci_low > 0
    else:
        # the model is the strongest baseline: BM25 or the tf.idf cosine, as its scoring says
        assert result.report["model"] == strongest
        assert result.pipeline.scoring == {"bm25": "BM25", "cosine": "tf.idf cosine"}[strongest]


def test_unchecked_keeps_the_learned_family():
    texts, links = _linked(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = learnsim.fitting.fit(texts, links=links, baseline_holdout=None, max_iter=500)
    assert type(result.pipeline.metric).__name__ == "LinkLearn" and "search_baseline_gain" not in result.report
