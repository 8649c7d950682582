"""Tests for learnsim.text: tokenising, weighting, BM25, LSI, length resampling, errors, state."""
from __future__ import annotations

import json
import math
import sys
import tarfile
import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError
from sklearn.feature_extraction.text import TfidfVectorizer

from conftest import require_corpus
from learnsim.text import TextVectorizer, Tokenizer, find_empty_rows, resample_counts

# Columns are alphabetical: apple, banana, cherry, date.
FRUIT = ["apple banana apple", "banana cherry", "cherry cherry cherry date"]
FRUIT_COUNTS = np.array([[2, 1, 0, 0], [0, 1, 1, 0], [0, 0, 3, 1]], dtype=float)

CORPUS = [
    "the quick brown fox jumps over the lazy dog",
    "a quick brown dog outpaces a quick red fox",
    "lazy dogs sleep all day long",
    "foxes are quick and clever animals",
    "the dog barks at the red fox in the garden at night",
    "clever animals learn quick tricks",
    "red apples and green apples grow in the garden",
    "night falls on the quiet garden",
]


def dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X)


# --------------------------------------------------------------------------- Tokenizer
def test_tokenizer_default_lowercases_and_drops_one_letter_tokens():
    assert Tokenizer()("The Cat, a HAT!") == ["the", "cat", "hat"]


def test_tokenizer_english_stop_words():
    assert Tokenizer(stop_words="english")("The cat and the hat") == ["cat", "hat"]


def test_tokenizer_stop_words_match_ignoring_case_without_lowercasing():
    assert Tokenizer(lowercase=False, stop_words=["the"])("The Cat the hat") == ["Cat", "hat"]


def test_tokenizer_porter_stemming():
    pytest.importorskip("Stemmer")
    tok = Tokenizer(stem="porter")
    assert tok("running") == ["run"]
    assert tok("Running runs quickly") == ["run", "run", "quickli"]
    assert tok._stem_cache["running"] == "run"  # cached for the next document


def test_tokenizer_stemming_without_pystemmer_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)  # makes `import Stemmer` fail
    with pytest.raises(ImportError, match=r"pip install learnsim\[stem\]"):
        Tokenizer(stem="porter")


def test_tokenizer_bigrams():
    assert Tokenizer(ngram_range=(1, 2))("quick brown fox") == [
        "quick", "brown", "fox", "quick brown", "brown fox"]
    assert Tokenizer(ngram_range=(2, 2))("quick brown fox") == ["quick brown", "brown fox"]
    # n-grams are formed after stop-word removal
    assert Tokenizer(ngram_range=(2, 2), stop_words="english")("the quick and the brown") == ["quick brown"]


def test_vectorizer_bigram_vocabulary():
    vec = TextVectorizer("tf", ngram_range=(1, 2)).fit(["quick brown fox", "brown fox"])
    assert list(vec.get_feature_names_out()) == ["brown", "brown fox", "fox", "quick", "quick brown"]
    np.testing.assert_array_equal(dense(vec.transform(["brown fox fox"])), [[1, 1, 2, 0, 0]])


