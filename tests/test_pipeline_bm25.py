"""Normalised Okapi BM25 mixed into a model's search (issue 42): score(q, d) = lambda BM25(q, d) /
Z(q) + (1 - lambda) dense(q, d), Z(q) = (k1 + 1) x the sum of the idf of q's distinct words in
the collection; with lambda = 1 it ranks as BM25, with lambda = 0 as the dense part, and in
between it is the mix computed by hand; explanations split it exactly, a saved model scores
alike, and a rule it cannot score is refused. The baselines a fit may end as (BM25, the tf.idf
cosine, the encoder's cosine, their mix) rank exactly as ``learnsim evaluate``'s baselines.

Over the fake encoder of tests/encoder_fakes.py (no PyTorch) and a FILM on term vectors."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from bm25_models import (MODELS, QUERIES, bm25_by_hand, collection, dense_model, evaluate_counts, mixed, normalised_bm25,
                         stem, unit)
from encoder_fakes import HashedWordEncoder, register
from learnsim._baseline_models import BASELINE_MODELS, baseline_pipeline
from learnsim.film import SearchRule
from learnsim.pipeline import Pipeline
from learnsim.text import TextVectorizer
from learnsim.text.bm25 import BM25

def _assert_ranks_like(hits, scores, tol=1e-9):
    """One query's hits have the scores of ``scores`` best first; equal scores (to ``tol``) may
    come in either order, and ties in ``scores`` go to the lower index. A query with no word the
    model knows gets no hits: there every text scores 0."""
    if not hits:
        np.testing.assert_allclose(scores, 0.0, atol=tol)
        return
    order = np.argsort(-scores, kind="stable")[:len(hits)]
    got = np.array([h["corpus_id"] for h in hits])
    np.testing.assert_allclose([h["score"] for h in hits], scores[order], atol=tol)
    np.testing.assert_allclose(scores[got], scores[order], atol=tol)
    distinct = np.abs(np.diff(np.r_[np.inf, scores[order], -np.inf])) > tol
    sure = distinct[:-1] & distinct[1:]            # a hit whose score no neighbour shares
    np.testing.assert_array_equal(got[sure], order[sure])


@pytest.mark.parametrize("name", MODELS)
def test_a_mid_lambda_is_the_mix_computed_by_hand(name):
    corpus = collection()
    lam = 0.4
    p = mixed(name, lam)
    assert p.scoring.startswith("hybrid (0.4 x BM25 + 0.6 x ")
    expected = lam * normalised_bm25(QUERIES, corpus) + (1 - lam) * dense_model(name)[2](QUERIES, corpus)
    np.testing.assert_allclose(p.similarity(QUERIES, corpus), expected, atol=1e-9)
    # normalised BM25 lies in [0, 1): the lexical part never exceeds lambda
    assert (normalised_bm25(QUERIES, corpus) < 1).all()
    hits = p.search(QUERIES, corpus, k=6)
    for row, scores in zip(hits, expected):
        _assert_ranks_like(row, scores)


@pytest.mark.parametrize("name", MODELS)
def test_lambda_one_ranks_as_bm25(name):
    corpus = collection()
    p = mixed(name, 1.0)
    assert p.scoring == "BM25"
    S, z = bm25_by_hand(QUERIES, corpus)
    for row, scores, norm in zip(p.search(QUERIES, corpus, k=len(corpus)), S, z):
        _assert_ranks_like(row, scores / (norm if norm > 0 else 1.0))
        if not row:
            continue                # no word of the query in the collection (checked above)
        # the order of BM25 itself (ties to the lower index), over the documents sharing a word
        # with the query: the others score 0, any of them, and are no hits (as in an index)
        known = np.array([h["corpus_id"] for h in row])
        np.testing.assert_allclose(scores[known], np.sort(scores[scores != 0])[::-1], atol=1e-9)


def test_lambda_one_ranks_as_bm25_where_a_tiny_collection_would_make_the_idf_negative():
    """rank_bm25's floor of the okapi idf is negative where most words occur in more than half
    of the documents, and 0 for a word in exactly half ("dog"): a shared word lowered a score or
    added nothing. The floor is positive here (learnsim.text.bm25.bm25_idf): every document
    sharing a word with the query scores above those sharing none, and the search ranks as
    normalised BM25."""
    texts, queries = ["cat dog", "cat dog dog", "cat bird", "fish cat cat"], ["cat", "bird", "dog"]
    S, z = bm25_by_hand(queries, texts)
    assert (z > 0).all() and (S[0] > 0).all()
    assert (S[2][:2] > 0).all() and (S[2][2:] == 0).all()      # dog, in exactly half of them
    p = mixed("encoder_cosine", 1.0)
    normalised = S / np.where(z > 0, z, 1.0)[:, None]        # a positive factor per query: BM25's order
    np.testing.assert_allclose(p.similarity(queries, texts), normalised, atol=1e-12)
    for row, scores in zip(p.search(queries, texts, k=4), normalised):
        _assert_ranks_like(row, scores)


@pytest.mark.parametrize("name", MODELS)
def test_lambda_zero_ranks_as_the_dense_part(name):
    corpus = collection()
    dense, _, similarity = dense_model(name)
    p = mixed(name, 0.0)
    assert p.scoring == dense.scoring
    for row, scores in zip(p.search(QUERIES, corpus, k=8), similarity(QUERIES, corpus)):
        _assert_ranks_like(row, scores)
    assert p.search(QUERIES, corpus, k=8) == dense.search(QUERIES, corpus, k=8)


@pytest.mark.parametrize("name", MODELS)
def test_explanations_split_the_score_over_the_shared_words(name):
    corpus = collection()
    lam = 0.4
    p = mixed(name, lam)
    S = p.similarity(QUERIES[:1], corpus)[0]
    S_bm25, z = bm25_by_hand(QUERIES[:1], corpus)
    for doc in np.argsort(-S)[:3]:
        e = p.explain(QUERIES[0], corpus[doc], corpus=corpus)
        assert e["lexical_kind"] == "bm25" and e["lexical_weight"] == lam
        assert e["score"] == pytest.approx(S[doc], abs=1e-9)
        # FILM over term vectors splits its learned part over words ("learned"); an encoder's is one number ("dense")
        assert e["lexical"] + e["learned" if name == "term_film" else "dense"] == pytest.approx(e["score"], abs=1e-9)
        assert e["lexical"] == pytest.approx(lam * S_bm25[0, doc] / z[0], abs=1e-9)
        full = p.explain(QUERIES[0], corpus[doc], corpus=corpus, n_top=10_000)
        if name == "term_film":
            # FILM's learned cosine over term vectors splits over the words too: every word sums to the score
            assert sum(w["contribution"] for w in full["words"]) == pytest.approx(e["score"], abs=1e-9)
            assert full["word_pairs"] and abs(full["rest"]) <= 1e-9
        else:
            # a sentence embedding's cosine is one number: the words sum to the BM25 part
            assert sum(w["contribution"] for w in e["words"]) + e["rest"] == pytest.approx(e["lexical"], abs=1e-9)
            # a word adds lambda x its BM25 weight in the document / Z(q): positive, and only shared words
            spans = {t for _, _, t in p.term_spans(corpus[doc])}
            assert all(w["contribution"] > 0 and w["word"] in spans for w in e["words"])
    # statistics= instead of corpus=: the same explanation
    stats = p.collection_statistics(corpus)
    assert p.explain(QUERIES[0], corpus[0], statistics=stats) == p.explain(QUERIES[0], corpus[0], corpus=corpus)


@pytest.mark.parametrize("name", MODELS)
def test_rows_and_statistics_give_the_search_scores(name):
    """What an index stores: document rows under the collection's statistics, query rows against them."""
    corpus = collection()
    p = mixed(name, 0.3)
    stats = p.collection_statistics(corpus)
    assert {"vocabulary_df", "vocabulary_n_documents", "vocabulary_avgdl"} <= set(stats)
    D, Q = p.document_rows(corpus, stats), p.query_rows(QUERIES, stats)
    S = (Q.sparse @ D.sparse.T).toarray() + Q.dense @ D.dense.T
    np.testing.assert_allclose(S, p.similarity(QUERIES, corpus), atol=1e-9)
    # documents added later are weighted by the collection's statistics, not their own
    np.testing.assert_allclose(p.document_rows(corpus[:3], stats).sparse.toarray(), D.sparse[:3].toarray(), atol=1e-12)


