"""learnsim.pipeline.Pipeline (learnsim.fit / learnsim.load): one fitted object from text to
similarity. For every supervision kind: save/load keeps the similarities; search is the
Scorer's (and learnsim search's) ranking; similarity agrees with search; explain's word
contributions add up to the score; match uses the validated duplicate rule; bad input is named."""
from __future__ import annotations

import copy
import json
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import learnsim
from learnsim.datasets import make_clustered_corpus
from learnsim.pipeline import Pipeline
from learnsim.scorer import Scorer
from conftest import run_cli

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

FILM_FAST = {"dimensions": 4, "max_iter": 20}
MCD_FIXED = {"n_basis": 16, "shrinkage": 0.01}


# --------------------------------------------------------------------------- data and models

@pytest.fixture(scope="module")
def data():
    c = make_clustered_corpus(n_clusters=6, docs_per_cluster=10, random_state=2)
    texts = [str(t) for t in c.data]
    target = np.asarray(c.target)
    rng = np.random.default_rng(1)
    pairs = []
    for k in range(120):
        i, j = rng.choice(len(texts), 2, replace=False)
        if k % 2:       # half duplicates: two texts of one topic
            j = rng.choice(np.flatnonzero(target == target[i]))
            if j == i:
                continue
        pairs.append((texts[i], texts[j], int(target[i] == target[j])))
    triplets = []
    for a in range(0, len(target), 2):
        same = np.flatnonzero((target == target[a]) & (np.arange(len(target)) != a))
        other = np.flatnonzero(target != target[a])
        triplets.append((a, int(rng.choice(same)), int(rng.choice(other))))
    n = len(target)
    links = [(a, b) for a in range(n) for b in range(n) if a != b and target[a] == target[b] and (a + 2 * b) % 5 == 0]
    return {"texts": texts, "labels": [int(y) for y in target], "pairs": pairs, "triplets": triplets,
            "links": links}


def _fit(kind, d):
    t, y = d["texts"], d["labels"]
    if kind == "mcd":                   # beta > 0: sparse + signed dense parts
        return learnsim.fit(t, clusters=y, complement_weight=0.3, baseline_holdout=None, **MCD_FIXED)
    if kind == "mcd_subspace":          # beta = 0: the learned subspace alone
        return learnsim.fit(t, clusters=y, complement_weight=0.0, baseline_holdout=None, **MCD_FIXED)
    if kind == "film":                  # unchecked: the learned cosine alone
        return learnsim.fit(t, clusters=y, method="film", baseline_holdout=None, **FILM_FAST)
    if kind == "film_pairs":            # a mixed cosine and a duplicate rule
        fitted = learnsim.fit(pairs=d["pairs"], **FILM_FAST)
        # the family: FILM's cosine mixed with the input cosine by the search rule (what the fit's
        # check keeps on these few pairs, BM25 or a mix with it, is tested in tests/film/test_search_recipe.py)
        from learnsim.film import SearchRule

        parts = dict(fitted.parts, search=SearchRule(input_weight=0.4))
        parts.pop("lexical", None)
        parts.pop("rerank", None)
        return Pipeline.from_parts(parts)
    if kind == "relative":
        model = learnsim.fit(t, triplets=d["triplets"], baseline_holdout=None)     # the family, unchecked as search
        # uneven diagonal weights, so that the explanation is not that of the unweighted baseline
        metric = copy.deepcopy(model.metric)
        metric.weights_ = np.random.default_rng(0).uniform(0.2, 3.0, metric.weights_.shape)
        metric.baseline_gain_ = None        # as fitted without the baseline check
        return Pipeline(model.vectorizer, metric)
    if kind == "linklearn":
        # the families, unchecked as search (on these few texts the check may end as BM25)
        return learnsim.fit(t, links=d["links"], max_iter=2000, baseline_holdout=None)
    if kind == "bm25":
        return learnsim.fit(t, links=d["links"], variant="bm25", baseline_holdout=None)
    raise AssertionError(kind)