@pytest.mark.parametrize("kwargs, match", [
    (dict(token_pattern="(unclosed"), "not a valid regular expression"),
    (dict(token_pattern=r"(\w)(\w)"), "capturing groups"),
    (dict(stop_words="klingon"), "stop_words must be None, one of .*'danish'"),
    (dict(stop_words=["ok", 3]), "str only"),
    (dict(stem="snowball"), "stem must be"),
    (dict(ngram_range=(2, 1)), "min_n <= max_n"),
    (dict(ngram_range=3), "pair"),
])
def test_tokenizer_bad_parameters(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        Tokenizer(**kwargs)


def test_tokenizer_refuses_non_string():
    with pytest.raises(TypeError, match="str document"):
        Tokenizer()(b"bytes")


# --------------------------------------------------------------------------- weightings
def test_vocabulary_is_alphabetical():
    vec = TextVectorizer().fit(FRUIT)
    assert vec.vocabulary_ == {"apple": 0, "banana": 1, "cherry": 2, "date": 3}
    assert list(vec.get_feature_names_out()) == ["apple", "banana", "cherry", "date"]
    assert vec.n_features_out_ == 4
    np.testing.assert_array_equal(vec.document_frequency_, [1, 2, 2, 1])


def test_binary_vectors():
    X = TextVectorizer("binary").fit_transform(FRUIT)
    assert sp.isspmatrix_csr(X) and X.dtype == np.float32
    np.testing.assert_array_equal(dense(X), [[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]])


def test_tf_vectors_raw_and_sublinear():
    np.testing.assert_array_equal(dense(TextVectorizer("tf").fit_transform(FRUIT)), FRUIT_COUNTS)
    X = dense(TextVectorizer("tf", sublinear_tf=True).fit_transform(FRUIT))
    expected = np.array([[1 + math.log(2), 1, 0, 0], [0, 1, 1, 0], [0, 0, 1 + math.log(3), 1]])
    np.testing.assert_allclose(X, expected, rtol=1e-6)


def test_tfidf_vectors_by_hand():
    vec = TextVectorizer("tfidf", dtype=np.float64)
    X = dense(vec.fit_transform(FRUIT))
    idf = np.array([math.log(3) + 1, math.log(1.5) + 1, math.log(1.5) + 1, math.log(3) + 1])
    np.testing.assert_allclose(vec.idf_, idf)
    np.testing.assert_allclose(X, FRUIT_COUNTS * idf)
    assert X.dtype == np.float64
    # l2: each non-empty row has unit length
    Xn = dense(TextVectorizer("tfidf", norm="l2").fit_transform(FRUIT))
    np.testing.assert_allclose(Xn, FRUIT_COUNTS * idf / np.linalg.norm(FRUIT_COUNTS * idf, axis=1, keepdims=True),
                               rtol=1e-6)


def test_tfidf_matches_sklearn_without_smoothing():
    ours = TextVectorizer("tfidf", norm="l2", sublinear_tf=True, dtype=np.float64).fit(CORPUS)
    ref = TfidfVectorizer(smooth_idf=False, norm="l2", sublinear_tf=True).fit(CORPUS)
    assert list(ours.get_feature_names_out()) == list(ref.get_feature_names_out())
    queries = ["quick red fox at night", "garden apples"]
    np.testing.assert_allclose(dense(ours.transform(queries)), ref.transform(queries).toarray(), rtol=1e-12)


def test_unit_rows_are_sklearns_normalize_value_for_value():
    """The vectoriser scales its rows itself (sklearn's normalize checked its arguments for most
    of a short transform's time): the same values, rows of zeros left alone."""
    from sklearn.preprocessing import normalize

    from learnsim.text._vectorizer import _unit_rows

    rng = np.random.default_rng(0)
    for seed in range(20):
        X = sp.random(30, 200, density=0.05, format="csr", random_state=seed)
        X.data = np.exp(3.0 * rng.standard_normal(X.nnz))
        X[int(rng.integers(0, 30))] = 0.0          # an empty row
        X = sp.csr_matrix(X)
        X.eliminate_zeros()
        got = _unit_rows(X.copy())
        want = normalize(X.copy(), norm="l2")
        assert np.array_equal(got.indptr, want.indptr) and np.array_equal(got.indices, want.indices)
        assert np.array_equal(got.data, want.data)
        norms = np.sqrt(np.asarray(got.multiply(got).sum(axis=1)).ravel())
        assert np.allclose(norms[norms > 0], 1.0) and (norms == 0).sum() >= 1
    empty = sp.csr_matrix((3, 5))
    assert _unit_rows(empty).nnz == 0


def test_query_role_weights_like_documents_except_bm25():
    vec = TextVectorizer("tfidf").fit(CORPUS)
    q = ["quick fox fox"]
    np.testing.assert_array_equal(dense(vec.transform(q, role="query")), dense(vec.transform(q)))


def _bm25_by_loops(corpus, query, k1, b):
    tok = Tokenizer()
    docs = [tok(d) for d in corpus]
    n = len(docs)
    avgdl = sum(len(d) for d in docs) / n
    scores = []
    for d in docs:
        score = 0.0
        for term in tok(query):
            df = sum(term in other for other in docs)
            if df == 0:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            f = d.count(term)
            score += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len(d) / avgdl))
        scores.append(score)
    return np.array(scores)


@pytest.mark.parametrize("k1, b", [(1.2, 0.75), (2.0, 0.3), (0.5, 1.0)])
def test_bm25_dot_product_is_okapi_score(k1, b):
    vec = TextVectorizer("bm25", k1=k1, b=b, dtype=np.float64).fit(CORPUS)
    D = vec.transform(CORPUS)
    for query in ["quick fox", "the red fox fox at night", "garden unknownword", "dog"]:
        q = vec.transform([query], role="query")
        got = dense(q @ D.T).ravel()
        np.testing.assert_allclose(got, _bm25_by_loops(CORPUS, query, k1, b), rtol=1e-12)
        assert got.max() > 0  # every query shares a term with the corpus


