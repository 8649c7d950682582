"""Inputs of the Pipeline's entry points that reached scikit-learn or numpy before a check of
learnsim's named them (helper h-api's sweep of the Python API, as scikit-learn and
sentence-transformers users call it)."""
from __future__ import annotations

import warnings

import pytest

TEXTS = ["reset my password", "forgot my password", "charged twice for one order", "refund a double charge",
         "app crashes at start", "crash after the update"]


@pytest.fixture(scope="module")
def bm25_model():
    from learnsim._baseline_models import baseline_pipeline

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return baseline_pipeline("bm25", TEXTS)


@pytest.mark.parametrize("call", ["search", "similarity", "transform", "collection_statistics", "explain"])
def test_a_bm25_collection_without_a_counted_word_is_named(bm25_model, call):
    """A model that is BM25 (a fit on triplets or links that kept the baseline) given a
    collection of stop words and punctuation: scikit-learn's 'X has 0 feature(s)' from inside
    the weighting; now the same error as the tf.idf cosine's, naming the collection."""
    corpus = ["the a", "of the ...", "!!!"]
    calls = {"search": lambda: bm25_model.search(["refund"], corpus, k=1),
             "similarity": lambda: bm25_model.similarity(["refund"], corpus),
             "transform": lambda: bm25_model.transform(corpus),
             "collection_statistics": lambda: bm25_model.collection_statistics(corpus),
             "explain": lambda: bm25_model.explain("refund", corpus[0], corpus=corpus)}
    with pytest.raises(ValueError, match="none of the 3 texts of the collection holds a word this model counts"):
        calls[call]()


@pytest.mark.parametrize("texts_b, error", [(None, TypeError), ("refund please", TypeError), ([], ValueError),
                                            (["refund", b"charged twice"], TypeError)])
def test_similarity_names_texts_b_not_a_corpus_the_call_has_not(bm25_model, texts_b, error):
    """similarity(texts_a, texts_b) said 'corpus must be a list of str' of its second argument,
    a name the call does not have."""
    with pytest.raises(error, match=r"^texts_b"):
        bm25_model.similarity(["refund"], texts_b)