KINDS = ("mcd", "mcd_subspace", "film", "film_pairs", "relative", "linklearn", "bm25")
TERM_WEIGHTS = ("linklearn", "bm25")
_CACHE = {}


@pytest.fixture(params=KINDS)
def fitted(request, data):
    if request.param not in _CACHE:
        _CACHE[request.param] = _fit(request.param, data)
    return request.param, _CACHE[request.param]


def _queries(d):
    # queries that are not corpus texts (a query equal to a document has distance 0, where the
    # search's |a|^2 + |b|^2 - 2ab leaves rounding noise)
    return [" ".join(d["texts"][i].split()[:12]) for i in (0, 17, 33)]


# --------------------------------------------------------------------------- the object

def test_fit_returns_a_pipeline_of_the_expected_family(fitted):
    kind, model = fitted
    assert isinstance(model, Pipeline)
    expected = {"mcd": "distance", "mcd_subspace": "distance", "relative": "distance", "film": "cosine",
                "film_pairs": "cosine", "linklearn": "term_weights", "bm25": "term_weights"}[kind]
    assert model.scorer.kind == expected
    assert model.higher_is_closer == (expected != "distance")
    assert model.method in repr(model) and model.scoring in repr(model)
    plain = model.scoring in ("BM25", "tf.idf cosine", "lexical tf.idf cosine") and model.matcher is None \
        and model.rerank is None
    assert model.method == ("baseline" if plain else type(model.metric).__name__)
    assert {"vectorizer", "metric"} <= set(model.parts)
    assert ("matcher" in model.parts) == (kind == "film_pairs")


def test_save_load_round_trip_gives_identical_similarities(fitted, data, tmp_path):
    _, model = fitted
    path = tmp_path / "model.npz"
    model.save(path)
    again = learnsim.load(path)
    assert isinstance(again, Pipeline) and sorted(again.parts) == sorted(model.parts)
    assert again.scoring == model.scoring
    queries = _queries(data)
    np.testing.assert_array_equal(again.similarity(queries, data["texts"]), model.similarity(queries, data["texts"]))


def test_pickle_and_deepcopy_give_identical_similarities(fitted, data):
    # joblib.dump, multiprocessing and copy.deepcopy pickle the model: a model with Porter stems
    # (linklearn's default where PyStemmer is installed, and `learnsim fit --stem`) failed with
    # "self.cobj cannot be converted to a Python object for pickling" (PyStemmer's C object)
    import pickle

    _, model = fitted
    queries = _queries(data)
    want = model.similarity(queries, data["texts"])
    for again in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        assert isinstance(again, Pipeline) and again.scoring == model.scoring
        np.testing.assert_array_equal(again.similarity(queries, data["texts"]), want)
        assert again.search(queries[0], data["texts"], k=5) == model.search(queries[0], data["texts"], k=5)


def test_a_stemming_vectorizer_pickles_and_stems_the_same():
    pytest.importorskip("Stemmer")
    import pickle

    from learnsim.text import TextVectorizer

    vec = TextVectorizer(stem="porter").fit(["running dogs", "the runner ran", "dogs run"])
    for again in (pickle.loads(pickle.dumps(vec)), copy.deepcopy(vec)):
        assert again.build_tokenizer()("running dogs") == ["run", "dog"]
        assert (again.transform(["running dogs ran"]) != vec.transform(["running dogs ran"])).nnz == 0


