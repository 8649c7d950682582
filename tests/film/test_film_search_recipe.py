"""FILM fitted on pairs is checked as search is used (issue 42): held-out queries and documents,
the whole collection, the strongest baseline; a FILM that only remembers the judged documents
passes a check on held-out pairs and must fail this one."""
import warnings

import numpy as np
import pytest

import learnsim
import learnsim.fitting
from learnsim.baseline import BaselineGain, LexicalBaselines
from learnsim.exceptions import BaselineWarning

from retrieval_fakes import ndcg, nickname_collection


def _unit(M):
    M = np.asarray(M, dtype=np.float64)
    return M / np.maximum(np.linalg.norm(M, axis=1, keepdims=True), 1e-12)


@pytest.fixture(scope="module")
def collection():
    return nickname_collection(seed=0)


def _fit(docs, train, **options):
    rows = [(q, docs[d], 1) for q, d in train]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return learnsim.fitting.fit(pairs=rows, corpus=docs, method="film", **options)


def test_remembering_passes_on_judged_documents_and_fails_the_cold_part(collection):
    docs, train, warm, cold = collection
    lex = LexicalBaselines(docs)
    bm25 = {name: ndcg(lex.scores("bm25", lex.query_counts([q for q, _ in part])), part, docs)
            for name, part in (("warm", warm), ("cold", cold))}
    # FILM's own cosine (the paper's rule) remembers: far better than BM25 on queries about judged
    # documents (what a check on held-out pairs measures), far worse on the others
    model = _fit(docs, train, baseline_holdout=None).pipeline
    film = model.metric

    def learned(part):
        Q = _unit(film.transform(model.vectorizer.transform([q for q, _ in part])))
        D = _unit(film.transform(model.vectorizer.transform(docs)))
        return ndcg(Q @ D.T, part, docs)
    assert type(film).__name__ == "FILM"
    assert learned(warm) > bm25["warm"] + 0.05
    assert learned(cold) < bm25["cold"] - 0.1
    # checked on held-out queries and documents, the fit does not keep it
    result = _fit(docs, train)
    report = BaselineGain.from_dict(result.report["baseline_gain"])
    assert report.cold is not None and report.warm is not None
    assert not (report.status == "learned" and report.cold["ci_high"] < 0)
    # the judged queries cannot tell the tf.idf cosine (0.420) from BM25 (0.412) with ties counted
    # at their mean gain; BM25 holds up on plain queries made from unjudged documents (0.80 against
    # about 0.73), so it is the baseline, and nothing that falls below it there is kept
    assert report.detail["probe_n_units"] >= 30
    assert report.detail["strongest_chosen_by"] == "probes" and report.baseline == "BM25"
    assert not (report.status == "learned" and report.detail["probe_ci_high"] < 0)
    assert ndcg(result.pipeline, cold, docs) >= 0.97 * bm25["cold"]
    assert ndcg(result.pipeline, warm, docs) >= 0.97 * bm25["warm"]


def test_a_fit_that_ends_as_bm25_says_so_and_ranks_exactly_as_bm25(collection, tmp_path):
    docs, train, warm, cold = collection
    rows = [(q, docs[d], 1) for q, d in train]
    with pytest.warns(BaselineWarning, match="BM25"):
        result = learnsim.fitting.fit(pairs=rows, corpus=docs, method="film")
    model = result.pipeline
    assert result.report["model"] == "bm25" and model.scoring == "BM25"
    lex = LexicalBaselines(docs)
    queries = [q for q, _ in warm + cold]
    expected = lex.scores("bm25", lex.query_counts(queries))
    got = model.similarity(queries, docs)
    # the same scores (float32 document weights in the model) and so the same order
    assert np.allclose(got, expected, rtol=1e-5, atol=1e-5)
    hits = model.search(queries, docs, k=10)
    for row, scores in zip(hits, expected):
        top = [h["corpus_id"] for h in row]
        # BM25's order over the documents sharing a word with the query (the rest score 0: no hits)
        assert np.allclose(scores[top], np.sort(scores[scores != 0])[::-1][:10], rtol=1e-5, atol=1e-5)
    # an index of the model serves the same ranking, from its numpy query plan
    from learnsim.index import Index

    with Index.build(tmp_path / "idx", model, docs, ids=[str(i) for i in range(len(docs))]) as index:
        assert index.scoring == "BM25" and index.info()["query_plan"]
        for found, row in zip(index.search(queries, k=10), hits):
            assert [int(h["id"]) for h in found] == [h["corpus_id"] for h in row]
            np.testing.assert_allclose([h["score"] for h in found], [h["score"] for h in row], rtol=1e-5)


def test_a_learner_that_generalises_is_kept_with_its_cold_gain_reported():
    """Queries whose words are synonyms of their documents' words, the same synonyms everywhere:
    a map learned on some documents carries over to documents no pair judged."""
    rng = np.random.default_rng(1)
    vocab = [f"w{i}" for i in range(120)]
    synonym = {w: f"s{w[1:]}" for w in vocab}
    docs = [" ".join(rng.choice(vocab, 12)) for _ in range(260)]

    def query(d):
        words = rng.choice(docs[d].split(), 4, replace=False)
        return " ".join(synonym[w] if rng.random() < 0.75 else w for w in words)

    train = [(query(d), d) for d in range(160) for _ in range(2)]
    result = _fit(docs, train)
    report = BaselineGain.from_dict(result.report["baseline_gain"])
    assert report.status == "learned", report.summary()
    assert report.cold is not None and report.cold["gain"] > 0
    cold = [(query(d), d) for d in range(160, 260)]
    lex = LexicalBaselines(docs)
    bm25 = ndcg(lex.scores("bm25", lex.query_counts([q for q, _ in cold])), cold, docs)
    assert ndcg(result.pipeline, cold, docs) > bm25


