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
    # relevance is every link of a held-out document; the linked documents a training link also
    # names are its warm part, the rest its cold part (a document may have both)
    assert report.measure == "nDCG@10" and report.cold is not None
    assert 0 < report.cold["n_units"] <= report.n_units
    assert report.cold["n_units"] + (report.warm or {}).get("n_units", 0) >= report.n_units
    assert f"searching all {len(texts)} documents" in result.report["held_out"]
    assert set(result.report["baseline_scores"]) == {"bm25", "cosine"}
    strongest = report.detail["strongest_baseline"]
    # chosen on every linked document (here every one), not only the held-out ones
    assert report.detail["strongest_chosen_on"] == len(texts) > report.n_units
    assert report.detail[f"judged_{strongest}"] == max(report.detail["judged_bm25"], report.detail["judged_cosine"])
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


def test_remembering_the_linked_documents_passes_warm_and_fails_the_cold_part(monkeypatch):
    """A weighting that remembered which documents the training links name (it ranks them by how
    often they were linked) finds a held-out document's linked documents that training named, as a
    check among training documents would see, and buries the held-out ones: the cold part catches
    it and the fit is the strongest baseline."""
    import scipy.sparse as sp

    import learnsim.pipeline
    from learnsim._fit_common import Fitted
    from learnsim.baseline import LexicalBaselines
    from learnsim._search_checks import checked_links_search
    from learnsim.fitting import FitOptions

    rng = np.random.default_rng(3)
    n_topics, hubs, plain = 8, 3, 22
    topic = np.repeat(np.arange(n_topics), hubs + plain)
    words = [[f"t{t}w{i}" for i in range(25)] for t in range(n_topics)]
    texts = [" ".join(rng.choice(words[t], 12)) for t in topic]
    n = len(texts)
    is_hub = np.tile(np.r_[np.ones(hubs, bool), np.zeros(plain, bool)], n_topics)
    pairs = []
    for i in np.flatnonzero(~is_hub):
        mates = np.flatnonzero((topic == topic[i]) & (np.arange(n) != i))
        pairs += [(i, int(j)) for j in rng.choice(mates[is_hub[mates]], 2, replace=False)]
        pairs += [(i, int(j)) for j in rng.choice(mates[~is_hub[mates]], 2, replace=False)]
    A = sp.coo_matrix((np.ones(len(pairs)), tuple(np.asarray(pairs).T)), shape=(n, n)).tocsr()
    A = ((A + A.T) > 0).astype(np.float64).tocsr()
    held = np.sort(rng.choice(np.flatnonzero(~is_hub), n // 5, replace=False))
    rest = np.setdiff1d(np.arange(n), held)
    degree = np.zeros(n)
    degree[rest] = np.asarray(A[rest][:, rest].sum(axis=1)).ravel()
    trained = np.flatnonzero(degree > 0)
    lex = LexicalBaselines(texts)

    class Remembers:                  # the cosine, times how often the training links named a document
        scoring = "remembers"

        def searcher(self, documents):
            return self

        def closeness(self, queries):
            return np.asarray(lex.scores("cosine", lex.query_counts(queries))) * (1.0 + degree)

    real = learnsim.pipeline.Pipeline.from_parts.__func__
    monkeypatch.setattr(learnsim.pipeline.Pipeline, "from_parts", classmethod(
        lambda cls, parts: Remembers() if "remembers" in parts else real(cls, parts)))
    summary = {}
    fitted = Fitted(summary, {"remembers": True}, 0.0, 0.0)
    with pytest.warns(UserWarning):
        result = checked_links_search(FitOptions(random_state=0), texts, (held, A[held], trained, A),
                                      "a test", summary, fitted)
    report = BaselineGain.from_dict(summary["search_baseline_gain"])
    # the part a link split among training documents sees: the documents training named
    assert report.warm is not None and report.warm["ci_low"] > 0
    assert report.cold is not None and report.cold["ci_high"] < 0
    assert report.fell_back and summary["model"] == report.detail["strongest_baseline"]
    assert result is fitted
    assert learnsim.pipeline.Pipeline.from_parts(result.parts).scoring in ("BM25", "tf.idf cosine")


def test_another_language_gets_no_english_stop_words_or_stems():
    # linklearn's English stop list and Porter stems (paper 002) were applied whatever the texts'
    # language: given --language fr, "nationales" was the term "national" and "on" was dropped
    texts, links = _linked(2)
    texts = [f"les économies nationales on {t}" for t in texts]
    fit = learnsim.fitting.fit

    def vectorizer(**kw):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fit(texts, links=links, baseline_holdout=None, max_iter=20, **kw).pipeline.vectorizer

    french = vectorizer(language="fr")
    assert french.stop_words is None and french.stem is None
    assert {"nationales", "économies", "on"} <= set(french.vocabulary_)
    # English (or no language given) keeps the paper's defaults, and asked for they still apply
    assert vectorizer(language="en-GB").stop_words == vectorizer().stop_words == "english"
    assert vectorizer(language="fr", stop_words="english").stop_words == "english"
