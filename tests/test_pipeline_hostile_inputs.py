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


@pytest.fixture(scope="module")
def cosine_model():
    from learnsim._baseline_models import baseline_pipeline

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return baseline_pipeline("cosine", TEXTS)


@pytest.mark.parametrize("statistics, error, message", [
    ({}, ValueError, r"statistics lacks 'idf'"),
    ({"vocabulary": None}, ValueError, r"statistics lacks 'idf'"),
    ([1, 2], TypeError, r"statistics must be a dict.*got list"),
    ("idf", TypeError, r"statistics must be a dict.*got str")])
def test_statistics_that_are_not_a_collections_are_named(cosine_model, statistics, error, message):
    """encode and explain took any statistics= to index into: a bare KeyError 'idf', or
    'string indices must be integers', from inside the scorer."""
    with pytest.raises(error, match=message):
        cosine_model.encode(TEXTS[:2], statistics=statistics)
    with pytest.raises(error, match=message):
        cosine_model.explain(TEXTS[0], TEXTS[1], statistics=statistics)
    # what collection_statistics gives is taken, as before
    good = cosine_model.collection_statistics(TEXTS)
    assert cosine_model.encode(TEXTS[:2], statistics=good).shape[0] == 2


def test_explain_takes_statistics_or_corpus_not_both(bm25_model):
    """Given both, explain used the statistics and dropped the corpus without a word: the
    explanation of one collection where the caller named another."""
    statistics = bm25_model.collection_statistics(TEXTS[:2])
    with pytest.raises(ValueError, match="statistics= or corpus=, not both"):
        bm25_model.explain("refund", TEXTS[3], statistics=statistics, corpus=TEXTS)
    alone = bm25_model.explain("refund", TEXTS[3], corpus=TEXTS)
    assert alone["score"] == pytest.approx(bm25_model.explain(
        "refund", TEXTS[3], statistics=bm25_model.collection_statistics(TEXTS))["score"], rel=1e-9)


@pytest.mark.parametrize("corpus, error", [(5, TypeError), ("refund please", TypeError), ([], ValueError),
                                           ([b"refund"], TypeError)])
def test_explain_checks_a_corpus_also_where_the_scoring_does_not_read_it(corpus, error):
    """A distance model's explanation ignores the collection, and so took any corpus=, a number
    or a str among them, without a word."""
    import learnsim

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = learnsim.fit(TEXTS, clusters=[0, 0, 1, 1, 2, 2], baseline_holdout=None)
    with pytest.raises(error, match=r"^corpus"):
        model.explain(TEXTS[0], TEXTS[1], corpus=corpus)


@pytest.fixture(scope="module")
def pairs_model():
    import learnsim
    from learnsim.datasets import make_clustered_corpus

    c = make_clustered_corpus(n_clusters=6, docs_per_cluster=10, random_state=0)
    texts, labels = list(c.data), list(c.target)
    pairs = [(texts[i], texts[j], int(labels[i] == labels[j])) for i in range(0, 60, 2) for j in (i + 1, (i + 13) % 60)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return learnsim.fit(pairs=pairs, n_components=8, max_iter=30), pairs


def test_match_reads_a_dataframe_of_two_text_columns_by_its_rows(pairs_model):
    """A DataFrame was iterated as its column names: 'pairs[0] must be a tuple (text_a,
    text_b); got 'q1''. Its rows are the pairs; a table of other than two columns is refused
    by its columns."""
    pd = pytest.importorskip("pandas")
    model, pairs = pairs_model
    rows = [(a, b) for a, b, _ in pairs[:6]]
    frame = pd.DataFrame(rows, columns=["q1", "q2"], index=range(40, 46))
    assert model.match(frame) == model.match(rows)
    with pytest.raises(TypeError, match=r"pairs is a DataFrame of 3 columns \('q1', 'q2', 'dup'\).*df\[\[.*\]\]"):
        model.match(pd.DataFrame(pairs[:6], columns=["q1", "q2", "dup"]))
