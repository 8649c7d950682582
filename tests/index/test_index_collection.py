"""Every model applies to the searched collection (issue 32, part 6): the lexical part of the
scoring takes the collection's vocabulary, document frequencies and lengths in Python, in
``search --corpus`` and in an index (build, add, reindex, the query plan), so words the fit never
saw count; a FILM whose search fell back to the input cosine is the plain tf-idf cosine fitted on
the collection. Old indexes keep their vocabulary until reindex; damaged statistics are found."""
from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import run_cli
from index_models import corpus, model

from learnsim import Pipeline
from learnsim.film import SearchRule
from learnsim.index import Index, IndexDamagedError
from learnsim.text import TextVectorizer, collection_terms

TOL = 1e-6


def _fallback():
    """The FILM fitted on pairs, with the search rule of a fit whose check chose the cosine."""
    base = model("film_pairs")
    return Pipeline(base.vectorizer, base.metric, search=SearchRule(input_weight=1.0))


def _collection():
    """Texts of the index corpus with words the fit never saw, and one made of them only."""
    texts = corpus()[0]
    return ([f"{t} unseen{i % 7} rare{i % 3}" for i, t in enumerate(texts[:60])]
            + ["unseen1 unseen2 rare0 novel words only"])


def _queries():
    return ["unseen1 rare0", corpus()[0][3], "novel words " + corpus()[0][10].split()[0]]


def _plain_cosine(pipeline, queries, collection):
    """The tf-idf cosine of the model's vectoriser settings, fitted on the collection."""
    vec = TextVectorizer(**pipeline.vectorizer.get_params()).fit(collection)
    Q, C = (vec.transform(t).toarray().astype(np.float64) for t in (queries, collection))
    Q /= np.maximum(np.linalg.norm(Q, axis=1, keepdims=True), 1e-300)
    C /= np.maximum(np.linalg.norm(C, axis=1, keepdims=True), 1e-300)
    return Q @ C.T


def _assert_ranks_like(hits, scores, k, key="corpus_id", tol=TOL):
    """Hits best first with the scores of ``scores`` (one query's row), ties to the lower index;
    no hits for a query with no word the model knows (every text scores 0)."""
    if not hits:
        np.testing.assert_allclose(scores, 0.0, atol=tol)
        return
    order = np.argsort(-scores, kind="stable")[:k]
    got = [int(h[key]) for h in hits]
    np.testing.assert_allclose([h["score"] if "score" in h else h["similarity"] for h in hits], scores[order],
                               atol=tol)
    # equal scores may come in either order within float32 rounding: compare the sets of each score
    assert sorted(scores[got].round(5)) == sorted(scores[order].round(5))


def test_a_fallback_model_is_the_plain_tfidf_cosine_of_the_collection_in_python():
    p = _fallback()
    assert p.scoring == "input cosine" and p.uses_collection_vocabulary
    coll, queries = _collection(), _queries()
    want = _plain_cosine(p, queries, coll)
    assert want[0, -1] == want[0].max() > 0.3, "the unseen words do not count"
    np.testing.assert_allclose(p.similarity(queries, coll), want, rtol=0, atol=1e-12)
    for row, scores in zip(p.search(queries, coll, k=6), want):
        _assert_ranks_like(row, scores, 6, tol=1e-12)
    # the words of the collection explain the score
    e = p.explain(queries[0], coll[-1], corpus=coll)
    assert {w["word"] for w in e["words"]} == {"unseen1", "rare0"}
    assert e["score"] == pytest.approx(want[0, -1], abs=1e-12)


def test_a_fallback_model_is_the_plain_tfidf_cosine_of_the_collection_in_an_index(tmp_path):
    p = _fallback()
    coll, queries = _collection(), _queries()
    want = _plain_cosine(p, queries, coll)
    ids = [str(i) for i in range(len(coll))]
    idx = Index.build(tmp_path / "idx", p, coll, ids=ids)
    assert idx.info()["query_plan"]
    assert "unseen1" in collection_terms(idx.statistics)
    for q, scores in zip(queries, want):
        _assert_ranks_like(idx.search(q, k=6), scores, 6, key="id")
    # the plan (no scikit-learn) and the pipeline give the same query rows
    again = Index.open(tmp_path / "idx")
    for q, scores in zip(queries, want):
        _assert_ranks_like(again.search(q, k=6), scores, 6, key="id")
    # an add uses the build's vocabulary and statistics; reindex takes the new collection's
    idx.add(["brandnew unseen1"], ids=[str(len(coll))])
    hits = idx.search("brandnew", k=3)
    assert all(h["score"] == 0.0 for h in hits)          # a word the build never saw: until reindex
    idx.reindex()
    assert idx.search("brandnew", k=1)[0]["id"] == str(len(coll))
    want = _plain_cosine(p, queries, coll + ["brandnew unseen1"])
    for q, scores in zip(queries, want):
        _assert_ranks_like(idx.search(q, k=6), scores, 6, key="id")


