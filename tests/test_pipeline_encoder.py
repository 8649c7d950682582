"""A pipeline over a pre-trained sentence encoder (issue 33, point 7), from learnsim.fit(encoder=...):
the encoder is the vectoriser and FILM (or MCD) learns on its vectors; clusters, duplicate pairs
and graded pairs all fit; the search rule mixes in the lexical tf.idf cosine with a weight chosen
on held-out duplicates; search, explanations, a saved and reloaded model and an index agree.
Run with a deterministic numpy encoder, so in CI without PyTorch."""
from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

from encoder_fakes import HashedWordEncoder, register, topic_pairs, topic_texts
from learnsim.fitting import fit
from learnsim.index import Index
from learnsim.pipeline import Pipeline

FAST = {"n_components": 4, "max_iter": 20}


def _quiet_fit(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit(*args, **kwargs)


@pytest.fixture(scope="module")
def pairs_fit():
    texts, rows = topic_pairs(per_topic=15, n_pairs=300, seed=3)
    result = _quiet_fit(texts, pairs=rows, method="film", encoder=HashedWordEncoder(), **FAST)
    return texts, rows, result


def test_the_encoder_is_the_vectoriser_and_film_learns_on_its_vectors(pairs_fit):
    texts, _, result = pairs_fit
    p = result.pipeline
    assert isinstance(p.vectorizer, HashedWordEncoder)
    assert p.metric.n_features_in_ == p.vectorizer.embedding_dim_
    report = result.report
    assert report["encoder"] == "fake/hashed-words-24" and report["features"] == 24
    assert report["weighting"] is None
    # search is checked against the strongest baseline, the encoder's cosine and its mix with BM25 among them
    assert set(report["baseline_scores"]) == {"bm25", "cosine", "encoder", "encoder+bm25"}
    lam = report["search_bm25_weight"]
    assert 0.0 <= lam <= 1.0 and (p.lexical is not None) == (lam > 0)
    assert p.scorer.dense_input


def test_the_kept_rule_is_checked_against_the_best_of_the_baselines(pairs_fit):
    report = pairs_fit[2].report
    gain = report["baseline_gain"]
    scores = report["baseline_scores"]
    strongest = max(scores, key=scores.get)
    assert report["strongest_baseline"] == strongest
    assert gain["detail"]["strongest_baseline"] == strongest
    assert gain["cold"] is not None and gain["n_units"] >= gain["cold"]["n_units"]
    if gain["status"] == "learned":
        assert gain["ci_low"] > 0 and gain["cold"]["ci_high"] >= 0


def test_search_scores_are_the_chosen_mix(pairs_fit):
    from bm25_models import normalised_bm25

    texts, _, result = pairs_fit
    p = result.pipeline
    lam = p.scorer.lexical_weight or 0.0
    X = p.vectorizer.transform(texts).astype(np.float64)
    D = p.scorer._dense_rows(X)
    # the lexical part: BM25 over the searched collection's own words, divided by its query's maximum
    expected = lam * normalised_bm25(texts[:5], texts) + (1 - lam) * (D[:5] @ D.T)
    np.testing.assert_allclose(p.similarity(texts[:5], texts), expected, atol=1e-9)


def test_explanations_split_the_score_into_lexical_words_and_one_dense_number(pairs_fit):
    texts, _, result = pairs_fit
    p = result.pipeline
    hits = Pipeline.search(Pipeline(p.vectorizer, p.metric, p.matcher, p.match_rule, p.search_rule,
                                    lexical=p.lexical), texts[0], texts, k=3)
    e = p.explain(texts[0], texts[hits[1]["corpus_id"]], corpus=texts)
    assert e["score"] == pytest.approx(hits[1]["score"], abs=1e-9)
    assert e["lexical"] + e["dense"] == pytest.approx(e["score"], abs=1e-12)
    assert sum(w["contribution"] for w in e["words"]) + e["rest"] == pytest.approx(e["lexical"], abs=1e-12)
    assert e["lexical_weight"] == (p.scorer.lexical_weight or 0.0)


def test_save_and_load_give_the_same_search_and_matches(pairs_fit, tmp_path, monkeypatch):
    register(monkeypatch)
    texts, rows, result = pairs_fit
    p = result.pipeline
    path = tmp_path / "model.npz"
    p.save(path)
    back = Pipeline.load(path)
    assert isinstance(back.vectorizer, HashedWordEncoder)
    assert back.scoring == p.scoring
    assert back.search(texts[:4], texts, k=5) == p.search(texts[:4], texts, k=5)
    pairs = [(texts[i], texts[j]) for i, j, _ in rows[:20]]
    assert back.match(pairs) == p.match(pairs)


def test_an_index_searches_as_the_pipeline(pairs_fit, tmp_path):
    texts, _, result = pairs_fit
    p = result.pipeline
    index = Index.build(tmp_path / "idx", p, texts, ids=[f"t{i}" for i in range(len(texts))])
    try:
        # the encoder is the query side: no plan, unless search is BM25 alone
        assert index.info()["query_plan"] is (p.scorer.lexical_weight == 1.0)
        for q in texts[:6]:
            got = index.search(q, k=5, explain=True)
            want = p.search(q, texts, k=5)
            assert [h["id"] for h in got] == [f"t{h['corpus_id']}" for h in want]
            np.testing.assert_allclose([h["score"] for h in got], [h["score"] for h in want], atol=1e-5)
            e = got[0]["explanation"]
            assert e["lexical"] + e["dense"] == pytest.approx(e["score"], abs=1e-9)
        # documents added later are encoded and searched alike
        index.add(["the cat and the dog today"], ids=["new"])
        assert index.search("the cat and the dog today", k=1)[0]["id"] == "new"
    finally:
        index.close()


def test_a_forced_hybrid_searches_alike_in_memory_and_in_an_index(pairs_fit, tmp_path):
    """Whatever weight the fit chose: a mix of 0.4 built by hand, with the index's statistics."""
    from learnsim.film import SearchRule
    from learnsim.text import TextVectorizer

    texts, _, result = pairs_fit
    p = result.pipeline
    lexical = TextVectorizer("tfidf", norm="l2", dtype=np.float64).fit(texts[:20])   # other texts: the collection's words count
    rule = SearchRule(0.5, (0.5,), [0.0], 1).with_lexical(0.4, (0.0, 0.4, 1.0), [0.1, 0.2, 0.1], None)
    mixed = Pipeline(p.vectorizer, p.metric, search=rule, lexical=lexical)
    assert mixed.scoring.startswith("hybrid (0.4 x lexical tf.idf cosine + 0.6 x mixed cosine")
    index = Index.build(tmp_path / "idx", mixed, texts)
    try:
        for q in ("rain and snow today", texts[7]):
            got, want = index.search(q, k=4), mixed.search(q, texts, k=4)
            assert [h["score"] for h in got] == pytest.approx([h["score"] for h in want], abs=1e-5)
    finally:
        index.close()
    with pytest.raises(ValueError, match="give its vectoriser as lexical="):
        Pipeline(p.vectorizer, p.metric, search=rule)


def test_graded_pairs_fit_the_regression_with_the_encoder(tmp_path):
    texts, rows = topic_pairs(per_topic=12, n_pairs=200, seed=5)
    rng = np.random.default_rng(0)
    graded = [(i, j, (4.0 if label else 1.0) + float(rng.uniform(-0.6, 0.6))) for i, j, label in rows]
    result = _quiet_fit(texts, pairs=graded, method="film", encoder=HashedWordEncoder(), **FAST)
    p = result.pipeline
    assert result.report["graded"] and "cosine" in result.report["matcher_pearsons"]
    assert result.report["search_lexical_weight"] is not None
    scores = [m["score"] for m in p.match([(texts[i], texts[j]) for i, j, _ in graded[:10]])]
    assert len(scores) == 10 and all(np.isfinite(scores))


@pytest.mark.parametrize("method", ["film", "mcd"])
def test_clusters_fit_on_the_encoders_vectors(method):
    texts, labels = topic_texts(per_topic=12, seed=2)
    result = _quiet_fit(texts, clusters=list(labels), method=method, encoder=HashedWordEncoder(),
                        **(FAST if method == "film" else {}))
    # checked on held-out clusters against BM25, the tf.idf cosine, the encoder's cosine and its mix
    assert set(result.report["baseline_scores"]) == {"bm25", "cosine", "encoder", "encoder+bm25"}
    if result.report["model"] != "learned":
        # what the method learned on the encoder's vectors did not beat the strongest: that one
        assert result.pipeline.scoring in ("BM25", "tf.idf cosine", "encoder cosine") or "hybrid" in result.pipeline.scoring
        result = _quiet_fit(texts, clusters=list(labels), method=method, encoder=HashedWordEncoder(),
                            baseline_holdout=None, **(FAST if method == "film" else {}))
    p = result.pipeline
    assert isinstance(p.vectorizer, HashedWordEncoder) and p.lexical is None
    hits = p.search(texts[0], texts, k=4)
    assert len(hits) == 4


def test_options_of_the_term_vectors_do_not_mix_with_an_encoder():
    texts, labels = topic_texts(per_topic=6)
    with pytest.raises(ValueError, match="weighting configure the term vectors, which encoder= replaces"):
        fit(texts, clusters=list(labels), encoder=HashedWordEncoder(), weighting="bm25")
    with pytest.raises(ValueError, match="encoder apply to method"):
        fit(texts, triplets=[(0, 1, 30), (2, 3, 31)], encoder=HashedWordEncoder())
    with pytest.raises(TypeError, match="encoder must be the folder or name"):
        fit(texts, clusters=list(labels), encoder=42)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        fit(texts, clusters=list(labels), encoder="/nonexistent/encoder-folder")


def test_a_plain_encoder_model_ranks_by_the_encoders_cosine(tmp_path, monkeypatch):
    register(monkeypatch)
    texts, _ = topic_texts(per_topic=5)
    encoder = HashedWordEncoder()
    model = Pipeline.from_encoder(encoder)
    assert model.scoring == "encoder cosine" and model.higher_is_closer
    E = encoder.transform(texts).astype(np.float64)
    np.testing.assert_allclose(model.similarity(texts[:3], texts), E[:3] @ E.T, atol=1e-6)
    path = tmp_path / "plain.npz"
    model.save(path)
    back = Pipeline.load(path)
    assert back.search(texts[2], texts, k=3) == model.search(texts[2], texts, k=3)
    e = model.explain(texts[0], texts[1])
    assert e["dense"] == pytest.approx(float(E[0] @ E[1]), abs=1e-6) and e["words"] == [] and e["lexical"] == 0.0


def test_importing_learnsim_imports_no_torch():
    code = ("import sys, learnsim, learnsim.pipeline, learnsim.fitting, learnsim.text.encoders, learnsim.cli.fit, "
            "learnsim.cli.index; from learnsim.text.encoders import load_encoder, EncoderCosine; "
            "assert 'torch' not in sys.modules and 'sentence_transformers' not in sys.modules, 'torch imported'")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_fit_asks_an_encoder_object_for_each_text_once():
    # a fit asked an object with transform and embedding_dim_ for its texts three times (the
    # collection, then each pair model's representations): a paid encoder cost three times over
    from learnsim.text.encoders import encode, encoding_once

    texts, rows = topic_pairs(per_topic=12, n_pairs=120)
    pairs = [(texts[i], texts[j], label) for i, j, label in rows]
    encoder = HashedWordEncoder()
    _quiet_fit(pairs=pairs, encoder=encoder, method="film", **FAST)
    assert encoder.n_encoded <= len({t for a, b, _ in pairs for t in (a, b)}) + 2      # (+ from_encoder's probe)
    # outside a fit nothing is kept: an object whose output changes is asked again
    before = encoder.n_encoded
    encode(encoder, texts[:3]), encode(encoder, texts[:3])
    assert encoder.n_encoded == before + 6
    with encoding_once():
        first = encode(encoder, texts[:3])
        assert np.array_equal(encode(encoder, texts[2::-1]), first[::-1]) and encoder.n_encoded == before + 9


def test_an_encoder_objects_rows_are_checked_where_they_are_used():
    from learnsim.text.encoders import encode

    class Short(HashedWordEncoder):
        def transform(self, texts):
            return super().transform(texts)[:-1]

    with pytest.raises(ValueError, match=r"the encoder Short .*shape \(1, 24\) for 2 texts"):
        encode(Short(), ["a cat", "a dog"])