def test_a_searcher_checks_k_and_clips_it_to_the_corpus_as_search_does(fitted, data):
    # searcher(corpus).top_k(queries, k) is public (Pipeline.searcher): a k past the corpus' size
    # was numpy's "could not broadcast input array from shape (1,4) into shape (1,10)", k=-1
    # "negative dimensions are not allowed", k=2.5 "'float' object cannot be interpreted as an integer"
    _, model = fitted
    corpus, query = data["texts"][:4], _queries(data)[0]
    found = model.searcher(corpus)
    idx, values = found.top_k([query], 10)
    assert idx.shape == values.shape == (1, 4)
    hits = [h["corpus_id"] for h in model.search(query, corpus, k=10)]
    assert hits and [int(i) for i in idx[0][:len(hits)]] == hits    # search drops texts sharing no word
    for k, error, match in ((0, ValueError, "k must be >= 1; got 0"), (-1, ValueError, "k must be >= 1"),
                            (2.5, TypeError, "k must be an integer >= 1"), (True, TypeError, "k must be an integer")):
        with pytest.raises(error, match=match):
            found.top_k([query], k)
    with pytest.raises(TypeError, match="queries must be a list of str; got a single str"):
        found.top_k(query, 2)
    with pytest.raises(TypeError, match="texts must be a list of str; got a single str"):
        found.closeness(query)


def test_search_equals_the_scorer_on_the_same_vectors(fitted, data):
    _, model = fitted
    queries, corpus = _queries(data), data["texts"]
    hits = model.search(queries, corpus, k=7)
    Q, C = model.vectorize(queries), model.vectorize(corpus)
    QL = CL = None
    # the lexical part over the corpus' own vocabulary (issue 32, part 6)
    lexical = model.lexical_vectorizer(model.collection_statistics(corpus))
    if lexical is not None:
        QL, CL = (lexical.transform(t).astype(np.float64) for t in (queries, corpus))
        if model.scorer.kind == "term_weights":
            Q, C, QL, CL = QL, CL, None, None
    idx, values = Scorer(model.metric, model.matcher, model.search_rule).prepare(C, CL).top_k(Q, 7, lexical=QL)
    assert len(hits) == len(queries)
    for qi, row in enumerate(hits):
        assert [h["corpus_id"] for h in row] == idx[qi].tolist()
        np.testing.assert_allclose([h["score"] for h in row], values[qi], rtol=0, atol=1e-9)
        assert all(isinstance(h["corpus_id"], int) and isinstance(h["score"], float) for h in row)


def test_similarity_agrees_with_search(fitted, data):
    _, model = fitted
    queries, corpus = _queries(data), data["texts"]
    S = model.similarity(queries, corpus)
    assert S.shape == (len(queries), len(corpus)) and S.dtype == np.float64
    sign = 1.0 if model.higher_is_closer else -1.0
    for qi, row in enumerate(model.search(queries, corpus, k=5)):
        ids = [h["corpus_id"] for h in row]
        assert ids == np.argsort(-S[qi], kind="stable")[:5].tolist()
        np.testing.assert_allclose(sign * S[qi, ids], [h["score"] for h in row], rtol=0, atol=1e-12)
        scores = [h["score"] for h in row]
        assert scores == sorted(scores, reverse=model.higher_is_closer)


@pytest.mark.parametrize("kind", ["film_pairs", "mcd", "linklearn"])
def test_search_equals_learnsim_search(kind, data, tmp_path):
    model = _CACHE.get(kind) or _CACHE.setdefault(kind, _fit(kind, data))
    model.save(tmp_path / "m.npz")
    (tmp_path / "corpus.txt").write_text("".join(t + "\n" for t in data["texts"]), encoding="utf-8")
    queries = _queries(data)
    args = ["search", "--model", tmp_path / "m.npz", "--corpus", tmp_path / "corpus.txt", "-k", "5", "--json"]
    for q in queries:
        args += ["--query", q]
    code, out, err = run_cli(args)
    assert code == 0, err
    cli = json.loads(out)
    column = model.scorer.column
    for row, result in zip(model.search(queries, data["texts"], k=5), cli):
        assert [h["corpus_id"] for h in row] == [h["index"] for h in result["hits"]]
        np.testing.assert_allclose([h["score"] for h in row], [h[column] for h in result["hits"]], rtol=0, atol=1e-12)
        assert result["scoring"] == model.scoring