def test_a_fallback_model_is_the_plain_tfidf_cosine_of_the_collection_in_search_corpus(tmp_path):
    p = _fallback()
    coll, queries = _collection(), _queries()
    want = _plain_cosine(p, queries, coll)
    p.save(tmp_path / "m.npz")
    docs = tmp_path / "docs.tsv"
    docs.write_text("".join(f"{i}\t{t}\n" for i, t in enumerate(coll)), encoding="utf-8")
    for q, scores in zip(queries, want):
        code, out, err = run_cli(["search", "--model", tmp_path / "m.npz", "--corpus", docs, "--query", q,
                                  "-k", "6", "--json"])
        assert code == 0, err
        _assert_ranks_like(json.loads(out)[0]["hits"], scores, 6, key="id", tol=1e-9)


@pytest.mark.parametrize("family", ["film_pairs", "bm25", "linklearn"])
def test_every_path_ranks_alike_with_words_the_fit_never_saw(family, tmp_path):
    """Python search, the index (its plan and the pipeline) and search --corpus agree, and the
    words met only in the collection count in each."""
    p = model(family)
    coll, queries = _collection(), _queries()
    ids = [str(i) for i in range(len(coll))]
    memory = p.search(queries, coll, k=5)
    assert memory[0][0]["corpus_id"] == len(coll) - 1 and memory[0][0]["score"] > 0
    idx = Index.build(tmp_path / "idx", p, coll, ids=ids)
    assert idx.info()["query_plan"]
    p.save(tmp_path / "m.npz")
    docs = tmp_path / "docs.tsv"
    docs.write_text("".join(f"{i}\t{t}\n" for i, t in enumerate(coll)), encoding="utf-8")
    for q, row in zip(queries, memory):
        hits = idx.search(q, k=5)
        assert [h["id"] for h in hits] == [str(h["corpus_id"]) for h in row]
        np.testing.assert_allclose([h["score"] for h in hits], [h["score"] for h in row], rtol=1e-5, atol=TOL)
        code, out, err = run_cli(["search", "--model", tmp_path / "m.npz", "--corpus", docs, "--query", q,
                                  "-k", "5", "--json"])
        assert code == 0, err
        column = "similarity" if p.scorer.kind == "cosine" else "score"
        cli = json.loads(out)[0]["hits"]
        assert [h["id"] for h in cli] == [str(h["corpus_id"]) for h in row]
        np.testing.assert_allclose([h[column] for h in cli], [h["score"] for h in row], rtol=1e-6, atol=1e-9)


def test_an_index_built_before_keeps_the_vectorisers_vocabulary_until_reindex(tmp_path, monkeypatch):
    """An index whose statistics hold no vocabulary (built before issue 32) searches, adds and
    explains as it was built; reindex moves it to the collection's vocabulary."""
    p = _fallback()
    coll, queries = _collection(), _queries()
    with monkeypatch.context() as m:
        m.setattr(Pipeline, "uses_collection_vocabulary", property(lambda self: False))
        Index.build(tmp_path / "idx", p, coll, ids=[str(i) for i in range(len(coll))])
    idx = Index.open(tmp_path / "idx")
    assert "vocabulary" not in idx.statistics
    assert idx.info()["vocabulary"] == "model"          # says so, so a user knows to reindex
    # as before: the model's own vocabulary, the unseen words dropped
    from learnsim.scorer import Scorer

    X, Q = p.vectorize(coll), p.vectorize(queries)
    old = Scorer(p.metric, search=p.search_rule).prepare(X).closeness(Q)
    for q, scores in zip(queries, old):
        _assert_ranks_like(idx.search(q, k=6), scores, 6, key="id")
    idx.add(["novel words again"], ids=[str(len(coll))])
    assert "vocabulary" not in Index.open(tmp_path / "idx").statistics
    idx.reindex()
    assert "vocabulary" in idx.statistics
    assert idx.info()["vocabulary"] == "collection"
    want = _plain_cosine(p, queries, coll + ["novel words again"])
    for q, scores in zip(queries, want):
        _assert_ranks_like(idx.search(q, k=6), scores, 6, key="id")


@pytest.mark.parametrize("name", ["vocabulary", "vocabulary_offsets", "vocabulary_df"])
def test_damaged_vocabulary_statistics_name_the_file(tmp_path, name):
    p = _fallback()
    coll = _collection()
    Index.build(tmp_path / "idx", p, coll)
    m = json.loads((tmp_path / "idx" / "manifest.json").read_text(encoding="utf-8"))
    file = tmp_path / "idx" / m["statistics_dir"] / f"{name}.npy"
    raw = bytearray(file.read_bytes())
    raw[-1] ^= 0xFF
    file.write_bytes(bytes(raw))
    idx = Index.open(tmp_path / "idx")
    with pytest.raises(IndexDamagedError) as info:
        idx.add(["unseen1"], ids=["new"])
    assert info.value.path == str(file)
    assert any(d["file"] == str(file) for d in Index.verify_at(tmp_path / "idx")["damaged"])