def test_bm25_query_vector_is_raw_counts_and_documents_saturate():
    vec = TextVectorizer("bm25").fit(CORPUS)
    q = dense(vec.transform(["fox fox quick"], role="query")).ravel()
    assert q[vec.vocabulary_["fox"]] == 2 and q[vec.vocabulary_["quick"]] == 1 and q.sum() == 3
    # document side: weight / idf is below k1 + 1 (tf saturation)
    D = vec.transform(CORPUS)
    ratio = D.data / vec.idf_[D.indices]
    assert (ratio > 0).all() and (ratio < vec.k1 + 1).all()


# --------------------------------------------------------------------------- LSI
def test_lsi_int_components_shape_and_projection():
    base = TextVectorizer("tfidf", norm="l2", dtype=np.float64).fit(CORPUS)
    vec = TextVectorizer("tfidf", norm="l2", n_components=3, dtype=np.float64).fit(CORPUS)
    Z = vec.transform(CORPUS)
    assert isinstance(Z, np.ndarray) and Z.shape == (len(CORPUS), 3)
    assert vec.components_.shape == (3, len(base.vocabulary_)) and vec.n_features_out_ == 3
    Xw = dense(base.transform(CORPUS))
    # plain projection of the normalised weighted vectors, no 1/sigma scaling
    np.testing.assert_allclose(Z, Xw @ vec.components_.T, atol=1e-12)
    np.testing.assert_allclose(vec.components_ @ vec.components_.T, np.eye(3), atol=1e-10)
    np.testing.assert_allclose(vec.singular_values_, np.linalg.svd(Xw, compute_uv=False)[:3], rtol=1e-10)
    assert list(vec.get_feature_names_out()) == ["lsi0", "lsi1", "lsi2"]


def test_lsi_components_column_major_fitted_and_loaded(tmp_path):
    """components_ is kept column-major so that X @ components_.T of a sparse X reads it in
    place; its saved array is row-major, a loaded one column-major again, the same projection."""
    from learnsim.persistence import load, save

    vec = TextVectorizer("tfidf", norm="l2", n_components=3, dtype=np.float64).fit(CORPUS)
    assert vec.components_.T.flags.c_contiguous
    assert vec._get_state()[1]["components"].flags.c_contiguous
    loaded = load(save(vec, tmp_path / "vec.npz"))
    assert loaded.components_.T.flags.c_contiguous
    np.testing.assert_array_equal(loaded.transform(CORPUS), vec.transform(CORPUS))


def test_lsi_fraction_of_vocabulary():
    docs = [" ".join(f"w{i}x{j}" for j in range(20)) for i in range(30)]  # 600 distinct terms
    vec = TextVectorizer(n_components=0.02).fit(docs)
    assert vec.n_components_ == 12  # 2% of 600
    assert vec.transform(docs[:2]).shape == (2, 12)


def test_lsi_cap_at_rank_warns():
    with pytest.warns(UserWarning, match=r"min\(n_docs=8, n_terms=33\) = 8; using 8"):
        vec = TextVectorizer(n_components=50)
        Z = vec.fit_transform(CORPUS)
    assert vec.n_components_ == len(CORPUS) and Z.shape == (len(CORPUS), len(CORPUS))
    with pytest.warns(UserWarning, match="exceeds the largest possible SVD rank"):
        assert TextVectorizer(n_components=0.5).fit(CORPUS).n_components_ == len(CORPUS)  # 17 of 33 terms


@pytest.mark.parametrize("gram_rows", [0, 10_000], ids=["randomized", "gram"])
def test_lsi_randomized_solver_is_deterministic(monkeypatch, gram_rows):
    import learnsim._utils.linalg as linalg
    exact = TextVectorizer(n_components=3, dtype=np.float64).fit(CORPUS)
    monkeypatch.setattr(linalg, "_DENSE_SVD_MAX_ELEMENTS", 0)
    monkeypatch.setattr(linalg, "_DENSE_SVD_LARGE_RANK_MAX_ELEMENTS", 0)
    monkeypatch.setattr(linalg, "_GRAM_MAX_ROWS", gram_rows)
    a = TextVectorizer(n_components=3, random_state=7, dtype=np.float64).fit(CORPUS)
    b = TextVectorizer(n_components=3, random_state=7, dtype=np.float64).fit(CORPUS)
    np.testing.assert_array_equal(a.components_, b.components_)
    np.testing.assert_array_equal(a.transform(CORPUS), b.transform(CORPUS))
    np.testing.assert_allclose(a.singular_values_, exact.singular_values_, rtol=1e-6)
    # same sign convention on both solvers
    np.testing.assert_allclose(a.components_, exact.components_, atol=1e-6)


