"""learnsim.distributed.text on a LocalCluster of 2 worker processes: the vocabulary fitted by
map-reduce is the single-process TextVectorizer's (terms in order, document frequencies, idf to
1e-12, mean length, empty rows), the Dask array of CSR row blocks holds the single-process
vectors, the collection statistics equal the scorer's, the hashing option needs no vocabulary,
and bad input gets a clear error.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("dask.bag", reason="learnsim.distributed needs the dask extra (pip install learnsim[dask])")
pytest.importorskip("distributed", reason="the tests run on a distributed.LocalCluster (pip install learnsim[dask])")

import dask  # noqa: E402
import dask.bag as db  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from dask_cluster import bag_of, local_client  # noqa: E402
from learnsim.distributed.text import (HashingTextVectorizer, collection_statistics, document_frequencies,  # noqa: E402
                                       fit_vectorizer, partition_lengths, vectorize)
from learnsim.text import TextVectorizer  # noqa: E402

TOL = 1e-12
# the texts include empty ones on purpose: fitting warns about them
pytestmark = pytest.mark.filterwarnings("ignore:.*training documents are empty:UserWarning")


client = pytest.fixture(scope="module")(local_client)


def _texts():
    from index_models import corpus

    # a text with no word at all, one whose only word is rare (filtered out by min_df=2)
    return corpus()[0] + ["", "!! ??", "qqqzzzunique"]


def _bag(texts, sizes=(0, 37, 0, 50, 1)):
    """A bag of ``texts`` with empty partitions among its partitions (the rest in the last one)."""
    return bag_of(texts, sizes)


PARAMS = [{}, {"weighting": "bm25", "min_df": 2, "max_df": 0.5, "max_features": 150},
          {"weighting": "tf", "ngram_range": (1, 2), "stop_words": "english", "max_features": 500, "norm": "l2"},
          {"weighting": "binary", "min_df": 0.02, "sublinear_tf": False, "token_pattern": r"(?u)\b\w+\b"}]


def _fit_both(params, texts, bag):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)      # the empty training documents
        return TextVectorizer(**params).fit(texts), fit_vectorizer(bag, **params)


def _assert_same_vectorizer(a, b):
    assert type(b) is TextVectorizer
    assert list(b.terms_) == list(a.terms_) and b.vocabulary_ == a.vocabulary_
    np.testing.assert_array_equal(b.document_frequency_, a.document_frequency_)
    assert b.n_documents_ == a.n_documents_ and b.n_features_out_ == a.n_features_out_
    assert abs(b.avgdl_ - a.avgdl_) <= TOL * a.avgdl_
    np.testing.assert_array_equal(b.empty_rows_, a.empty_rows_)
    if a.idf_ is None:
        assert b.idf_ is None
    else:
        np.testing.assert_allclose(b.idf_, a.idf_, rtol=TOL, atol=0)


@pytest.mark.parametrize("params", PARAMS, ids=["tfidf", "bm25-filtered", "ngrams-stop", "binary-mindf"])
def test_the_vocabulary_fitted_by_map_reduce_is_the_single_process_one(client, params):
    texts = _texts()
    a, b = _fit_both(params, texts, _bag(texts))
    _assert_same_vectorizer(a, b)
    # the filtered vocabulary empties the rare-word text too, found by the second pass
    assert len(texts) - 3 in a.empty_rows_
    if params.get("min_df") == 2:
        assert len(texts) - 1 in a.empty_rows_
    np.testing.assert_allclose(b.transform(texts[:20]).toarray(), a.transform(texts[:20]).toarray(), rtol=0, atol=0)


def test_porter_stemming_is_sent_to_the_workers(client):
    pytest.importorskip("Stemmer", reason="stem='porter' needs PyStemmer (pip install learnsim[stem])")
    texts = _texts()
    a, b = _fit_both({"stem": "porter", "weighting": "bm25"}, texts, _bag(texts))
    _assert_same_vectorizer(a, b)
    X = vectorize(_bag(texts), b).compute()
    assert abs(X - a.transform(texts).astype(np.float64)).max() == 0


def test_vectorize_gives_known_chunks_of_csr_rows_equal_to_the_single_process_vectors(client):
    texts = _texts()
    a, b = _fit_both({"weighting": "bm25"}, texts, _bag(texts))
    bag = _bag(texts)
    lengths = partition_lengths(bag)
    assert lengths == [0, 37, 0, 50, 1, len(texts) - 88]
    X = vectorize(bag, b)
    assert X.shape == (len(texts), len(a.terms_)) and X.dtype == np.float64
    assert X.chunks[0] == tuple(lengths) and X.numblocks[1] == 1
    block = X.blocks[1].compute()
    assert sp.isspmatrix_csr(block) and block.shape == (37, len(a.terms_))
    assert X.blocks[0].compute().shape == (0, len(a.terms_))
    full = X.compute()
    assert sp.issparse(full)
    assert abs(full - a.transform(texts).astype(np.float64)).max() == 0
    # given lengths skip the counting pass; wrong ones are found where the partition is read
    Y = vectorize(bag, b, lengths=lengths)
    assert Y.chunks == X.chunks
    with pytest.raises(ValueError, match=r"partition [15] holds 3[57] texts, not the 36"):
        vectorize(bag, b, lengths=[0, 36, 0, 50, 1, len(texts) - 87]).compute()
    with pytest.raises(ValueError, match="6 partitions"):
        vectorize(bag, b, lengths=[1, 2])


def test_document_frequencies_and_collection_statistics_equal_the_single_process_ones(client):
    from index_models import corpus, model

    texts = corpus()[0]
    bag = _bag(texts)
    for family in ("bm25", "linklearn"):
        p = model(family)
        X = vectorize(bag, p)                       # a Pipeline gives its vectoriser
        full = p.vectorize(texts)
        np.testing.assert_array_equal(document_frequencies(X), np.bincount(full.indices, minlength=full.shape[1]))
        want = p.scorer.collection_statistics(full)
        got = collection_statistics(p, X, split_every=2)
        assert sorted(got) == sorted(want)
        for key in want:
            np.testing.assert_allclose(np.asarray(got[key], dtype=float), np.asarray(want[key], dtype=float),
                                       rtol=TOL, atol=0)
    # the families whose vectoriser fixed its statistics take nothing from the collection
    film = model("film")
    assert collection_statistics(film.scorer, vectorize(bag, film)) == {}


def test_hashing_needs_no_vocabulary_and_equals_the_single_process_hashing_fit(client):
    texts = _texts()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        b = fit_vectorizer(_bag(texts), hashing=2 ** 12, weighting="bm25", stop_words="english")
        a = HashingTextVectorizer(2 ** 12, "bm25", stop_words="english").fit(texts)
    assert isinstance(b, HashingTextVectorizer) and not hasattr(b, "vocabulary_")
    np.testing.assert_array_equal(b.document_frequency_, a.document_frequency_)
    np.testing.assert_allclose(b.idf_, a.idf_, rtol=TOL, atol=0)
    assert b.avgdl_ == a.avgdl_ and b.n_documents_ == a.n_documents_ == len(texts)
    np.testing.assert_array_equal(b.empty_rows_, a.empty_rows_)
    X = vectorize(_bag(texts), b)
    assert X.shape == (len(texts), 2 ** 12)
    assert abs(X.compute() - a.transform(texts).astype(np.float64)).max() == 0
    # the same counts as the vocabulary's, columns aside: hashing keeps every token
    counts = HashingTextVectorizer(2 ** 12, "tf", stop_words="english").fit().transform(texts[:30])
    vocab = TextVectorizer("tf", stop_words="english").fit(texts).transform(texts[:30])
    np.testing.assert_array_equal(np.asarray(counts.sum(axis=1)), np.asarray(vocab.sum(axis=1)))
    # "tf" reads no document to fit (nothing is computed: not even a bag of non-texts is read)
    tf = fit_vectorizer(db.from_sequence([1, 2], npartitions=1), hashing=64, weighting="tf")
    assert tf.n_documents_ is None and tf.transform(["a word"]).shape == (1, 64)


def test_a_hashing_vectorizer_survives_a_model_file_and_a_forged_one_is_refused(tmp_path):
    from learnsim import persistence

    texts = _texts()[:50]
    a = HashingTextVectorizer(256, "tfidf").fit(texts)
    persistence.save(a, tmp_path / "h.npz")
    b = persistence.load(tmp_path / "h.npz")
    assert type(b) is HashingTextVectorizer
    assert abs(b.transform(texts) - a.transform(texts)).max() == 0
    # a word no training text has weighs nothing (idf 0 in its column), as outside a vocabulary
    from learnsim.distributed._hashing import _hash_column

    unseen = next(w for w in (f"unseen{i}" for i in range(10_000)) if a.document_frequency_[_hash_column(w, 256)] == 0)
    assert a.transform([unseen]).nnz == 0 and np.isfinite(a.idf_).all()
    meta, arrays = a._get_state()
    arrays = dict(arrays, idf=arrays["idf"] * 2)
    with pytest.raises(ValueError, match="does not follow from the document frequencies"):
        HashingTextVectorizer._from_state(meta, arrays)
    with pytest.raises(ValueError, match="n_features"):
        HashingTextVectorizer(0).fit(texts)


def test_bad_input_gets_a_clear_error(client):
    texts = _texts()
    bag = _bag(texts)
    with pytest.raises(TypeError, match="dask.bag.Bag of str.*from_sequence"):
        fit_vectorizer(texts)
    with pytest.raises(TypeError, match="single str"):
        fit_vectorizer("one text")
    with pytest.raises(TypeError, match="partition 1, item 2 is int"):
        fit_vectorizer(db.from_delayed([dask.delayed(list)(["a b"]), dask.delayed(list)(["c d", "e f", 7])]))
    with pytest.raises(TypeError, match=r"unknown TextVectorizer parameter\(s\) \['minimum_df'\]"):
        fit_vectorizer(bag, minimum_df=2)
    with pytest.raises(ValueError, match="n_components=5: LSI .* cannot be fitted by map-reduce"):
        fit_vectorizer(bag, n_components=5)
    with pytest.raises(ValueError, match="resample_length"):
        fit_vectorizer(bag, resample_length="median")
    with pytest.raises(ValueError, match="weighting must be one of"):
        fit_vectorizer(bag, weighting="okapi")
    with pytest.raises(ValueError, match="min_df filters a vocabulary"):
        fit_vectorizer(bag, hashing=64, min_df=2)
    with pytest.raises(TypeError, match="hashing must be None or an int"):
        fit_vectorizer(bag, hashing=0.5)
    with pytest.raises(ValueError, match="at least one document"):
        fit_vectorizer(db.from_delayed([dask.delayed(list)([]), dask.delayed(list)([])]))
    with pytest.raises(ValueError, match="empty vocabulary"):
        fit_vectorizer(db.from_sequence(["!!", "?"], npartitions=2))
    with pytest.raises(ValueError, match="allows fewer documents"):
        fit_vectorizer(bag, min_df=50, max_df=3)
    with pytest.raises(ValueError, match="split_every"):
        fit_vectorizer(bag, split_every=1)
    vec = fit_vectorizer(bag)
    with pytest.raises(ValueError, match="not fitted"):
        vectorize(bag, TextVectorizer())
    with pytest.raises(TypeError, match="fitted TextVectorizer"):
        vectorize(bag, object())
    X = vectorize(bag, vec)
    with pytest.raises(TypeError, match="dask.array.Array"):
        document_frequencies(X.compute())
    with pytest.raises(ValueError, match="one column chunk"):
        document_frequencies(X.map_blocks(lambda b: b.toarray(), dtype=float).rechunk({1: 100}))
    with pytest.raises(TypeError, match="Pipeline or Scorer"):
        collection_statistics(vec, X)


# issue 44: text written without spaces, cut on the workers as in one process
CJK = ["東京の天気は晴れです", "明日の東京の天気は雨", "iPhone 15の価格", "北京今天的天气很好", "火车站在哪里",
       "서울은 한국의 수도", "ภาษาไทย", "plain english words"] * 5


@pytest.mark.parametrize("params", [{}, {"cjk_unigrams": True}, {"analyzer": "jieba"}],
                         ids=["bigrams", "bigrams+unigrams", "jieba"])
def test_japanese_and_chinese_are_cut_on_the_workers_as_in_one_process(client, params):
    if params.get("analyzer") == "jieba":
        pytest.importorskip("jieba", reason="the jieba analyser needs pip install learnsim[zh]")
    a, b = _fit_both(params, CJK, _bag(CJK, sizes=(0, 7, 0, 20, 1)))
    _assert_same_vectorizer(a, b)
    assert "天气" in a.vocabulary_ and b.analyzer == a.analyzer
    hashed = fit_vectorizer(_bag(CJK, sizes=(3, 30)), hashing=2 ** 12, **params)
    single = HashingTextVectorizer(n_features=2 ** 12, **params).fit(CJK)
    np.testing.assert_allclose(hashed.transform(CJK[:8]).toarray(), single.transform(CJK[:8]).toarray(), rtol=0, atol=0)
    # a sentence is its bigrams (or words), not one term
    assert single.transform(["東京の天気"]).nnz >= 2


def test_a_whole_dask_dataframe_is_refused_naming_its_text_columns():
    # a user passes the frame where its text column is meant: the error names the columns to pick
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    frame = dd.from_pandas(pd.DataFrame({"id": ["a", "b"], "text": ["one text", "another text"]}), npartitions=1)
    with pytest.raises(TypeError, match=r"Dask dataframe.*frame\['text'\]"):
        fit_vectorizer(frame)
