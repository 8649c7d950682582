"""An index serves the models that mix normalised BM25 into their search (issue 42) and the
baselines a fit may end as: build, search (explanations too), add, reindex, verify and a
promotion give what ``Pipeline.search`` gives on the same texts (ids, order, scores to float32
precision). The BM25 mixes have no query plan (the pipeline makes their query rows); BM25 and the
tf.idf cosine keep theirs, and so does a rule of BM25 alone (lambda = 1), whose query rows need
neither the encoder nor FILM's map."""
from __future__ import annotations

import numpy as np
import pytest

from bm25_models import MODELS, QUERIES, collection, mixed
from encoder_fakes import HashedWordEncoder, register
from learnsim._baseline_models import baseline_pipeline
from learnsim.index import Index

TOL = 1e-5          # the index keeps float32 rows


def _model(name):
    if name in ("bm25", "cosine"):
        return baseline_pipeline(name, collection()[:12])
    if name == "encoder+bm25":
        return baseline_pipeline(name, collection()[:12], encoder=HashedWordEncoder(), lexical_weight=0.3)
    return mixed(name, 0.4)


def _assert_same_hits(got, want):
    """The index's hits are the pipeline's: the same scores best first, the same ids where no
    other hit has the same score (float32 rounding may order equal scores either way)."""
    got_scores = np.array([h["score"] for h in got])
    want_scores = np.array([h["score"] for h in want])
    np.testing.assert_allclose(got_scores, want_scores, atol=TOL)
    for i, (g, w) in enumerate(zip(got, want)):
        tied = np.abs(want_scores - want_scores[i]) <= TOL
        if tied.sum() == 1:
            assert g["id"] == str(w["corpus_id"])


@pytest.mark.parametrize("name", MODELS + ("encoder+bm25", "bm25", "cosine"))
def test_an_index_searches_as_the_pipeline(name, tmp_path, monkeypatch):
    register(monkeypatch)
    p = _model(name)
    texts = collection()
    ids = [str(i) for i in range(len(texts))]
    with Index.build(tmp_path / "idx", p, texts, ids=ids) as idx:
        assert idx.scoring == p.scoring
        # a mix's query row needs the pipeline's dense part: no plan
        assert idx.info()["query_plan"] is (name in ("bm25", "cosine"))
        memory = p.search(QUERIES, texts, k=8)
        for got, want in zip(idx.search(QUERIES, k=8), memory):          # a batch of queries
            _assert_same_hits(got, want)
        for q, want in zip(QUERIES, memory):
            got = idx.search(q, k=8, explain=True)
            _assert_same_hits(got, want)
            for hit in got[:3]:
                e = hit["explanation"]
                assert e["score"] == pytest.approx(hit["score"], abs=TOL)
                # the words sum to the lexical part; FILM over term vectors splits its learned cosine
                # over the words too, so there they sum to the whole score
                whole = name == "term_film" or "lexical" not in e
                assert sum(w["contribution"] for w in e["words"]) + e["rest"] == pytest.approx(
                    e["score"] if whole else e["lexical"], abs=1e-9)
                if "dense" in e:
                    assert e["lexical"] + e["dense"] == pytest.approx(e["score"], abs=1e-9)
        assert idx.verify()["ok"]
    # opened again (the model read back from its file), it searches alike
    with Index.open(tmp_path / "idx") as again:
        for q, want in zip(QUERIES[:2], p.search(QUERIES[:2], texts, k=5)):
            _assert_same_hits(again.search(q, k=5), want)


@pytest.mark.parametrize("name", ["term_film", "encoder+bm25"])
def test_adds_use_the_builds_statistics_and_reindex_takes_the_new_collection(name, tmp_path, monkeypatch):
    register(monkeypatch)
    p = _model(name)
    texts = collection()
    new = ["rain and snow and a cat in the storm", "golf golf golf and tennis"]
    with Index.build(tmp_path / "idx", p, texts, ids=[str(i) for i in range(len(texts))]) as idx:
        idx.add(new, ids=["n0", "n1"])
        # the added documents' rows are those of the build's statistics
        stats = p.collection_statistics(texts)
        Q, D = p.query_rows(["golf tennis"], stats), p.document_rows(new, stats)
        want = (Q.sparse @ D.sparse.T).toarray()[0] + (Q.dense @ D.dense.T)[0]
        got = {h["id"]: h["score"] for h in idx.search("golf tennis", k=len(texts) + 2)}
        np.testing.assert_allclose([got["n0"], got["n1"]], want, atol=TOL)
        idx.reindex()
        everything = texts + new
        for q, want in zip(QUERIES, p.search(QUERIES, everything, k=6)):
            hits = idx.search(q, k=6)
            _assert_same_hits(hits, [dict(h, corpus_id=str(h["corpus_id"]) if h["corpus_id"] < len(texts)
                                          else f"n{h['corpus_id'] - len(texts)}") for h in want])
        assert idx.verify()["ok"]


def test_a_promotion_to_a_bm25_mix_serves_it(tmp_path, monkeypatch):
    register(monkeypatch)
    texts = collection()
    bm25, mix = _model("bm25"), _model("encoder+bm25")
    with Index.build(tmp_path / "idx", bm25, texts, ids=[str(i) for i in range(len(texts))]) as idx:
        idx.promote(idx.stage(mix))
        assert idx.scoring == mix.scoring == "hybrid (0.3 x BM25 + 0.7 x encoder cosine)"
        for q, want in zip(QUERIES, mix.search(QUERIES, texts, k=6)):
            _assert_same_hits(idx.search(q, k=6), want)
        idx.rollback()
        assert idx.scoring == "BM25"
        for q, want in zip(QUERIES, bm25.search(QUERIES, texts, k=6)):
            _assert_same_hits(idx.search(q, k=6), want)


@pytest.mark.parametrize("name", MODELS)
def test_bm25_alone_has_a_query_plan_that_needs_no_dense_part(name, tmp_path, monkeypatch):
    register(monkeypatch)
    p = mixed(name, 1.0)
    texts = collection()
    with Index.build(tmp_path / "idx", p, texts, ids=[str(i) for i in range(len(texts))]) as idx:
        assert idx.info()["query_plan"] is True and idx.scoring == "BM25"
    with Index.open(tmp_path / "idx") as again:      # the plan's rows: the pipeline is not loaded
        for q, want in zip(QUERIES, p.search(QUERIES, texts, k=6)):
            _assert_same_hits(again.search(q, k=6), want)
        assert again._pipeline is None
        hit = again.search(QUERIES[0], k=1, explain=True)[0]         # explained by the pipeline
        assert hit["explanation"]["lexical"] == pytest.approx(hit["score"], abs=TOL)