def test_search_takes_one_str_query_and_clips_k(data):
    model = _CACHE.get("film") or _CACHE.setdefault("film", _fit("film", data))
    corpus = data["texts"][:6]
    one = model.search(_queries(data)[0], corpus, k=3)
    assert isinstance(one, list) and len(one) == 3 and isinstance(one[0], dict)
    assert one == model.search(_queries(data)[:1], corpus, k=3)[0]
    everything = model.search(_queries(data)[:1], corpus, k=50)[0]
    assert sorted(h["corpus_id"] for h in everything) == list(range(6))


def test_encode_is_the_learned_representation(fitted, data):
    kind, model = fitted
    E = model.encode(data["texts"][:5])
    if kind in TERM_WEIGHTS:
        # over the texts' own vocabulary (issue 32, part 6)
        from learnsim.text import collection_terms

        terms = collection_terms(model.collection_statistics(data["texts"][:5]))
        assert sp.issparse(E) and E.shape == (5, len(terms))
    elif kind == "relative":
        assert E.shape[0] == 5
    else:
        assert isinstance(E, np.ndarray) and E.ndim == 2 and E.shape[0] == 5
    F = model.transform(data["texts"][:5])
    np.testing.assert_array_equal(E.toarray() if sp.issparse(E) else E, F.toarray() if sp.issparse(F) else F)


# --------------------------------------------------------------------------- explain

def _explained_total(e):
    return e["rest"] + sum(w["contribution"] for w in e["words"])


def test_explain_contributions_add_up_to_the_searched_score(fitted, data):
    kind, model = fitted
    queries, corpus = _queries(data), data["texts"]
    for qi, row in enumerate(model.search(queries, corpus, k=4)):
        for hit in row:
            e = model.explain(queries[qi], corpus[hit["corpus_id"]], n_top=3, corpus=corpus)
            assert e["scoring"] == model.scoring and len(e["words"]) <= 3
            # every word, listed or not: they sum to the score (to d^2 for a distance)
            full = model.explain(queries[qi], corpus[hit["corpus_id"]], n_top=10_000, corpus=corpus)
            total = full.get("squared_distance", full["score"])
            assert abs(sum(w["contribution"] for w in full["words"]) - total) <= 1e-9
            assert abs(full["rest"]) <= 1e-9
            assert abs(_explained_total(e) - e.get("squared_distance", e["score"])) <= 1e-9
            if "squared_distance" in e:
                assert e["score"] == pytest.approx(np.sqrt(e["squared_distance"]), abs=1e-12)
            if kind in TERM_WEIGHTS:
                # the search sums the float32 weights in float32
                assert e["score"] == pytest.approx(hit["score"], rel=1e-6)
            else:
                assert abs(e["score"] - hit["score"]) <= 1e-9
            contributions = [abs(w["contribution"]) for w in e["words"]]
            assert contributions == sorted(contributions, reverse=True)
            assert any(c > 0 for c in contributions)