# --------------------------------------------------------------------------- resampling
def _random_counts(seed=0):
    rng = np.random.default_rng(seed)
    C = rng.poisson(0.8, size=(40, 25)) * (rng.random((40, 25)) < 0.5)
    C[3] = 0  # an empty document
    C[5] = 0
    C[5, [1, 2]] = [4, 6]  # exactly 10 tokens
    return sp.csr_matrix(C)


def test_resample_counts_lengths_and_multisets():
    C = _random_counts()
    target = 10
    R = resample_counts(C, target, random_state=0)
    assert R.shape == C.shape and R.dtype == C.dtype
    Cd, Rd = C.toarray(), R.toarray()
    before, after = Cd.sum(axis=1), Rd.sum(axis=1)
    assert after[3] == 0  # empty stays empty
    np.testing.assert_array_equal(after[before > 0], target)
    np.testing.assert_array_equal(Rd[5], Cd[5])  # already at the target length
    longer, shorter = before > target, (before > 0) & (before < target)
    assert longer.any() and shorter.any()
    assert (Rd[longer] <= Cd[longer]).all()  # subsampling: a sub-multiset
    assert (Rd[shorter] >= Cd[shorter]).all()  # oversampling keeps the document...
    assert ((Rd[shorter] > 0) <= (Cd[shorter] > 0)).all()  # ...and draws from its own terms
    assert R.nnz == np.count_nonzero(Rd)  # no explicit zeros stored


def test_resample_counts_is_deterministic_with_seed():
    C = _random_counts()
    a = resample_counts(C, 7, random_state=3).toarray()
    np.testing.assert_array_equal(a, resample_counts(C, 7, random_state=3).toarray())
    assert not np.array_equal(a, resample_counts(C, 7, random_state=4).toarray())


@pytest.mark.parametrize("counts, target, match", [
    (sp.csr_matrix([[1, -1]]), 3, "negative"),
    (sp.csr_matrix([[0.5, 1.0]]), 3, "non-integer"),
    (sp.csr_matrix([[np.nan, 1.0]]), 3, "NaN"),
    (np.array([1, 2]), 3, "2-D"),
    (sp.csr_matrix([[1, 2]]), 0, "positive integer"),
    (sp.csr_matrix([[1, 2]]), True, "positive integer"),
    (sp.csr_matrix([[1, 2]]), 2.5, "positive integer"),
])
def test_resample_counts_bad_input(counts, target, match):
    with pytest.raises(ValueError, match=match):
        resample_counts(counts, target, random_state=0)


def test_vectorizer_resamples_in_fit_transform_only():
    vec = TextVectorizer("tf", resample_length=6, random_state=0)
    X = dense(vec.fit_transform(CORPUS))
    np.testing.assert_array_equal(X.sum(axis=1), 6)
    assert vec.resample_length_ == 6
    original = dense(vec.transform(CORPUS))
    np.testing.assert_array_equal(original, dense(TextVectorizer("tf").fit_transform(CORPUS)))
    assert not np.array_equal(X, original)


def test_vectorizer_median_resampling_and_fit_equals_fit_transform_state():
    lengths = [len(Tokenizer()(d)) for d in CORPUS]
    a = TextVectorizer("tfidf", resample_length="median", n_components=3, random_state=1, dtype=np.float64)
    Z = a.fit_transform(CORPUS)
    assert a.resample_length_ == int(round(np.median(lengths)))
    b = TextVectorizer("tfidf", resample_length="median", n_components=3, random_state=1,
                       dtype=np.float64).fit(CORPUS)
    np.testing.assert_array_equal(a.components_, b.components_)
    # the LSI basis is fitted on the resampled training vectors, which fit_transform returns
    assert not np.allclose(Z, a.transform(CORPUS))