@pytest.mark.parametrize("name", MODELS)
def test_a_saved_model_loads_and_scores_alike(name, tmp_path, monkeypatch):
    register(monkeypatch)
    corpus = collection()
    p = mixed(name, 0.4)
    path = tmp_path / "model.npz"
    p.save(path)
    back = Pipeline.load(path)
    assert back.search_rule.lexical_kind == "bm25" and back.search_rule.lexical_weight == 0.4
    assert back.scoring == p.scoring
    assert back.search(QUERIES, corpus, k=5) == p.search(QUERIES, corpus, k=5)


def test_a_rule_it_cannot_score_is_refused():
    dense, _, _ = dense_model("term_film")
    counts = evaluate_counts(collection())
    # over term vectors, BM25 and the input cosine would need two collection vocabularies
    both = SearchRule(input_weight=0.5, lexical_weight=0.4, lexical_kind="bm25")
    with pytest.raises(ValueError, match=r"input_weight 0\.5.*lexical_kind 'bm25'|lexical_kind 'bm25'.*input_weight 0\.5"):
        Pipeline(dense.vectorizer, dense.metric, search=both, lexical=counts)
    # lambda 0: no BM25 in it, the rule is the mixed cosine
    Pipeline(dense.vectorizer, dense.metric, search=SearchRule(0.5, lexical_weight=0.0, lexical_kind="bm25"))
    rule = SearchRule(input_weight=0.0, lexical_weight=0.4, lexical_kind="bm25")
    with pytest.raises(ValueError, match="mixes BM25 in.*give its vectoriser as lexical="):
        Pipeline(dense.vectorizer, dense.metric, search=rule)
    with pytest.raises(ValueError, match="must count terms"):
        Pipeline(dense.vectorizer, dense.metric, search=rule, lexical=TextVectorizer(norm="l2").fit(collection()))
    with pytest.raises(ValueError, match="lexical_kind must be one of 'tfidf', 'bm25'; got 'bm42'"):
        SearchRule(1.0, lexical_weight=0.4, lexical_kind="bm42")
    with pytest.raises(ValueError, match=r"lexical_weight must be a number in \[0, 1\]"):
        SearchRule(1.0, lexical_weight=1.5, lexical_kind="bm25")