@pytest.mark.parametrize("kind", ["mcd", "mcd_subspace", "relative"])
def test_a_distance_explanation_shows_what_brings_the_hit_close(kind, data):
    """Issue 32, part 5: a distance is explained against an empty document: d^2 = q^T M q + the
    words' changes, exactly; the words the hit shares with the query bring it closer (negative,
    listed first), a word of the document alone pushes it away (positive)."""
    model = _CACHE.get(kind) or _CACHE.setdefault(kind, _fit(kind, data))
    queries, corpus = _queries(data), data["texts"]
    for qi, row in enumerate(model.search(queries, corpus, k=3)):
        reference = model.explain(queries[qi], "", n_top=10_000)["squared_distance"]   # q^T M q
        for hit in row:
            doc = corpus[hit["corpus_id"]]
            e = model.explain(queries[qi], doc, n_top=4)
            assert e["measure"] == "distance" and e["higher_is_better"] is False
            assert e["reference"] == "empty document"
            assert e["reference_squared_distance"] == pytest.approx(reference, rel=1e-9, abs=1e-12)
            # the old keys keep their meaning: the split of d^2 itself
            assert abs(_explained_total(e) - e["squared_distance"]) <= 1e-9
            listed = sum(w["contribution"] for w in e["closer_words"])
            assert abs(e["reference_squared_distance"] + listed + e["closer_rest"] - e["squared_distance"]) <= 1e-9
            assert len(e["closer_words"]) <= 4
            signs = [w["contribution"] >= 0 for w in e["closer_words"]]
            assert signs == sorted(signs)     # what brings it closer first
            negative = [w["contribution"] for w in e["closer_words"] if w["contribution"] < 0]
            assert negative == sorted(negative)
            full = model.explain(queries[qi], doc, n_top=10_000)
            assert abs(full["closer_rest"]) <= 1e-9
            change = {w["word"]: w["contribution"] for w in full["closer_words"]}
            q_words, d_words = set(queries[qi].lower().split()), set(doc.lower().split())
            names = set(model.vectorizer.get_feature_names_out())
            if kind == "relative":
                # a diagonal M: a shared word brings the hit closer (w_i (diff_i^2 - q_i^2) < 0
                # unless the document weighs it over twice the query), a document word alone
                # pushes it away, a query word alone changes nothing
                for w in (d_words - q_words) & names:
                    assert change.get(w, 0.0) >= 0.0
                assert not (q_words - d_words) & set(change)
            assert any(change.get(w, 0.0) < 0 for w in q_words & d_words & names) or not q_words & d_words & names
    # the query's own text: every change brings it closer or is nothing, to distance 0
    text = corpus[5]
    e = model.explain(text, text, n_top=10_000)
    assert e["squared_distance"] == pytest.approx(0.0, abs=1e-9)
    assert sum(w["contribution"] for w in e["closer_words"]) == pytest.approx(-e["reference_squared_distance"], abs=1e-9)
    if "closer_word_pairs" in e:
        assert e["closer_word_pairs"] and e["closer_word_pairs"][0]["contribution"] < 0


def test_explanations_say_which_way_is_better(data):
    for kind, measure in (("film", "similarity"), ("linklearn", "score"), ("mcd", "distance")):
        model = _CACHE.get(kind) or _CACHE.setdefault(kind, _fit(kind, data))
        e = model.explain(_queries(data)[0], data["texts"][3], corpus=data["texts"])
        assert e["measure"] == measure and e["higher_is_better"] is (measure != "distance")
        assert ("closer_words" in e) is (measure == "distance")


def test_explain_splits_film_into_input_and_learned_parts(data):
    pure = _CACHE.get("film") or _CACHE.setdefault("film", _fit("film", data))
    mixed = _CACHE.get("film_pairs") or _CACHE.setdefault("film_pairs", _fit("film_pairs", data))
    q, doc = _queries(data)[0], data["texts"][3]
    e_pure, e_mixed = pure.explain(q, doc), mixed.explain(q, doc)
    assert pure.scorer.input_weight is None and e_pure["input_weight"] == 0.0
    w = mixed.scorer.input_weight
    assert w is not None and 0.0 < w < 1.0 and e_mixed["input_weight"] == w
    for e in (e_pure, e_mixed):
        assert e["word_pairs"] and all({"word_a", "word_b", "contribution"} == set(p) for p in e["word_pairs"])
    # the learned part of the mixed score is (1 - w) x the learned cosine, whose word pairs
    # (all of them) sum to it: the rest of the score is w x the input cosine
    full = mixed.explain(q, doc, n_top=10_000)
    learned = sum(p["contribution"] for p in full["word_pairs"])
    X = mixed.vectorize([q, doc])
    input_cosine = (X[0] @ X[1].T).toarray()[0, 0] / (sp.linalg.norm(X[0]) * sp.linalg.norm(X[1]))
    assert full["score"] == pytest.approx(w * input_cosine + learned, abs=1e-9)