# --------------------------------------------------------------------------- empty documents
def test_empty_training_document_warns_and_is_recorded():
    with pytest.warns(UserWarning, match="1 of 3 training documents are empty"):
        vec = TextVectorizer().fit(["apple banana", "a !", "banana cherry"])
    np.testing.assert_array_equal(vec.empty_rows_, [1])
    X = vec.transform(["zzz unknown", "apple", ""])
    np.testing.assert_array_equal(find_empty_rows(X), [0, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TextVectorizer().fit(FRUIT)  # no empty documents, no warning


def test_find_empty_rows_dense_and_lsi():
    with pytest.warns(UserWarning):
        vec = TextVectorizer(n_components=2).fit(CORPUS + [""])
    np.testing.assert_array_equal(find_empty_rows(vec.transform(["nothing known", "quick fox"])), [0])


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize("docs, exc, match", [
    ([], ValueError, "empty: at least one document"),
    (["", "  ", "a b c"], ValueError, "every document is empty"),
    (["the and of", "a the"], ValueError, "every document is empty"),
    ("a single string", TypeError, "not a single str"),
    (["fine doc", 3], TypeError, r"docs\[1\] is int"),
    ([b"bytes doc"], TypeError, "decode bytes"),
    (None, TypeError, "None"),
    (42, TypeError, "iterable of strings"),
])
def test_bad_documents(docs, exc, match):
    with pytest.raises(exc, match=match):
        TextVectorizer(stop_words="english").fit(docs)


@pytest.mark.parametrize("kwargs, match", [
    (dict(weighting="lsa"), "weighting must be one of"),
    (dict(n_components=0), "n_components must be >= 1"),
    (dict(n_components=-2), "n_components must be >= 1"),
    (dict(n_components=1.5), r"lie in \(0, 1\)"),
    (dict(n_components=1.0), r"lie in \(0, 1\)"),
    (dict(n_components=True), "n_components must be None"),
    (dict(n_components="10"), "n_components must be None"),
    (dict(weighting="bm25", sublinear_tf=True), "sublinear_tf applies"),
    (dict(norm="l1"), "norm must be"),
    (dict(min_df=1.5), r"in \[0, 1\]"),
    (dict(max_df=-1), "max_df must be >= 0"),
    (dict(max_features=0), "max_features"),
    (dict(k1=-1.0), "k1 must be >= 0"),
    (dict(b=2.0), r"b must lie in \[0, 1\]"),
    (dict(resample_length=0), "resample_length"),
    (dict(resample_length="mean"), "resample_length"),
    (dict(dtype=np.int32), "float dtype"),
    (dict(min_df=5), "no term remains"),
    (dict(min_df=3, max_df=2), "fewer documents"),
    (dict(stem="lancaster"), "stem must be"),
    # a bare int was turned into a tuple before the Tokenizer's check: "'int' object is not iterable"
    (dict(ngram_range=3), r"ngram_range must be a pair \(min_n, max_n\); got 3"),
    (dict(ngram_range=("1", "2")), "ngram_range must hold two integers"),
    # read for their truth value, "no" lowercased and took 1 + log(tf)
    (dict(lowercase="no"), "lowercase must be True or False; got 'no'"),
    (dict(lowercase=0), "lowercase must be True or False; got 0"),
    (dict(sublinear_tf="no"), "sublinear_tf must be True or False; got 'no'"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        TextVectorizer(**kwargs).fit(CORPUS)


def test_transform_errors():
    with pytest.raises(NotFittedError):
        TextVectorizer().transform(["doc"])
    vec = TextVectorizer().fit(CORPUS)
    with pytest.raises(ValueError, match="role must be"):
        vec.transform(["quick fox"], role="question")
    with pytest.raises(TypeError, match="single str"):
        vec.transform("quick fox")
    with pytest.raises(ValueError, match="at least one document"):
        vec.transform([])


def test_min_df_max_df_max_features_filtering():
    vec = TextVectorizer("tf", min_df=2, max_df=0.4).fit(CORPUS)  # df in [2, 3.2]
    df = vec.document_frequency_
    assert (df >= 2).all() and (df <= 3).all()
    assert {"fox", "garden", "night"} <= set(vec.vocabulary_)
    assert not {"the", "quick", "jumps"} & set(vec.vocabulary_)  # df 4, 4 and 1
    # totals: the 7, quick 5, then dog = fox = red = garden = 3: ties go to the alphabetically first
    with pytest.warns(UserWarning, match="1 of 8 training documents are empty"):  # 'lazy dogs sleep...'
        top = TextVectorizer("tf", max_features=3).fit(CORPUS)
    assert sorted(top.vocabulary_) == ["dog", "quick", "the"]


# --------------------------------------------------------------------------- persistence
@pytest.mark.parametrize("kwargs", [
    dict(weighting="tfidf", norm="l2"),
    dict(weighting="binary", min_df=2),
    dict(weighting="bm25", k1=1.6, b=0.5, n_components=3, random_state=0),
    dict(weighting="tf", sublinear_tf=True, stop_words=["the", "a"], ngram_range=(1, 2),
         resample_length="median", random_state=np.random.default_rng(0), dtype=np.float64),
])
def test_state_round_trip(kwargs):
    vec = TextVectorizer(**kwargs).fit(CORPUS)
    meta, arrays = vec._get_state()
    meta = json.loads(json.dumps(meta))  # must survive JSON
    assert all(isinstance(a, np.ndarray) for a in arrays.values())
    clone = TextVectorizer._from_state(meta, {k: np.array(v) for k, v in arrays.items()})
    new = ["the quick red fox", "garden at night", "nothing known here"]
    for role in ("document", "query"):
        a, b = vec.transform(new, role=role), clone.transform(new, role=role)
        assert type(a) is type(b)
        np.testing.assert_array_equal(dense(a), dense(b))
        assert dense(a).dtype == dense(b).dtype
    assert clone.vocabulary_ == vec.vocabulary_
    np.testing.assert_array_equal(clone.get_feature_names_out(), vec.get_feature_names_out())


def test_state_with_stemming_round_trip():
    pytest.importorskip("Stemmer")
    vec = TextVectorizer(stem="porter", stop_words="english").fit(CORPUS)
    clone = TextVectorizer._from_state(*vec._get_state())
    assert "jump" in clone.vocabulary_
    np.testing.assert_array_equal(dense(clone.transform(["jumping foxes"])), dense(vec.transform(["jumping foxes"])))


def test_state_inconsistencies_are_refused():
    vec = TextVectorizer("bm25", n_components=2).fit(CORPUS)
    meta, arrays = vec._get_state()
    with pytest.raises(ValueError, match="lacks the array 'idf'"):
        TextVectorizer._from_state(meta, {k: v for k, v in arrays.items() if k != "idf"})
    with pytest.raises(ValueError, match="'components' has shape"):
        TextVectorizer._from_state(meta, {**arrays, "components": arrays["components"][:, :-1]})
    with pytest.raises(ValueError, match="missing metadata keys"):
        TextVectorizer._from_state({k: v for k, v in meta.items() if k != "terms"}, arrays)
    with pytest.raises(ValueError, match="unknown parameters"):
        TextVectorizer._from_state({**meta, "params": {**meta["params"], "colour": "red"}}, arrays)
    with pytest.raises(ValueError, match="duplicates"):
        TextVectorizer._from_state({**meta, "terms": [meta["terms"][0]] * len(meta["terms"])}, arrays)
    with pytest.raises(NotFittedError):
        TextVectorizer()._get_state()


# --------------------------------------------------------------------------- corpus
def _read_20ng_train(path, limit=None):
    docs = []
    with tarfile.open(path) as tar:
        for member in tar:
            if member.isfile() and member.name.startswith("20news-bydate-train/"):
                raw = tar.extractfile(member).read().decode("latin-1")
                docs.append(raw.split("\n\n", 1)[-1])  # drop the Usenet headers
                if limit is not None and len(docs) == limit:
                    break
    return docs


@pytest.mark.corpus
def test_20newsgroups_sample_vocabulary_size():
    docs = _read_20ng_train(require_corpus("20newsgroups/20news-bydate.tar.gz"), limit=300)
    assert len(docs) == 300
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a few posts are empty once headers are gone
        vec = TextVectorizer(stop_words="english", min_df=2)
        X = vec.fit_transform(docs)
    assert 2_000 < len(vec.vocabulary_) < 15_000
    assert X.shape == (300, len(vec.vocabulary_))
    assert "god" in vec.vocabulary_  # the first train group in the archive is talk.religion.misc
    assert "the" not in vec.vocabulary_


@pytest.mark.corpus
@pytest.mark.slow
def test_20newsgroups_full_train_vectorises_in_seconds():
    docs = _read_20ng_train(require_corpus("20newsgroups/20news-bydate.tar.gz"))
    assert len(docs) == 11_314
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        X = TextVectorizer("bm25", stop_words="english").fit_transform(docs)
    elapsed = time.perf_counter() - start
    assert 50_000 < X.shape[1] < 200_000
    assert elapsed < 60, f"vectorising 20 Newsgroups took {elapsed:.0f} s"