def test_the_search_rule_state_keeps_the_kind_and_old_states_are_tfidf():
    rule = SearchRule(1.0, lexical_weight=0.3, lexical_kind="bm25")
    meta, arrays = rule._get_state()
    assert meta["lexical_kind"] == "bm25"
    assert SearchRule._from_state(meta, arrays).lexical_kind == "bm25"
    # a rule saved before the kind existed: the tf.idf cosine
    del meta["lexical_kind"]
    old = SearchRule._from_state(meta, arrays)
    assert old.lexical_kind == "tfidf" and old.lexical_weight == 0.3
    with pytest.raises(ValueError, match="lexical_kind"):
        SearchRule._from_state(dict(meta, lexical_kind="okapi"), arrays)
    with pytest.raises(ValueError, match="lexical_weight"):
        SearchRule._from_state(dict(meta, lexical_weight=-0.1), arrays)
    assert rule.describe().startswith("0.3 x BM25")


# ---------------------------------------------------------------------------- the baselines
def _evaluate_baselines(queries, corpus):
    """BM25 and tf.idf cosine scores as ``learnsim evaluate --queries`` computes its baselines."""
    from learnsim.linklearn import CosineIndex, idf_from_counts, tfidf_cosine_weights

    vec = TextVectorizer("tf", stop_words="english", stem=stem(), dtype=np.float64)
    D = sp.csr_matrix(vec.fit_transform(corpus), dtype=np.float64)
    Q = sp.csr_matrix(vec.transform(queries), dtype=np.float64)
    idf = idf_from_counts(D)
    return {"bm25": np.asarray(BM25(k1=1.5, b=0.6, dtype=np.float64).fit(D).score(Q), dtype=np.float64),
            "cosine": np.asarray(CosineIndex(idf=idf, dtype=np.float64).fit(tfidf_cosine_weights(D, idf)).score(Q),
                                 dtype=np.float64)}