def test_explain_input_cosine_fallback(data):
    # a FILM whose search fell back to its input cosine (what its checks choose varies with the data)
    from learnsim.film import SearchRule

    fitted = learnsim.fit(data["texts"], clusters=data["labels"], method="film", baseline_holdout=None, **FILM_FAST)
    model = Pipeline(fitted.vectorizer, fitted.metric, search=SearchRule(input_weight=1.0))
    assert model.scorer.input_weight == 1.0
    q, doc = _queries(data)[0], data["texts"][4]
    e = model.explain(q, doc, n_top=10_000)
    assert "word_pairs" not in e
    assert e["score"] == pytest.approx(model.similarity([q], [doc])[0, 0], abs=1e-9)
    shared = set(q.split()) & set(doc.split())
    assert {w["word"] for w in e["words"]} <= shared


def test_explain_with_lsi_is_over_words(data):
    model = learnsim.fit(data["texts"], clusters=data["labels"], method="film", lsi=20, baseline_holdout=None,
                         **FILM_FAST)
    q, doc = _queries(data)[1], data["texts"][20]
    e = model.explain(q, doc, n_top=10_000)
    words = set(model.vectorizer.terms_)
    assert e["words"] and all(w["word"] in words for w in e["words"])
    # the LSI vectors are float32: the exact split over words meets the search to float32 precision
    assert e["score"] == pytest.approx(model.similarity([q], [doc])[0, 0], abs=1e-6)


def test_explain_term_weights_needs_the_collection(data):
    model = _CACHE.get("linklearn") or _CACHE.setdefault("linklearn", _fit("linklearn", data))
    q, doc = _queries(data)[0], data["texts"][5]
    with pytest.raises(ValueError, match="corpus="):
        model.explain(q, doc)
    statistics = model.collection_statistics(data["texts"])
    by_statistics = model.explain(q, doc, statistics=statistics)
    by_corpus = model.explain(q, doc, corpus=data["texts"])
    assert by_statistics == by_corpus
    # LinkLearn's idf is that of the documents' collection: one document has none
    with pytest.raises(ValueError, match="at least 2 documents"):
        model.similarity([q], [doc])
    with pytest.raises(ValueError, match="statistics="):
        model.encode([doc])
    single = model.encode([doc], statistics=statistics).toarray()
    np.testing.assert_allclose(single, model.encode(data["texts"])[5].toarray(), rtol=0, atol=1e-12)


# --------------------------------------------------------------------------- match

@pytest.mark.parametrize("matcher", ["auto", "classifier", "knn"])
def test_match_decides_pairs_with_the_validated_rule(data, tmp_path, matcher):
    if matcher == "auto":
        model = _CACHE.get("film_pairs") or _CACHE.setdefault("film_pairs", _fit("film_pairs", data))
    else:
        # unchecked against the input cosine, so that the rule asked for is kept
        model = learnsim.fit(pairs=data["pairs"], matcher=matcher, baseline_holdout=None, **FILM_FAST)
        assert model.match_rule.matcher.startswith(matcher)
    pairs = [(a, b) for a, b, _ in data["pairs"][:20]]
    decisions = model.match(pairs)
    assert len(decisions) == 20
    for d in decisions:
        assert set(d) == {"probability", "duplicate", "score"}
        assert 0.0 <= d["probability"] <= 1.0 and isinstance(d["duplicate"], bool)
    assert len({d["duplicate"] for d in decisions}) == 2, "a rule that decides everything alike"
    # the same decisions as learnsim match on the same model and pairs
    model.save(tmp_path / "m.npz")
    (tmp_path / "pairs.tsv").write_text("".join(f"{a}\t{b}\n" for a, b in pairs), encoding="utf-8")
    code, out, err = run_cli(["match", "--model", tmp_path / "m.npz", "--pairs", tmp_path / "pairs.tsv", "--json"])
    assert code == 0, err
    cli = json.loads(out)["pairs"]
    np.testing.assert_allclose([d["probability"] for d in decisions], [r["probability"] for r in cli], atol=1e-12)
    assert [d["duplicate"] for d in decisions] == [r["duplicate"] for r in cli]
    np.testing.assert_allclose([d["score"] for d in decisions], [r["score"] for r in cli], atol=1e-12)


