"""Lone surrogates (text decoded with errors="surrogateescape") in the text package: the
vectoriser keeps such a term (tests/test_hostile_input.py), and so does a collection's vocabulary."""
from __future__ import annotations

import pytest

from learnsim.text import Tokenizer, TextVectorizer, collection_terms, collection_vectors, collection_vocabulary

SURROGATE = b"caf\xe9".decode("utf-8", "surrogateescape")   # 'caf\udce9'


def test_the_default_reading_of_a_lone_surrogate_is_a_break():
    assert Tokenizer()(f"{SURROGATE} latte") == ["caf", "latte"]
    assert Tokenizer(stem="porter")("x\udce9y cats") == ["cat"]


def test_a_collection_vocabulary_keeps_a_term_holding_a_lone_surrogate():
    # it failed with UnicodeEncodeError ('surrogates not allowed') in collection_vocabulary
    docs = [f"{SURROGATE} au lait", "the cafe is open", f"open {SURROGATE} now"]
    vec = TextVectorizer("tf", token_pattern=r"\S+").fit(docs)
    stats = collection_vocabulary(vec, docs)
    assert SURROGATE in collection_terms(stats)
    _, collection_vec, X = collection_vectors(vec, docs)
    column = collection_vec.vocabulary_[SURROGATE]
    assert X[:, column].toarray().ravel().tolist() == [1.0, 0.0, 1.0]
    # a real character's bytes are read as before
    assert "lait" in collection_terms(stats) and "cafe" in collection_terms(stats)


@pytest.mark.parametrize("stem", ["porter", "french", "serbian", "arabic_light"])
def test_a_word_holding_a_lone_surrogate_is_its_own_stem(stem):
    # a custom token pattern keeps it in a word, and PyStemmer failed on it with UnicodeEncodeError
    pytest.importorskip("Stemmer")
    tok = Tokenizer(token_pattern=r"\S+", stem=stem)
    terms = tok(f"{SURROGATE}s cats")
    assert terms[0] == f"{SURROGATE}s" and terms[1] == Tokenizer(token_pattern=r"\S+", stem=stem)("cats")[0]
    vec = TextVectorizer(token_pattern=r"\S+", stem=stem).fit([f"{SURROGATE}s cats", "dogs"])
    assert f"{SURROGATE}s" in vec.vocabulary_