@pytest.mark.parametrize("name", ["bm25", "cosine"])
def test_the_lexical_baselines_rank_as_learnsim_evaluate(name, tmp_path):
    corpus = collection()
    fitted_on = collection()[:12] + ["words the collection never saw"]       # the collection's words count
    p = baseline_pipeline(name, fitted_on)
    assert p.scoring == {"bm25": "BM25", "cosine": "tf.idf cosine"}[name]
    # a LinkLearn or LearnedBM25 object holds it: reports name it the baseline, not that method
    assert p.method == "baseline" and repr(p) == f"Pipeline(method=baseline, scoring={p.scoring!r})"
    expected = _evaluate_baselines(QUERIES, corpus)[name]
    for row, scores in zip(p.search(QUERIES, corpus, k=len(corpus)), expected):
        # the index keeps float32 weights: scores to float32 precision
        _assert_ranks_like(row, scores, tol=1e-6)
    p.save(tmp_path / "m.npz")
    back = Pipeline.load(tmp_path / "m.npz")
    assert back.scoring == p.scoring and back.search(QUERIES, corpus, k=5) == p.search(QUERIES, corpus, k=5)
    from learnsim.index import Index

    with Index.build(tmp_path / "idx", p, corpus) as index:
        assert index.info()["method"] == "baseline" and repr(index).endswith(f"baseline: {p.scoring})")


def test_the_encoder_baselines(tmp_path, monkeypatch):
    register(monkeypatch)
    corpus = collection()
    enc = HashedWordEncoder()
    plain = baseline_pipeline("encoder", encoder=enc)
    assert plain.scoring == "encoder cosine" and plain.method == "EncoderCosine"
    mix = baseline_pipeline("encoder+bm25", corpus, encoder=enc, lexical_weight=0.25)
    assert mix.scoring == "hybrid (0.25 x BM25 + 0.75 x encoder cosine)"
    E = unit(enc.transform(QUERIES)) @ unit(enc.transform(corpus)).T
    np.testing.assert_allclose(mix.similarity(QUERIES, corpus), 0.25 * normalised_bm25(QUERIES, corpus) + 0.75 * E,
                               atol=1e-6)
    assert baseline_pipeline("encoder+bm25", corpus, encoder=enc, lexical_weight=1.0).scoring == "BM25"
    assert baseline_pipeline("encoder+bm25", corpus, encoder=enc, lexical_weight=0.0).scoring == "encoder cosine"
    mix.save(tmp_path / "mix.npz")
    assert Pipeline.load(tmp_path / "mix.npz").search(QUERIES, corpus, k=4) == mix.search(QUERIES, corpus, k=4)


def test_baseline_arguments_are_checked():
    assert BASELINE_MODELS == ("bm25", "cosine", "encoder", "encoder+bm25")
    with pytest.raises(ValueError, match="name must be one of"):
        baseline_pipeline("okapi", collection())
    with pytest.raises(ValueError, match="needs texts="):
        baseline_pipeline("bm25")
    with pytest.raises(ValueError, match="needs encoder="):
        baseline_pipeline("encoder+bm25", collection(), lexical_weight=0.5)
    with pytest.raises(ValueError, match=r"lexical_weight must be a number in \[0, 1\]"):
        baseline_pipeline("encoder+bm25", collection(), encoder=HashedWordEncoder(), lexical_weight=None)