def test_match_names_a_pair_that_is_not_two_texts(data):
    model = _CACHE.get("film_pairs") or _CACHE.setdefault("film_pairs", _fit("film_pairs", data))
    for bad in ({"text_a": "a b", "text_b": "c d"}, ("a b",), "ab"):       # a dict was a bare KeyError 0
        with pytest.raises(ValueError, match=r"pairs\[1\] must be a tuple \(text_a, text_b\)"):
            model.match([("a b", "c d"), bad])


def test_match_refuses_a_lone_surrogate_by_name(data):
    # it was a UnicodeEncodeError deep in the pair model's character n-grams
    from learnsim._utils.inputs import TextError

    model = _CACHE.get("film_pairs") or _CACHE.setdefault("film_pairs", _fit("film_pairs", data))
    with pytest.raises(TextError, match=r"pairs\[1\]\[0\]: a string holds a lone surrogate"):
        model.match([("a b", "c d"), ("half \ud800 a pair", "c d")])


def test_match_without_a_duplicate_rule_says_how_to_fit_one(data):
    model = _CACHE.get("film") or _CACHE.setdefault("film", _fit("film", data))
    with pytest.raises(ValueError, match=r"no validated duplicate rule.*pairs="):
        model.match([("a b", "c d")])


# --------------------------------------------------------------------------- bad input

def test_bad_input_is_named(data):
    model = _CACHE.get("film") or _CACHE.setdefault("film", _fit("film", data))
    texts = data["texts"][:4]
    with pytest.raises(TypeError, match=r"texts\[1\] must be a str"):
        model.vectorize(["a", 3])
    with pytest.raises(TypeError, match="single str"):
        model.similarity("a query", texts)
    with pytest.raises(ValueError, match="empty"):
        model.search(["a query"], [])
    with pytest.raises(ValueError, match="empty"):
        model.encode([])
    with pytest.raises(ValueError, match="k must be >= 1"):
        model.search("a query", texts, k=0)
    with pytest.raises(TypeError, match="k must be an integer"):
        model.search("a query", texts, k=2.5)
    with pytest.raises(TypeError, match="k must be an integer"):
        model.search("a query", texts, k=True)
    with pytest.raises(TypeError, match="document must be a str"):
        model.explain("a query", None)
    with pytest.raises(ValueError, match="n_top must be >= 1"):
        model.explain("a query", "a document", n_top=0)
    rule = _CACHE.get("film_pairs") or _CACHE.setdefault("film_pairs", _fit("film_pairs", data))
    with pytest.raises(ValueError, match="pairs is empty"):
        rule.match([])
    with pytest.raises(ValueError, match=r"pairs\[0\] must be a tuple"):
        rule.match([("only one",)])
    with pytest.raises(TypeError, match=r"pairs\[0\] must hold two str"):
        rule.match([("a", 1)])


def test_load_and_from_parts_refuse_what_is_not_a_model(data, tmp_path):
    from learnsim.persistence import save

    model = _CACHE.get("film") or _CACHE.setdefault("film", _fit("film", data))
    save(model.metric, tmp_path / "metric.npz")
    with pytest.raises(ValueError, match="expected 'vectorizer' and 'metric'"):
        Pipeline.load(tmp_path / "metric.npz")
    with pytest.raises(ValueError, match="'metric'"):
        Pipeline.from_parts({"vectorizer": model.vectorizer})
    with pytest.raises(ValueError, match="unknown part"):
        Pipeline.from_parts({**model.parts, "extra": 1})
    with pytest.raises(TypeError, match="dict"):
        Pipeline.from_parts([model.vectorizer, model.metric])


def test_import_learnsim_stays_light():
    code = "import learnsim, sys; assert 'sklearn' not in sys.modules, 'sklearn imported'; print(learnsim.__version__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert callable(learnsim.fit) and callable(learnsim.load) and learnsim.Pipeline is Pipeline
    with pytest.raises(AttributeError, match="no attribute"):
        learnsim.no_such_name
