"""learnsim.text's collection vocabulary (issue 32, part 6): a fitted vectoriser applied with
the vocabulary, document frequencies and mean length of another collection."""
from __future__ import annotations

import numpy as np
import pytest

from learnsim.text import (TextVectorizer, collection_terms, collection_vectorizer, collection_vectors,
                           collection_vocabulary, has_lexical_part)

TRAIN = ["the cat sat on the mat", "a dog barked at the cat", "cats and dogs"]
COLLECTION = ["a parrot sat on the fence", "the parrot and the cat", "naïve café owners", "fence posts"]


@pytest.mark.parametrize("params", [{"weighting": "tfidf", "norm": "l2"},
                                    {"weighting": "tfidf", "sublinear_tf": True, "norm": "l2"},
                                    {"weighting": "bm25", "k1": 1.5, "b": 0.6},
                                    {"weighting": "tf"}, {"weighting": "binary", "norm": "l2"},
                                    {"weighting": "tf", "stop_words": "english", "min_df": 2}])
def test_the_collection_vectorizer_is_the_vectorizer_fitted_on_the_collection(params):
    vec = TextVectorizer(dtype=np.float64, **params).fit(TRAIN)
    stats, mine, X = collection_vectors(vec, COLLECTION)
    # the fit's vocabulary filters are not applied to the searched collection
    fitted = TextVectorizer(dtype=np.float64, **dict(params, min_df=1)).fit(COLLECTION)
    assert collection_terms(stats) == fitted.terms_.tolist()
    np.testing.assert_allclose(X.toarray(), fitted.transform(COLLECTION).toarray(), rtol=0, atol=1e-12)
    queries = ["parrot on a fence", "an unknown word", "café"]
    np.testing.assert_allclose(mine.transform(queries).toarray(), fitted.transform(queries).toarray(),
                               rtol=0, atol=1e-12)
    assert collection_vectorizer(vec, stats).get_feature_names_out().tolist() == fitted.terms_.tolist()
    # the fitted vectoriser itself is left as it was
    assert vec.terms_.tolist() == TextVectorizer(**params).fit(TRAIN).terms_.tolist()


def test_statistics_are_numeric_arrays_and_checked():
    vec = TextVectorizer().fit(TRAIN)
    stats = collection_vocabulary(vec, COLLECTION)
    assert all(np.asarray(a).dtype.kind in "iuf" for a in stats.values())
    assert int(stats["vocabulary_n_documents"]) == len(COLLECTION)
    assert collection_terms(stats)[:3] == ["and", "café", "cat"]
    bad = dict(stats, vocabulary_df=stats["vocabulary_df"][:-1])
    with pytest.raises(ValueError, match="document frequencies"):
        collection_vectorizer(vec, bad)
    cut = dict(stats, vocabulary=stats["vocabulary"][:-1])
    with pytest.raises(ValueError, match="vocabulary"):
        collection_vectorizer(vec, cut)
    with pytest.raises(ValueError, match="vocabulary_offsets"):
        collection_vectorizer(vec, {"vocabulary": stats["vocabulary"]})


def test_a_collection_without_any_term_gives_zero_vectors():
    vec = TextVectorizer(norm="l2").fit(TRAIN)
    stats, mine, X = collection_vectors(vec, ["!!", "a"])
    assert collection_terms(stats) == [] and X.shape == (2, 0)
    assert mine.transform(["the cat"]).shape == (1, 0)


def test_only_term_vectorisers_without_lsi_have_a_lexical_part():
    assert has_lexical_part(TextVectorizer().fit(TRAIN))
    assert not has_lexical_part(TextVectorizer(n_components=2).fit(TRAIN))
    with pytest.raises(ValueError, match="no vocabulary"):
        collection_vocabulary(TextVectorizer(n_components=2).fit(TRAIN), COLLECTION)