def test_over_an_encoder_remembering_fails_the_cold_part_too(collection):
    """The encoder path: FILM over a (fake) encoder's vectors learns the nicknames too; the check
    keeps nothing that loses on the cold part, and the model is not below the better of BM25 and
    the encoder alone on cold queries."""
    from encoder_fakes import HashedWordEncoder
    from learnsim import Pipeline

    docs, train, warm, cold = collection
    encoder = HashedWordEncoder()
    result = _fit(docs, train, encoder=encoder)
    report = BaselineGain.from_dict(result.report["baseline_gain"])
    assert set(result.report["baseline_scores"]) == {"bm25", "cosine", "encoder", "encoder+bm25"}
    assert report.cold is not None
    assert not (report.status == "learned" and report.cold["ci_high"] < 0)
    lex = LexicalBaselines(docs)
    bm25 = ndcg(lex.scores("bm25", lex.query_counts([q for q, _ in cold])), cold, docs)
    alone = ndcg(Pipeline.from_encoder(encoder), cold, docs)
    assert ndcg(result.pipeline, cold, docs) >= 0.97 * max(bm25, alone)


def test_the_cluster_search_check_chooses_the_input_weight_without_the_held_out_clusters(monkeypatch):
    # FILM's input weight w was chosen on clusters FILM held out of every cluster, then fixed for
    # the check's fit on the others: the check scored a w that may have seen its held-out clusters
    from learnsim.datasets import make_clustered_corpus

    c = make_clustered_corpus(n_clusters=10, docs_per_cluster=12, random_state=4)
    texts, labels = [str(t) for t in c.data], np.asarray(c.target)
    seen = []
    real = learnsim.fitting.film_with_supervision

    def spy(o, X, labels_, holdout, note):
        metric, y = real(o, X, labels_, holdout, note)
        seen.append((np.asarray(labels_).copy(), holdout, metric))
        return metric, y

    monkeypatch.setattr(learnsim.fitting, "film_with_supervision", spy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = learnsim.fitting.fit(texts, clusters=labels.tolist(), method="film", n_components=8, max_iter=30)
    assert "search_baseline_gain" in result.report
    assert len(seen) >= 2 and (seen[0][0] == labels).all() and seen[0][1] is not None
    check, holdout, probe = seen[1]
    # the check's FILM chose its own w (a held-out part of its own) on the training clusters alone
    assert holdout is not None and probe.baseline_gain_ is not None and probe.baseline_gain_.status != "unchecked"
    gone = {int(y) for y in np.unique(labels) if (check[labels == y] < 0).all()}
    kept = {int(y) for y in np.unique(labels) if (check[labels == y] == labels[labels == y]).all()}
    assert gone and kept and gone | kept == set(np.unique(labels).tolist())



def test_a_fits_language_names_its_baselines_and_the_bm25_it_ends_as(collection):
    # language="fr" (--language fr): the check's baselines and the BM25 the fit ends as read French
    # (its stop list, and its stems where PyStemmer is installed), the two alike
    docs, train, warm, cold = collection
    rows = [(q, docs[d], 1) for q, d in train]
    with pytest.warns(BaselineWarning, match="BM25"):
        result = learnsim.fitting.fit(pairs=rows, corpus=docs, method="film", language="fr")
    model = result.pipeline
    assert result.report["model"] == "bm25"
    params = model.vectorizer.get_params()
    assert params["stop_words"] == "french"
    assert params["stem"] == LexicalBaselines(docs, language="fr").stem
    lex = LexicalBaselines(docs, language="french")
    queries = [q for q, _ in warm + cold]
    assert np.allclose(model.similarity(queries, docs), lex.scores("bm25", lex.query_counts(queries)),
                       rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("rows", [
    # three texts, each a duplicate of the others
    [("how to reset password", "password reset help", 1), ("password reset help", "cannot reset my password", 1),
     ("how to reset password", "cannot reset my password", 1)],
    # the pair labelled 0 joins texts a chain of duplicates connects: no negative either
    [("how to reset password", "password reset help", 1), ("password reset help", "cannot reset my password", 1),
     ("how to reset password", "cannot reset my password", 0)],
    # one text, paired with itself
    [("same words", "same words", 1)] * 10,
], ids=["all-duplicates", "chained-negative", "one-text"])
def test_pairs_without_any_negative_are_refused_for_what_they_lack(rows):
    """Every text a duplicate of every other: FILM has no negative to contrast, and the error said
    every relevant pair used a text without a vocabulary term, which none did."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="no text the pairs judge can be a negative") as caught:
            learnsim.fit(pairs=rows, method="film")
    assert "vocabulary" not in str(caught.value)
